"""Cache pane: what the informer's indexer holds, per namespace.

Counted from ``store.*`` events, which the informer emits once per delta it
applies to the indexer, so the count is the indexer's size without reading it
(a pane never calls the engine).
"""

from __future__ import annotations

from collections import Counter, deque

from rich.text import Text

from kubectl_informer.core.objects import labels_of
from kubectl_informer.core.trace import DerivedTraceEvent, TraceEvent
from kubectl_informer.core.trace_kinds import (
    INDEX_UPDATE,
    INFORMER_START,
    INFORMER_SYNCED,
    OBJECT_SIZE,
    STORE_ADD,
    STORE_DELETE,
    STORE_UPDATE,
    TRANSFORM,
)
from kubectl_informer.panes.indexes import KINDS as INDEX_KINDS
from kubectl_informer.panes.indexes import IndexView
from kubectl_informer.panes.progress import fmt_bytes
from kubectl_informer.panes.ring import RateMeter
from kubectl_informer.panes.state import PaneState

CLUSTER = "(cluster)"


def _namespace(key: str) -> str:
    ns, sep, _ = key.partition("/")
    return ns if sep else CLUSTER


_STORE = frozenset((STORE_ADD, STORE_UPDATE, STORE_DELETE))
_UNSET = object()
_RARE = frozenset((INFORMER_SYNCED, TRANSFORM, OBJECT_SIZE))


class CacheState(PaneState):
    """Keys in the indexer and their count per namespace; op counters."""

    KINDS = frozenset(
        (STORE_ADD, STORE_UPDATE, STORE_DELETE, INFORMER_SYNCED, TRANSFORM, OBJECT_SIZE, INDEX_UPDATE, INFORMER_START)
    )

    def __init__(self) -> None:
        super().__init__()
        # Bounded by what the cluster holds, as the indexer itself is: each
        # key held with the last delta applied and its object's labels.
        self.keys: dict[str, tuple[str, dict | None]] = {}
        self.per_ns: Counter[str] = Counter()
        self.ops: Counter[str] = Counter()  # add / update / delete
        self.deltas: Counter[str] = Counter()  # by DeltaType
        self.rate = RateMeter(window=3)
        self.synced_items: int | None = None
        self.last_time = 0.0
        self.sizes = SizeSamples()
        self.indexes = IndexView(self.keys.keys, lambda: self.version)  # the ByIndex view (key v in the pane)

    def feed(self, ev: TraceEvent) -> None:
        kind = ev.kind
        if kind not in self.KINDS:
            return
        if kind in (TRANSFORM, OBJECT_SIZE):
            self.sizes.feed(ev.fields)
            self.version += 1
            return
        if kind == INFORMER_SYNCED:
            self.synced_items = ev.fields.get("items")
            self.version += 1
            return
        if kind in INDEX_KINDS:
            self.indexes.feed(kind, ev.key, ev.raw_fields)
            if kind != STORE_DELETE:
                self.version += 1
                return
        key = ev.key
        if not key:
            return
        op = kind[6:]
        self.ops[op] += 1
        delta = ev.raw_fields.get("delta") or op
        self.deltas[delta] += 1
        self.rate.add(ev.time)
        self.last_time = ev.time
        if op == "delete":
            if key in self.keys:
                del self.keys[key]
                ns = _namespace(key)
                self.per_ns[ns] -= 1
                if self.per_ns[ns] <= 0:
                    del self.per_ns[ns]
        else:
            if key not in self.keys:
                # An update of a key not held (a Replaced/Sync of a new object) adds it.
                self.per_ns[_namespace(key)] += 1
            self.keys[key] = (delta, ev.field("labels"))
        self.version += 1

    def feed_all(self, events) -> None:
        kinds = self.KINDS
        feed = self.feed
        for ev in events:
            if ev.kind in kinds:
                feed(ev)

    def summarise(self, stretch) -> None:
        """A stretch the UI could not take in event by event (feed.py): the
        ops and delta types counted at C speed, each key's last delta
        applied (the key set is the indexer's, exactly)."""
        rare = stretch.only(_RARE)
        indexed = stretch.only(INDEX_KINDS)
        if indexed:
            feed = self.indexes.feed
            for ev in indexed:  # in order: a key deleted then added again ends indexed
                feed(ev[2], ev[3], ev[4])
            self.version += 1
        stored = [ev for ev in stretch.only(_STORE) if ev[3]]
        if rare:
            self.feed_all(rare)  # sizes and the sync: independent of the deltas around them
        if not stored:
            return
        ops = [ev[2][6:] for ev in stored]
        self.ops.update(ops)
        self.deltas.update([ev[4].get("delta") or op for ev, op in zip(stored, ops, strict=True)])
        for sec, n in Counter([int(ev[1]) for ev in stored]).items():  # time order: the meter's buckets
            self.rate.add(sec, n)
        self.last_time = stored[-1][1]
        keys, per_ns = self.keys, self.per_ns
        for key, ev in {ev[3]: ev for ev in stored}.items():  # each key's last delta
            if ev[2] == STORE_DELETE:
                if key in keys:
                    del keys[key]
                    ns = _namespace(key)
                    per_ns[ns] -= 1
                    if per_ns[ns] <= 0:
                        del per_ns[ns]
                continue
            if key not in keys:
                per_ns[_namespace(key)] += 1
            f = ev[4]
            labels = f.get("labels", _UNSET)
            if labels is _UNSET:  # ev.field("labels") without its import per call
                labels = labels_of(f.get("object")) if type(ev) is DerivedTraceEvent else None
            keys[key] = (f.get("delta") or ev[2][6:], labels)
        self.version += 1

    @property
    def count(self) -> int:
        return len(self.keys)

    def count_matching(self, key_filter) -> Counter[str]:
        """Objects per namespace whose key, last delta and labels pass the filter."""
        per_ns: Counter[str] = Counter()
        match = key_filter.matches
        for key, (delta, labels) in self.keys.items():
            if match(key, delta, labels):
                per_ns[_namespace(key)] += 1
        return per_ns


