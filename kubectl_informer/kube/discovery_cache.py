"""Discovery from disk: kubectl's cache, read only, and one of our own.

kubectl keeps what discovery found under ``<cache dir>/discovery/<host>/``:
``servergroups.json`` (an APIGroupList) and ``<group>/<version>/
serverresources.json`` (an APIResourceList each), for 6 hours by each file's
modification time. The cache dir is ``--cache-dir``, else ``$KUBECACHEDIR``,
else ``~/.kube/cache``; ``<host>`` is the server URL without its scheme, each
character other than a letter, digit, ``_``, ``/``, ``.``, ``(`` or ``)``
turned into ``_`` (``https://127.0.0.1:6443`` -> ``127.0.0.1_6443``), as
kubectl's ``computeDiscoverCacheDir`` names it. v1.26+ kubectl, which asks
for aggregated discovery, still writes these legacy files (client-go splits
the aggregated answer into them), so one reader serves every version.

We never write, create or touch anything there. Where kubectl's cache is
missing or stale, ours is read: the same files under
``$XDG_CACHE_HOME/kubectl-informer/discovery/<host>/`` (``~/.cache`` by
default), same 6 hours, written after each discovery from the server,
atomically (a temporary file renamed), files 0600 and directories 0700. It
holds what the server publishes about its types and nothing else: no token,
no certificate; its directory name drops any user:password in the URL.

``KUBECTL_INFORMER_DISCOVERY_CACHE=0`` turns both off (every run asks the
server): for a cache known to be wrong, and for the tests, whose servers
reuse each other's ports.

A file larger than ``MAX_FILE``, not JSON, or not the document expected
makes the whole cache unusable (discovery asks the server), never an error.
"""

from __future__ import annotations

import contextlib
import os
import re
import time
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import orjson

from kubectl_informer.core.private_files import write_private
from kubectl_informer.kube.discovery_fetch import Snapshot

TTL = 6 * 3600.0  # kubectl's: ToDiscoveryClient's 6 hours
# A real cluster's servergroups.json is ~10 KB and the largest resource list
# (core v1) ~6 KB; anything near this is not a discovery document.
MAX_FILE = 4 << 20
GROUPS_FILE = "servergroups.json"
RESOURCES_FILE = "serverresources.json"
KUBECTL_CACHE = "kubectl's cache"
OWN_CACHE = "our cache"

SWITCH_ENV = "KUBECTL_INFORMER_DISCOVERY_CACHE"

_UNSAFE = re.compile(r"[^(\w/.)]", re.ASCII)  # kubectl's overlyCautiousIllegalFileCharacters
# A group version as a cache file may name it: it becomes a path, so nothing
# else is followed (no "..", no absolute path).
_GROUP_VERSION = re.compile(r"^([a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?/)?[a-z0-9]{1,63}$")


def enabled() -> bool:
    return os.environ.get(SWITCH_ENV, "").strip().lower() not in ("0", "off", "false", "no")


def host_dir_name(host: str) -> str:
    """kubectl's ``computeDiscoverCacheDir`` name for a server URL: the first
    "https://" and the first "http://" removed, then unsafe characters to _."""
    return _UNSAFE.sub("_", host.replace("https://", "", 1).replace("http://", "", 1))


def _under(parent: str, name: str) -> str | None:
    """``parent/name`` cleaned as Go's filepath.Join does; None if it would
    leave ``parent`` (a server URL with a path of "..")."""
    parent = os.path.normpath(parent)
    path = os.path.normpath(parent + os.sep + name)
    return path if path.startswith(parent + os.sep) else None


def kubectl_dir(host: str, cache_dir: str | None = None) -> str | None:
    """Where kubectl keeps discovery for ``host`` (``--cache-dir`` given as
    ``cache_dir``, else $KUBECACHEDIR, else ~/.kube/cache)."""
    parent = cache_dir or os.environ.get("KUBECACHEDIR") or os.path.join(os.path.expanduser("~"), ".kube", "cache")
    return _under(os.path.join(parent, "discovery"), host_dir_name(host))


def own_root() -> str:
    """$XDG_CACHE_HOME (when absolute, as the XDG spec asks) or ~/.cache,
    then kubectl-informer: every directory from here down is ours, 0700."""
    base = os.environ.get("XDG_CACHE_HOME") or ""
    if not os.path.isabs(base):
        base = os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "kubectl-informer")


