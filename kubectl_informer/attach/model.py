"""From scraped pages to what a controller author asks of a workqueue.

Each page is reduced to a ``Point`` (the handful of series the screen
needs); the model keeps the points of the last ``QUANTILE_WINDOW`` seconds
and computes, as PromQL would over that range:

- per workqueue (``name`` label; controller-runtime also sets ``controller``):
  depth, adds/s, drain/s (gets: every get observes one queue latency),
  retries/s, queue latency and work duration p50/p99 from the buckets'
  increase, unfinished work, longest running processor;
- per controller (controller-runtime): reconciles/s by result, errors/s,
  active workers of max concurrent reconciles;
- REST client requests by code, and the informers' list/watch counts where
  the process exports reflector metrics.

History for sparklines is a ring per series, so memory stays bounded.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

from kubectl_informer.attach.counters import increase
from kubectl_informer.attach.informers import (
    InformerFigures,
    InformerPoint,
    Key,
    StaleSkips,
    has_informer_series,
    reduce_informers,
    reduce_stale_skips,
    update_informers,
    update_stale_skips,
)
from kubectl_informer.attach.page import Histogram, Page
from kubectl_informer.attach.quantile import Estimate, window_percentiles
from kubectl_informer.core.durations import format_short

RATE_WINDOW = 5.0  # seconds of scrapes a rate is taken over
QUANTILE_WINDOW = 30.0  # p50/p99 over the observations of the last 30 s
HISTORY = 120  # points per sparkline

WQ = "workqueue_"
CR = "controller_runtime_"


@dataclass
class QueuePoint:
    depth: float = 0.0
    adds: float = 0.0
    retries: float = 0.0
    unfinished: float = 0.0
    longest: float = 0.0
    latency: Histogram | None = None
    work: Histogram | None = None
    controller: str = ""


@dataclass
class ControllerPoint:
    reconciles: dict[str, float] = field(default_factory=dict)  # result -> total
    errors: float = 0.0
    active: float | None = None
    max_workers: float | None = None


@dataclass
class Point:
    time: float
    queues: dict[str, QueuePoint]
    controllers: dict[str, ControllerPoint]
    rest: dict[str, float]  # HTTP code -> requests
    reflectors: dict[str, tuple[float | None, float | None]]  # name -> (lists, watches)
    # client-go 1.36's informer series and kcm's stale-sync skips (attach.informers)
    informers: dict[Key, InformerPoint] = field(default_factory=dict)
    stale_skips: dict[tuple[str, str, str], float] = field(default_factory=dict)
    has_informers: bool = False


def reduce_page(page: Page) -> Point:
    depth = page.by(WQ + "depth", "name")
    names = set(depth) | set(page.by(WQ + "adds_total", "name"))
    adds = page.by(WQ + "adds_total", "name")
    retries = page.by(WQ + "retries_total", "name")
    unfinished = page.by(WQ + "unfinished_work_seconds", "name")
    longest = page.by(WQ + "longest_running_processor_seconds", "name")
    latency = page.histograms(WQ + "queue_duration_seconds", "name")
    work = page.histograms(WQ + "work_duration_seconds", "name")
    owner = {n: c for (n, c) in page.by2(WQ + "adds_total", "name", "controller")}
    queues = {
        n: QueuePoint(
            depth.get(n, 0.0),
            adds.get(n, 0.0),
            retries.get(n, 0.0),
            unfinished.get(n, 0.0),
            longest.get(n, 0.0),
            latency.get(n),
            work.get(n),
            owner.get(n, ""),
        )
        for n in names | set(latency)
    }
    controllers: dict[str, ControllerPoint] = {}
    for (c, result), v in page.by2(CR + "reconcile_total", "controller", "result").items():
        controllers.setdefault(c, ControllerPoint()).reconciles[result] = v
    for c, v in page.by(CR + "reconcile_errors_total", "controller").items():
        controllers.setdefault(c, ControllerPoint()).errors = v
    for c, v in page.by(CR + "active_workers", "controller").items():
        controllers.setdefault(c, ControllerPoint()).active = v
    for c, v in page.by(CR + "max_concurrent_reconciles", "controller").items():
        controllers.setdefault(c, ControllerPoint()).max_workers = v
    lists = page.by("reflector_lists_total", "name") if page.has("reflector_lists_total") else {}
    watches = page.by("reflector_watches_total", "name") if page.has("reflector_watches_total") else {}
    reflectors = {n: (lists.get(n), watches.get(n)) for n in set(lists) | set(watches)}
    return Point(
        page.time,
        queues,
        controllers,
        page.by("rest_client_requests_total", "code"),
        reflectors,
        reduce_informers(page),
        reduce_stale_skips(page),
        has_informer_series(page),
    )


@dataclass
class QueueFigures:
    name: str
    controller: str = ""
    depth: float = 0.0
    adds_total: float = 0.0
    adds_per_s: float = 0.0
    drain_per_s: float = 0.0
    rated: bool = False  # the rates need two scrapes: until then they are shown as "–", not 0
    retries_total: float = 0.0
    retries_per_s: float = 0.0
    latency_p50: float | None = None
    latency_p99: float | None = None
    work_p50: float | None = None
    work_p99: float | None = None
    # The histogram bucket (lower, upper bound) each percentile above was
    # interpolated in: the true value is somewhere in it.
    latency_p50_bucket: tuple[float, float] | None = None
    latency_p99_bucket: tuple[float, float] | None = None
    work_p50_bucket: tuple[float, float] | None = None
    work_p99_bucket: tuple[float, float] | None = None
    latency_count: float = 0.0
    latency_sum: float = 0.0
    work_count: float = 0.0
    work_sum: float = 0.0
    unfinished: float = 0.0
    longest: float = 0.0
    backing_up: str | None = None
    depth_history: deque = field(default_factory=lambda: deque(maxlen=HISTORY))
    adds_history: deque = field(default_factory=lambda: deque(maxlen=HISTORY))
    retries_history: deque = field(default_factory=lambda: deque(maxlen=HISTORY))


@dataclass
class ControllerFigures:
    name: str
    reconciles_total: dict[str, float] = field(default_factory=dict)
    reconciles_per_s: dict[str, float] = field(default_factory=dict)
    errors_total: float = 0.0
    errors_per_s: float = 0.0
    active: float | None = None
    max_workers: float | None = None
    reconcile_history: deque = field(default_factory=lambda: deque(maxlen=HISTORY))
    error_history: deque = field(default_factory=lambda: deque(maxlen=HISTORY))


def backing_up_sentence(q: QueueFigures, depth_then: float, seconds: float) -> str:
    """The words for a queue that fills faster than its workers drain it."""
    p99 = f"; queue latency p99 is {fmt_seconds(q.latency_p99)}" if q.latency_p99 is not None else ""
    return (
        f"{q.name} is backing up: depth rose from {depth_then:g} to {q.depth:g} in {seconds:.0f}s because "
        f"adds ({q.adds_per_s:.1f}/s) outpace what its workers take off the queue ({q.drain_per_s:.1f}/s){p99}. "
        f"Items wait until workers (max concurrent reconciles) are added or reconciles get faster."
    )


fmt_seconds = format_short  # the one display duration, as the panes print it


class AttachModel:
    """Feed it pages with ``update(page)``; read ``queues``, ``controllers``,
    ``rest``, ``reflectors``. ``error`` holds the last scrape's failure."""

    def __init__(self, rate_window: float = RATE_WINDOW, quantile_window: float = QUANTILE_WINDOW) -> None:
        self.rate_window = rate_window
        self.quantile_window = quantile_window
        self.points: deque[Point] = deque()
        self.queues: dict[str, QueueFigures] = {}
        self.controllers: dict[str, ControllerFigures] = {}
        self.rest: dict[str, tuple[float, float]] = {}  # code -> (total, per second)
        self.rest_rated = False  # a second scrape gave the rates
        self.reflectors: dict[str, tuple[float | None, float | None]] = {}
        self.informers: dict[Key, InformerFigures] = {}
        self.stale_skips: dict[tuple[str, str, str], StaleSkips] = {}
        self.has_informers = False  # the page serves client-go 1.36's informer_* series
        self.server_note: str | None = None  # why the API server's RVs are not known, when they are not
        self.scrapes = 0
        self.last_time: float | None = None
        self.error: str | None = None
        self.version = 0

    def fail(self, message: str) -> None:
        self.error = message
        self.version += 1

    def update(self, page: Page) -> None:
        point = reduce_page(page)
        self.points.append(point)
        while len(self.points) > 2 and point.time - self.points[1].time >= self.quantile_window:
            self.points.popleft()
        rate_base = self._base(point.time - self.rate_window)
        q_base = self.points[0] if len(self.points) > 1 else None
        for name, qp in point.queues.items():
            self._update_queue(name, qp, rate_base, q_base, point.time)
        for name, cp in point.controllers.items():
            self._update_controller(name, cp, rate_base, point.time)
        old_rest = rate_base.rest if rate_base else {}
        dt = point.time - rate_base.time if rate_base else 0.0
        self.rest_rated = dt > 0
        self.rest = {
            code: (v, increase(v, old_rest.get(code)) / dt if dt > 0 else 0.0) for code, v in sorted(point.rest.items())
        }
        self.reflectors = dict(sorted(point.reflectors.items()))
        self._update_informers(page, point, rate_base, q_base)
        self.scrapes += 1
        self.last_time = point.time
        self.error = None
        self.version += 1

    def _update_informers(self, page: Page, point: Point, base: Point | None, q_base: Point | None) -> None:
        dt = point.time - base.time if base else 0.0
        self.has_informers = point.has_informers
        update_informers(
            self.informers,
            point.informers,
            base.informers if base else None,
            q_base.informers if q_base else None,
            dt,
            page.server_rv,
        )
        update_stale_skips(self.stale_skips, point.stale_skips, base.stale_skips if base else None, dt)
        self.server_note = page.server_note

    def _base(self, since: float) -> Point | None:
        """The oldest point no older than ``since`` (but not the newest)."""
        pts = self.points
        if len(pts) < 2:
            return None
        for p in pts:
            if p.time >= since - 1e-9 and p is not pts[-1]:
                return p
        return pts[-2]

    def _update_queue(self, name: str, qp: QueuePoint, base: Point | None, q_base: Point | None, now: float) -> None:
        q = self.queues.get(name) or QueueFigures(name)
        self.queues[name] = q
        old = base.queues.get(name) if base else None
        dt = now - base.time if base else 0.0

        def per_s(new: float, prev: float | None) -> float:
            return increase(new, prev) / dt if dt > 0 and old is not None else 0.0

        q.controller = qp.controller
        q.depth, q.unfinished, q.longest = qp.depth, qp.unfinished, qp.longest
        q.adds_total, q.retries_total = qp.adds, qp.retries
        q.rated = dt > 0 and old is not None
        q.adds_per_s = per_s(qp.adds, old.adds if old else None)
        q.retries_per_s = per_s(qp.retries, old.retries if old else None)
        q.drain_per_s = per_s(
            qp.latency.count if qp.latency else 0.0, old.latency.count if old and old.latency else None
        )
        qold = q_base.queues.get(name) if q_base else None
        (q.latency_p50, q.latency_p50_bucket), (q.latency_p99, q.latency_p99_bucket), q.latency_count, q.latency_sum = (
            _quantiles(qp.latency, qold.latency if qold else None)
        )
        (q.work_p50, q.work_p50_bucket), (q.work_p99, q.work_p99_bucket), q.work_count, q.work_sum = _quantiles(
            qp.work, qold.work if qold else None
        )
        q.backing_up = None
        if old is not None and qp.depth > old.depth and q.adds_per_s > q.drain_per_s:
            q.backing_up = backing_up_sentence(q, old.depth, dt)
        q.depth_history.append(qp.depth)
        q.adds_history.append(q.adds_per_s)
        q.retries_history.append(q.retries_per_s)

    def _update_controller(self, name: str, cp: ControllerPoint, base: Point | None, now: float) -> None:
        c = self.controllers.get(name) or ControllerFigures(name)
        self.controllers[name] = c
        old = base.controllers.get(name) if base else None
        dt = now - base.time if base else 0.0
        c.reconciles_total = dict(sorted(cp.reconciles.items()))
        c.reconciles_per_s = {
            r: (increase(v, old.reconciles.get(r)) / dt if old and dt > 0 else 0.0)
            for r, v in c.reconciles_total.items()
        }
        c.errors_total = cp.errors
        c.errors_per_s = increase(cp.errors, old.errors) / dt if old and dt > 0 else 0.0
        c.active, c.max_workers = cp.active, cp.max_workers
        c.reconcile_history.append(sum(c.reconciles_per_s.values()))
        c.error_history.append(c.errors_per_s)


def _quantiles(new: Histogram | None, old: Histogram | None) -> tuple[Estimate, Estimate, float, float]:
    """The window's p50 and p99 (window_percentiles), then the totals: count, sum."""
    p50, p99 = window_percentiles(new, old)
    return p50, p99, (new.count if new else 0.0), (new.sum if new else 0.0)
