"""Full collections where their pause costs nobody: when the UI has caught up.

A full (oldest-generation) collection walks every object the process keeps
(the panes' rings, the engine's cache, Textual's screen) and pauses every
thread for as long: 100-200 ms on the bench's heap. Under a flood the
automatic ones are what a key press waited for. The UI's GC setting
(run/lifecycle.py: the one owner of the thresholds) makes them rare, and
the feed loop runs one here instead, once the UI has been idle for
``CALM`` frames in a row (each frame's drain emptied the buffer with no key
waiting: about a second), at most every ``every`` seconds and only if
something has reached the oldest generation since the last one. A UI that
never catches up gets only the rare automatic ones, which bound the garbage.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable

# Seconds between two full collections the feed loop runs itself.
EVERY = 30.0
# Idle frames in a row before one (15 Hz: a second); the moment a backlog is
# taken in is often followed by more.
CALM = 15


class IdleCollector:
    """``frame(idle)`` after each frame's drain (``idle``: it emptied the
    buffer and no key waits); collects when due. ``collections``: how many
    it ran."""

    __slots__ = ("every", "calm", "_clock", "_last", "_automatic", "_idle_frames", "collections")

    def __init__(self, every: float = EVERY, clock: Callable[[], float] = time.monotonic, calm: int = CALM) -> None:
        self.every, self.calm = every, calm
        self._clock = clock
        self._last = clock()
        self._automatic = _full_collections()
        self._idle_frames = 0
        self.collections = 0

    def frame(self, idle: bool) -> bool:
        """Run a full collection if one is due; whether it ran."""
        self._idle_frames = self._idle_frames + 1 if idle else 0
        if self._idle_frames < self.calm:
            return False
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
