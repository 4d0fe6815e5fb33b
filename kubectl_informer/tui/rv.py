"""Drawing the ResourceVersion pane from its state.

What the pane knows, and why: ``panes/rv.py``.
"""

from __future__ import annotations

from rich.text import Text

from kubectl_informer.panes.rv import RVState
from kubectl_informer.tui.chart import (
    any_size,
    column_of,
    fmt_secs,
    join_lines,
    step_chart,
    step_values,
)
from kubectl_informer.tui.textpane import TextPane, text_lines

# Mark glyphs, by precedence when two share a column (highest wins).
MARKS = {
    "gone": ("✗", "bold red", 5, "410 Gone"),
    "relist": ("R", "bold yellow", 4, "relist"),
    "list": ("L", "bold cyan", 3, "list"),
    "watch": ("W", "bold green", 2, "watch"),
    "bookmark": ("B", "blue", 1, "bookmark"),
    "experiment": ("X", "bold magenta", 6, "experiment"),
}


class RVPane(TextPane):
    DEFAULT_CSS = """
    RVPane { height: 1fr; width: 1fr; padding: 0 1; }
    """

    def draw_lines(self, width: int, height: int) -> list[Text]:
        return text_lines(render_rv(self.state, self.now, width, height))


def _rv_label(rv: str | None) -> str:
    return rv if rv else "-"


def _header(st: RVState, width: int) -> Text:
    watch = _rv_label(st.watch_rv)
    if st.watch_rv is not None and not st.watch_open and st.watch_end_reason:
        watch += f" (closed: {st.watch_end_reason})"
    head = Text.assemble(
        ("ResourceVersion", "bold"),
        "  list ",
        (_rv_label(st.list_rv), "cyan"),
        " · watch ",
        (watch, "green" if st.watch_open else "dim"),
        " · synced ",
        (_rv_label(st.synced_rv), "bold"),
    )
    if st.listing:
        head.append("  listing…", "yellow")
    if head.cell_len > width:  # narrow slot: the numbers matter more than the title
        head = Text.assemble(("RV", "bold"), head[len("ResourceVersion") :])
    return head


def _counters(st: RVState) -> Text:
    c = st.counts
    reasons = ", ".join(f"{k} {v}" for k, v in sorted(st.relist_reasons.items()))
    return Text.assemble(
        f"lists {c['list']}  watches {c['watch']}  bookmarks {c['bookmark']}  relists {c['relist']}",
        f" ({reasons})" if reasons else "",
        "  410s ",
        (str(c["gone"]), "bold red" if c["gone"] else ""),
    )


# The legend's words when the slot is narrow (a grid cell cut "410 Gone" and had no X).
SHORT_NAMES = {"gone": "410", "bookmark": "bmk", "experiment": "exp"}


def _legend(width: int = 200) -> Text:
    """Every mark the strip can draw, its words shortened to fit ``width``."""
    for short in (False, True):
        legend = Text()
        for what in ("list", "watch", "bookmark", "relist", "gone", "experiment"):
            glyph, style, _, name = MARKS[what]
            legend.append(glyph, style)
            legend.append(f" {SHORT_NAMES.get(what, name) if short else name}  ")
        if legend.cell_len <= width + 2:
            break
    return legend


def _window_points(st: RVState, t0: float) -> tuple[list, list[tuple[float, float]] | None]:
    """Visible points plus the last one before the window (the step carries);
    and the same as numbers, or None when an RV is not a number."""
    pts = [p for p in st.points if p[0] >= t0]
    before = [p for p in st.points if p[0] < t0]
    if before:
        pts.insert(0, (t0, before[-1][1]))
    numeric: list[tuple[float, float]] = []
    for t, rv in pts:
        try:
            numeric.append((t, int(rv)))
        except ValueError:
            return pts, None
    return pts, numeric