def own_dir(host: str) -> str | None:
    """Our cache for ``host``: <own_root>/discovery/<host>."""
    parts = urlsplit(host)
    if parts.username is not None or parts.password is not None:  # never a credential in a path
        host = urlunsplit(parts._replace(netloc=parts.netloc.rpartition("@")[2]))
    return _under(os.path.join(own_root(), "discovery"), host_dir_name(host))


def load(host: str, cache_dir: str | None = None, now: float | None = None) -> Snapshot | None:
    """Discovery from kubectl's cache, else ours, where fresh; else None."""
    for directory, source in ((kubectl_dir(host, cache_dir), KUBECTL_CACHE), (own_dir(host), OWN_CACHE)):
        snap = read(directory, source, now) if directory else None
        if snap is not None:
            return snap
    return None


def read(directory: str, source: str, now: float | None = None) -> Snapshot | None:
    """The cache in ``directory`` if its group list and every resource list
    present are fresh and well formed. A group version without a file (kubectl
    writes none for a version with no resources) has no resources here; a
    resource looked for there is then not found, and discovery asks the server."""
    now = time.time() if now is None else now
    doc = _read_doc(os.path.join(directory, GROUPS_FILE), "APIGroupList", now)
    if doc is None or not isinstance(doc.get("groups"), list):
        return None
    snap = Snapshot([g for g in doc["groups"] if isinstance(g, dict)], source=source)
    for group in snap.groups:
        for v in group.get("versions") or []:
            gv = v.get("groupVersion") if isinstance(v, dict) else None
            if not isinstance(gv, str) or not _GROUP_VERSION.match(gv):
                return None
            path = os.path.join(directory, *gv.split("/"), RESOURCES_FILE)
            if not os.path.lexists(path):
                continue
            resources = _read_doc(path, "APIResourceList", now)
            if resources is None:
                return None
            snap.resources[gv] = resources
    core = next((g for g in snap.groups if not g.get("name")), None)
    if core is not None and _preferred(core) not in snap.resources:
        return None  # no core resources: not worth trusting
    return snap


def _preferred(group: dict) -> str | None:
    pv = group.get("preferredVersion")
    return pv.get("groupVersion") if isinstance(pv, dict) else None


def _read_doc(path: str, kind: str, now: float) -> dict | None:
    """One cache file, if fresh, at most MAX_FILE bytes, and a ``kind`` document."""
    try:
        with open(path, "rb") as f:
            if os.fstat(f.fileno()).st_mtime + TTL < now:
                return None
            raw = f.read(MAX_FILE + 1)
    except OSError:
        return None
    if len(raw) > MAX_FILE:
        return None
    try:
        doc = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return None
    return doc if isinstance(doc, dict) and doc.get("kind") == kind else None


def write_own(host: str, snap: Snapshot) -> bool:
    """Keep ``snap`` (fresh from the server) in our cache; False if it could
    not be written (a read-only home, a full disk): the run goes on without."""
    directory = own_dir(host)
    if directory is None or snap.source != "server":
        return False
    files = [(os.path.join(directory, GROUPS_FILE), snap.group_list())]
    files += [
        (os.path.join(directory, *gv.split("/"), RESOURCES_FILE), resources)
        for gv, resources in snap.resources.items()
        if _GROUP_VERSION.match(gv) and resources.get("resources")
    ]
    try:
        for path, doc in files:
            _private_dirs(own_root(), os.path.dirname(path))
            _write(path, doc)
    except OSError:
        return False
    return True


def _private_dirs(root: str, directory: str) -> None:
    """``directory`` and each directory between it and ``root`` (itself
    included) made, or kept, 0700; the parents of ``root`` are the user's."""
    os.makedirs(os.path.dirname(os.path.normpath(root)), exist_ok=True)
    path = os.path.normpath(root)
    rel = os.path.relpath(directory, path)
    for part in [""] + ([] if rel == "." else rel.split(os.sep)):
        path = os.path.join(path, part) if part else path
        with contextlib.suppress(FileExistsError):
            os.mkdir(path, 0o700)
        os.chmod(path, 0o700)


def _write(path: str, doc: Any) -> None:
    # A private file renamed into place (core.private_files): never through a
    # symbolic link, a reader never sees half a document.
    write_private(path, orjson.dumps(doc))
