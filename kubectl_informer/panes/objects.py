"""The objects behind the deltas: a bounded history per key, the full diff
of each delta, and the object as YAML (``y``).

The trace carries summaries and diffs; only in the process do ``store.*``
events also hold the object applied (a ``local`` field, never written to
JSON). ``ObjectHistory`` keeps, per key, a ring of the last ``per_key``
deltas (``DeltaEntry``) for the ``max_keys`` keys active most recently, at
most ``max_entries`` in all (deleted keys forgotten first); only the newest
``keep_objects`` entries of a key hold their objects, and only while among
the newest ``max_objects`` entries of all keys. An entry leaving either
window keeps its full diff as text (computed then, once), so memory is at
most ``max_objects`` entries' object versions (many of them the indexer's
own objects) plus ``max_entries`` small ones, however many names churn. A
replay has no objects: its entries show the diff the recording carries.
"""

from __future__ import annotations

import functools
import json
from collections import deque
from collections.abc import Callable
from typing import Any

from kubectl_informer.core.diff import (
    NOISE_RANK,
    STATUS,
    Change,
    changed_text,
    diff_changes,
)
from kubectl_informer.core.objects import DeletedFinalStateUnknown
from kubectl_informer.core.redaction import RedactedValue, changed_unseen
from kubectl_informer.core.trace import TraceEvent
from kubectl_informer.core.trace_kinds import STORE_DELETE, STORE_UPDATE
from kubectl_informer.panes.packed import pack, unpack
from kubectl_informer.panes.pressure import KEEPING_UP
from kubectl_informer.panes.ring import KeyedHistory
from kubectl_informer.run.transforms import redact_secret

_VALUE_WIDTH = 60


MAX_DETAIL = 400  # lines of a released entry's diff kept as text


class DeltaEntry:
    """One delta applied to the cache, for the Inspector: its event, and
    while held, the object after it and the one before. ``release`` drops
    the objects (and the event's references to them), keeping the diff;
    the event is then held as one tuple (``_compact``), expanded when read."""

    __slots__ = ("_event", "obj", "old", "recorded", "detail")

    def __init__(self, ev: TraceEvent, old: Any = None) -> None:
        # No copy here: this runs for every store event the UI absorbs.
        raw = ev.raw_fields
        self._event: TraceEvent | tuple = ev  # a tuple once released (_compact)
        obj = raw.get("object")
        self.obj = obj if type(obj) is dict else _unwrap(obj)
        self.old = old if old is None or type(old) is dict else _unwrap(old)
        d = raw.get("diff")
        self.recorded: list[str] | None = d if isinstance(d, list) else list(d) if isinstance(d, tuple) else None
        self.detail: list[tuple[int, str]] | None = None

    @property
    def event(self) -> TraceEvent:
        ev = self._event
        return ev if isinstance(ev, TraceEvent) else unpack(ev)  # released: packed (packed.py)

    def __repr__(self) -> str:
        return f"DeltaEntry({self.event!r}, held={self.obj is not None})"

    @property
    def seq(self) -> int:
        return self._event[0]  # held or released, without expanding it

    @property
    def kind(self) -> str:
        return self._event[2]

    @property
    def is_update(self) -> bool:
        return self._event[2] == STORE_UPDATE

    def changes(self, noise: bool = True) -> list[Change] | None:
        """The full diff, while both objects are held (else None)."""
        if not self.is_update or self.obj is None or self.old is None:
            return None
        return diff_changes(self.old, self.obj, noise=noise)

    def summary(self) -> list[str]:
        """The short lines for the entry's row (no noise)."""
        ch = self.changes(noise=False)
        if ch is not None:
            return [c.line() for c in ch]
        return self.recorded or []

    def detail_lines(self) -> list[tuple[int, str]]:
        """(rank, "path  old → new") for every changed path, noise last."""
        ch = self.changes()
        if ch is not None:
            return [(c.rank, format_change(c)) for c in ch]
        if self.detail is not None:
            return self.detail
        return [(STATUS, line) for line in self.recorded or []]

    def release(self, derive: bool = True) -> None:
        """Drop the objects, keeping the diff as text (not ``derive``: the
        UI is behind, and only what was derived already stays)."""
        if self.obj is None and self.old is None:
            return
        ev = self.event  # held objects: not packed yet, so no copy
        if not derive:
            self.obj = self.old = None
            self._event = _compact(ev, derived=False)
            return
        ch = self.changes()
        if ch is not None:
            self.detail = [(c.rank, format_change(c)) for c in ch[:MAX_DETAIL]]
            self.recorded = [c.line() for c in ch if c.rank < NOISE_RANK]
        self.obj = self.old = None
        raw = ev.raw_fields
        if self.recorded is not None and "diff" not in raw:
            raw["diff"] = self.recorded  # the diff just kept: deriving need not compute it again
        # The derived fields not yet read (summary, predicates...) are
        # computed now, while the objects are at hand; the tuple holds no
        # reference to them.
        self._event = _compact(ev, derived=True)


