"""client-go 1.36's informer identity and metrics (``identity.go``, ``fifo_metrics.go``).

An informer publishes metrics only under a reserved identity:
``new_informer_name(name)`` reserves a process-wide name (client-go's
``NewInformerName``; kube-controller-manager reserves "kube-controller-manager"),
``InformerName.with_resource(gvr)`` gives the identity of one informer (the
first registration of a GVR under a name is reserved, a second is not, so two
informers never publish the same series), and ``release()`` ends every identity
made from the name and frees the name for reuse.

Three metrics, made by the provider set once per process with
``set_informer_metrics_provider`` (client-go's ``SetInformerMetricsProvider``,
only the first call counts) or given to one informer:

- queued items (a gauge): the RealFIFO's queued entries, set at every add and pop;
- processing latency (a histogram, seconds): the time the informer took to
  apply one popped entry and hand it to its listeners;
- store resource version (a gauge): the 15 least significant digits of the
  store's last resource version (``parseRVForMetricsWithTruncation``: a float64
  holds integers up to 2^53 exactly).

``InformerMetricsRegistry`` is a provider keeping plain numbers, with
component-base's buckets; ``attach.exporter`` serves it as
``informer_queued_items``, ``informer_processing_latency_seconds`` and
``informer_store_resource_version`` with labels name, group, version, resource.
"""

from __future__ import annotations

import threading
from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

__all__ = [
    "GroupVersionResource",
    "InformerName",
    "InformerNameAndResource",
    "InformerMetricsProvider",
    "InformerMetricsRegistry",
    "NOOP_METRIC",
    "new_informer_name",
    "set_informer_metrics_provider",
    "informer_metrics_provider",
    "parse_rv_for_metrics_with_truncation",
    "reset_informer_names_for_testing",
    "PROCESSING_LATENCY_BUCKETS",
]

# component-base's metrics/prometheus/clientgo/fifo processing_latency_seconds buckets.
PROCESSING_LATENCY_BUCKETS: tuple[float, ...] = (0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10)


@dataclass(frozen=True)
class GroupVersionResource:
    group: str = ""
    version: str = ""
    resource: str = ""

    def empty(self) -> bool:
        return not (self.group or self.version or self.resource)


class _Flag:
    """client-go's ``*atomic.Bool``: shared by an identity and its name."""

    __slots__ = ("value",)

    def __init__(self, value: bool = False) -> None:
        self.value = value


_registry_lock = threading.Lock()
_names: dict[str, InformerName] = {}


class InformerName:
    """A reserved informer name (``NewInformerName``). Make with ``new_informer_name``."""

    def __init__(self, name: str) -> None:
        self._name = name
        self._lock = threading.Lock()
        self._reserved = _Flag(True)
        self._gvrs: dict[GroupVersionResource, _Flag] = {}

    @property
    def name(self) -> str:
        return self._name

    def with_resource(self, gvr: GroupVersionResource) -> InformerNameAndResource:
        """The identity of this name's informer of ``gvr``: reserved for the
        first registration of ``gvr`` while the name is held, not for a duplicate."""
        with self._lock:
            flag = _Flag(False)
            if self._reserved.value and gvr not in self._gvrs:
                flag.value = True
                self._gvrs[gvr] = flag
            return InformerNameAndResource(self._name, gvr, flag)

    def release(self) -> None:
        """Every identity made from this name stops being reserved; the name is free."""
        with self._lock:
            for flag in self._gvrs.values():
                flag.value = False
            self._gvrs = {}
            self._reserved.value = False
        with _registry_lock:
            if _names.get(self._name) is self:
                del _names[self._name]


def new_informer_name(name: str) -> InformerName:
    """Reserve ``name`` process-wide; ValueError if empty or already reserved."""
    if not name:
        raise ValueError("informer name cannot be empty")
    with _registry_lock:
        existing = _names.get(name)
        if existing is not None and existing._reserved.value:
            raise ValueError(f'informer name "{name}" is already registered')
        n = _names[name] = InformerName(name)
        return n


