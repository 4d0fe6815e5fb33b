"""The cyclic GC paused while a big collection is decoded.

Building hundreds of thousands of dicts and lists (a 10,000-pod list is about
600,000) triggers collections that walk the whole growing heap again and
again, which costs more than the decode itself. Decoded JSON holds no
reference cycles, so collection is paused while a List body is decoded
(``stream_decode``) or a WatchList's initial events arrive (``listwatch``),
and the result is frozen out of later collections (``gc.freeze``) as
long-lived: the cache keeps it.
"""

from __future__ import annotations

import gc
import threading


class _GCPause:
    """Pause the cyclic GC while any holder needs it paused (a list decode, a
    WatchList's initial events, possibly on several threads at once); the GC
    comes back on with the last release, if it was on before the first."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._depth = 0
        self._was_enabled = False

    def acquire(self) -> None:
        with self._lock:
            if self._depth == 0:
                self._was_enabled = gc.isenabled()
                gc.disable()
            self._depth += 1

    def release(self, freeze: bool = False) -> None:
        with self._lock:
            self._depth -= 1
            if self._depth == 0 and self._was_enabled:
                gc.enable()
        if freeze:
            # Long-lived (the cache holds them): keep them out of every later collection.
            gc.freeze()

    @property
    def depth(self) -> int:
        return self._depth


gc_pause = _GCPause()
