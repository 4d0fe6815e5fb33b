"""Deltas pane: the stream of deltas the informer applied to its indexer.

Fed by ``store.add``/``store.update``/``store.delete`` (one per popped delta
applied), so it shows what a handler sees, in the order it sees it: the delta
type, the key, the resourceVersion, a short status and, for updates, what
changed (``status.phase Pending→Running``).
"""

from __future__ import annotations

from bisect import bisect_left
from collections import Counter, deque

from rich.text import Text
from textual.binding import Binding

from ..trace import TraceEvent
from ..trace_kinds import STORE_ADD, STORE_DELETE, STORE_UPDATE
from .cursor import CURSOR_BINDINGS
from .pane import PaneState
from .predicate_marker import predicate_marker
from .textpane import TextPane, matches

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

_KIND_DELTA = {STORE_ADD: "Added", STORE_UPDATE: "Updated", STORE_DELETE: "Deleted"}

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

    def release(self) -> None:
        """Let the event's objects go, keeping every field the row shows
        (derived now if nothing derived them before)."""
        self.event = self.event.released()

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
            if ev.kind in kinds:
                row = DeltaRow(ev)
                rows.append(row)
                holding.append(row)
                if len(holding) > keep:
                    holding.popleft().release()
                counts[row.delta] += 1
                n += 1
        if n:
            self.total += n
            self.version += 1

    def objects_held(self) -> int:
        """Rows whose event still carries objects."""
        return sum(1 for r in self.rows if "object" in r.event.raw_fields or "old" in r.event.raw_fields)


def format_row(row: DeltaRow, t0: float, key_width: int, width: int) -> Text:
    line = Text(no_wrap=True)
    line.append(f"{row.time - t0:7.2f} ", "dim")
    line.append(f"{row.delta:<8} ", delta_style(row.delta))
    line.append(f"{row.key:<{key_width}} ", "bold")
    line.append(f"rv={row.rv} ", "dim")
    if row.old_rv is not None:
        line.append_text(predicate_marker(row.event))
    if row.initial and width >= 100:
        line.append("init ", "dim italic")
    if row.tombstone:
        line.append("tombstone ", "red")
    if row.summary:
        line.append(f"{row.summary} ", "green" if row.summary == "Running" else "")
    if row.diff:
        line.append(", ".join(str(d) for d in row.diff), "italic")
    return line


class DeltasPane(TextPane):
    """The popped delta stream, newest at the bottom; a cursor to pick a key."""

    TITLE = "Deltas"
    BINDINGS = [
        *CURSOR_BINDINGS,
        Binding("pageup", "cursor(-20)", "Page up", show=False),
        Binding("pagedown", "cursor(20)", "Page down", show=False),
        Binding("home,g", "cursor_home", "Oldest", show=False),
        Binding("end,G", "follow", "Follow", show=False),
    ]

    state: DeltasState

    def __init__(self, state: DeltasState, **kwargs) -> None:
        super().__init__(state, **kwargs)
        # None: follow the newest row. Else the seq of the selected row, so the
        # selection stays on its row while new deltas arrive.
        self.cursor_seq: int | None = None
        self._cursor_offset = 0  # row of the window the cursor is drawn on

    # -- selection ---------------------------------------------------------
    def _visible_rows(self) -> list[DeltaRow]:
        f = self.key_filter
        if not f:
            return list(self.state.rows)
        return [r for r in self.state.rows if f.matches(r.key, r.delta, r.labels)]

    def _cursor_index(self, rows: list[DeltaRow]) -> int:
        if not rows:
            return -1
        if self.cursor_seq is None:
            return len(rows) - 1
        seqs = [r.seq for r in rows]
        i = bisect_left(seqs, self.cursor_seq)
        return min(i, len(rows) - 1)

    def selected_key(self) -> str | None:
        rows = self._visible_rows()
        i = self._cursor_index(rows)
        return rows[i].key if i >= 0 else None

    def action_cursor(self, step: int) -> None:
        rows = self._visible_rows()
        if not rows:
            return
        height = max(self.content_region.height - 1, 1)
        if self.cursor_seq is None:
            self._cursor_offset = min(len(rows), height) - 1
        i = min(max(self._cursor_index(rows) + step, 0), len(rows) - 1)
        self.cursor_seq = rows[i].seq
        self._cursor_offset = min(max(self._cursor_offset + step, 0), height - 1)
        self.refresh()

    def action_cursor_home(self) -> None:
        rows = self._visible_rows()
        if rows:
            self.cursor_seq = rows[0].seq
            self._cursor_offset = 0
            self.refresh()

    def action_follow(self) -> None:
        self.cursor_seq = None
        self.refresh()

    # -- drawing -----------------------------------------------------------
    def draw_lines(self, width: int, height: int) -> list[Text]:
        st = self.state
        rows = self._visible_rows()
        status = Text(no_wrap=True)
        status.append(f"{st.total} deltas ", "bold")
        for name in ("Added", "Updated", "Deleted", "Replaced", "Sync"):
            if st.counts.get(name):
                status.append(f"{name} {st.counts[name]}  ", delta_style(name))
        if self.filter_text:
            status.append(f"filter /{self.filter_text} ({len(rows)} match)  ", "reverse")
            if self.key_filter.note:
                status.append(f"{self.key_filter.note}  ", "yellow")
        status.append("following" if self.cursor_seq is None else "paused at cursor (End follows)", "dim")
        body_h = height - 1
        if not rows or body_h <= 0:
            hint = Text("no deltas yet: they appear as the informer pops them from its FIFO", "dim")
            return [status, hint]
        ci = self._cursor_index(rows)
        if self.cursor_seq is None:
            start = max(len(rows) - body_h, 0)
        else:
            offset = min(self._cursor_offset, body_h - 1)
            start = max(ci - offset, 0)
            start = min(start, max(len(rows) - body_h, 0))
        window = rows[start : start + body_h]
        key_width = min(max((len(r.key) for r in window), default=10), max(width // 3, 10))
        t0 = st.t0 or 0.0
        lines = [status]
        focused = self.has_focus
        for i, row in enumerate(window, start):
            line = format_row(row, t0, key_width, width)
            if i == ci and (focused or self.cursor_seq is not None):
                line.truncate(width, overflow="ellipsis", pad=True)
                line.stylize("reverse")
            lines.append(line)
        return lines
