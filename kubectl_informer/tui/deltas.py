"""Drawing the Deltas pane from its state.

What the pane knows, and why: ``panes/deltas.py``.
"""

from __future__ import annotations

from bisect import bisect_left

from rich.text import Text
from textual.binding import Binding

from kubectl_informer.panes.deltas import DeltaRow, DeltasState, delta_style
from kubectl_informer.tui.cursor import CURSOR_BINDINGS
from kubectl_informer.tui.predicate_marker import LEGEND_MIN_HEIGHT, predicate_legend, predicate_marker
from kubectl_informer.tui.textpane import TextPane


def format_row(row: DeltaRow, t0: float, key_width: int, width: int) -> Text:
    line = Text(no_wrap=True)
    line.append(f"{row.time - t0:7.2f} ", "dim")
    line.append(f"{row.delta:<8} ", delta_style(row.delta))
    line.append(f"{row.key:<{key_width}} ", "bold")
    line.append(f"rv={row.rv} ", "dim")
    if row.old_rv is not None:
        line.append_text(predicate_marker(row.event))
    if row.initial:
        line.append("init ", "dim italic")
    if row.tombstone:
        line.append("tombstone ", "red")
    if row.summary:
        line.append(f"{row.summary} ", "green" if row.summary == "Running" else "")
    if row.diff:
        line.append(", ".join(str(d) for d in row.diff), "italic")
    return line


def _head_rows(height: int) -> int:
    """The status line, and the predicates' legend where there is room."""
    return 2 if height >= LEGEND_MIN_HEIGHT else 1


class DeltasPane(TextPane):
    """The popped delta stream, newest at the bottom; a cursor to pick a key."""

    READS_CLOCK = False  # its rows are its state's and its cursor's (a move redraws)

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
        height = max(self.content_region.height - _head_rows(self.content_region.height), 1)
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

    def reset_view(self) -> None:
        """A restart (``:deploy``, a profile): the new run's stream, followed;
        a cursor on the old run's rows would say "paused at cursor" for ever."""
        self.cursor_seq = None

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
        head = [status, predicate_legend()][: _head_rows(height)]
        body_h = height - len(head)
        if not rows or body_h <= 0:
            hint = Text("no deltas yet: they appear as the informer pops them from its FIFO", "dim")
            return [*head, hint]
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
        lines = head
        focused = self.has_focus
        for i, row in enumerate(window, start):
            line = format_row(row, t0, key_width, width)
            if i == ci and (focused or self.cursor_seq is not None):
                line.truncate(width, overflow="ellipsis", pad=True)
                line.stylize("reverse")
            lines.append(line)
        return lines
