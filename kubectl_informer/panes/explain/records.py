"""A delta's record for the Explain panel, in a compact form.

``Facts`` keeps one record per delta applied (``PER_KEY`` a key, up to
``MAX_RECORDS`` in all), so that a Deltas row or an Inspector entry can be
explained long after. As a ``Rec`` with its own ``fields`` and ``extra``
dicts and a list of listeners, one took about 620 bytes in five blocks; a
busy run fills the whole bound (the bench's flood: 8,192 of them within
its first 30 s, its RSS rising by as much). ``StoreRec`` holds the same in
one slotted object: the fields every delta has in slots, any other (rare)
flattened into a tuple, never the objects; the listeners and the popped
delta types as tuples shared by every record that has the same
(``shared``). ``fields`` and ``extra`` are built when read, as the texts
read a ``Rec``'s: a record is read when one is explained, a few at a time.
"""

from __future__ import annotations

from itertools import chain
from typing import Any, Protocol

# Distinct listener and popped-type tuples shared; past this many the table
# starts over (the records keep theirs), so it stays small however odd the run.
MAX_SHARED = 512

_shared: dict[tuple, tuple] = {}

# The fields every delta carries, held in slots; a field absent from the event stays absent.
_DELTA, _INITIAL, _RV, _OLD_RV = "delta", "is_in_initial_list", "resource_version", "old_resource_version"
_SLOTTED = frozenset((_DELTA, _INITIAL, _RV, _OLD_RV))
_ABSENT = object()


class Record(Protocol):
    """What the texts read of a record: a ``Rec``, or a ``StoreRec`` read as one."""

    @property
    def seq(self) -> int: ...
    @property
    def time(self) -> float: ...
    @property
    def kind(self) -> str: ...
    @property
    def key(self) -> str | None: ...
    @property
    def fields(self) -> dict[str, Any]: ...
    @property
    def extra(self) -> dict[str, Any]: ...


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
    after it, the delta types ``popped`` with it, None when not known).
    The fields every delta has are slots; any other (a tombstone, a
    recording's diff) goes to ``rest``, flattened (name, value, ...)."""

    __slots__ = (
        "seq",
        "time",
        "kind",
        "key",
        "rv",
        "old_rv",
        "delta",
        "initial",
        "rest",
        "listeners",
        "count",
        "popped",
    )

    def __init__(
        self, seq: int, time: float, kind: str, key: str | None, fields: dict, local: frozenset, count: int, popped
    ) -> None:
        self.seq, self.time, self.kind, self.key = seq, time, kind, key
        get = fields.get
        self.rv, self.old_rv = get(_RV, _ABSENT), get(_OLD_RV, _ABSENT)
        self.delta, self.initial = get(_DELTA, _ABSENT), get(_INITIAL, _ABSENT)
        others = fields.keys() - local - _SLOTTED
        self.rest = tuple(chain.from_iterable([(name, fields[name]) for name in others])) if others else None
        self.listeners: tuple = ()
        self.count = count
        self.popped = shared(popped) if popped is not None else None

    def add_listener(self, name: str) -> None:
        self.listeners = shared(self.listeners + (name,))

    @property
    def fields(self) -> dict[str, Any]:
        out = {
            name: v
            for name, v in ((_DELTA, self.delta), (_INITIAL, self.initial), (_RV, self.rv), (_OLD_RV, self.old_rv))
            if v is not _ABSENT
        }
        rest = self.rest
        if rest:
            out.update(zip(rest[::2], rest[1::2], strict=True))
        return out

    @property
    def extra(self) -> dict[str, Any]:
        popped = self.popped
        return {
            "listeners": list(self.listeners),
            "count": self.count,
            "popped": list(popped) if popped is not None else None,
        }

    def __repr__(self) -> str:
        return f"StoreRec({self.seq}, {self.kind!r}, {self.key!r})"
