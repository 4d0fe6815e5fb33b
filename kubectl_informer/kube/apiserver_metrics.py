"""The API server's own view of a resource's watch, read from its ``/metrics``.

One GET of ``/metrics`` (a non-resource URL: RBAC ``nonResourceURLs:
["/metrics"], verbs: ["get"]``), read as it arrives: only the lines of the
families below are kept (a busy API server's page is tens of megabytes of
request-latency histograms), the rest is skipped unparsed, and the whole body
is capped (``MAX_METRICS_BODY``). The kept lines go to prometheus_client's
text parser.

Names and labels as kube-apiserver v1.36 writes them (k8s.io/apiserver
pkg/storage/cacher/metrics, pkg/storage/etcd3/metrics, pkg/endpoints/metrics):
the watch cache's families carry ``group`` and ``resource`` ("" and "pods",
"apps" and "deployments"); ``apiserver_storage_objects`` (deprecated in
1.34 for ``apiserver_resource_objects``) carries only ``resource``, as
"pods" or "deployments.apps"; ``apiserver_longrunning_requests`` carries
verb, group, version, resource, subresource, scope and component.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Iterable, Iterator

from kubectl_informer.kube.limits import MAX_METRICS_BODY

RESOURCE_VERSION = "apiserver_watch_cache_resource_version"
EVENTS_RECEIVED = "apiserver_watch_cache_events_received_total"
EVENTS_DISPATCHED = "apiserver_watch_cache_events_dispatched_total"
INITIALIZATIONS = "apiserver_watch_cache_initializations_total"
CONSISTENT_READS = "apiserver_watch_cache_consistent_read_total"
READ_WAIT = "apiserver_watch_cache_read_wait_seconds"
LONGRUNNING = "apiserver_longrunning_requests"
RESOURCE_OBJECTS = "apiserver_resource_objects"
STORAGE_OBJECTS = "apiserver_storage_objects"
FAMILIES = (RESOURCE_VERSION, EVENTS_RECEIVED, EVENTS_DISPATCHED, INITIALIZATIONS, CONSISTENT_READS, READ_WAIT,
            LONGRUNNING, RESOURCE_OBJECTS, STORAGE_OBJECTS)

METRICS_PATH = "/metrics"
ACCEPT_TEXT = "text/plain;version=0.0.4;q=1,*/*;q=0.1"
METRICS_RULE = 'nonResourceURLs: ["/metrics"], verbs: ["get"]'


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


@dataclass
class ResourceFigures:
    """One scrape's figures for one resource (None: the page had none)."""

    cache_rv: str = ""
    events_received: float | None = None
    events_dispatched: float | None = None
    initialisations: int | None = None
    consistent_reads_cache: int | None = None
    consistent_reads_fallback: int | None = None
    read_wait_buckets: list[tuple[float, float]] = field(default_factory=list)  # (le, cumulative count)
    open_watches: int | None = None
    objects: int | None = None


def _add(current: float | None, value: float) -> float:
    return value if current is None else current + value


def _int(v: float | None) -> int | None:
    return None if v is None else int(v)


def figures_for(lines: Iterable[str], group: str, resource: str) -> ResourceFigures:
    """The figures of ``group``/``resource`` in the kept lines. ValueError
    when they are not the Prometheus text format."""
    # Imported here: prometheus_client costs half a second to import, and a
    # --demo run (which reads the simulator, not /metrics) never needs it.
    from prometheus_client.parser import text_string_to_metric_families

    out = ResourceFigures()
    sums: dict[str, float | None] = {"cache": None, "fallback": None, "watches": None, "new_objects": None,
                                     "old_objects": None}
    qualified = f"{resource}.{group}" if group else resource
    for family in text_string_to_metric_families("\n".join(lines) + "\n"):
        for s in family.samples:
            _take(out, sums, s.name, s.labels, s.value, group, resource, qualified)
    out.consistent_reads_cache = _int(sums["cache"])
    out.consistent_reads_fallback = _int(sums["fallback"])
    out.open_watches = _int(sums["watches"])
    # apiserver_resource_objects where it is served, else the deprecated one (-1: the count failed).
    count = sums["new_objects"] if sums["new_objects"] is not None else sums["old_objects"]
    out.objects = None if count is None or count < 0 else int(count)
    out.read_wait_buckets.sort()
    return out


def _take(out: ResourceFigures, sums: dict[str, Any], name: str, labels: dict[str, str], value: float,
          group: str, resource: str, qualified: str) -> None:
    if name == STORAGE_OBJECTS:
        if labels.get("resource") == qualified:
            sums["old_objects"] = value
        return
    if labels.get("group") != group or labels.get("resource") != resource:
        return
    if name == RESOURCE_VERSION:
        out.cache_rv = str(int(value)) if math.isfinite(value) else ""
    elif name == EVENTS_RECEIVED:
        out.events_received = _add(out.events_received, value)
    elif name == EVENTS_DISPATCHED:
        out.events_dispatched = _add(out.events_dispatched, value)
    elif name == INITIALIZATIONS:
        out.initialisations = int(value)
    elif name == CONSISTENT_READS:
        key = "fallback" if labels.get("fallback") == "true" else "cache"
        sums[key] = _add(sums[key], value)
    elif name == READ_WAIT + "_bucket":
        out.read_wait_buckets.append((float(labels.get("le", "inf")), value))
    elif name == LONGRUNNING:
        if labels.get("verb") == "WATCH" and not labels.get("subresource"):
            sums["watches"] = _add(sums["watches"], value)
    elif name == RESOURCE_OBJECTS:
        sums["new_objects"] = value


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


def scrape(api_client: Any, group: str, resource: str) -> ResourceFigures:
    """GET /metrics and read the resource's figures. Raises ApiError (a 403
    says the user may not read it), OSError for transport failures,
    TooLargeError past MAX_METRICS_BODY, ValueError for a page that is not
    the Prometheus text format."""
    from kubectl_informer.kube.rest import get_body
    with get_body(api_client, METRICS_PATH, accept=ACCEPT_TEXT, max_bytes=MAX_METRICS_BODY,
                  what="the metrics page") as pieces:
        lines = list(kept_lines(pieces))
    return figures_for(lines, group, resource)