def _compact(ev: TraceEvent, derived: bool) -> tuple:
    """A released delta's event packed (packed.py), less its objects;
    ``derived``: its derived fields computed first. As a TraceEvent with its
    own fields dict, about 250 bytes more an entry, and the history holds thousands."""
    return pack(ev, ev.fields_without_locals(derived))  # no copy when it holds no object


def _unwrap(obj: Any) -> Any:
    if isinstance(obj, DeletedFinalStateUnknown):
        return obj.obj
    return obj if isinstance(obj, dict) else None


# Scalars as JSON writes them, without json.dumps' cost (this runs for
# every change of every delta the Inspector's history lets go).
_PLAIN: dict[type, Callable[[Any], str]] = {int: str, bool: lambda v: "true" if v else "false"}


def _value(v: Any) -> str:
    if v is None:
        return "∅"
    t = type(v)
    if t is str:
        text = v
    elif isinstance(v, RedactedValue):
        text = str(v)
    elif t in _PLAIN:
        text = _PLAIN[t](v)
    else:
        text = json.dumps(v, separators=(",", ":"), default=str)
    return text if len(text) <= _VALUE_WIDTH else text[: _VALUE_WIDTH - 1] + "…"


def format_change(c: Change) -> str:
    """``status.phase  Pending → Running``, ``labels.app  + web``, ``x  - y``."""
    label = c.label
    if c.op == "+":
        return f"{label}  + {_value(c.new)}"
    if c.op == "-":
        return f"{label}  - {_value(c.old)}"
    if changed_unseen(c.old, c.new):
        return f"{label}  {changed_text(c.new)}"
    return f"{label}  {_value(c.old)} → {_value(c.new)}"


# Totals across keys (the per-key rings alone grow with every name a churning
# cluster ever had): entries kept, and entries still holding their objects.
MAX_ENTRIES = 8192


MAX_OBJECTS = 1024


