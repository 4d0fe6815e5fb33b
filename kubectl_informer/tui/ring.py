"""Bounded history for pane states.

The UI keeps only what it can show, however long the engine runs: every
collection a pane state holds is one of these (or a ``deque(maxlen=...)``),
so memory is flat over a long watch.
"""

from __future__ import annotations

from collections import OrderedDict, deque
from typing import Generic, Hashable, Iterator, TypeVar

T = TypeVar("T")
K = TypeVar("K", bound=Hashable)


class KeyedHistory(Generic[K, T]):
    """A ring of items per key, for the ``max_keys`` keys seen most recently.

    An LRU of keys: touching a key makes it newest; a new key beyond the limit
    evicts the key untouched the longest, with its whole ring.
    """

    __slots__ = ("max_keys", "per_key", "_rings", "evicted")

    def __init__(self, max_keys: int = 2000, per_key: int = 40) -> None:
        if max_keys < 1 or per_key < 1:
            raise ValueError("max_keys and per_key must be at least 1")
        self.max_keys = max_keys
        self.per_key = per_key
        self._rings: OrderedDict[K, deque[T]] = OrderedDict()
        self.evicted = 0

    def add(self, key: K, item: T) -> deque[T]:
        """Append ``item`` to ``key``'s ring; returns the ring (read, don't keep)."""
        rings = self._rings
        ring = rings.get(key)
        if ring is None:
            if len(rings) >= self.max_keys:
                rings.popitem(last=False)
                self.evicted += 1
            ring = rings[key] = deque(maxlen=self.per_key)
        else:
            rings.move_to_end(key)
        ring.append(item)
        return ring

    def get(self, key: K) -> list[T]:
        ring = self._rings.get(key)
        return list(ring) if ring is not None else []

    def ring(self, key: K) -> deque[T]:
        """The live ring of ``key`` (KeyError if not held); read, don't keep."""
        return self._rings[key]

    def __contains__(self, key: object) -> bool:
        return key in self._rings

    def __len__(self) -> int:
        return len(self._rings)

    def keys_newest_first(self) -> Iterator[K]:
        return reversed(self._rings)

    def __repr__(self) -> str:
        return f"KeyedHistory({dict(self._rings)!r})"

    def total_items(self) -> int:
        return sum(len(r) for r in self._rings.values())


class RateMeter:
    """Events per second over a sliding window of whole seconds (trace time)."""

    __slots__ = ("window", "_buckets")

    def __init__(self, window: int = 5) -> None:
        self.window = window
        # (second, count) pairs, oldest first; at most window+1 of them.
        self._buckets: deque[list[float]] = deque(maxlen=window + 1)

    def __repr__(self) -> str:
        return f"RateMeter({list(self._buckets)!r})"

    def add(self, t: float, n: int = 1) -> None:
        sec = int(t)
        b = self._buckets
        if b and b[-1][0] == sec:
            b[-1][1] += n
        else:
            b.append([sec, n])

    def rate(self, now: float) -> float:
        """Mean rate over the last ``window`` complete seconds before ``now``."""
        cur = int(now)
        lo = cur - self.window
        total = sum(c for s, c in self._buckets if lo <= s < cur)
        return total / self.window
