"""client-go's workqueue metrics, kept by the queue itself.

client-go hands these to a Prometheus provider; we keep the same seven
metrics in the queue and let readers take a snapshot with ``queue.metrics()``:

- depth: items added and not yet handed out by ``get`` (client-go counts an
  item re-added while processing here too, before it is back in the queue)
- adds: adds that were not collapsed into an item already dirty
- queue latency: clock seconds from add to ``get``
- work duration: clock seconds from ``get`` to ``done``
- unfinished work seconds: summed age of the items being processed now
- longest running processor: age of the oldest item being processed now
- retries: ``add_after`` calls (rate-limited re-adds go through it)

client-go refreshes the two unfinished-work gauges from a 500 ms ticker; we
compute them when the snapshot is taken, which is the same value without a
thread per queue. Latency and work duration keep count and sum of every
observation and a bounded window of recent ones for percentiles, so memory
does not grow with run time. They also count every observation into
client-go's histogram buckets, so an exporter can publish the same
``_bucket`` series a Go controller does.
"""

from __future__ import annotations

from bisect import bisect_left
from collections import deque
from collections.abc import Callable, Hashable, Iterable
from dataclasses import asdict, dataclass, replace
from typing import Any

__all__ = ["Summary", "Reservoir", "QueueMetrics", "QueueMetricsRecorder", "BUCKETS"]


def exponential_buckets(start: float, factor: float, count: int) -> tuple[float, ...]:
    """Prometheus' ExponentialBuckets, multiplied out the same way, so the
    bounds are the same floats (9.999999999999999e-06, not 1e-05) and an
    exported page reads like a Go controller's."""
    out = []
    for _ in range(count):
        out.append(start)
        start *= factor
    return tuple(out)


# component-base's workqueue histograms (queue_duration_seconds and
# work_duration_seconds): ExponentialBuckets(10e-7, 10, 10), 1 us .. 1000 s.
BUCKETS: tuple[float, ...] = exponential_buckets(10e-7, 10, 10)

# Observations kept for percentiles: recent enough to follow a live run, small
# enough that a snapshot sorts it in well under a millisecond.
RESERVOIR_SIZE = 1024


@dataclass(frozen=True)
class Summary:
    """A histogram metric as read: totals over all observations, percentiles
    over the recent window."""

    count: int = 0
    sum: float = 0.0
    p50: float = 0.0
    p90: float = 0.0
    p99: float = 0.0
    max: float = 0.0  # of the recent window
    # Cumulative counts per upper bound of BUCKETS (the +Inf bucket is count).
    buckets: tuple[int, ...] = ()

    @property
    def mean(self) -> float:
        return self.sum / self.count if self.count else 0.0


class Reservoir:
    """Count, sum and the last ``size`` observations (a ring buffer)."""

    __slots__ = ("count", "sum", "window", "per_bucket")

    def __init__(self, size: int = RESERVOIR_SIZE) -> None:
        self.count = 0
        self.sum = 0.0
        self.window: deque[float] = deque(maxlen=size)
        self.per_bucket = [0] * (len(BUCKETS) + 1)  # the last one is above every bound

    def observe(self, v: float) -> None:
        self.count += 1
        self.sum += v
        self.window.append(v)
        # A bound counts values <= it (Prometheus' "le").
        self.per_bucket[bisect_left(BUCKETS, v)] += 1

    def cumulative_buckets(self) -> tuple[int, ...]:
        out, running = [], 0
        for n in self.per_bucket[:-1]:
            running += n
            out.append(running)
        return tuple(out)

    def summary(self) -> Summary:
        s = summarize(self.window, self.count, self.sum)
        return replace(s, buckets=self.cumulative_buckets())


def _pct(sorted_vals: list[float], q: float) -> float:
    # Nearest-rank percentile: always an observed value.
    idx = min(len(sorted_vals) - 1, max(0, int(q * len(sorted_vals) + 0.999999) - 1))
    return sorted_vals[idx]


def summarize(values: Iterable[float], count: int, total: float) -> Summary:
    vals = sorted(values)
    if not vals:
        return Summary(count=count, sum=total)
    return Summary(
        count=count,
        sum=total,
        p50=_pct(vals, 0.50),
        p90=_pct(vals, 0.90),
        p99=_pct(vals, 0.99),
        max=vals[-1],
    )


@dataclass(frozen=True)
class QueueMetrics:
    """A point-in-time snapshot of one queue's metrics (names as client-go's
    ``workqueue_*`` series)."""

    name: str | None
    depth: int
    adds: int
    queue_latency: Summary
    work_duration: Summary
    unfinished_work_seconds: float
    longest_running_processor_seconds: float
    retries: int
    waiting: int = 0  # delaying queue: items in the add_after heap

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class QueueMetricsRecorder:
    """The mutable side, as client-go's ``queueMetrics``: the queue calls
    ``add``, ``get``, ``done`` and ``retry`` under its lock, as client-go's
    queue calls ``q.metrics.add(item)``."""

    __slots__ = ("now", "depth", "adds", "retries", "add_times", "processing_start_times", "latency", "work_duration")

    def __init__(self, now: Callable[[], float], reservoir_size: int = RESERVOIR_SIZE) -> None:
        self.now = now
        self.depth = 0
        self.adds = 0
        self.retries = 0
        self.add_times: dict[Hashable, float] = {}
        self.processing_start_times: dict[Hashable, float] = {}
        self.latency = Reservoir(reservoir_size)
        self.work_duration = Reservoir(reservoir_size)

    def add(self, item: Hashable) -> None:
        """An item went into the queue (not collapsed into a dirty one)."""
        self.adds += 1
        self.depth += 1
        if item not in self.add_times:
            self.add_times[item] = self.now()

    def get(self, item: Hashable) -> float:
        """A worker took ``item``; returns the seconds it waited in the queue."""
        self.depth -= 1
        now = self.now()
        self.processing_start_times[item] = now
        added = self.add_times.pop(item, None)
        if added is None:
            return 0.0
        self.latency.observe(now - added)
        return now - added

    def done(self, item: Hashable) -> float:
        """A worker finished ``item``; returns the seconds it worked."""
        started = self.processing_start_times.pop(item, None)
        if started is None:
            return 0.0
        worked = self.now() - started
        self.work_duration.observe(worked)
        return worked

    def retry(self) -> None:
        self.retries += 1

    def unfinished_work(self, now: float) -> tuple[float, float]:
        """(total, oldest) age in seconds of the items being processed."""
        total = 0.0
        oldest = 0.0
        for t in self.processing_start_times.values():
            age = now - t
            total += age
            if age > oldest:
                oldest = age
        return total, oldest

    def snapshot(self, name: str | None, now: float, waiting: int = 0) -> QueueMetrics:
        total, oldest = self.unfinished_work(now)
        return QueueMetrics(
            name=name,
            depth=self.depth,
            adds=self.adds,
            queue_latency=self.latency.summary(),
            work_duration=self.work_duration.summary(),
            unfinished_work_seconds=total,
            longest_running_processor_seconds=oldest,
            retries=self.retries,
            waiting=waiting,
        )
