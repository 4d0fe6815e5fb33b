"""What DeltaFIFO and RealFIFO share: construction of the common state, the
wait for an entry in ``pop``, ``close``/``is_closed``/``has_synced`` and the
``transformer`` view. The queueing itself (the hot paths) stays in each class.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sized
from typing import Any

from kubectl_informer.clock import Clock, RealClock
from kubectl_informer.core.trace import NULL_TRACER, Tracer


class FIFOClosedError(Exception):
    """``pop`` on a FIFO that is closed and empty."""

    def __init__(self, msg: str = "DeltaFIFO: manipulating with closed queue") -> None:
        super().__init__(msg)


class FIFOBase:
    """Common state and lifecycle; subclasses queue entries and pop them."""

    # Names used in the errors ``pop`` raises.
    _NAME = "DeltaFIFO"
    # Called (outside the lock) after a ``replace`` that leaves the FIFO synced
    # at once (an empty first list): no pop follows to notice the transition.
    on_synced: Callable[[], None] | None = None

    def __init__(
        self,
        key_func: Callable[[Any], str],
        known_objects: Any,
        transformer: Callable[[Any], Any] | None,
        tracer: Tracer | None,
        clock: Clock | None,
    ) -> None:
        self._key_func = key_func
        # Anything with list_keys() and get_by_key(key) -> (obj, exists):
        # normally the informer's Indexer.
        self._known = known_objects
        self._transformer = transformer
        self._tracer = tracer or NULL_TRACER
        self._clock = clock or RealClock()
        # Reentrant so a pop's process callback may read the FIFO (len, has_synced).
        self._lock = threading.RLock()
        self._cond = threading.Condition(self._lock)
        self._populated = False
        self._initial_population_count = 0
        self._closed = False
        # Consumers blocked in pop: notify only when someone waits.
        self._waiting = 0
        # A held FIFO's pop waits even with entries queued (the pause-fifo
        # experiment): the backlog stays in the FIFO, where it can be seen.
        self._held = False

    def _wait_for_entry_locked(self, pending: Sized, timeout: float | None) -> None:
        """Block (lock held) until ``pending`` is non-empty and the FIFO not
        held. Called only then, so a pop that finds work pays nothing for it.

        ``timeout`` is real seconds (``TimeoutError``); a closed, empty FIFO
        raises ``FIFOClosedError``.
        """
        deadline = None if timeout is None else time.monotonic() + timeout
        while not pending or self._held:
            if self._closed:
                raise FIFOClosedError(f"{self._NAME}: manipulating with closed queue")
            self._waiting += 1
            try:
                if deadline is None:
                    self._cond.wait()
                else:
                    remaining = deadline - time.monotonic()
                    timed_out = remaining <= 0 or not self._cond.wait(remaining)
                    if timed_out and (not pending or self._held) and not self._closed:
                        raise TimeoutError(f"{self._NAME}.pop timed out")
            finally:
                self._waiting -= 1

    def hold(self, held: bool) -> None:
        """Hold (or let go) every pop: entries keep queueing meanwhile."""
        with self._lock:
            self._held = held
            self._cond.notify_all()

    def is_held(self) -> bool:
        return self._held

    def close(self) -> None:
        with self._lock:
            self._closed = True
            self._cond.notify_all()

    def is_closed(self) -> bool:
        with self._lock:
            return self._closed

    def has_synced(self) -> bool:
        with self._lock:
            return self._populated and self._initial_population_count == 0

    def _notify_if_synced(self) -> None:
        if self.on_synced is not None and self.has_synced():
            self.on_synced()

    @property
    def transformer(self) -> Callable[[Any], Any] | None:
        return self._transformer