class SizeSamples:
    """Bytes per object from the sampled ``transform`` / ``object.size``
    events: a running mean over the last ``window`` samples, before and
    after the transforms."""

    def __init__(self, window: int = 256) -> None:
        self.after: deque[int] = deque(maxlen=window)
        self.before: deque[int] = deque(maxlen=window)
        self.transforms: list[str] = []
        self.every = 0

    def __repr__(self) -> str:  # by value: tests compare pane states
        return f"{type(self).__name__}({vars(self)!r})"

    def feed(self, f: dict) -> None:
        self.after.append(int(f.get("bytes") or 0))
        self.before.append(int(f.get("bytes_before", f.get("bytes")) or 0))
        self.transforms = list(f.get("transforms") or ())
        self.every = int(f.get("every") or 0)

    def per_object(self) -> tuple[float, float] | None:
        """(bytes held, bytes before the transforms) per object, or None."""
        if not self.after:
            return None
        return sum(self.after) / len(self.after), sum(self.before) / len(self.before)

    def lines(self, count: int) -> list[Text]:
        per = self.per_object()
        if per is None:
            return []
        held, before = per
        one = Text(no_wrap=True)
        one.append(f"≈ {fmt_bytes(held * count)} held", "bold")
        one.append(f", {fmt_bytes(held)}/object", "")
        one.append(f"  (1 in {self.every} sampled)", "dim")
        lines = [one]
        if self.transforms:
            two = Text(no_wrap=True)
            saved = before - held
            pct = 100.0 * saved / before if before else 0.0
            two.append("transform ", "dim")
            two.append(", ".join(self.transforms), "magenta")
            two.append(
                f": {fmt_bytes(before)} → {fmt_bytes(held)}/object, saved ≈ {fmt_bytes(saved * count)} (-{pct:.0f}%)",
                "",
            )
            lines.append(two)
        return lines
