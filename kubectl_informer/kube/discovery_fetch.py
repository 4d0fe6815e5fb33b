"""Asking the API server what it serves: aggregated discovery, else the legacy way.

As client-go's discovery client: ``/api`` and ``/apis`` are asked for with
an Accept that puts aggregated discovery first (``APIGroupDiscoveryList`` of
apidiscovery.k8s.io v2, then v2beta1, then plain JSON). An API server of
v1.26 or later answers each with one document holding every group, version
and resource, and says so in its Content-Type: two requests in all. A server
without it answers the plain ``APIVersions``/``APIGroupList``; only then is
each group version asked for its ``APIResourceList`` (one request each, 25-60
on a real cluster).

Either way the result is a ``Snapshot`` in the legacy shape (an
APIGroupList and one APIResourceList per group version), the shape client-go
converts aggregated discovery into (``SplitGroupsAndResources``) and the shape
kubectl's disk cache holds, so the caches (``discovery_cache``) read and write
the same documents.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kubectl_informer.kube import rest
from kubectl_informer.kube.errors import ApiError, DiscoveryError, RedirectError, one_line

ACCEPT_V2 = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
ACCEPT_V2BETA1 = "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList"
# client-go up to v1.32 offered v2beta1 between the two; v1.33+ offers v2 and
# plain JSON. Offering all three costs nothing and serves servers of v1.26-1.29.
ACCEPT_DISCOVERY = f"{ACCEPT_V2},{ACCEPT_V2BETA1},application/json"
_AGGREGATED_VERSIONS = ("v2", "v2beta1")
TIMEOUT = (30, 60)


@dataclass
class Snapshot:
    """What discovery found, in the legacy documents' shape."""

    groups: list[dict]  # APIGroup entries, the core group ("") first
    resources: dict[str, dict] = field(default_factory=dict)  # groupVersion -> APIResourceList
    failed: dict[str, str] = field(default_factory=dict)  # groupVersion -> why it has no resources
    source: str = "server"  # or "kubectl's cache", "our cache"
    aggregated: bool = False

    def group_list(self) -> dict:
        return {"kind": "APIGroupList", "apiVersion": "v1", "groups": self.groups}


def is_aggregated(content_type: str) -> bool:
    """client-go's ContentTypeIsGVK for the discovery list: JSON with g, v and
    as parameters in any order (a proxy may add a charset)."""
    base, _, rest_ = content_type.partition(";")
    if base.strip().lower() != "application/json":
        return False
    params = {}
    for p in rest_.split(";"):
        k, _, v = p.partition("=")
        params[k.strip().lower()] = v.strip().strip('"')
    return (
        params.get("g") == "apidiscovery.k8s.io"
        and params.get("v") in _AGGREGATED_VERSIONS
        and params.get("as") == "APIGroupDiscoveryList"
    )


def fetch(api_client: Any, workers: int = 8) -> Snapshot:
    """Discovery from the server (see the module's docstring). DiscoveryError
    for a failure the user can act on; a 5xx/429 carries its status."""
    try:
        core, core_type = _get(api_client, "/api", ACCEPT_DISCOVERY, not_found_ok=True)
        apis, apis_type = _get(api_client, "/apis", ACCEPT_DISCOVERY)
    except ApiError as e:
        raise api_error(e) from None
    if is_aggregated(core_type) and is_aggregated(apis_type):
        snap = Snapshot([], aggregated=True)
        for doc in (core, apis):
            split_aggregated(doc, snap)
        return snap
    snap = Snapshot(_legacy_groups(core, core_type, apis, apis_type))
    _fetch_versions(api_client, snap, workers)
    return snap


def _get(api_client: Any, path: str, accept: str, not_found_ok: bool = False) -> tuple[Any, str]:
    try:
        return rest.get_document(api_client, path, accept=accept, timeout=TIMEOUT)
    except ApiError as e:
        # As client-go: an aggregated API server may have no /api.
        if not_found_ok and e.status == 404:
            return {}, ""
        raise
    except ConnectionRefusedError:
        host = api_client.configuration.host
        raise DiscoveryError(
            f"the connection to the server {_hostport(host)} was refused - did you specify the right host or port?"
        ) from None
    except RedirectError as e:
        raise DiscoveryError(str(e)) from None
    except ConnectionResetError:
        raise  # a body cut short: transient, the caller may retry
    except ConnectionError as e:
        raise DiscoveryError(f"unable to connect to the server: {one_line(e)}") from None