def reset_informer_names_for_testing() -> None:
    """client-go's ``ResetInformerNamesForTesting``: release every name."""
    with _registry_lock:
        names = list(_names.values())
    for n in names:
        n.release()


@dataclass(frozen=True)
class InformerNameAndResource:
    """One informer's identity (client-go's ``InformerNameAndResource``); the
    zero value (``InformerNameAndResource()``) is never reserved."""

    name: str = ""
    gvr: GroupVersionResource = GroupVersionResource()
    _flag: _Flag | None = None

    def reserved(self) -> bool:
        flag = self._flag
        return flag is not None and flag.value


class GaugeMetric(Protocol):
    def set(self, value: float) -> None: ...


class HistogramMetric(Protocol):
    def observe(self, value: float) -> None: ...


class _NoopMetric:
    __slots__ = ()

    def set(self, value: float) -> None:
        pass

    def observe(self, value: float) -> None:
        pass


NOOP_METRIC = _NoopMetric()


class InformerMetricsProvider(Protocol):
    def new_queued_item_metric(self, id: InformerNameAndResource) -> GaugeMetric: ...

    def new_processing_latency_metric(self, id: InformerNameAndResource) -> HistogramMetric: ...

    def new_store_resource_version_metric(self, id: InformerNameAndResource) -> GaugeMetric: ...


class NoopInformerMetricsProvider:
    def new_queued_item_metric(self, id: InformerNameAndResource) -> GaugeMetric:
        return NOOP_METRIC

    def new_processing_latency_metric(self, id: InformerNameAndResource) -> HistogramMetric:
        return NOOP_METRIC

    def new_store_resource_version_metric(self, id: InformerNameAndResource) -> GaugeMetric:
        return NOOP_METRIC


_provider: InformerMetricsProvider = NoopInformerMetricsProvider()
_provider_set = False


def set_informer_metrics_provider(provider: InformerMetricsProvider) -> None:
    """The provider of every informer made after this call; only the first call counts."""
    global _provider, _provider_set
    with _registry_lock:
        if not _provider_set:
            _provider, _provider_set = provider, True


def informer_metrics_provider() -> InformerMetricsProvider:
    return _provider


def reset_informer_metrics_provider_for_testing() -> None:
    global _provider, _provider_set
    with _registry_lock:
        _provider, _provider_set = NoopInformerMetricsProvider(), False


def new_fifo_metrics(
    id: InformerNameAndResource, provider: InformerMetricsProvider | None = None
) -> tuple[GaugeMetric, HistogramMetric]:
    """``(queued items, processing latency)``: no-ops unless ``id`` is reserved."""
    if not id.reserved():
        return NOOP_METRIC, NOOP_METRIC
    provider = provider or _provider
    return provider.new_queued_item_metric(id), provider.new_processing_latency_metric(id)


def new_store_metrics(id: InformerNameAndResource, provider: InformerMetricsProvider | None = None) -> GaugeMetric:
    if not id.reserved():
        return NOOP_METRIC
    return (provider or _provider).new_store_resource_version_metric(id)


def parse_rv_for_metrics_with_truncation(rv: str) -> int | None:
    """The store RV gauge's value: 0 for "", the last 15 digits of a longer
    RV, None when it is not an integer (the gauge is then left alone)."""
    if rv == "":
        return 0
    if len(rv) > 15:
        rv = rv[-15:]
    if not (rv.isascii() and (rv.isdigit() or (rv[:1] in "+-" and rv[1:].isdigit()))):
        return None
    return int(rv)


# ----- a provider keeping plain numbers (component-base's fifo metrics) -----

_NEVER = _Flag(False)


