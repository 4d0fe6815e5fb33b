"""The work queue: client-go's ``util/workqueue`` Type.

Three structures carry its guarantees:

- ``queue``: the order items are handed out; every queued item is dirty and
  not being processed.
- ``dirty``: every item that needs processing. Adding an item already dirty
  does nothing, so a burst of events for one key becomes one unit of work.
- ``processing``: items a worker holds between ``get`` and ``done``. An item
  added while it is processed is only marked dirty; ``done`` puts it back in
  the queue. So no two workers ever hold the same item at once, and no event
  is lost while a worker holds it.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Hashable
from typing import Any

from kubectl_informer.clock import Clock, RealClock
from kubectl_informer.core.trace import NULL_TRACER, Tracer
from kubectl_informer.core.trace_kinds import (
    QUEUE_ADD,
    QUEUE_DONE,
    QUEUE_GET,
    QUEUE_SHUTDOWN,
)
from kubectl_informer.workqueue.metrics import QueueMetrics, QueueMetricsRecorder

__all__ = ["Queue"]


# A trace event's key: the item itself when it is a str (str(s) is s), else
# its text. The builtin, not a function of ours: four calls per processed item.
_key = str


class Queue:
    """client-go's work queue (``workqueue.New``).

    ``get(timeout)`` takes real seconds as a safety net and raises
    ``TimeoutError``; all measured durations (metrics, trace fields) are on
    ``clock``.
    """

    def __init__(self, *, name: str | None = None, clock: Clock | None = None, tracer: Tracer | None = None) -> None:
        self.name = name
        self._clock = clock or RealClock()
        self._tracer = tracer or NULL_TRACER
        self._queue: deque[Hashable] = deque()
        self._dirty: set[Hashable] = set()
        self._processing: set[Hashable] = set()
        # A plain Lock, entered directly on the hot path (Condition's own
        # __enter__ is a Python-level call); the Condition shares it.
        self._lock = threading.Lock()
        self._cond = threading.Condition(self._lock)
        # Threads blocked in get(): add/done skip notify() when there are none.
        self._getters = 0
        self._shutting_down = False
        self._drain = False
        self._held = False
        self._metrics = QueueMetricsRecorder(self._clock.now)

    @property
    def clock(self) -> Clock:
        return self._clock

    @property
    def tracer(self) -> Tracer:
        return self._tracer

    # -- client-go Interface -------------------------------------------------

    def add(self, item: Hashable, cause: list[str] | None = None, via: str | None = None) -> None:
        """Mark ``item`` as needing processing. ``cause`` (several informers:
        the event that led here) and ``via`` (the controller's handler
        function that enqueued it) go on the trace only; the queue itself
        holds keys, as client-go's does."""
        with self._lock:
            if self._shutting_down:
                return
            if item in self._dirty:
                # Collapsed: already waiting in the queue, or already due to
                # be re-queued when its worker calls done.
                if self._tracer.enabled:
                    self._trace_add(item, "already_dirty", cause, via)
                return
            self._metrics.add(item)
            self._dirty.add(item)
            if item in self._processing:
                # Its worker still holds it: done() re-queues it.
                if self._tracer.enabled:
                    self._trace_add(item, "dirty_while_processing", cause, via)
                return
            self._queue.append(item)
            if self._getters:
                self._cond.notify()
            if self._tracer.enabled:
                self._trace_add(item, "queued", cause, via)

    def _trace_add(self, item: Hashable, outcome: str, cause: list[str] | None, via: str | None) -> None:
        if cause is None:  # one informer: the trace as it always was
            self._tracer.emit(QUEUE_ADD, _key(item), outcome=outcome, depth=len(self._queue))
        elif via is None:
            self._tracer.emit(QUEUE_ADD, _key(item), outcome=outcome, depth=len(self._queue), cause=list(cause))
        else:
            self._tracer.emit(
                QUEUE_ADD, _key(item), outcome=outcome, depth=len(self._queue), cause=list(cause), via=via
            )

    def len(self) -> int:
        """Items queued (not dirty-while-processing), for display only."""
        with self._lock:
            return len(self._queue)

    def __len__(self) -> int:
        return self.len()

    def __bool__(self) -> bool:
        # A queue is an object, not a container: `queue or default` must not
        # replace an empty queue.
        return True

    def get(self, timeout: float | None = None, worker: int | None = None) -> tuple[Any, bool]:
        """Block until an item can be processed: ``(item, False)``; or
        ``(None, True)`` once shutting down with nothing queued. The caller
        must call ``done(item)``. ``timeout`` is real seconds; on expiry
        raises ``TimeoutError``. ``worker`` (not in client-go) only labels
        the trace: which of the caller's workers took the item."""
        with self._lock:
            if (not self._queue or self._held) and not self._shutting_down:
                self._getters += 1
                try:
                    if timeout is None:
                        while (not self._queue or self._held) and not self._shutting_down:
                            self._cond.wait()
                    else:
                        deadline = time.monotonic() + timeout
                        while (not self._queue or self._held) and not self._shutting_down:
                            remaining = deadline - time.monotonic()
                            if remaining <= 0:
                                raise TimeoutError(f"workqueue get: nothing to process within {timeout}s")
                            self._cond.wait(remaining)
                finally:
                    self._getters -= 1
            if not self._queue:
                return None, True
            item = self._queue.popleft()
            waited = self._metrics.get(item)
            self._processing.add(item)
            self._dirty.discard(item)
            if self._tracer.enabled:
                if worker is None:
                    self._tracer.emit(QUEUE_GET, _key(item), waited=waited, depth=len(self._queue))
                else:
                    self._tracer.emit(QUEUE_GET, _key(item), waited=waited, depth=len(self._queue), worker=worker)
            return item, False

    def done(self, item: Hashable, worker: int | None = None, outcome: str | None = None) -> None:
        """Finish processing ``item``; re-queue it if it was added meanwhile.

        Unlike client-go, ``done`` of an item not being processed is ignored:
        there it would queue a dirty item a second time. ``worker`` and
        ``outcome`` ("ok" or "error"; not in client-go) only label the trace.
        """
        with self._lock:
            if item not in self._processing:
                return
            worked = self._metrics.done(item)
            self._processing.discard(item)
            requeued = item in self._dirty
            if requeued:
                self._queue.append(item)
                if self._getters:
                    self._cond.notify()
            elif not self._processing and self._shutting_down:
                # The last item is done: wake shut_down_with_drain waiters.
                self._cond.notify_all()
            if self._tracer.enabled:
                if worker is None:
                    self._tracer.emit(QUEUE_DONE, _key(item), worked=worked, requeued=requeued)
                else:
                    self._tracer.emit(
                        QUEUE_DONE, _key(item), worked=worked, requeued=requeued, worker=worker, outcome=outcome
                    )

    def hold(self, held: bool) -> None:
        """Hold every ``get`` (the pause-workers experiment; not in client-go):
        items keep queueing and collapsing, no worker gets one until let go.
        Shutting down ends the hold."""
        with self._lock:
            self._held = held
            self._cond.notify_all()

    def is_held(self) -> bool:
        return self._held

    def shut_down(self) -> None:
        """Ignore new items and tell workers to exit now (items already
        queued are still handed out by ``get``)."""
        with self._lock:
            self._drain = False
            self._shutting_down = True
            self._cond.notify_all()
        self._on_shutdown(drain=False)

    def shut_down_with_drain(self, timeout: float | None = None) -> None:
        """Ignore new items, then wait until every item being processed is
        done. ``shut_down`` from another thread ends the wait early.
        ``timeout`` is real seconds (``TimeoutError``)."""
        with self._lock:
            self._drain = True
            self._shutting_down = True
            self._cond.notify_all()
        self._on_shutdown(drain=True)
        with self._lock:
            deadline = None if timeout is None else time.monotonic() + timeout
            while self._processing and self._drain:
                if deadline is None:
                    self._cond.wait()
                else:
                    remaining = deadline - time.monotonic()
                    if remaining <= 0:
                        raise TimeoutError(f"workqueue drain: {len(self._processing)} items still processing")
                    self._cond.wait(remaining)

    def shutting_down(self) -> bool:
        with self._lock:
            return self._shutting_down

    def _on_shutdown(self, drain: bool) -> None:
        """Hook for subclasses (the delaying queue stops its loop)."""
        if self._tracer.enabled:
            self._tracer.emit(QUEUE_SHUTDOWN, None, drain=drain)

    # -- display views -------------------------------------------------------

    def queued(self) -> list[Hashable]:
        """Items in the order ``get`` will hand them out."""
        with self._lock:
            return list(self._queue)

    def dirty(self) -> set[Hashable]:
        with self._lock:
            return set(self._dirty)

    def processing(self) -> set[Hashable]:
        with self._lock:
            return set(self._processing)

    # -- metrics ---------------------------------------------------------------

    def metrics(self) -> QueueMetrics:
        """Snapshot of client-go's workqueue metrics for this queue."""
        with self._lock:
            return self._metrics.snapshot(self.name, self._clock.now(), self._waiting_count())

    def _waiting_count(self) -> int:
        return 0
