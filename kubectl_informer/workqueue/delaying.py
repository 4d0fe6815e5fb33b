"""DelayingQueue: client-go's ``delaying_queue.go``.

``add_after(item, seconds)`` parks the item in a heap ordered by ready time;
one waiting-loop thread, waiting on the queue's clock, moves items into the
queue when their time comes. An item parked twice keeps the earlier ready
time, so a retry cannot be pushed later by a slower duplicate.

Differences from client-go, none visible to callers: add_after inserts into
the heap directly under a lock instead of through a buffered channel; the
loop starts with the first delayed add (a queue that never delays costs no
thread); and there is no 10 s heartbeat, because the loop re-reads the heap
whenever it is notified and otherwise waits exactly until the next ready
time (a heartbeat would also keep a FakeClock waiter alive forever).
"""

from __future__ import annotations

import heapq
import itertools
import threading
from collections.abc import Hashable
from typing import Any

from kubectl_informer.clock import Clock
from kubectl_informer.core.trace import Tracer
from kubectl_informer.core.trace_kinds import QUEUE_ADD_AFTER
from kubectl_informer.workqueue.queue import Queue, _key

__all__ = ["DelayingQueue"]

_NS = 1e-9


class _Entry:
    __slots__ = ("ready_at", "seq", "item", "live")

    def __init__(self, ready_at: float, seq: int, item: Hashable) -> None:
        self.ready_at = ready_at
        self.seq = seq
        self.item = item
        self.live = True

    def __lt__(self, other: _Entry) -> bool:
        # seq breaks ties so equal ready times leave in add_after order.
        return (self.ready_at, self.seq) < (other.ready_at, other.seq)


class DelayingQueue(Queue):
    """A ``Queue`` that can add an item later (``workqueue.NewDelayingQueue``)."""

    def __init__(self, *, name: str | None = None, clock: Clock | None = None, tracer: Tracer | None = None) -> None:
        super().__init__(name=name, clock=clock, tracer=tracer)
        # Guards the heap; order is always heap lock -> queue lock, never back.
        self._wcond = threading.Condition(threading.Lock())
        self._heap: list[_Entry] = []
        self._entries: dict[Hashable, _Entry] = {}
        self._seq = itertools.count()
        self._loop: threading.Thread | None = None
        self._stopped = False

    def add_after(self, item: Hashable, seconds: float) -> None:
        """Add ``item`` once ``seconds`` (clock) have passed; at once if
        ``seconds <= 0``. Ignored while shutting down."""
        if self._shutting_down:
            return
        with self._lock:
            self._metrics.retry()
        if self._tracer.enabled:
            self._tracer.emit(QUEUE_ADD_AFTER, _key(item), delay=seconds)
        if seconds <= 0:
            self.add(item)
            return
        with self._wcond:
            if self._stopped:
                return
            ready_at = self._clock.now() + seconds
            existing = self._entries.get(item)
            if existing is not None:
                if existing.ready_at <= ready_at:
                    return
                # Earlier wins: retire the old entry (skipped when popped).
                existing.live = False
            entry = _Entry(ready_at, next(self._seq), item)
            self._entries[item] = entry
            heapq.heappush(self._heap, entry)
            if self._loop is None:
                self._loop = threading.Thread(
                    target=self._waiting_loop, name=f"workqueue-waiting-{self.name or id(self)}", daemon=True
                )
                self._loop.start()
            else:
                self._wcond.notify()

    def _waiting_loop(self) -> None:
        heap = self._heap
        with self._wcond:
            while not self._stopped and not self._shutting_down:
                # Go's time is whole nanoseconds; allowing 1 ns keeps float
                # rounding of "now + delay" from stranding a ready item.
                now = self._clock.now() + _NS
                while heap and (not heap[0].live or heap[0].ready_at <= now):
                    entry = heapq.heappop(heap)
                    if entry.live:
                        del self._entries[entry.item]
                        self.add(entry.item)
                while heap and not heap[0].live:
                    heapq.heappop(heap)
                timeout = heap[0].ready_at - now if heap else None
                self._clock.wait_on(self._wcond, timeout)

    def _on_shutdown(self, drain: bool) -> None:
        super()._on_shutdown(drain)
        with self._wcond:
            self._stopped = True
            self._wcond.notify_all()

    def waiting(self) -> list[tuple[Any, float]]:
        """``(item, ready_at)`` for parked items, soonest first; ``ready_at``
        is absolute on the queue's clock."""
        with self._wcond:
            return sorted(((e.item, e.ready_at) for e in self._entries.values()), key=lambda p: p[1])

    def _waiting_count(self) -> int:
        # Called under the queue lock: read without the heap lock (a dict's
        # len is atomic) to keep lock order heap -> queue.
        return len(self._entries)
