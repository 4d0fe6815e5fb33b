"""The Queue pane: the workqueue rebuilt from its trace, with its metrics.

client-go's work queue holds three structures (``util/workqueue/queue.go``):
``queue`` (the order items are handed out), ``dirty`` (everything that needs
processing) and ``processing`` (what workers hold). An add of an item already
dirty does nothing; an add while the item is processed only marks it dirty,
and ``done`` puts it back in the queue. The delaying queue parks items until
their ready time; the rate-limiting queue asks a limiter for that delay.

``QueueState`` replays ``queue.*`` and ``worker.*`` events through exactly
those rules, so the pane shows the queue a controller really had, plus
client-go's metrics computed the way ``metrics.go`` computes them: depth (adds
minus gets, so an item dirty while processing counts), adds, queue latency
(first add to get), work duration (get to done), unfinished work and the
longest running processor, and retries (``add_after`` calls).

A controller with several informers feeds this one queue from all of them:
``stories`` (causes.py) says why each key was queued and how many adds each
reconcile took in, and ``drops`` counts owned objects' events that mapped to
no key (``owner.drop``, by reason). The state is fed every informer's events
(``FOLLOWS_INFORMER``: the workqueue belongs to no one informer).

``stale`` (``staleness.StaleSyncs``) follows a controller that writes
(``--demo stale``): its writes, its stale-sync skips and their catch-up.
"""

from __future__ import annotations

from collections import deque

from kubectl_informer.core.trace import TraceEvent
from kubectl_informer.core.trace_kinds import (
    CONTROLLER_CONSISTENCY,
    CONTROLLER_WRITE,
    EXPERIMENT,
    EXPERIMENT_FAILED,
    INFORMER_STORE_RV,
    OWNER_DROP,
    QUEUE_ADD,
    QUEUE_ADD_AFTER,
    QUEUE_DONE,
    QUEUE_DROPPED,
    QUEUE_FORGET,
    QUEUE_GET,
    QUEUE_RATE_LIMITED,
    QUEUE_SHUTDOWN,
    QUEUE_STALE_SKIP,
    WORKER_DONE,
    WORKER_START,
)
from kubectl_informer.panes.causes import CauseStories, count_drop, is_mapped
from kubectl_informer.panes.figures import percentile
from kubectl_informer.panes.staleness import StaleSyncs
from kubectl_informer.panes.state import DispatchState, RunInfo

RESERVOIR = 1024  # recent observations kept for p50/p99, as the engine's metrics


RATE_WINDOW = 5  # seconds averaged for adds/s
# The kinds this state reads that name no item.
_UNKEYED = frozenset((QUEUE_SHUTDOWN, EXPERIMENT, CONTROLLER_CONSISTENCY, INFORMER_STORE_RV))
HISTORY = 120  # seconds of history kept for the sparklines (a ring, one slot a second)
# A history slot: [second, adds, depth peak, latency sum, gets, depth at its last event].
_SEC, _ADDS, _PEAK, _LAT, _GETS, _END = range(6)


class _CountedStories:
    """What stands in for a queue's ``CauseStories`` during a summary: the
    causes counted, no story per key."""

    __slots__ = ("stories",)

    def __init__(self, stories: CauseStories) -> None:
        self.stories = stories

    def add(self, key: str, cause, via=None) -> None:
        if cause:
            self.stories.caused += 1
            if is_mapped(key, cause):
                self.stories.mapped += 1

    def get(self, key: str) -> None:
        return None


