"""Clocks the engine measures and waits on.

Every timed rule in the engine (resync ticks, delayed adds, back-off, watch
timeouts) reads and waits on a ``Clock`` so that tests drive time with a
``FakeClock`` (``clock.testing``) instead of sleeping, as client-go's tests do
with ``k8s.io/utils/clock/testing``.

Waiting primitives all take an object the caller already owns (a
``threading.Condition`` or ``threading.Event``) so that a waiter wakes both
when the clock reaches its deadline and when other threads signal it.

Timeouts passed to blocking calls such as ``DeltaFIFO.pop(timeout=...)`` and
``Queue.get(timeout=...)`` are *not* clock time: they are real seconds, a
safety net for callers, and are measured with ``time.monotonic``.

Imports nothing of ours.
"""

from __future__ import annotations

import threading
import time


class Clock:
    """Interface; ``RealClock`` and ``FakeClock`` implement it."""

    def now(self) -> float:
        raise NotImplementedError

    def since(self, t: float) -> float:
        return self.now() - t

    def sleep(self, seconds: float) -> None:
        raise NotImplementedError

    def wait_on(self, cond: threading.Condition, timeout: float | None) -> None:
        """Wait on ``cond`` (whose lock the caller holds) until notified or
        until ``timeout`` clock seconds pass. May return early (spuriously):
        callers loop, re-checking their state and the clock."""
        raise NotImplementedError

    def wait_event(self, event: threading.Event, timeout: float | None) -> bool:
        """Wait until ``event`` is set (True) or ``timeout`` clock seconds
        pass (False)."""
        raise NotImplementedError


class RealClock(Clock):
    # The C function itself: ``clock.now()`` runs several times per delta and
    # then costs no Python frame.
    now = staticmethod(time.monotonic)

    def sleep(self, seconds: float) -> None:
        if seconds > 0:
            time.sleep(seconds)

    def wait_on(self, cond: threading.Condition, timeout: float | None) -> None:
        cond.wait(None if timeout is None else max(0.0, timeout))

    def wait_event(self, event: threading.Event, timeout: float | None) -> bool:
        return event.wait(None if timeout is None else max(0.0, timeout))
