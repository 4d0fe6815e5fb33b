"""A client-go 1.36 process's informers, and its controllers' stale-sync skips.

What a 1.36 process exports for each informer it runs (k8s.io/component-base
``metrics/prometheus/clientgo/fifo``, installed by client-go's
``cache.SetInformerMetricsProvider``), labels ``name`` (the factory's
``InformerName``), ``group``, ``version``, ``resource``:

- ``informer_queued_items``: items in the informer's FIFO now;
- ``informer_processing_latency_seconds``: a histogram (buckets 1 ms .. 10 s)
  of the time handlers took on what was popped, so its count is the pops;
- ``informer_store_resource_version``: the 15 least significant digits of
  the store's resource version (``parseRVForMetricsWithTruncation``).

client-go creates these only for an informer whose name is reserved
(``InformerName.WithResource``), and the store's gauge only when the
informer is given an ``InformerMetricsProvider`` itself (``NewIndexer``
with ``WithStoreMetrics``; a nil provider leaves the store's metrics a
no-op): the shared informer factory passes none, so kube-controller-manager
v1.36.2 serves the first two for its 55 informers and no store RV.

The ``resource`` label is what informer-gen wrote: the lower-case kind plus
``s`` ("ingresss", "networkpolicys", "endpointss"), shown as it is.

kube-controller-manager's ReplicaSet, DaemonSet, StatefulSet and Job
controllers count ``<controller>_stale_sync_skips_total{group,resource}``:
syncs skipped because the informer had not yet seen the controller's own
last write (``pkg/controller/util/consistency``, ``EnsureReady``).

An informer's lag is the API server's watch-cache RV for its resource
(``apiserver_watch_cache_resource_version``) minus its store's RV: a
difference of resource versions, which count every write to the cluster
(etcd's revision), not events of this resource.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field

from kubectl_informer.attach.counters import increase
from kubectl_informer.attach.page import Histogram, Page
from kubectl_informer.attach.quantile import window_percentiles

QUEUED = "informer_queued_items"
LATENCY = "informer_processing_latency_seconds"
STORE_RV = "informer_store_resource_version"
STALE_SKIPS = "_stale_sync_skips_total"
LABELS = ("name", "group", "version", "resource")
HISTORY = 120

Key = tuple[str, str, str, str]  # (name, group, version, resource)


@dataclass
class InformerPoint:
    queued: float = 0.0
    latency: Histogram | None = None
    store_rv: int | None = None


def reduce_informers(page: Page) -> dict[Key, InformerPoint]:
    """One point per informer on the page (none on an older process's)."""
    queued = page.by_labels(QUEUED, LABELS)
    latency = page.histograms_by(LATENCY, LABELS)
    store = page.by_labels(STORE_RV, LABELS)
    return {
        _key(k): InformerPoint(queued.get(k, 0.0), latency.get(k), int(store[k]) if k in store else None)
        for k in set(queued) | set(latency) | set(store)
    }


def _key(values: tuple[str, ...]) -> Key:
    """The four LABELS' values Page.by_labels gave, as a Key."""
    name, group, version, resource = values
    return name, group, version, resource


def reduce_stale_skips(page: Page) -> dict[tuple[str, str, str], float]:
    """(controller, group, resource) -> skips so far; the controller is the
    metric's prefix (``replicaset_controller``)."""
    out = {}
    for name in page.names_ending(STALE_SKIPS):
        controller = name[: -len(STALE_SKIPS)]
        for (group, resource), v in page.by_labels(name, ("group", "resource")).items():
            out[(controller, group, resource)] = v
    return out


def has_informer_series(page: Page) -> bool:
    return page.has(QUEUED) or page.has(LATENCY + "_count") or page.has(STORE_RV)


@dataclass
class InformerFigures:
    name: str
    group: str
    version: str
    resource: str
    queued: float = 0.0
    processed_total: float = 0.0  # the histogram's count: one per item popped
    processed_per_s: float = 0.0
    rated: bool = False  # a rate needs two scrapes: until then it is shown as "–", not 0
    latency_p50: float | None = None
    latency_p99: float | None = None
    latency_p50_bucket: tuple[float, float] | None = None
    latency_p99_bucket: tuple[float, float] | None = None
    store_rv: int | None = None
    server_rv: int | None = None
    lag_rv: int | None = None  # server_rv - store_rv, in resource versions
    queued_history: deque = field(default_factory=lambda: deque(maxlen=HISTORY))

    @property
    def gvr(self) -> str:
        """``apps/v1 deployments``; ``v1 pods`` for the core group."""
        return f"{self.group + '/' if self.group else ''}{self.version} {self.resource}"


@dataclass
class StaleSkips:
    controller: str
    group: str
    resource: str
    total: float = 0.0
    per_s: float = 0.0
    rated: bool = False

    @property
    def what(self) -> str:
        return f"{self.resource}.{self.group}" if self.group else self.resource


def update_informers(
    figures: dict[Key, InformerFigures],
    new: dict[Key, InformerPoint],
    base: dict[Key, InformerPoint] | None,
    q_base: dict[Key, InformerPoint] | None,
    dt: float,
    server_rv: dict[tuple[str, str], int] | None,
) -> None:
    """Fold one scrape's points into ``figures``: rates over ``base`` (``dt``
    seconds ago), percentiles over the observations since ``q_base``."""
    for key in [k for k in figures if k not in new]:
        del figures[key]  # a dynamic informer (GC, quota) that stopped
    for key, p in new.items():
        f = figures.get(key) or InformerFigures(*key)
        figures[key] = f
        old = base.get(key) if base else None
        f.queued = p.queued
        f.processed_total = p.latency.count if p.latency else 0.0
        old_count = old.latency.count if old and old.latency else None
        f.rated = dt > 0 and old is not None
        f.processed_per_s = increase(f.processed_total, old_count) / dt if f.rated else 0.0
        then = q_base.get(key) if q_base else None
        (f.latency_p50, f.latency_p50_bucket), (f.latency_p99, f.latency_p99_bucket) = window_percentiles(
            p.latency, then.latency if then else None
        )
        f.store_rv = p.store_rv
        f.server_rv = server_rv_for(f.group, f.resource, server_rv) if server_rv else None
        f.lag_rv = f.server_rv - f.store_rv if f.server_rv is not None and f.store_rv is not None else None
        f.queued_history.append(p.queued)


def update_stale_skips(
    skips: dict[tuple[str, str, str], StaleSkips],
    new: dict[tuple[str, str, str], float],
    base: dict[tuple[str, str, str], float] | None,
    dt: float,
) -> None:
    for key, total in new.items():
        s = skips.get(key) or StaleSkips(*key)
        skips[key] = s
        old = base.get(key) if base else None
        s.total = total
        s.rated = dt > 0 and base is not None
        # A series that appeared since the base counted from 0 (its first skips).
        s.per_s = increase(total, old if old is not None else 0.0) / dt if s.rated else 0.0


def server_rv_for(group: str, resource: str, server: dict[tuple[str, str], int]) -> int | None:
    """The API server's RV for an informer's resource: by the same name, else
    by the plural informer-gen's kind + ``s`` stands for ("ingresss" is the
    server's "ingresses", "networkpolicys" its "networkpolicies")."""
    if (group, resource) in server:
        return server[(group, resource)]
    if not resource.endswith("s"):
        return None
    for plural in english_plurals(resource[:-1]):
        if (group, plural) in server:
            return server[(group, plural)]
    return None


def english_plurals(kind: str) -> tuple[str, ...]:
    """The plurals a lower-case kind may have on the server: ``endpoints``
    stays, ``ingress`` takes ``es``, ``policy`` becomes ``policies``."""
    out = [kind, kind + "es"]
    if kind.endswith("y"):
        out.append(kind[:-1] + "ies")
    return tuple(out)


def informer_notes(has_informers: bool, informers: Iterable[InformerFigures], server_note: str | None) -> list[str]:
    """What the informer figures cannot say, one line each."""
    if not has_informers:
        return [
            "informers: this page has none of client-go 1.36's informer_* series (an older process, or its "
            "informers have no reserved name): no informer rows"
        ]
    notes = []
    if all(f.store_rv is None for f in informers):
        notes.append(
            f"informers: no {STORE_RV} on this page (client-go 1.36 exports it only for an informer "
            f"given a metrics provider of its own; the shared informer factory gives none): store RV "
            f"and lag unknown"
        )
    if server_note:
        notes.append(f"informers: {server_note}")
    return notes