class ObjectHistory:
    """Per key, a ring of its last ``per_key`` deltas, for the ``max_keys``
    keys active most recently and at most ``max_entries`` entries in all (a
    ``KeyedHistory``: deleted keys go first). The newest ``keep_objects`` of
    a key hold their objects, and only while among the newest
    ``max_objects`` entries of all keys; older ones keep their diff as text."""

    def __init__(
        self,
        max_keys: int = 2000,
        per_key: int = 64,
        keep_objects: int = 8,
        max_entries: int = MAX_ENTRIES,
        max_objects: int = MAX_OBJECTS,
    ) -> None:
        self.per_key, self.keep_objects, self.max_objects = per_key, keep_objects, max_objects
        self._hist: KeyedHistory[str, DeltaEntry] = KeyedHistory(max_keys, per_key, max_entries)
        # Every entry, newest last, until max_objects newer ones came: then it
        # lets its objects go (once; a no-op if its key's ring did already).
        self._holding: deque[DeltaEntry] = deque()
        self.pressure = KEEPING_UP  # the feed loop's (through the Inspector's state)

    @property
    def max_keys(self) -> int:
        return self._hist.max_keys

    @property
    def max_entries(self) -> int:
        return self._hist.max_items

    @property
    def evicted(self) -> int:
        return self._hist.evicted

    def add(self, ev: TraceEvent) -> DeltaEntry:
        key = ev.key or ""
        hist = self._hist
        entry = DeltaEntry(ev)
        ring = hist.add(key, entry)
        kind = ev.kind
        if kind == STORE_UPDATE:
            # The informer's old object rides in the event (a recording's
            # does not: the key's previous entry holds the same one).
            old = ev.raw_fields.get("old")
            if old is not None:
                entry.old = _unwrap(old)
            elif len(ring) > 1:
                entry.old = ring[-2].obj
        elif kind == STORE_DELETE:
            hist.mark_dead(key)
        else:
            hist.mark_live(key)
        derive = not self.pressure.behind
        if len(ring) > self.keep_objects:
            ring[-1 - self.keep_objects].release(derive)
        holding = self._holding
        holding.append(entry)
        if len(holding) > self.max_objects:
            holding.popleft().release(derive)
        return entry

    def entries(self, key: str) -> list[DeltaEntry]:
        return self._hist.get(key)

    def latest(self, key: str) -> Any:
        """The newest object held for ``key`` (None if none)."""
        if key in self._hist:
            for entry in reversed(self._hist.ring(key)):
                if entry.obj is not None:
                    return entry.obj
        return None

    def __contains__(self, key: object) -> bool:
        return key in self._hist

    def __len__(self) -> int:
        return len(self._hist)

    def __repr__(self) -> str:
        return f"ObjectHistory({self._hist!r})"

    def entries_held(self) -> int:
        return self._hist.items

    def objects_held(self) -> int:
        """Entries holding an object, in the rings or waiting in ``_holding``
        (an evicted key's newest entries until they reach its end)."""
        seen = {id(e): e for e in self._holding}
        for key in self._hist.keys_newest_first():
            for e in self._hist.ring(key):
                seen[id(e)] = e
        return sum(1 for e in seen.values() if e.obj is not None or e.old is not None)


@functools.cache
def _dumper():
    """The YAML dumper ``to_yaml`` uses, made on first use: the YAML module
    is not imported by a start that never shows an object (about 17 ms of
    CPU of every UI start)."""
    import yaml

    class NoAliases(yaml.SafeDumper):
        # Decoded objects share small maps (labels); YAML would print &id001 anchors.
        def ignore_aliases(self, data: Any) -> bool:
            return True

    NoAliases.add_representer(RedactedValue, yaml.SafeDumper.represent_str)
    return yaml, NoAliases


def is_secret(obj: Any, resource: str = "") -> bool:
    return (isinstance(obj, dict) and obj.get("kind") == "Secret") or resource.split(".")[0] in ("secrets", "secret")


def redacted(obj: dict, resource: str = "", show_secret_data: bool = False) -> dict:
    """``obj`` for display: a Secret's values redacted (a copy) unless asked."""
    if show_secret_data or not is_secret(obj, resource):
        return obj
    out = dict(obj)
    out["metadata"] = dict(obj.get("metadata") or {})
    redact_secret(out)
    return out


def without_managed_fields(obj: dict) -> dict:
    """``obj`` without ``metadata.managedFields`` (a copy when it had them), as
    kubectl's printers show objects unless ``--show-managed-fields``."""
    meta = obj.get("metadata")
    if not isinstance(meta, dict) or "managedFields" not in meta:
        return obj
    return {**obj, "metadata": {k: v for k, v in meta.items() if k != "managedFields"}}


def to_yaml(obj: dict, resource: str = "", show_secret_data: bool = False, show_managed_fields: bool = False) -> str:
    yaml, dumper = _dumper()
    shown = redacted(obj, resource, show_secret_data)
    if not show_managed_fields and isinstance(shown, dict):
        shown = without_managed_fields(shown)
    return yaml.dump(shown, Dumper=dumper, sort_keys=False, default_flow_style=False, allow_unicode=True, width=100)