class _Gauge:
    """A gauge, set (``set``) or read from its owner when scraped (``bind``):
    a FIFO's length and a store's RV change with every delta, and a bound
    gauge costs the hot path nothing; the value read is the one a ``set`` at
    each change would have left (an RV that is not a number leaves the
    last number read). A released identity stops publishing (component-base's
    reservedGaugeMetric)."""

    __slots__ = ("id", "value", "_flag", "_read", "_parse")

    def __init__(self, id: InformerNameAndResource) -> None:
        self.id, self.value = id, 0.0
        self._flag = id._flag or _NEVER  # id.reserved() without a call
        self._read: Callable[[], Any] | None = None
        self._parse: Callable[[Any], float | None] | None = None

    def set(self, value: float) -> None:
        if self._flag.value:
            self.value = value

    def bind(self, read: Callable[[], Any], parse: Callable[[Any], float | None] | None = None) -> None:
        """Read ``parse(read())`` when scraped instead of being set."""
        self._read, self._parse = read, parse

    def current(self) -> float:
        read = self._read
        if read is not None and self._flag.value:
            value = read()
            if self._parse is not None:
                value = self._parse(value)
            if value is not None:
                self.value = value
        return self.value


# Samples a histogram holds before it buckets them (a bound on the memory of one nobody
# reads); at most 256, so that len() of the list is one of CPython's cached small ints.
FOLD_AT = 256


class _Histogram:
    """component-base's processing-latency histogram (buckets
    ``PROCESSING_LATENCY_BUCKETS``, a value counted in the first bucket whose
    bound is >= it, as Prometheus' ``le``), kept cheaply for a caller that
    observes once per delta: ``observe`` only appends the sample to a list
    (while the identity is reserved, so a released identity stops publishing
    at once, as component-base's reserved histogram); the samples are bucketed
    in bulk when the histogram is read, or when ``FOLD_AT`` are held. The
    counts are the ones an observe that bucketed each sample would have left;
    the sum is the same samples' sum, added in order (Python 3.12+'s ``sum``
    compensates rounding within a batch, so its last bits may differ).

    ``sink()`` hands a hot caller (the RealFIFO's pop) what ``observe`` does
    inline: the reservation flag, the sample list and the fold."""

    __slots__ = ("id", "_counts", "_sum", "_flag", "_pending", "_lock")

    def __init__(self, id: InformerNameAndResource) -> None:
        self.id = id
        self._flag = id._flag or _NEVER
        # Per bucket, not cumulative; the last slot holds what is above every bound.
        self._counts = [0] * (len(PROCESSING_LATENCY_BUCKETS) + 1)
        self._sum = 0.0
        self._pending: list[float] = []
        self._lock = threading.RLock()  # snapshot folds under it

    def observe(self, value: float) -> None:
        if self._flag.value:
            pending = self._pending
            pending.append(value)
            if len(pending) >= FOLD_AT:
                self.fold()

    def sink(self) -> tuple[_Flag, list[float], Callable[[], None]]:
        """``(flag, samples, fold)``: while ``flag.value``, append a sample to
        ``samples`` and call ``fold()`` once ``FOLD_AT`` are held."""
        return self._flag, self._pending, self.fold

    def fold(self) -> None:
        """Bucket the samples held so far. The observing thread appends while
        a reader folds: the first ``n`` samples are taken and removed, and an
        append lands after them."""
        with self._lock:
            pending = self._pending
            n = len(pending)
            if not n:
                return
            batch = pending[:n]
            del pending[:n]
            self._sum = sum(batch, self._sum)
            counts = self._counts
            first = PROCESSING_LATENCY_BUCKETS[0]
            if max(batch) <= first:  # the common case: every pop under 1 ms
                counts[0] += n
                return
            above = [v for v in batch if v > first]
            above.sort()
            counts[0] += n - len(above)
            below = 0
            for i, bound in enumerate(PROCESSING_LATENCY_BUCKETS[1:], 1):
                upto = bisect_right(above, bound)
                counts[i] += upto - below
                below = upto
            counts[-1] += len(above) - below

    @property
    def counts(self) -> list[int]:
        """Per bucket, not cumulative; the last slot holds what is above every bound."""
        self.fold()
        return list(self._counts)

    @property
    def sum(self) -> float:
        self.fold()
        return self._sum

    @property
    def count(self) -> int:
        return sum(self.counts)

    def cumulative(self) -> list[int]:
        return self.snapshot()[0]

    def snapshot(self) -> tuple[list[int], int, float]:
        """``(cumulative bucket counts, count, sum)`` read together."""
        with self._lock:
            self.fold()
            out, n = [], 0
            for c in self._counts[:-1]:
                n += c
                out.append(n)
            return out, n + self._counts[-1], self._sum


