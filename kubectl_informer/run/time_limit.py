"""``--duration`` while the run is still connecting.

The headless loop counts ``--duration`` once the informer runs; before that
the main thread is inside the first requests (discovery, the RBAC probe),
which a server that trickles its answer can hold for ever. A SIGALRM raises
``TimeLimitReached`` in the main thread at the deadline, which interrupts a
blocking read or a back-off sleep there, as Ctrl-C does.
"""

from __future__ import annotations

import contextlib
import signal
import threading
import time
from collections.abc import Iterator
from types import FrameType
from typing import NoReturn


class TimeLimitReached(Exception):
    pass


@contextlib.contextmanager
def time_limit(seconds: float | None) -> Iterator[None]:
    """Raise TimeLimitReached in this block after ``seconds`` (None: never;
    off the main thread or without SIGALRM, a no-op)."""
    if seconds is None or not hasattr(signal, "setitimer") or threading.current_thread() is not threading.main_thread():
        yield
        return

    def on_alarm(signum: int, frame: FrameType | None) -> NoReturn:
        raise TimeLimitReached()

    old = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, max(seconds, 0.001))
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def remaining(run_for: float | None, started: float) -> float | None:
    """What is left of ``run_for`` counted from ``started`` (monotonic)."""
    return None if run_for is None else max(0.0, run_for - (time.monotonic() - started))