class QueueState(DispatchState):
    HANDLERS = {
        QUEUE_ADD: "_add",
        QUEUE_GET: "_get",
        QUEUE_DONE: "_done",
        QUEUE_ADD_AFTER: "_add_after",
        QUEUE_RATE_LIMITED: "_rate_limited",
        QUEUE_FORGET: "_forget",
        QUEUE_SHUTDOWN: "_shutdown",
        WORKER_START: "_worker_start",
        WORKER_DONE: "_worker_done",
        EXPERIMENT: "_experiment",
        EXPERIMENT_FAILED: "_experiment_failed",
        OWNER_DROP: "_owner_drop",
        QUEUE_STALE_SKIP: "_stale_skip",
        CONTROLLER_WRITE: "_controller_write",
        CONTROLLER_CONSISTENCY: "_consistency",
        INFORMER_STORE_RV: "_store_rv",
        QUEUE_DROPPED: "_dropped",
    }
    FOLLOWS_INFORMER = False

    def __init__(self) -> None:
        super().__init__()
        # Several informers, one queue: why keys were queued, what was dropped.
        self.stories = CauseStories()
        # Where the handlers tell of keys added and got: ``stories``, or a counter in its stead during a summary.
        self._told: CauseStories | _CountedStories = self.stories
        self.stale = StaleSyncs()
        self.add_calls = 0  # every add, already dirty or not
        self.drops: dict[str, int] = {}  # owner.drop reason -> events
        self.several = False  # a queue run with several informers
        # The queue's own structures, as client-go's Type.
        self.queue: dict[str, None] = {}  # an ordered set: O(1) append and removal
        self.dirty: set[str] = set()
        self.processing: dict[str, float] = {}  # item -> get time
        self.waiting: dict[str, float] = {}  # item -> ready time (delaying queue)
        self.requeues: dict[str, int] = {}  # rate limiter's failures per item
        self.backoff: dict[str, float] = {}  # the limiter's last delay per item (its When)
        self.shutting_down = False
        self.drain = False
        # Worker slots: id -> (item, start) or None when idle.
        self.workers: dict[int, tuple[str, float] | None] = {}
        self.worker_ok = 0
        self.worker_errors = 0
        # client-go metrics.
        self.adds = 0
        self.gets = 0
        self.depth = 0
        self.retries = 0
        self.requeued_on_done = 0
        self.add_times: dict[str, float] = {}
        self.latency: deque[float] = deque(maxlen=RESERVOIR)
        self.work: deque[float] = deque(maxlen=RESERVOIR)
        # Events the model could not place (a trace that lost events).
        self.gaps = 0
        self.history: deque[list] = deque(maxlen=HISTORY)  # one slot a second that saw an add or get
        self.first_add: float | None = None
        # Experiments (key x): workers paused, failures still to inject, injected.
        self.workers_paused = False
        self.fail_left = 0
        self.injected = 0
        self.mode: str | None = None  # the run's ("watch" runs no workqueue), set by the pane
        # --max-retries: keys given up on (forgotten, error reported), the limit.
        self.dropped = 0
        self.max_retries = 0
        self._kinds = frozenset(self._handlers)

    def feed_all(self, events) -> None:
        # The hot path (three events a delta in a controller): ``handle``
        # inlined for the usual item key.
        get = self._handlers.get
        for ev in events:
            h = get(ev[2])
            if h is None:
                continue
            k = ev[3]
            if type(k) is not str:
                self.feed(ev)
                continue
            try:
                if h(k, ev[1], ev[4]) is False:
                    continue
            except (TypeError, ValueError, AttributeError, OverflowError):
                self.bad_events += 1
                continue
            self.last_time = ev[1]
            self.version += 1

    def summarise(self, stretch) -> None:
        """A stretch the UI could not take in event by event (feed.py): the
        queue's model (items queued, dirty, processing; counts, depth,
        latencies) followed event by event as ever, since its figures are
        those of client-go's structures, but no key's story kept (only the
        causes counted)."""
        self._told = _CountedStories(self.stories)
        try:
            self.feed_all(stretch.only(self._kinds))
        finally:
            self._told = self.stories

    def handle(self, handler, ev: TraceEvent):
        k = ev.key
        if type(k) is not str:
            if k is None and ev.kind not in _UNKEYED:
                self.bad_events += 1  # every other queue event names its item
                return False
            k = None if k is None else str(k)
        return handler(k, ev.time, ev.fields)

    def run_info(self, info: RunInfo) -> None:
        self.several = len(info.informers) > 1 and info.mode == "queue"

    # -- the queue's rules ----------------------------------------------
    def _add(self, k: str, t: float, f: dict) -> None:
        self.add_calls += 1
        self._told.add(k, f.get("cause"), f.get("via"))
        ready = self.waiting.get(k)
        if ready is not None and t >= ready - 1e-9:
            del self.waiting[k]  # the delaying queue's loop moved it in
        if k in self.dirty:
            outcome = "already_dirty"
        elif k in self.processing:
            outcome = "dirty_while_processing"
        else:
            outcome = "queued"
        told = f.get("outcome")
        if told is not None and told != outcome and told in ("queued", "already_dirty", "dirty_while_processing"):
            # The trace lost events: follow what the queue says it did.
            self.gaps += 1
            outcome = told
            if outcome == "dirty_while_processing":
                self.queue.pop(k, None)
                self.processing.setdefault(k, t)
            elif outcome == "queued":
                if k in self.queue:  # its get was lost, and the depth that get took off
                    del self.queue[k]
                    self.depth -= 1
                self.dirty.discard(k)
                self.processing.pop(k, None)
        if outcome == "already_dirty":
            self.dirty.add(k)
            return
        self.adds += 1
        self.depth += 1
        if k not in self.add_times:
            self.add_times[k] = t
        self.dirty.add(k)
        if outcome == "queued":
            self.queue[k] = None
        sec = int(t)
        h = self.history  # adds/s reads it too
        if h and h[-1][0] == sec:
            slot = h[-1]
        else:
            slot = [sec, 0, 0, 0.0, 0, 0]
            h.append(slot)
        slot[1] += 1
        d = self.depth
        if d > slot[2]:
            slot[2] = d
        slot[5] = d
        if self.first_add is None:
            self.first_add = t

    def _get(self, k: str, t: float, f: dict) -> None:
        self._told.get(k)
        if k in self.queue:
            del self.queue[k]
            self.depth -= 1
        else:
            self.gaps += 1  # its add was lost, and the depth it would have counted with it
        self.gets += 1
        self.processing[k] = t
        added = self.add_times.pop(k, None)
        sec = int(t)
        h = self.history
        if h and h[-1][0] == sec:
            slot = h[-1]
        else:
            slot = [sec, 0, 0, 0.0, 0, 0]
            h.append(slot)
        slot[5] = self.depth
        if added is not None:
            self.latency.append(t - added)
            slot[3] += t - added
            slot[4] += 1
        self.dirty.discard(k)
        if "worker" in f:
            self._worker_start(k, t, f)

    def _done(self, k: str, t: float, f: dict) -> None:
        if "worker" in f:
            self._worker_done(k, t, f)
        if self.stale.keys:
            self.stale.done(k, t, f)
        started = self.processing.pop(k, None)
        if started is None:
            self.gaps += 1  # the engine ignores done of an item not processing, and emits nothing
            return
        self.work.append(t - started)
        if k in self.dirty:
            self.queue[k] = None
            self.requeued_on_done += 1

    def _add_after(self, k: str, t: float, f: dict) -> None:
        delay = float(f.get("delay") or 0.0)
        self.retries += 1  # client-go counts every AddAfter as a retry
        if delay <= 0:
            return  # added at once: its queue.add follows
        ready = t + delay
        cur = self.waiting.get(k)
        if cur is None or ready < cur:  # an earlier ready time wins
            self.waiting[k] = ready

    def _rate_limited(self, k: str, t: float, f: dict) -> None:
        n = f.get("requeues")
        if n:
            self.requeues[k] = int(n)
            self.backoff[k] = float(f.get("delay") or 0.0)

    def _experiment(self, k, t: float, f: dict):
        name = f.get("name")
        if name in ("pause-workers", "resume-workers"):
            self.workers_paused = name == "pause-workers"
        elif name == "fail-next":
            self.fail_left = int(f.get("count") or 0)
        else:
            return False

    def _experiment_failed(self, k: str, t: float, f: dict) -> None:
        self.injected += 1
        self.fail_left = int(f.get("left") or 0)

    def _owner_drop(self, k: str, t: float, f: dict) -> None:
        count_drop(self.drops, f.get("reason"))

    def _stale_skip(self, k: str, t: float, f: dict) -> None:
        self.stale.skip(k, t, f)

    def _controller_write(self, k: str, t: float, f: dict) -> None:
        self.stale.write(k, t, f)

    def _consistency(self, k, t: float, f: dict) -> None:
        self.stale.switched(t, f)

    def _store_rv(self, k, t: float, f: dict) -> None:
        self.stale.store_rv(f)

    def shows_causes(self) -> bool:
        """The pane's "why" section: a run with several informers, or adds
        mapped through an owner."""
        return self.several or self.stories.mapped > 0

    def _dropped(self, k: str, t: float, f: dict) -> None:
        self.backoff.pop(k, None)
        self.dropped += 1
        self.max_retries = int(f.get("max_retries") or 0)

    def _forget(self, k: str, t: float, f: dict) -> None:
        self.requeues.pop(k, None)
        self.backoff.pop(k, None)

    def _shutdown(self, k, t: float, f: dict) -> None:
        self.shutting_down = True
        self.drain = bool(f.get("drain"))

    # queue.get / queue.done with a worker; worker.start / worker.done in
    # recordings made before those carried it.
    def _worker_start(self, k: str, t: float, f: dict) -> None:
        self.workers[int(f.get("worker", 0))] = (k, t)

    def _worker_done(self, k: str, t: float, f: dict) -> None:
        self.workers[int(f.get("worker", 0))] = None
        if f.get("outcome") == "error":
            self.worker_errors += 1
        else:
            self.worker_ok += 1

    # -- views ----------------------------------------------------------
    def queued(self) -> list[str]:
        """Items in the order ``get`` will hand them out."""
        return list(self.queue)

    def dirty_while_processing(self) -> list[str]:
        return [k for k in self.processing if k in self.dirty]

    def adds_per_second(self, now: float) -> float:
        if self.first_add is None:
            return 0.0
        lo = now - RATE_WINDOW
        n = 0
        for slot in reversed(self.history):
            if slot[_SEC] + 1 <= lo:
                break
            n += slot[_ADDS]
        span = min(float(RATE_WINDOW), max(1.0, now - self.first_add))
        return n / span

    def history_series(self, now: float, cells: int) -> tuple[list[int], list[int], list[float]]:
        """The last ``cells`` seconds up to ``now``, oldest first: the peak
        depth, the adds and the mean queue latency (0 without a get) of each
        second; a second with no event holds the depth the one before ended at."""
        last = int(now)
        first = last - max(1, cells) + 1
        level = 0
        slots: dict[int, list] = {}
        for s in self.history:
            if s[_SEC] < first:
                level = s[_END]
            elif s[_SEC] <= last:
                slots[s[_SEC]] = s
        depth: list[int] = []
        adds: list[int] = []
        latency: list[float] = []
        for sec in range(first, last + 1):
            slot = slots.get(sec)
            if slot is None:
                depth.append(level)
                adds.append(0)
                latency.append(0.0)
                continue
            depth.append(max(level, slot[_PEAK], slot[_END]))
            adds.append(slot[_ADDS])
            latency.append(slot[_LAT] / slot[_GETS] if slot[_GETS] else 0.0)
            level = slot[_END]
        return depth, adds, latency

    def unfinished_work(self, now: float) -> tuple[float, float]:
        """client-go's unfinished work seconds and longest running processor."""
        total = oldest = 0.0
        for start in self.processing.values():
            age = now - start
            total += age
            oldest = max(oldest, age)
        return total, oldest

    def percentiles(self, which: str) -> tuple[float | None, float | None]:
        vals = sorted(self.latency if which == "latency" else self.work)
        return percentile(vals, 50), percentile(vals, 99)
