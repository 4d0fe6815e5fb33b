"""Test doubles for ``clock``, as ``k8s.io/utils/clock/testing``: a
``FakeClock`` that moves only when a test steps it, and ``wait_for`` that
waits for another thread's effect (never for time)."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from kubectl_informer.clock import Clock


@dataclass(eq=False)
class _Waiter:
    deadline: float
    fired: threading.Event = field(default_factory=threading.Event)
    cond: threading.Condition | None = None


# How often (real seconds) a FakeClock waiter on an Event re-checks the event:
# threading.Event has no hook for "set", so a fake-time waiter polls it.
_EVENT_POLL = 0.002


class FakeClock(Clock):
    """A clock that moves only when told to.

    ``step`` and ``set_time`` wake every sleeper and waiter whose deadline has
    come. ``has_waiters`` tells a test that some thread is blocked on this
    clock, so it can step without racing the thread to its wait.
    """

    def __init__(self, start: float = 0.0) -> None:
        self._now = float(start)
        self._lock = threading.Lock()
        self._waiters: list[_Waiter] = []

    def now(self) -> float:
        return self._now

    def step(self, seconds: float) -> None:
        self.set_time(self._now + seconds)

    def set_time(self, t: float) -> None:
        with self._lock:
            self._now = float(t)
            due = [w for w in self._waiters if w.deadline <= self._now]
            self._waiters = [w for w in self._waiters if w.deadline > self._now]
        for w in due:
            w.fired.set()
            if w.cond is not None:
                with w.cond:
                    w.cond.notify_all()

    def has_waiters(self) -> bool:
        with self._lock:
            return bool(self._waiters)

    def waiter_count(self) -> int:
        with self._lock:
            return len(self._waiters)

    def next_deadline(self) -> float | None:
        with self._lock:
            return min((w.deadline for w in self._waiters), default=None)

    def _register(self, timeout: float, cond: threading.Condition | None = None) -> _Waiter:
        with self._lock:
            w = _Waiter(self._now + max(0.0, timeout), cond=cond)
            if w.deadline <= self._now:
                w.fired.set()
            else:
                self._waiters.append(w)
            return w

    def _unregister(self, w: _Waiter) -> None:
        with self._lock, contextlib.suppress(ValueError):
            self._waiters.remove(w)

    def sleep(self, seconds: float) -> None:
        if seconds <= 0:
            return
        w = self._register(seconds)
        w.fired.wait()

    def wait_on(self, cond: threading.Condition, timeout: float | None) -> None:
        if timeout is None:
            cond.wait()
            return
        w = self._register(timeout, cond)
        try:
            if not w.fired.is_set():
                cond.wait()
        finally:
            self._unregister(w)

    def wait_event(self, event: threading.Event, timeout: float | None) -> bool:
        if timeout is None:
            event.wait()
            return True
        w = self._register(timeout)
        try:
            while True:
                if event.is_set():
                    return True
                if w.fired.is_set():
                    return event.is_set()
                event.wait(_EVENT_POLL)
        finally:
            self._unregister(w)


def wait_for(predicate: Callable[[], object], timeout: float = 5.0, interval: float = 0.001) -> bool:
    """Poll ``predicate`` until true or ``timeout`` real seconds pass.

    For tests and shutdown paths that wait for *another thread* to act (not
    for time to pass): FakeClock moves time, this waits for the effect.
    """
    deadline = time.monotonic() + timeout
    while True:
        if predicate():
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(interval)
