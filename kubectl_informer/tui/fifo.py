"""Drawing the FIFO pane from its state.

What the pane knows, and why: ``panes/fifo.py``.
"""

from __future__ import annotations

from rich.text import Text

from kubectl_informer.panes.deltas import delta_style
from kubectl_informer.panes.fifo import BATCH_KEY, FIFO_RULES, QUEUE_NOTE, FifoState, delta_runs
from kubectl_informer.tui.cursor import CURSOR_BINDINGS, HOME_BINDING, KeyCursor
from kubectl_informer.tui.textpane import TextPane

_RECENT_STYLE = {"append": "yellow", "dedup": "magenta", "skip": "dim cyan"}


def _plural(n: int, one: str, many: str) -> str:
    return one if n == 1 else many


def _recent_types(kind: str, detail: str) -> list[str]:
    """The delta types a recent row is about, for /type: (a dedup is two deletions)."""
    if kind == "dedup":
        return ["Deleted"]
    return [w.strip("+[]:") for w in detail.split()]


def _slot(pending) -> Text:
    """A key's pending deltas, a run of one type as a count, so a slot
    holding a burst reads whole: `` [Updated ×7]``, `` [Updated ×2 Deleted]``."""
    t = Text(" [")
    for j, (kind, n) in enumerate(delta_runs(pending)):
        if j:
            t.append(" ")
        t.append(kind, delta_style(kind))
        if n > 1:
            t.append(f" ×{n}", "bold")
    t.append("]")
    return t


def _recent_row(t: float, kind: str, key: str, detail: str, short: bool) -> Text:
    """A recent queue event; ``short`` (a narrow pane) drops padding and
    words, never the slot."""
    line = Text(no_wrap=True)
    if not short:
        line.append(f"{t:7.2f} ", "dim")
        line.append(f"{kind:<8} ", _RECENT_STYLE.get(kind, ""))
        line.append(f"{key} ", "bold")
        line.append(detail)
        return line
    line.append(f"{t:.2f} ", "dim")
    line.append(f"{kind} ", _RECENT_STYLE.get(kind, ""))
    line.append(f"{key} ", "bold")
    line.append(detail.replace(" → slot [", "→[").replace("+", ""))
    return line


class FifoPane(KeyCursor, TextPane):
    """Queued keys on top (oldest first: next to pop), recent queue events below."""

    READS_CLOCK = False  # its rows are its state's and its cursor's (a move redraws)

    TITLE = "FIFO"
    BINDINGS = [*CURSOR_BINDINGS, HOME_BINDING]

    state: FifoState

    def __init__(self, state: FifoState, **kwargs) -> None:
        super().__init__(state, **kwargs)
        self.cursor = 0  # index into the selectable rows of the last frame
        self.cursor_keys: list[str] = []

    def selected_key(self) -> str | None:
        key = self.cursor_key()
        return None if key == BATCH_KEY else key

    def _head(self, height: int) -> list[tuple[Text, str | None]]:
        st = self.state
        real = st.fifo_label.startswith("RealFIFO")
        head = Text(no_wrap=True)
        head.append(f"{st.fifo_label or 'FIFO'} ", "bold magenta")
        # What waits now: DeltaFIFO's depth is keys, RealFIFO's entries.
        n = st.deltas_waiting
        if real:
            head.append(f"{n} {_plural(n, 'entry', 'entries')} · ", "bold")
        else:
            k = len(st.queued)
            head.append(f"{k} {_plural(k, 'key', 'keys')}/{n} {_plural(n, 'delta', 'deltas')} · ", "bold")
        head.append(f"queued {st.queues} ", "green")
        if not real:
            head.append(f"appended {st.coalesces} ", "yellow")
            head.append(f"dedups {st.dedups} ", "magenta")
        head.append(f"skips {st.skips} ", "cyan")
        head.append(f"pops {st.pops}", "blue")
        if self.filter_text:
            head.append(f"  filter /{self.filter_text}", "reverse")
        rows: list[tuple[Text, str | None]] = [(head, None)]
        rule = FIFO_RULES.get(st.fifo_label)
        if st.consumer_paused:  # the pause-fifo experiment: how the backlog is held
            rows.append((st.backlog_line(), None))
        elif rule:
            rows.append((Text(rule, "italic", no_wrap=True), None))
            if height >= 8:  # a short pane keeps its rows for the queued keys
                rows.append((Text(QUEUE_NOTE, "dim italic", no_wrap=True), None))
        return rows

    def _row_matches(self, key: str, types) -> bool:
        f = self.key_filter
        return not f or f.matches(key, types, self.state.labels.get(key) if f.uses_labels else None)

    def draw_lines(self, width: int, height: int) -> list[Text]:
        st = self.state
        filtering = bool(self.key_filter)
        real = st.fifo_label.startswith("RealFIFO")
        # (line, key): a line with a key is selectable.
        rows = self._head(height)
        body = height - len(rows)
        # Queued keys get the upper part, recent events at least the rest.
        q_space = max(body - min(len(st.recent), body // 2) - 1, 1) if st.recent else body
        queued = [(k, p) for k, p in st.queued.items() if self._row_matches(k, p)] if filtering else None
        items = queued if queued is not None else st.queued.items()
        n_match = len(queued) if queued is not None else len(st.queued)
        if n_match == 0:
            rows.append((Text("queue empty: every delta has been popped", "dim"), None))
        limit = q_space if n_match <= q_space else q_space - 1
        for i, (key, pend) in enumerate(items):
            if i >= limit:
                break
            line = Text(no_wrap=True)
            line.append(key, "bold")
            line.append_text(_slot(pend))
            if real and len(pend) > 1:
                line.append(f" {len(pend)} entries", "dim")
            rows.append((line, key))
        if n_match > limit:
            rows.append((Text(f"… {n_match - limit} more queued", "dim"), None))
        if st.recent and height - len(rows) >= 2:
            rows.append((Text("recent appends to a slot, dedups, skips (newest first)", "bold dim"), None))
            t0 = st.t0 or 0.0
            shown: list[tuple[float, str, str, str]] = []
            for t, kind, key, detail in reversed(st.recent):
                if len(rows) + len(shown) >= height:
                    break
                if filtering and not self._row_matches(key, _recent_types(kind, detail)):
                    continue
                shown.append((t - t0, kind, key, detail))
            # One form for every row: short words as soon as one row would be cut.
            short = any(18 + len(key) + len(detail) > width for _, _, key, detail in shown)
            rows += [(_recent_row(t, kind, key, detail, short), key) for t, kind, key, detail in shown]
        selectable = [i for i, (_, k) in enumerate(rows) if k is not None]
        self.cursor_keys = [k for _, k in rows if k is not None]  # the keys of the selectable rows, in order
        if self.cursor_keys:
            self.clamp_cursor()
            if self.has_focus:
                line = rows[selectable[self.cursor]][0]
                line.truncate(width, overflow="ellipsis", pad=True)
                line.stylize("reverse")
        return [line for line, _ in rows]