def _step_chart(numeric, t0: float, t1: float, width: int, chart_h: int) -> tuple[list[Text], int, int]:
    """The RV as a step chart with its min and max on the axis; (lines, label width, plot width)."""
    lo = min(v for _, v in numeric)
    hi = max(v for _, v in numeric)
    lw = max(len(str(lo)), len(str(hi)))
    plot_w = max(4, width - lw - 2)
    rows = step_chart(step_values(numeric, t0, t1, plot_w), lo, hi, chart_h)
    lines = []
    for i, row in enumerate(rows):
        if i == 0:
            label, tick = str(hi), "┤"
        elif i == chart_h - 1:
            label, tick = str(lo), "┤"
        else:
            label, tick = "", "│"
        lines.append(Text.assemble((f"{label:>{lw}} {tick}", "dim"), (row, "cyan")))
    return lines, lw, plot_w


def _change_dots(pts, t0: float, t1: float, width: int, chart_h: int) -> tuple[list[Text], int, int]:
    """RVs that are not numbers: a dot per change on one row."""
    lw = 1
    plot_w = max(4, width - lw - 2)
    cells = [" "] * plot_w
    prev = None
    for t, rv in pts:
        if rv != prev and prev is not None:
            cells[column_of(t, t0, t1, plot_w)] = "•"
        prev = rv
    note = "RVs are not numbers here: each • is a change" if pts else "no resource version yet"
    lines = []
    for i in range(chart_h):
        if i == chart_h // 2:
            lines.append(Text.assemble((" " * lw + " │", "dim"), ("".join(cells), "cyan")))
        elif i == 0 and chart_h > 1:
            lines.append(Text.assemble((" " * lw + " │", "dim"), (note, "dim")))
        else:
            lines.append(Text(" " * lw + " │", style="dim"))
    return lines, lw, plot_w


def _marks_strip(st: RVState, t0: float, t1: float, lw: int, plot_w: int) -> Text:
    """One glyph per column: the most important mark wins a shared column."""
    cells: list[tuple[str, str, int] | None] = [None] * plot_w
    for t, what, _ in st.marks:
        if t < t0:
            continue
        col = column_of(t, t0, t1, plot_w)
        glyph, style, rank, _ = MARKS[what]
        cur = cells[col]
        if cur is not None and cur[0] != glyph and col + 1 < plot_w and cells[col + 1] is None:
            col += 1  # nudge: a 410 and its relist in one column both stay visible
            cur = None
        if cur is None or rank >= cur[2]:
            cells[col] = (glyph, style, rank)
    strip = Text(" " * (lw + 2))
    for cell in cells:
        if cell is None:
            strip.append(" ")
        else:
            strip.append(cell[0], cell[1])
    return strip


@any_size(20, 3)
def render_rv(st: RVState, now: float | None, width: int, height: int) -> Text:
    width = max(width, 20)
    height = max(height, 3)
    if now is None:
        now = st.last_time
    head = _header(st, width)
    if now is None:
        return join_lines([head, Text("no list or watch yet", style="dim")], width)
    # Rows: head, counters, chart, axis, marks, time labels, legend, log.
    show_counters = height >= 8
    show_legend = height >= 9
    avail = max(1, height - (1 + show_counters + 3 + show_legend))
    chart_h = min(avail, 10 + max(0, (avail - 10) // 2))
    log_rows = avail - chart_h
    t0, t1 = st.window(now)
    pts, numeric = _window_points(st, t0)
    lines: list[Text] = [head] + ([_counters(st)] if show_counters else [])
    chart, lw, plot_w = (
        _step_chart(numeric, t0, t1, width, chart_h) if numeric else _change_dots(pts, t0, t1, width, chart_h)
    )
    lines.extend(chart)
    lines.append(Text(" " * lw + " └" + "─" * plot_w, style="dim"))
    lines.append(_marks_strip(st, t0, t1, lw, plot_w))
    left = f"-{fmt_secs(t1 - t0)}"
    lines.append(Text(" " * (lw + 2) + left + "now".rjust(plot_w - len(left)), style="dim"))
    if show_legend:
        lines.append(_legend(width))
    if log_rows > 0:
        for t, what, text in list(st.marks)[-log_rows:][::-1]:
            glyph, style, _, _ = MARKS[what]
            lines.append(Text.assemble((f"{fmt_secs(now - t):>7} ago ", "dim"), (glyph, style), " ", text))
    return join_lines(lines[:height], width)
