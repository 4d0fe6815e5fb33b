"""A delta's record for the Explain panel, in a compact form.

``Facts`` keeps one record per delta applied (``PER_KEY`` a key, up to
``MAX_RECORDS`` in all), so that a Deltas row or an Inspector entry can be
explained long after. As a ``Rec`` with its own ``fields`` and ``extra``
dicts and a list of listeners, one took about 620 bytes in five blocks; a
busy run fills the whole bound (the bench's flood: 8,192 of them within
its first 30 s, its RSS rising by as much). ``StoreRec`` holds the same in
one slotted object and one tuple of atoms (which the cyclic GC stops
tracking): the event's fields flattened (key, value, key, value...) without
its objects, and the listeners and popped delta types as tuples shared by
every record that has the same (``shared``). ``fields`` and ``extra`` are
built when read, as the texts read a ``Rec``'s: a record is read when one
is explained, a few at a time.
"""

from __future__ import annotations

from itertools import chain
from typing import Any

# Distinct listener and popped-type tuples shared; past this many the table
# starts over (the records keep theirs), so it stays small however odd the run.
MAX_SHARED = 512

_shared: dict[tuple, tuple] = {}


def shared(values) -> tuple:
    """``values`` as a tuple, the same object for every equal one."""
    t = tuple(values)
    got = _shared.get(t)
    if got is None:
        if len(_shared) >= MAX_SHARED:
            _shared.clear()
        got = _shared[t] = t
    return got


class StoreRec:
    """One delta applied (a ``store.*`` event), read as a ``Rec`` is:
    ``seq``, ``time``, ``kind``, ``key``, ``fields`` (the event's, less its
    objects) and ``extra`` (``listeners`` that got it, the cache ``count``
    after it, the delta types ``popped`` with it, None when not known)."""

    __slots__ = ("seq", "time", "kind", "key", "flat", "listeners", "count", "popped")

    def __init__(self, seq: int, time: float, kind: str, key: str | None, fields: dict, local: tuple,
                 count: int, popped) -> None:
        self.seq, self.time, self.kind, self.key = seq, time, kind, key
        self.flat = tuple(chain.from_iterable([kv for kv in fields.items() if kv[0] not in local]))
        self.listeners: tuple = ()
        self.count = count
        self.popped = shared(popped) if popped is not None else None

    def add_listener(self, name: str) -> None:
        self.listeners = shared(self.listeners + (name,))

    @property
    def fields(self) -> dict[str, Any]:
        flat = self.flat
        return dict(zip(flat[::2], flat[1::2]))

    @property
    def extra(self) -> dict[str, Any]:
        popped = self.popped
        return {"listeners": list(self.listeners), "count": self.count,
                "popped": list(popped) if popped is not None else None}

    def __repr__(self) -> str:
        return f"StoreRec({self.seq}, {self.kind!r}, {self.key!r})"
