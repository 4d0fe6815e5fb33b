"""Resolve what the user typed (``po``, ``Pod``, ``deployments.apps``) to a resource.

Like kubectl's discovery RESTMapper: core group first, then groups in the
order ``/apis`` lists them, each group's preferred version before its others;
a name matches a plural, then a singular, then a short name, then a kind
(case-insensitively). ``resource.group`` limits the search to one group and
``resource.version.group`` to one group version. Discovery is fetched once per
``ApiClient`` (per run) and reused.
"""

from __future__ import annotations

import re
import threading
import weakref
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

from kubectl_informer.kube import rest
from kubectl_informer.kube.errors import (
    ApiError,
    DiscoveryError,
    RedirectError,
    UnknownResourceError,
    one_line,
)

_VERSION_RE = re.compile(r"^v\d+((alpha|beta)\d+)?$")


@dataclass(frozen=True)
class Resource:
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
    name: str
    preferred: str
    versions: list[str]
    resources: dict[str, list[Resource]] = field(default_factory=dict)  # version -> resources


class Discovery:
    """The server's groups and resources, fetched on first use."""

    def __init__(self, api_client: Any, workers: int = 8):
        self.api_client = api_client
        self.workers = workers
        self._lock = threading.Lock()
        self._groups: list[_Group] | None = None
        self.failed: dict[str, str] = {}  # group/version -> why its discovery failed

    # -- fetching

    def _get(self, path: str) -> Any:
        try:
            return rest.get_json(self.api_client, path, timeout=(30, 60))
        except ConnectionRefusedError:
            host = self.api_client.configuration.host
            raise DiscoveryError(f"the connection to the server {_hostport(host)} was refused - "
                                 "did you specify the right host or port?") from None
        except RedirectError as e:
            raise DiscoveryError(str(e)) from None
        except ConnectionResetError as e:
            raise  # a body cut short: transient, the caller may retry
        except ConnectionError as e:
            raise DiscoveryError(f"unable to connect to the server: {one_line(e)}") from None

    def groups(self) -> list[_Group]:
        with self._lock:
            if self._groups is None:
                self._groups = self._fetch()
            return self._groups

    def _fetch(self) -> list[_Group]:
        groups: list[_Group] = []
        try:
            core = self._get("/api")
            core_versions = list(core.get("versions") or [])
            if core_versions:
                groups.append(_Group("", core_versions[0], core_versions))
            apis = self._get("/apis")
        except ApiError as e:
            raise _discovery_api_error(e) from None
        for g in apis.get("groups") or []:
            versions = [v.get("version") for v in g.get("versions") or [] if v.get("version")]
            preferred = (g.get("preferredVersion") or {}).get("version") or (versions[0] if versions else "")
            if versions:
                groups.append(_Group(g.get("name") or "", preferred, versions))
        jobs = [(g, v) for g in groups for v in g.versions]
        # Group versions are independent requests; a real cluster has 30-60.
        with ThreadPoolExecutor(max_workers=max(1, min(self.workers, len(jobs) or 1))) as pool:
            results = list(pool.map(lambda job: self._fetch_version(*job), jobs))
        for (g, v), res in zip(jobs, results):
            if res is not None:
                g.resources[v] = res
        if groups and groups[0].name == "" and groups[0].preferred not in groups[0].resources:
            why = self.failed.get(groups[0].preferred, "failed")
            raise DiscoveryError(f"cannot discover the core API: {why}")
        return groups

    def _fetch_version(self, group: _Group, version: str) -> list[Resource] | None:
        gv = f"{group.name}/{version}" if group.name else version
        path = f"/apis/{gv}" if group.name else f"/api/{version}"
        try:
            doc = self._get(path)
        except ApiError as e:
            # As kubectl: an aggregated API that is down (503) hides only its group.
            self.failed[gv] = f"{e.status} {e.message or e.reason}"
            if e.status in (401, 403) and not group.name:
                raise _discovery_api_error(e) from None
            return None
        out = []
        for r in doc.get("resources") or []:
            name = r.get("name") or ""
            if not name or "/" in name:  # subresources (pods/log) cannot be listed
                continue
            out.append(Resource(group=group.name, version=version, resource=name, kind=r.get("kind") or "",
                                namespaced=bool(r.get("namespaced")),
                                singular=r.get("singularName") or (r.get("kind") or "").lower(),
                                short_names=tuple(r.get("shortNames") or ()), verbs=tuple(r.get("verbs") or ())))
        return out

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
    for test in (lambda r: r.resource == lower, lambda r: r.singular == lower,
                 lambda r: lower in r.short_names, lambda r: r.kind.lower() == lower):
        for r in candidates:
            if test(r):
                return r
    return None


def _discovery_api_error(e: ApiError) -> DiscoveryError:
    if e.status == 403:
        return DiscoveryError(f"forbidden: cannot discover the server's resources: {e.message or e.reason}")
    if e.status == 401:
        return DiscoveryError("you must be logged in to the server (Unauthorized)")
    err = DiscoveryError(f"discovery failed: {e.status} {e.message or e.reason}")
    err.status = e.status  # a 5xx/429 is worth retrying (kube.retry)
    return err


def _hostport(url: str) -> str:
    return url.split("://", 1)[-1].rstrip("/")


_cache: "weakref.WeakKeyDictionary[Any, Discovery]" = weakref.WeakKeyDictionary()
_cache_lock = threading.Lock()


def get_discovery(api_client: Any) -> Discovery:
    """The per-client (so per-run) discovery cache."""
    with _cache_lock:
        d = _cache.get(api_client)
        if d is None:
            d = _cache[api_client] = Discovery(api_client)
        return d


def resolve_resource(api_client: Any, name: str) -> Resource:
    """Resolve ``name`` as kubectl does; UnknownResourceError (with closest
    matches) if the server has no such resource, DiscoveryError if discovery
    itself fails."""
    return get_discovery(api_client).resolve(name)
