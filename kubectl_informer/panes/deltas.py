"""Deltas pane: the stream of deltas the informer applied to its indexer.

Fed by ``store.add``/``store.update``/``store.delete`` (one per popped delta
applied), so it shows what a handler sees, in the order it sees it: the delta
type, the key, the resourceVersion, a short status and, for updates, what
changed (``status.phase Pending→Running``).
"""

from __future__ import annotations

from collections import Counter, deque

from kubectl_informer.core.trace import TraceEvent
from kubectl_informer.core.trace_kinds import STORE_ADD, STORE_DELETE, STORE_UPDATE
from kubectl_informer.panes.pressure import KEEPING_UP
from kubectl_informer.panes.state import PaneState, Stretch

# Colour per DeltaType value, shared by the FIFO and inspector panes.
DELTA_STYLES = {
    "Added": "bold green",
    "Updated": "yellow",
    "Deleted": "bold red",
    "Replaced": "magenta",
    "Sync": "cyan",
    "ReplacedAll": "bold magenta",
    "SyncAll": "bold cyan",
    "Bookmark": "dim",
}


_KIND_DELTA: dict[str, str] = {STORE_ADD: "Added", STORE_UPDATE: "Updated", STORE_DELETE: "Deleted"}
_STORE_KINDS = frozenset(_KIND_DELTA)


# Rows whose events keep the objects they carry (the newest; older rows show
# what was derived). The Inspector's history lets its objects go after 1,024
# newer deltas, so by the time a row does (plus one feed chunk, 256 events)
# what the row shows was already derived there: letting go is a dict copy.
KEEP_OBJECTS = 1280


def delta_style(delta: str) -> str:
    return DELTA_STYLES.get(delta, "white")


class DeltaRow:
    __slots__ = ("seq", "time", "delta", "key", "rv", "old_rv", "initial", "tombstone", "event")

    def __init__(self, ev: TraceEvent) -> None:
        # The raw fields: what is derived (summary, diff, predicates, labels)
        # stays uncomputed until the row is drawn or filtered.
        f = ev.raw_fields
        self.seq = ev.seq
        self.time = ev.time
        self.delta = f.get("delta") or _KIND_DELTA.get(ev.kind, ev.kind)
        self.key = ev.key or ""
        self.rv = f.get("resource_version") or ""
        self.old_rv = f.get("old_resource_version")
        self.initial = bool(f.get("is_in_initial_list"))
        self.tombstone = bool(f.get("tombstone"))
        self.event = ev

    def release(self, derive: bool = True) -> None:
        """Let the event's objects go, keeping every field the row shows
        (derived now if nothing derived them before; not ``derive``: only
        what was derived already, when the UI is behind)."""
        self.event = self.event.released() if derive else self.event.stripped()

    @property
    def summarised(self) -> bool:
        """An update row let go underived (the UI was behind): no diff kept."""
        f = self.event.raw_fields
        return self.event.kind == STORE_UPDATE and "diff" not in f and "old" not in f

    @property
    def labels(self) -> dict | None:
        """The object's labels as applied (the map itself), for /label: filters."""
        return self.event.field("labels")

    @property
    def summary(self) -> str:
        return self.event.field("summary") or ""

    @property
    def diff(self):
        return self.event.field("diff") or ()

    def __repr__(self) -> str:
        return f"DeltaRow({self.seq}, {self.delta}, {self.key!r}, rv={self.rv!r})"


class DeltasState(PaneState):
    """A ring of the last ``maxlen`` deltas applied, and counts per type."""

    def __init__(self, maxlen: int = 2000, keep_objects: int = KEEP_OBJECTS) -> None:
        super().__init__()
        self.rows: deque[DeltaRow] = deque(maxlen=maxlen)
        # The newest rows, until keep_objects newer ones came: then a row
        # lets its event's objects go.
        self._holding: deque[DeltaRow] = deque()
        self.keep_objects = keep_objects
        self.counts: Counter[str] = Counter()
        self.total = 0
        self.t0: float | None = None
        self.pressure = KEEPING_UP  # the feed loop's, once it feeds this state

    def feed(self, ev: TraceEvent) -> None:
        self.feed_all((ev,))

    def feed_all(self, events) -> None:
        # The hot path: one tight loop instead of a call per event.
        if self.t0 is None and events:
            self.t0 = events[0].time
        kinds = _KIND_DELTA
        rows = self.rows
        counts = self.counts
        holding, keep = self._holding, self.keep_objects
        n = 0
        for ev in events:
            if ev[2] in kinds:
                row = DeltaRow(ev)
                rows.append(row)
                holding.append(row)
                counts[row.delta] += 1
                n += 1
        if n:
            self.total += n
            self.version += 1
            self._let_go(holding, keep)

    def summarise(self, stretch: Stretch) -> None:
        """A stretch the UI could not take in event by event (feed.py):
        its deltas counted by type, no row for them."""
        events = stretch.events
        if self.t0 is None and events:
            self.t0 = events[0][1]
        kinds = _KIND_DELTA
        types = [ev[4].get("delta") or kinds[ev[2]] for ev in stretch.only(_STORE_KINDS)]
        if types:
            self.counts.update(types)
            self.total += len(types)
            self.version += 1

    def _let_go(self, holding: deque, keep: int) -> None:
        """Rows past the newest ``keep`` let their objects go; a row already
        pushed out of ``rows`` (a burst longer than the ring) is just
        dropped: no one can show it again."""
        over = len(holding) - keep
        if over <= 0:
            return
        pressure = self.pressure
        derive = not pressure.behind
        pop = holding.popleft
        shown = len(self.rows)  # the newest rows; holding's oldest may be older
        for _ in range(over):
            row = pop()
            if len(holding) >= shown:  # as many newer rows as the ring holds: this one is out
                continue
            row.release(derive)
            if not derive and row.summarised:
                pressure.summarised += 1

    def objects_held(self) -> int:
        """Rows whose event still carries objects."""
        return sum(1 for r in self.rows if "object" in r.event.raw_fields or "old" in r.event.raw_fields)
