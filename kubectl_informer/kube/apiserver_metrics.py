"""The API server's own view of a resource's watch, read from its ``/metrics``.

One GET of ``/metrics`` (a non-resource URL: RBAC ``nonResourceURLs:
["/metrics"], verbs: ["get"]``), read as it arrives: only the lines of the
families below are kept (a busy API server's page is tens of megabytes of
request-latency histograms), the rest is skipped unparsed, and the whole body
is capped (``MAX_METRICS_BODY``). The kept lines go to prometheus_client's
text parser. One scrape serves every resource of the run (``figures_for_all``).

Names and labels as kube-apiserver writes them, 1.30 to 1.36 (k8s.io/apiserver
pkg/storage/cacher/metrics, pkg/storage/etcd3/metrics, pkg/endpoints/metrics):

- the watch cache's families carry ``group`` and ``resource`` ("" and "pods",
  "apps" and "deployments") since 1.34; up to 1.33 only ``resource``, the
  group-qualified name (``schema.GroupResource.String()``: "pods",
  "deployments.apps"). Both shapes are read.
- ``apiserver_watch_cache_resource_version`` and
  ``apiserver_watch_cache_consistent_read_total`` exist since 1.31. Up to
  1.33 the consistent-read counter's ``resource`` is the cacher's
  ``resourcePrefix``, the resource's etcd key prefix ("/pods",
  "/deployments", "/minions" for nodes, "/<group>/<plural>" for a custom
  resource), not the group-qualified name. Its ``success`` and ``fallback``
  labels (set in the cacher's delegator ``GetList``): served from the cache
  only with ``success="true",fallback="false"``; ``fallback="true"``: the
  cache did not catch up in time and etcd answered; ``success="false"``: the
  read failed.
- the cache's capacity is ``watch_cache_capacity`` (no ``apiserver_``
  prefix: its definition sets no namespace); slow watchers the cache closed,
  ``apiserver_terminated_watchers_total``.
- ``apiserver_storage_objects`` carries only ``resource`` ("pods",
  "deployments.apps"); deprecated in 1.34 for ``apiserver_resource_objects``
  (``group``, ``resource``), hidden in 1.36.
- ``apiserver_longrunning_requests`` carries verb, group, version, resource,
  subresource, scope and component in every version.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from kubectl_informer.kube.limits import MAX_METRICS_BODY

RESOURCE_VERSION = "apiserver_watch_cache_resource_version"
EVENTS_RECEIVED = "apiserver_watch_cache_events_received_total"
EVENTS_DISPATCHED = "apiserver_watch_cache_events_dispatched_total"
INITIALIZATIONS = "apiserver_watch_cache_initializations_total"
CONSISTENT_READS = "apiserver_watch_cache_consistent_read_total"
READ_WAIT = "apiserver_watch_cache_read_wait_seconds"
CAPACITY = "watch_cache_capacity"
TERMINATED_WATCHERS = "apiserver_terminated_watchers_total"
LONGRUNNING = "apiserver_longrunning_requests"
RESOURCE_OBJECTS = "apiserver_resource_objects"
STORAGE_OBJECTS = "apiserver_storage_objects"
FAMILIES = (
    RESOURCE_VERSION,
    EVENTS_RECEIVED,
    EVENTS_DISPATCHED,
    INITIALIZATIONS,
    CONSISTENT_READS,
    READ_WAIT,
    CAPACITY,
    TERMINATED_WATCHERS,
    LONGRUNNING,
    RESOURCE_OBJECTS,
    STORAGE_OBJECTS,
)
# The watch cache's own families: their label shape tells the server's version apart.
_CACHE_FAMILIES = frozenset(
    {
        RESOURCE_VERSION,
        EVENTS_RECEIVED,
        EVENTS_DISPATCHED,
        INITIALIZATIONS,
        CONSISTENT_READS,
        READ_WAIT + "_bucket",
        CAPACITY,
        TERMINATED_WATCHERS,
    }
)

# kube-apiserver's etcd key prefixes that are not the resource's name
# (pkg/kubeapiserver SpecialDefaultResourcePrefixes): the consistent-read
# counter's resource label up to 1.33.
SPECIAL_PREFIXES = {
    ("", "replicationcontrollers"): "controllers",
    ("", "endpoints"): "services/endpoints",
    ("", "nodes"): "minions",
    ("", "services"): "services/specs",
    ("extensions", "ingresses"): "ingress",
    ("networking.k8s.io", "ingresses"): "ingress",
}
# Groups kube-apiserver serves itself (keyed by resource alone); any other
# group's resources (custom resources, aggregated APIs) are keyed "<group>/<resource>".
BUILTIN_GROUPS = frozenset(
    {
        "",
        "apps",
        "batch",
        "autoscaling",
        "policy",
        "extensions",
        "admissionregistration.k8s.io",
        "certificates.k8s.io",
        "coordination.k8s.io",
        "discovery.k8s.io",
        "events.k8s.io",
        "flowcontrol.apiserver.k8s.io",
        "internal.apiserver.k8s.io",
        "networking.k8s.io",
        "node.k8s.io",
        "rbac.authorization.k8s.io",
        "resource.k8s.io",
        "scheduling.k8s.io",
        "storage.k8s.io",
        "storagemigration.k8s.io",
    }
)

METRICS_PATH = "/metrics"
ACCEPT_TEXT = "text/plain;version=0.0.4;q=1,*/*;q=0.1"
METRICS_RULE = 'nonResourceURLs: ["/metrics"], verbs: ["get"]'

SHAPE_GROUP = "group"  # 1.34+: {group="apps",resource="deployments"}
SHAPE_QUALIFIED = "qualified"  # 1.30-1.33: {resource="deployments.apps"}


def _wanted(line: bytes) -> bool:
    if line.startswith(b"# "):  # HELP and TYPE lines of the families kept
        parts = line.split(b" ", 3)
        return len(parts) >= 3 and parts[2].decode("ascii", "replace").startswith(FAMILIES)
    return line.startswith(tuple(f.encode() for f in FAMILIES))


def kept_lines(pieces: Iterable[bytes]) -> Iterator[str]:
    """The lines of the wanted families, from a body arriving in pieces."""
    rest = b""
    for piece in pieces:
        lines = (rest + piece).split(b"\n")
        rest = lines.pop()
        for line in lines:
            if _wanted(line):
                yield line.decode("utf-8", "replace")
    if rest and _wanted(rest):
        yield rest.decode("utf-8", "replace")


def storage_prefix(group: str, resource: str) -> str:
    """The cacher's ``resourcePrefix`` for a resource, as kube-apiserver
    sets it (the consistent-read counter's ``resource`` label up to 1.33)."""
    if group in BUILTIN_GROUPS:
        return "/" + SPECIAL_PREFIXES.get((group, resource), resource)
    return f"/{group}/{resource}"


@dataclass
class ResourceFigures:
    """One scrape's figures for one resource (None: the page had none)."""

    cache_rv: str = ""
    events_received: float | None = None
    events_dispatched: float | None = None
    initialisations: int | None = None
    consistent_reads_cache: int | None = None  # success="true", fallback="false"
    consistent_reads_fallback: int | None = None  # fallback="true" (etcd answered, or failed after)
    consistent_reads_failed: int | None = None  # success="false"
    read_wait_buckets: list[tuple[float, float]] = field(default_factory=list)  # (le, cumulative count)
    capacity: int | None = None
    terminated_watchers: int | None = None
    open_watches: int | None = None
    objects: int | None = None
    shape: str = ""  # SHAPE_GROUP, SHAPE_QUALIFIED, or "" (no watch-cache series for it)


def _add(current: float | None, value: float) -> float:
    return value if current is None else current + value


def _int(v: float | None) -> int | None:
    return None if v is None else int(v)


class _Reader:
    """One resource's figures, taken sample by sample."""

    def __init__(self, group: str, resource: str) -> None:
        self.group, self.resource = group, resource
        self.qualified = f"{resource}.{group}" if group else resource
        self.prefix = storage_prefix(group, resource)
        self.out = ResourceFigures()
        self.sums: dict[str, float | None] = dict.fromkeys(
            ("cache", "fallback", "failed", "watches", "new_objects", "old_objects")
        )

    def _ours(self, name: str, labels: dict[str, str]) -> bool:
        """Whether a watch-cache series is this resource's, in either label shape."""
        if "group" in labels:
            ok = labels.get("group") == self.group and labels.get("resource") == self.resource
            shape = SHAPE_GROUP
        else:
            wanted = self.prefix if name == CONSISTENT_READS else self.qualified
            ok, shape = labels.get("resource") == wanted, SHAPE_QUALIFIED
        if ok and name in _CACHE_FAMILIES:
            self.out.shape = self.out.shape or shape
        return ok

    def take(self, name: str, labels: dict[str, str], value: float) -> None:
        out, sums = self.out, self.sums
        if name == STORAGE_OBJECTS:
            if labels.get("resource") == self.qualified:
                sums["old_objects"] = value
            return
        if name == LONGRUNNING:
            if (
                labels.get("group", "") == self.group
                and labels.get("resource") == self.resource
                and labels.get("verb") == "WATCH"
                and not labels.get("subresource")
            ):
                sums["watches"] = _add(sums["watches"], value)
            return
        if not self._ours(name, labels):
            return
        if name == RESOURCE_VERSION:
            out.cache_rv = str(int(value)) if math.isfinite(value) and value >= 0 else ""
        elif name == EVENTS_RECEIVED:
            out.events_received = _add(out.events_received, value)
        elif name == EVENTS_DISPATCHED:
            out.events_dispatched = _add(out.events_dispatched, value)
        elif name == INITIALIZATIONS:
            out.initialisations = int(value)
        elif name == CONSISTENT_READS:
            key = (
                "failed"
                if labels.get("success") == "false"
                else "fallback"
                if labels.get("fallback") == "true"
                else "cache"
            )
            sums[key] = _add(sums[key], value)
        elif name == READ_WAIT + "_bucket":
            out.read_wait_buckets.append((float(labels.get("le", "inf")), value))
        elif name == CAPACITY:
            out.capacity = int(value)
        elif name == TERMINATED_WATCHERS:
            out.terminated_watchers = int(value)
        elif name == RESOURCE_OBJECTS:
            sums["new_objects"] = value

    def done(self) -> ResourceFigures:
        out, sums = self.out, self.sums
        out.consistent_reads_cache = _int(sums["cache"])
        out.consistent_reads_fallback = _int(sums["fallback"])
        out.consistent_reads_failed = _int(sums["failed"])
        out.open_watches = _int(sums["watches"])
        # apiserver_resource_objects where it is served, else the deprecated one (-1: the count failed).
        count = sums["new_objects"] if sums["new_objects"] is not None else sums["old_objects"]
        out.objects = None if count is None or count < 0 else int(count)
        out.read_wait_buckets.sort()
        self._zeros()
        return out

    def _zeros(self) -> None:
        """A counter vector writes a series only once it is counted: where
        the page shows the resource's watch cache, a counter its version
        registers but the page lacks is 0, not unknown. Every version counts
        events and terminated watchers; consistent reads from 1.31, told by
        its other 1.31 series (the cache's RV) or the 1.34 label shape."""
        out = self.out
        if not out.shape:
            return
        out.events_received = out.events_received or 0
        out.events_dispatched = out.events_dispatched or 0
        out.terminated_watchers = out.terminated_watchers or 0
        if out.shape == SHAPE_GROUP or out.cache_rv:
            out.consistent_reads_cache = out.consistent_reads_cache or 0
            out.consistent_reads_fallback = out.consistent_reads_fallback or 0
            out.consistent_reads_failed = out.consistent_reads_failed or 0


def figures_for_all(
    lines: Iterable[str], resources: Iterable[tuple[str, str]]
) -> dict[tuple[str, str], ResourceFigures]:
    """The figures of each (group, resource) in the kept lines. ValueError
    when they are not the Prometheus text format."""
    # Imported here: prometheus_client costs half a second to import, and a
    # --demo run (which reads the simulator, not /metrics) never needs it.
    from prometheus_client.parser import text_string_to_metric_families

    readers = [_Reader(g, r) for g, r in dict.fromkeys(resources)]
    for family in text_string_to_metric_families("\n".join(lines) + "\n"):
        for s in family.samples:
            for reader in readers:
                reader.take(s.name, s.labels, s.value)
    return {(r.group, r.resource): r.done() for r in readers}


def figures_for(lines: Iterable[str], group: str, resource: str) -> ResourceFigures:
    """The figures of ``group``/``resource`` in the kept lines."""
    return figures_for_all(lines, [(group, resource)])[(group, resource)]


def _fmt(x: float) -> str:
    return "+Inf" if math.isinf(x) else f"{x:g}"


def p99_from_buckets(buckets: list[tuple[float, float]]) -> tuple[float | None, str]:
    """The 99th percentile of a histogram's cumulative buckets, estimated
    as Prometheus's histogram_quantile does (linear within the bucket it
    falls in), and that bucket as "lo-le". (None, "") with no observations;
    in the +Inf bucket the estimate is its lower edge."""
    if not buckets or buckets[-1][1] <= 0:
        return None, ""
    target = 0.99 * buckets[-1][1]
    lo, below = 0.0, 0.0
    for le, cum in buckets:
        if cum >= target:
            if math.isinf(le):
                return lo, f"{_fmt(lo)}-+Inf"
            share = 0.0 if cum == below else (target - below) / (cum - below)
            return lo + (le - lo) * share, f"{_fmt(lo)}-{_fmt(le)}"
        lo, below = le, cum
    return None, ""


def scrape_all(api_client: Any, resources: list[tuple[str, str]]) -> dict[tuple[str, str], ResourceFigures]:
    """GET /metrics and read each (group, resource)'s figures. Raises
    ApiError (a 403 says the user may not read it), OSError for transport
    failures, TooLargeError past MAX_METRICS_BODY, ValueError for a page
    that is not the Prometheus text format."""
    from kubectl_informer.kube.rest import get_body

    with get_body(
        api_client, METRICS_PATH, accept=ACCEPT_TEXT, max_bytes=MAX_METRICS_BODY, what="the metrics page"
    ) as pieces:
        lines = list(kept_lines(pieces))
    return figures_for_all(lines, resources)


def scrape(api_client: Any, group: str, resource: str) -> ResourceFigures:
    """``scrape_all`` for one resource."""
    return scrape_all(api_client, [(group, resource)])[(group, resource)]
