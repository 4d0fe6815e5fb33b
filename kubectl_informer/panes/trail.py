"""Each key's history through a stretch the UI took in as a summary, compact.

A UI behind (feed.py) takes most of the trace in as summaries: the panes'
figures stay exact, but no row is made per event, so the Inspector had no
history of a key for the stretch. ``SummaryTrail`` keeps it in columns, one
ring of ``capacity`` slots for all keys together: seq and time in ``array``s,
and the key, kind and resourceVersion as references to the event's own
strings in three lists. Its memory is fixed however many keys there are; it
makes no Python object per event (an array is not tracked by the cyclic GC,
and each list is one container of strings, which are not either: a full
collection visits three objects, not one per event); and a stretch is
written at C speed (``map`` over the events, slice assignment). The
Inspector expands a key's slots on demand (``rows``, a C search of the key
column) into its usual rows, marked as from a summary: a summary keeps the
event's kind and RV, not its other fields (no object, no diff, no
predicates).
"""

from __future__ import annotations

from array import array
from itertools import compress, repeat
from operator import itemgetter

from kubectl_informer.core.trace import TraceEvent

# The field a row expanded from a summary carries (the UI's own; never emitted).
FROM_SUMMARY = "from_summary"

_seq, _time, _kind, _key, _fields = (itemgetter(i) for i in range(5))
_RV = repeat("resource_version")


class SummaryTrail:
    """The newest ``capacity`` keyed events of the summarised stretches."""

    __slots__ = ("capacity", "_cols", "_pos", "filled", "version")

    def __init__(self, capacity: int = 1 << 15) -> None:
        if capacity < 1:
            raise ValueError("capacity must be at least 1")
        self.capacity = capacity
        # seq, time, key (None: an empty slot), kind ("" in an empty slot), resourceVersion
        self._cols: tuple[array[int], array[float], list[str | None], list[str], list[str | None]] = (
            array("q", bytes(8 * capacity)),
            array("d", bytes(8 * capacity)),
            [None] * capacity,
            [""] * capacity,
            [None] * capacity,
        )
        self._pos = 0  # the next slot written
        self.filled = 0  # slots holding an event
        self.version = 0

    def __len__(self) -> int:
        return self.filled

    def __repr__(self) -> str:
        return f"SummaryTrail(capacity={self.capacity}, filled={self.filled}, next={self._pos})"

    def add(self, events: list[TraceEvent]) -> int:
        """Keep the keyed ones of ``events`` (in order; the newest
        ``capacity`` if more); returns how many."""
        keyed = list(compress(events, map(_key, events)))
        if len(keyed) > self.capacity:
            keyed = keyed[-self.capacity :]
        if not keyed:
            return 0
        # An array built from a list is several times faster than from an iterator.
        values = (
            array("q", list(map(_seq, keyed))),
            array("d", list(map(_time, keyed))),
            list(map(_key, keyed)),
            list(map(_kind, keyed)),
            list(map(dict.get, map(_fields, keyed), _RV)),
        )
        for col, vals in zip(self._cols, values, strict=True):
            self._put(col, vals)
        n = len(keyed)
        self._pos = (self._pos + n) % self.capacity
        self.filled = min(self.capacity, self.filled + n)
        self.version += 1
        return n

    def _put(self, col, vals) -> None:
        """``vals`` into ``col`` from the write position on, wrapping round."""
        pos, n = self._pos, len(vals)
        first = min(n, self.capacity - pos)
        col[pos : pos + first] = vals[:first]
        if n > first:
            col[: n - first] = vals[first:]

    def slots(self, key: str) -> list[int]:
        """The slots holding ``key``'s events (``list.index``: a C search)."""
        keys = self._cols[2]
        found: list[int] = []
        start, end = 0, self.filled
        index = keys.index
        while True:
            try:
                i = index(key, start, end)
            except ValueError:
                return found
            found.append(i)
            start = i + 1

    def newest_keys(self, limit: int, accept=None, scan: int = 4096) -> list[tuple[str, int, str]]:
        """Up to ``limit`` keys of the newest ``scan`` slots that ``accept``
        passes (None: all), newest first, each with its newest event's seq
        and kind there (the scan bounds a draw's cost: the key list asks
        once a frame)."""
        seqs, keys, kinds = self._cols[0], self._cols[2], self._cols[3]
        out: list[tuple[str, int, str]] = []
        seen: set[str] = set()
        i = self._pos
        for _ in range(min(scan, self.filled)):
            i = (i - 1) % self.capacity
            key = keys[i]
            if key is not None and key not in seen:  # never None in a filled slot
                seen.add(key)
                if accept is not None and not accept(key):
                    continue
                out.append((key, seqs[i], kinds[i]))
                if len(out) >= limit:
                    break
        return out

    def has(self, key: str) -> bool:
        return key in self._cols[2]

    def rows(self, key: str, newest: int | None = None) -> list[TraceEvent]:
        """``key``'s events kept, oldest first (the ``newest`` n), as events
        with their seq, time, kind and RV and ``FROM_SUMMARY`` set."""
        seq, time, _, kind, rv = self._cols
        got = sorted((seq[i], time[i], kind[i], rv[i]) for i in self.slots(key))
        if newest is not None:
            got = got[len(got) - newest :] if 0 < newest < len(got) else got if newest > 0 else []
        out = []
        for s, t, k, r in got:
            fields: dict = {FROM_SUMMARY: True}
            if r is not None:
                fields["resource_version"] = r
            out.append(TraceEvent(s, t, k, key, fields))
        return out

    def clear(self) -> None:
        cap = self.capacity
        self._cols[2][:] = [None] * cap
        self._cols[3][:] = [""] * cap
        self._cols[4][:] = [None] * cap
        self._pos = self.filled = 0
        self.version += 1
