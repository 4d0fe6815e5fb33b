"""Full collections where their pause costs nobody: when the UI has caught up.

A full (oldest-generation) collection walks every object the process keeps
(the panes' rings, the engine's cache, Textual's screen) and pauses every
thread for as long: 100-200 ms on the bench's heap. Under a flood the
automatic ones are what a key press waited for. The UI's GC setting
(run/lifecycle.py: the one owner of the thresholds) makes them rare, and
the feed loop runs one here instead, at the end of a drain that emptied the
buffer with no key waiting, at most every ``every`` seconds and only if
something has reached the oldest generation since the last one. A UI that
never catches up gets only the rare automatic ones, which bound the garbage.
"""

from __future__ import annotations

import gc
import time
from typing import Callable

# Seconds between two full collections the feed loop runs itself.
EVERY = 30.0


class IdleCollector:
    """``idle()``: the UI has caught up and no key waits; collect if due.
    ``collections``: how many it ran."""

    __slots__ = ("every", "_clock", "_last", "_automatic", "collections")

    def __init__(self, every: float = EVERY, clock: Callable[[], float] = time.monotonic) -> None:
        self.every = every
        self._clock = clock
        self._last = clock()
        self._automatic = _full_collections()
        self.collections = 0

    def idle(self) -> bool:
        """Run a full collection if one is due; whether it ran."""
        now = self._clock()
        full = _full_collections()
        if full != self._automatic:  # one ran on its own (the threshold, or someone's gc.collect())
            self._automatic, self._last = full, now
            return False
        if now - self._last < self.every or not gc.isenabled() or not gc.get_count()[2]:
            return False
        gc.collect()
        self.collections += 1
        self._automatic, self._last = _full_collections(), self._clock()
        return True


def _full_collections() -> int:
    return gc.get_stats()[2]["collections"]