_ALWAYS = _Flag(True)  # a histogram that is not ours checks its identity itself


class _Observing(list[float]):
    """The sample list of a histogram that is not ours: each sample goes to
    its ``observe`` at once and none is held."""

    __slots__ = ("_observe",)

    def __init__(self, observe: Callable[[float], None]) -> None:
        super().__init__()
        self._observe = observe

    def append(self, value: float) -> None:
        self._observe(value)


def latency_sink(metric: HistogramMetric) -> tuple[_Flag, list[float], Callable[[], None]] | None:
    """How a hot caller records processing latencies without a call per
    sample: ``(flag, samples, fold)``; while ``flag.value``, append each
    sample to ``samples`` and call ``fold()`` once ``FOLD_AT`` are held.
    None for the no-op metric (nothing to time). Our histogram buckets them
    in bulk (``_Histogram.sink``); any other provider's gets ``observe`` for
    each sample at once."""
    if metric is NOOP_METRIC:
        return None
    sink = getattr(metric, "sink", None)
    if sink is not None:
        flag, samples, fold = sink()
        return flag, samples, fold
    return _ALWAYS, _Observing(metric.observe), _nothing


def _nothing() -> None:
    pass


@dataclass(frozen=True)
class InformerSeries:
    """One informer's three metrics as read."""

    id: InformerNameAndResource
    queued_items: float
    store_resource_version: float
    latency_buckets: tuple[int, ...]  # cumulative, on PROCESSING_LATENCY_BUCKETS
    latency_count: int
    latency_sum: float


_M = TypeVar("_M", _Gauge, _Histogram)


class InformerMetricsRegistry:
    """An ``InformerMetricsProvider`` that keeps each metric's number, for an
    exporter to read (``series()``), one entry per reserved identity."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._queued: dict[InformerNameAndResource, _Gauge] = {}
        self._latency: dict[InformerNameAndResource, _Histogram] = {}
        self._rv: dict[InformerNameAndResource, _Gauge] = {}

    def _get(self, table: dict[InformerNameAndResource, _M], id: InformerNameAndResource, cls: type[_M]) -> _M:
        with self._lock:
            m = table.get(id)
            if m is None:
                m = table[id] = cls(id)
            return m

    def new_queued_item_metric(self, id: InformerNameAndResource) -> GaugeMetric:
        return self._get(self._queued, id, _Gauge)

    def new_processing_latency_metric(self, id: InformerNameAndResource) -> HistogramMetric:
        return self._get(self._latency, id, _Histogram)

    def new_store_resource_version_metric(self, id: InformerNameAndResource) -> GaugeMetric:
        return self._get(self._rv, id, _Gauge)

    def series(self) -> list[InformerSeries]:
        with self._lock:
            ids = list(dict.fromkeys([*self._queued, *self._latency, *self._rv]))
            out = []
            for id in ids:
                q, h, rv = self._queued.get(id), self._latency.get(id), self._rv.get(id)
                buckets, count, total = h.snapshot() if h else ([0] * len(PROCESSING_LATENCY_BUCKETS), 0, 0.0)
                out.append(
                    InformerSeries(
                        id,
                        q.current() if q else 0.0,
                        rv.current() if rv else 0.0,
                        tuple(buckets),
                        count,
                        total,
                    )
                )
            return out
