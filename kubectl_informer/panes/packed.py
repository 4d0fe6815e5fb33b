"""A trace event held as one tuple: ``(seq, time, kind, key, name, value,
name, value...)``.

The panes' histories hold thousands of events for as long as a key stays in
view (the Inspector's stage events, the released deltas of its object
history). A ``TraceEvent`` is a tuple and its own fields dict, about 280
bytes with both; packed it is one tuple of about 100-150, which the cyclic
GC stops tracking once its values are atoms. ``unpack`` makes the event
again when one is read (a timeline, a key's life, a filter).
"""

from __future__ import annotations

from itertools import chain

from kubectl_informer.core.trace import TraceEvent


def pack(ev: TraceEvent, fields: dict) -> tuple:
    """``ev`` with ``fields`` (its own, or a copy less its objects) as one tuple."""
    return (*ev[:4], *chain.from_iterable(fields.items()))


def unpack(t: tuple) -> TraceEvent:
    """The event ``pack`` held."""
    return TraceEvent(t[0], t[1], t[2], t[3], dict(zip(t[4::2], t[5::2], strict=True)))
