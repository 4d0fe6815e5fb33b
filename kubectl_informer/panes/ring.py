"""Bounded history for pane states.

The UI keeps only what it can show, however long the engine runs: every
collection a pane state holds is one of these (or a ``deque(maxlen=...)``),
so memory is flat over a long watch.
"""

from __future__ import annotations

from collections import OrderedDict, deque
from collections.abc import Hashable, Iterator
from typing import Generic, TypeVar

T = TypeVar("T")
K = TypeVar("K", bound=Hashable)


class KeyedHistory(Generic[K, T]):
    """A ring of items per key, for the ``max_keys`` keys seen most recently,
    and at most ``max_items`` items in all.

    An LRU of keys: touching a key makes it newest; a new key beyond the limit,
    or an item beyond the total, evicts a whole key: first the key marked dead
    longest ago (``mark_dead``: its object was deleted), else the key untouched
    the longest. Per-key rings alone are not a bound when names churn (pods
    deleted and created under new names): every key fills its ring and stays.
    """

    __slots__ = ("max_keys", "per_key", "max_items", "_rings", "_dead", "evicted", "items")

    def __init__(self, max_keys: int = 2000, per_key: int = 40, max_items: int | None = None) -> None:
        if max_items is None:
            max_items = max_keys * per_key
        if max_keys < 1 or per_key < 1 or max_items < 1:
            raise ValueError("max_keys, per_key and max_items must be at least 1")
        self.max_keys = max_keys
        self.per_key = per_key
        self.max_items = max_items
        # A plain list per key, trimmed by hand: a deque allocates a block of 64
        # slots (about 600 bytes) for its first item, and most keys of a busy
        # run hold one or two (the bench's flood: 5,000 keys in turn).
        self._rings: OrderedDict[K, list[T]] = OrderedDict()
        self._dead: OrderedDict[K, None] = OrderedDict()  # oldest death first
        self.evicted = 0
        self.items = 0  # held now, across keys

    def add(self, key: K, item: T) -> list[T]:
        """Append ``item`` to ``key``'s ring; returns the ring (read, don't keep)."""
        rings = self._rings
        ring = rings.get(key)
        if ring is None:
            if len(rings) >= self.max_keys:
                self._evict_one()
            ring = rings[key] = [item]
        else:
            rings.move_to_end(key)
            if len(ring) >= self.per_key:
                del ring[0]  # full: the oldest goes (a short memmove: per_key is small)
                ring.append(item)
                return ring
            ring.append(item)
        self.items += 1
        if self.items > self.max_items:
            self._trim(key)
        return ring

    def extend(self, key: K, items: list[T]) -> None:
        """``add`` of each of ``items`` in turn (what a feed loop's batch
        brings for one key), with one LRU move instead of one per item."""
        if len(items) == 1:
            self.add(key, items[0])
            return
        ring = self._rings.get(key)
        if ring is None:
            ring = self.add(key, items[0])
            items = items[1:]
        else:
            self._rings.move_to_end(key)
        before = len(ring)
        ring += items
        over = len(ring) - self.per_key
        if over > 0:
            del ring[:over]
        grows = len(ring) - before
        if grows:
            self.items += grows
            if self.items > self.max_items:
                self._trim(key)

    def _evict_one(self, spare: K | None = None) -> bool:
        """Drop one whole key (not ``spare``): the longest dead, else the least recent."""
        dead, rings = self._dead, self._rings
        while dead:
            key = next(iter(dead))
            if key == spare:
                if len(dead) == 1:
                    break
                dead.move_to_end(key)
                continue
            del dead[key]
            ring = rings.pop(key, None)
            if ring is not None:
                self.items -= len(ring)
                self.evicted += 1
                return True
        for key in rings:
            if key != spare:
                break
        else:
            return False
        self.items -= len(rings.pop(key))
        dead.pop(key, None)
        self.evicted += 1
        return True

    def _trim(self, keep: K) -> None:
        while self.items > self.max_items:
            if not self._evict_one(spare=keep):
                ring = self._rings[keep]  # the one key left: its oldest go
                over = min(self.items - self.max_items, len(ring) - 1)
                if over > 0:
                    del ring[:over]
                    self.items -= over
                return

    def mark_dead(self, key: K) -> None:
        """``key``'s object is gone: its history goes before live keys' (O(1))."""
        if key in self._rings:
            self._dead[key] = None
            self._dead.move_to_end(key)

    def mark_live(self, key: K) -> None:
        """``key`` came back (created again under the same name)."""
        self._dead.pop(key, None)

    def get(self, key: K) -> list[T]:
        ring = self._rings.get(key)
        return list(ring) if ring is not None else []

    def ring(self, key: K) -> list[T]:
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

    @property
    def dead_keys(self) -> int:
        return len(self._dead)


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