def split_aggregated(doc: Any, snap: Snapshot) -> None:
    """An APIGroupDiscoveryList into legacy groups and resource lists, as
    client-go's SplitGroupsAndResources: a version marked Stale is a failed
    group version; its first fresh version is the group's preferred one; a
    resource without a kind is dropped (its subresources still count)."""
    for item in _dicts((doc or {}).get("items") if isinstance(doc, dict) else None):
        name = str(((item.get("metadata") or {}).get("name")) or "")
        versions: list[dict] = []
        for v in _dicts(item.get("versions")):
            version = str(v.get("version") or "")
            if not version:
                continue
            gv = f"{name}/{version}" if name else version
            if v.get("freshness") == "Stale":
                snap.failed[gv] = "stale"
                continue
            versions.append({"groupVersion": gv, "version": version})
            snap.resources[gv] = {
                "kind": "APIResourceList",
                "apiVersion": "v1",
                "groupVersion": gv,
                "resources": _resources_of(v),
            }
        if versions:
            snap.groups.append({"name": name, "versions": versions, "preferredVersion": versions[0]})


def _resources_of(version: dict) -> list[dict]:
    out: list[dict] = []
    for r in _dicts(version.get("resources")):
        kind = _dict(r.get("responseKind"))
        entry = {
            "name": str(r.get("resource") or ""),
            "singularName": str(r.get("singularResource") or ""),
            "namespaced": r.get("scope") == "Namespaced",
            "kind": str(kind.get("kind") or ""),
            "verbs": _strings(r.get("verbs")),
        }
        for key, legacy in (("shortNames", "shortNames"), ("categories", "categories")):
            if r.get(key):
                entry[legacy] = _strings(r.get(key))
        if entry["name"] and entry["kind"]:
            out.append(entry)
        for sub in _dicts(r.get("subresources")):
            sub_kind = _dict(sub.get("responseKind"))
            if sub.get("subresource") and sub_kind.get("kind"):
                out.append(
                    {
                        "name": f"{entry['name']}/{sub['subresource']}",
                        "singularName": entry["singularName"],
                        "namespaced": entry["namespaced"],
                        "kind": str(sub_kind["kind"]),
                        "verbs": _strings(sub.get("verbs")),
                    }
                )
    return out


def _legacy_groups(core: Any, core_type: str, apis: Any, apis_type: str) -> list[dict]:
    """The groups of plain (or, on one side only, aggregated) answers."""
    groups: list[dict] = []
    if is_aggregated(core_type):
        split_aggregated(core, Snapshot(groups))
    else:
        versions = _strings((core or {}).get("versions") if isinstance(core, dict) else None)
        if versions:
            vs = [{"groupVersion": v, "version": v} for v in versions]
            groups.append({"name": "", "versions": vs, "preferredVersion": vs[0]})
    if is_aggregated(apis_type):
        split_aggregated(apis, Snapshot(groups))
    else:
        for g in _dicts((apis or {}).get("groups") if isinstance(apis, dict) else None):
            vs = [v for v in _dicts(g.get("versions")) if v.get("version")]
            if vs:
                preferred = g.get("preferredVersion") if isinstance(g.get("preferredVersion"), dict) else vs[0]
                groups.append({"name": str(g.get("name") or ""), "versions": vs, "preferredVersion": preferred})
    return groups


def _fetch_versions(api_client: Any, snap: Snapshot, workers: int) -> None:
    """One APIResourceList per group version, a few at a time (a real cluster
    has 30-60): the legacy way, for a server without aggregated discovery."""
    jobs = [(g["name"], v["version"]) for g in snap.groups for v in g["versions"]]

    def one(job: tuple[str, str]) -> None:
        group, version = job
        gv = f"{group}/{version}" if group else version
        try:
            doc, _ = _get(api_client, f"/apis/{gv}" if group else f"/api/{version}", "application/json")
        except ApiError as e:
            # As kubectl: an aggregated API that is down (503) hides only its group.
            snap.failed[gv] = f"{e.status} {e.message or e.reason}"
            if e.status in (401, 403) and not group:
                raise api_error(e) from None
            return
        snap.resources[gv] = doc if isinstance(doc, dict) else {}

    from concurrent.futures import ThreadPoolExecutor  # a server without aggregated discovery only (not the sim's)

    with ThreadPoolExecutor(max_workers=max(1, min(workers, len(jobs) or 1))) as pool:
        list(pool.map(one, jobs))


def api_error(e: ApiError) -> DiscoveryError:
    if e.status == 403:
        return DiscoveryError(f"forbidden: cannot discover the server's resources: {e.message or e.reason}")
    if e.status == 401:
        return DiscoveryError("you must be logged in to the server (Unauthorized)")
    err = DiscoveryError(f"discovery failed: {e.status} {e.message or e.reason}")
    err.status = e.status  # a 5xx/429 is worth retrying (kube.retry)
    return err


def _dict(value: Any) -> dict:
    return value if isinstance(value, dict) else {}


def _dicts(value: Any) -> list[dict]:
    return [x for x in value if isinstance(x, dict)] if isinstance(value, list) else []


def _strings(value: Any) -> list[str]:
    return [x for x in value if isinstance(x, str)] if isinstance(value, list) else []


def _hostport(url: str) -> str:
    """HOST:PORT as kubectl names the server (Go's ``url.URL.Host``: no user
    or password, which are credentials)."""
    authority, sep, path = url.split("://", 1)[-1].rstrip("/").partition("/")
    return authority.rpartition("@")[2] + sep + path
