"""Resolve what the user typed (``po``, ``Pod``, ``deployments.apps``) to a resource.

Like kubectl's discovery RESTMapper: core group first, then groups in the
order ``/apis`` lists them, each group's preferred version before its others;
a name matches a plural, then a singular, then a short name, then a kind
(case-insensitively). ``resource.group`` limits the search to one group and
``resource.version.group`` to one group version. Discovery is found once per
``ApiClient`` (per run) and reused: from a fresh disk cache where there is
one, else from the server's aggregated discovery (``discovery_fetch``,
``discovery_cache``).
"""

from __future__ import annotations

import re
import threading
import weakref
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any
from urllib.parse import quote

from kubectl_informer.kube import discovery_fetch
from kubectl_informer.kube.errors import DiscoveryError, UnknownResourceError

_VERSION_RE = re.compile(r"^v\d+((alpha|beta)\d+)?$")


@dataclass(frozen=True)
class Resource:
    """One API resource as discovery describes it."""

    group: str  # "" for the core group
    version: str
    resource: str  # plural, e.g. "pods"
    kind: str
    namespaced: bool
    singular: str = ""
    short_names: tuple[str, ...] = ()
    verbs: tuple[str, ...] = ()

    @property
    def group_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    @property
    def api_version(self) -> str:
        return self.group_version

    @property
    def qualified_name(self) -> str:
        """kubectl's ``resource.group`` spelling (plain plural for core)."""
        return f"{self.resource}.{self.group}" if self.group else self.resource

    def path(self, namespace: str | None = None) -> str:
        """The collection's URL path; all namespaces when ``namespace`` is None."""
        base = f"/apis/{self.group}/{self.version}" if self.group else f"/api/{self.version}"
        if self.namespaced and namespace:
            # Checked where it was read (core.names); quoted as client-go
            # escapes every path segment.
            return f"{base}/namespaces/{quote(namespace, safe='')}/{self.resource}"
        return f"{base}/{self.resource}"


@dataclass
class _Group:
    """An API group: its versions and each version's resources."""

    name: str
    preferred: str
    versions: list[str]
    resources: dict[str, list[Resource]] = field(default_factory=dict)  # version -> resources


def _disk_cache() -> ModuleType:
    from kubectl_informer.kube import discovery_cache

    return discovery_cache


class Discovery:
    """The server's groups and resources, found on first use: from a fresh
    disk cache (kubectl's, else ours: ``discovery_cache``) or from the server
    (``discovery_fetch``: aggregated discovery, two requests), and asked of
    the server once more when a name is not found in what a cache held (a
    CRD created since). ``disk_cache=False`` neither reads nor writes a cache
    (the built-in demo's server lives for one run); ``cache_dir`` is
    kubectl's ``--cache-dir``."""

    def __init__(self, api_client: Any, workers: int = 8, disk_cache: bool = True, cache_dir: str | None = None):
        self.api_client = api_client
        self.workers = workers
        # The cache module (and tempfile under it) is imported only by a run that may use it: not the demo's.
        self.disk_cache = disk_cache and _disk_cache().enabled()
        self.cache_dir = cache_dir
        self._lock = threading.Lock()
        self._groups: list[_Group] | None = None
        self.source = ""  # where the groups came from: "server", "kubectl's cache", "our cache"
        self.failed: dict[str, str] = {}  # group/version -> why its discovery failed

    # -- fetching

    def groups(self) -> list[_Group]:
        with self._lock:
            if self._groups is not None:
                return self._groups
            snap = None
            if self.disk_cache:
                snap = _disk_cache().load(self._host(), self.cache_dir)
            return self._use(snap if snap is not None else self._from_server())

    def refresh(self) -> bool:
        """Ask the server again if what we hold came from a cache; False if
        it came from the server already (asking again would find the same)."""
        with self._lock:
            if self._groups is not None and self.source == "server":
                return False
            self._use(self._from_server())
            return True

    def _host(self) -> str:
        return str(getattr(self.api_client.configuration, "host", "") or "")

    def _from_server(self) -> discovery_fetch.Snapshot:
        snap = discovery_fetch.fetch(self.api_client, self.workers)
        core = next((g for g in snap.groups if not g.get("name")), None)
        if core is not None:
            preferred = (core.get("preferredVersion") or {}).get("groupVersion")
            if preferred not in snap.resources:
                why = snap.failed.get(preferred, "failed") if isinstance(preferred, str) else "failed"
                raise DiscoveryError(f"cannot discover the core API: {why}")
        if self.disk_cache:
            _disk_cache().write_own(self._host(), snap)
        return snap

    def _use(self, snap: discovery_fetch.Snapshot) -> list[_Group]:
        """Hold ``snap``'s groups (and say where they came from); returns them."""
        groups = self._groups = groups_of(snap)
        self.source = snap.source
        self.failed = dict(snap.failed)
        return groups

    # -- lookup

    def ordered(self, group: str | None = None, version: str | None = None) -> list[Resource]:
        """Every resource in kubectl's priority order, optionally one group/version."""
        out = []
        for g in self.groups():
            if group is not None and g.name != group:
                continue
            versions = [g.preferred] + [v for v in g.versions if v != g.preferred]
            for v in versions:
                if version is not None and v != version:
                    continue
                out.extend(g.resources.get(v) or [])
        return out

    def resolve(self, name: str) -> Resource:
        try:
            return self._resolve(name)
        except UnknownResourceError:
            if not self.refresh():
                raise
        return self._resolve(name)

    def _resolve(self, name: str) -> Resource:
        raw = name.strip()
        if not raw:
            raise UnknownResourceError(name)
        parts = raw.split(".")
        if len(parts) >= 3 and _VERSION_RE.match(parts[1]):
            found = _match(self.ordered(".".join(parts[2:]), parts[1]), parts[0])
            if found:
                return found
        if len(parts) >= 2:
            found = _match(self.ordered(".".join(parts[1:])), parts[0])
            if found:
                return found
        found = _match(self.ordered(), raw)
        if found:
            return found
        raise UnknownResourceError(raw, self.suggest(raw))

    def suggest(self, name: str, n: int = 3) -> list[str]:
        import difflib  # only an unknown name needs it

        names: dict[str, str] = {}  # candidate spelling -> what we suggest
        for r in self.ordered():
            for spelling in (r.resource, r.singular, *r.short_names, r.kind.lower(), r.qualified_name):
                if spelling:
                    names.setdefault(spelling.lower(), r.resource)
        out: list[str] = []
        for m in difflib.get_close_matches(name.lower(), list(names), n=n * 3, cutoff=0.6):
            if names[m] not in out:
                out.append(names[m])
        return out[:n]


def _match(candidates: list[Resource], name: str) -> Resource | None:
    lower = name.lower()
    for test in (
        lambda r: r.resource == lower,
        lambda r: r.singular == lower,
        lambda r: lower in r.short_names,
        lambda r: r.kind.lower() == lower,
    ):
        for r in candidates:
            if test(r):
                return r
    return None


def groups_of(snap: discovery_fetch.Snapshot) -> list[_Group]:
    """The lookup's groups from a snapshot's legacy documents, in its order."""
    out: list[_Group] = []
    for g in snap.groups:
        name = str(g.get("name") or "")
        versions = [str(v.get("version")) for v in g.get("versions") or [] if isinstance(v, dict) and v.get("version")]
        if not versions:
            continue
        preferred = (
            (g.get("preferredVersion") or {}).get("version") if isinstance(g.get("preferredVersion"), dict) else None
        )
        group = _Group(name, preferred if preferred in versions else versions[0], versions)
        for v in versions:
            doc = snap.resources.get(f"{name}/{v}" if name else v)
            if doc is not None:
                group.resources[v] = _resources(name, v, doc)
        out.append(group)
    return out


def _resources(group: str, version: str, doc: dict) -> list[Resource]:
    out = []
    for r in doc.get("resources") or []:
        name = r.get("name") if isinstance(r, dict) else None
        if not isinstance(name, str) or not name or "/" in name:  # subresources (pods/log) cannot be listed
            continue
        kind = str(r.get("kind") or "")
        out.append(
            Resource(
                group=group,
                version=version,
                resource=name,
                kind=kind,
                namespaced=bool(r.get("namespaced")),
                singular=str(r.get("singularName") or kind.lower()),
                short_names=tuple(x for x in r.get("shortNames") or () if isinstance(x, str)),
                verbs=tuple(x for x in r.get("verbs") or () if isinstance(x, str)),
            )
        )
    return out


_cache: weakref.WeakKeyDictionary[Any, Discovery] = weakref.WeakKeyDictionary()
_cache_lock = threading.Lock()


def get_discovery(api_client: Any, disk_cache: bool = True, cache_dir: str | None = None) -> Discovery:
    """The per-client (so per-run) discovery; the first call's settings hold."""
    with _cache_lock:
        d = _cache.get(api_client)
        if d is None:
            d = _cache[api_client] = Discovery(api_client, disk_cache=disk_cache, cache_dir=cache_dir)
        return d


def resolve_resource(api_client: Any, name: str, disk_cache: bool = True, cache_dir: str | None = None) -> Resource:
    """Resolve ``name`` as kubectl does; UnknownResourceError (with closest
    matches) if the server has no such resource, DiscoveryError if discovery
    itself fails."""
    return get_discovery(api_client, disk_cache, cache_dir).resolve(name)
