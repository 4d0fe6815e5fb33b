"""The ResourceVersion pane: the reflector's RV over time.

The reflector's whole contract with the API server is a ResourceVersion: it
lists at one, watches from it, advances it on every event and bookmark, and
when the server says the RV is too old (410 Gone) it must relist. This pane
draws that RV as a step chart with a mark for each of those moments.

RVs are opaque strings to clients; etcd (and our simulated server) makes
them integers, so the chart is numeric when every RV shown parses as one and
falls back to marking each change otherwise.
"""

from __future__ import annotations

from collections import deque

from rich.text import Text

from ..trace import TraceEvent
from ..trace_kinds import (
    EXPERIMENT,
    LIST_DONE,
    LIST_START,
    RELIST,
    RV_ADVANCE,
    WATCH_BOOKMARK,
    WATCH_END,
    WATCH_EVENT,
    WATCH_START,
)
from .chart import column_of, fmt_secs, join_lines, step_chart, step_values
from .pane import DispatchState, Pane

# Points closer together than this share one slot (the last wins), so a
# burst of 20,000 events/s costs one slot per 0.1 s, not one per event.
BUCKET = 0.1
MAX_POINTS = 4096
MAX_MARKS = 512
MIN_WINDOW = 10.0    # seconds: a young run still gets a readable axis
MAX_WINDOW = 600.0

# Mark glyphs, by precedence when two share a column (highest wins).
MARKS = {
    "gone": ("✗", "bold red", 5, "410 Gone"),
    "relist": ("R", "bold yellow", 4, "relist"),
    "list": ("L", "bold cyan", 3, "list"),
    "watch": ("W", "bold green", 2, "watch"),
    "bookmark": ("B", "blue", 1, "bookmark"),
    "experiment": ("X", "bold magenta", 6, "experiment"),
}
# Experiments (key x) that act on the list and watch: marked on the chart.
RV_EXPERIMENTS = frozenset(("close-watch", "forget-rv", "expired-storm", "compaction", "drop-watches"))


class RVState(DispatchState):
    HANDLERS = {LIST_START: "_list_start", LIST_DONE: "_list_done", WATCH_START: "_watch_start",
                WATCH_EVENT: "_watch_event", WATCH_BOOKMARK: "_watch_bookmark", WATCH_END: "_watch_end",
                RV_ADVANCE: "_rv_advance", RELIST: "_relist", EXPERIMENT: "_experiment"}

    def __init__(self) -> None:
        super().__init__()
        self.points: deque[tuple[float, str]] = deque(maxlen=MAX_POINTS)
        self._bucket = None
        self.marks: deque[tuple[float, str, str]] = deque(maxlen=MAX_MARKS)
        self.list_rv: str | None = None
        self.watch_rv: str | None = None
        self.synced_rv: str | None = None
        self.watch_open = False
        self.watch_end_reason: str | None = None
        self.listing = False
        self.list_asked: str | None = None  # the RV the current list asked for
        self.counts = {"list": 0, "watch": 0, "bookmark": 0, "relist": 0, "gone": 0}
        self.relist_reasons: dict[str, int] = {}
        # A 410 on the watch is followed by a relist with reason expired:
        # count that as one 410, not two.
        self._gone_pending = False

    # -- handlers -------------------------------------------------------
    def _point(self, t: float, rv) -> None:
        if rv is None or rv == "":
            return
        rv = str(rv)
        b = int(t / BUCKET)
        if b == self._bucket and self.points:
            self.points[-1] = (t, rv)
        else:
            self._bucket = b
            self.points.append((t, rv))

    def _mark(self, t: float, what: str, text: str) -> None:
        self.counts[what] = self.counts.get(what, 0) + 1
        self.marks.append((t, what, text))

    def _list_start(self, ev: TraceEvent) -> None:
        self.listing = True
        asked = ev.fields.get("resource_version")
        self.list_asked = None if asked is None else str(asked)

    def _list_done(self, ev: TraceEvent) -> None:
        f = ev.fields
        rv = f.get("resource_version")
        self.listing = False
        if f.get("error"):
            self._mark(ev.time, "list", f"list failed: {f['error']}")
            return
        self.list_rv = None if rv is None else str(rv)
        self._point(ev.time, rv)
        how = "watch-list" if f.get("watch_list") else "list"
        extra = f" items={f['items']}" if f.get("items") is not None else ""
        if f.get("duration") is not None:
            extra += f" in {fmt_secs(f['duration'])}"
        if self.list_asked == "" and (not f.get("watch_list") or self.counts["list"]):
            # A first WatchList stream always asks ""; otherwise "" means the
            # last RV was given up (410, too large, forgotten): read from etcd.
            extra += ' (asked rv "": a consistent read)'
        self._mark(ev.time, "list", f"{how} done at rv {rv}{extra}")

    def _watch_start(self, ev: TraceEvent) -> None:
        rv = ev.fields.get("resource_version")
        self.watch_open = True
        self.watch_end_reason = None
        self.watch_rv = None if rv in (None, "") else str(rv)
        self._mark(ev.time, "watch", f"watch from rv {rv if rv not in (None, '') else '(latest)'}")

    def _watch_event(self, ev: TraceEvent) -> None:
        if self.listing:
            # A WatchList stream's initial events carry each object's own RV,
            # in no order; the reflector's RV is the closing bookmark's.
            return
        rv = ev.fields.get("resource_version")
        if rv not in (None, ""):
            # The reflector's last synced RV is now the event's (rv.advance
            # says so only for lists and bookmarks).
            self.watch_rv = self.synced_rv = str(rv)
            self._point(ev.time, rv)

    def _watch_bookmark(self, ev: TraceEvent) -> None:
        rv = ev.fields.get("resource_version")
        if self.listing:
            self._mark(ev.time, "bookmark", f"bookmark at rv {rv}: initial events end")
            return
        if rv not in (None, ""):
            self.watch_rv = str(rv)
            self._point(ev.time, rv)
        self._mark(ev.time, "bookmark", f"bookmark at rv {rv}")

    def _watch_end(self, ev: TraceEvent) -> None:
        f = ev.fields
        reason, error = f.get("reason"), f.get("error")
        self.watch_open = False
        self.watch_end_reason = str(error or reason or "ended")
        if f.get("expired") is True:
            self._gone_pending = True
            self._mark(ev.time, "gone", f"410 Gone: watch at rv {f.get('resource_version', self.watch_rv)} expired")

    def _rv_advance(self, ev: TraceEvent) -> None:
        new = ev.fields.get("new")
        if new not in (None, ""):
            self.synced_rv = str(new)
            self._point(ev.time, new)

    def _relist(self, ev: TraceEvent) -> None:
        reason = str(ev.fields.get("reason") or "unknown")
        self.relist_reasons[reason] = self.relist_reasons.get(reason, 0) + 1
        if reason == "expired" and not self._gone_pending:
            # e.g. a LIST at a too-old RV: a 410 that never showed as a watch end
            self._mark(ev.time, "gone", "410 Gone: resource version expired")
        self._gone_pending = False
        self._mark(ev.time, "relist", f"relist: {reason}")

    def _experiment(self, ev: TraceEvent):
        name = str(ev.fields.get("name"))
        if name not in RV_EXPERIMENTS:
            return False
        self._mark(ev.time, "experiment", f"experiment {name}: {ev.fields.get('detail', '')}")

    # -- views ----------------------------------------------------------
    def window(self, now: float | None) -> tuple[float, float]:
        """The time span the chart shows, ending at ``now``."""
        end = now if now is not None else (self.last_time or 0.0)
        firsts = [q[0][0] for q in (self.points, self.marks) if q]
        start = min(firsts) if firsts else end
        if end - start < MIN_WINDOW:
            start = end - MIN_WINDOW
        elif end - start > MAX_WINDOW:
            start = end - MAX_WINDOW
        return start, end


class RVPane(Pane):
    DEFAULT_CSS = """
    RVPane { height: 1fr; width: 1fr; padding: 0 1; }
    """

    def render(self) -> Text:
        return render_rv(self.state, self.now, self.size.width, self.size.height)


def _rv_label(rv: str | None) -> str:
    return rv if rv else "-"


def _header(st: RVState, width: int) -> Text:
    watch = _rv_label(st.watch_rv)
    if st.watch_rv is not None and not st.watch_open and st.watch_end_reason:
        watch += f" (closed: {st.watch_end_reason})"
    head = Text.assemble(
        ("ResourceVersion", "bold"),
        "  list ", (_rv_label(st.list_rv), "cyan"),
        " · watch ", (watch, "green" if st.watch_open else "dim"),
        " · synced ", (_rv_label(st.synced_rv), "bold"),
    )
    if st.listing:
        head.append("  listing…", "yellow")
    if head.cell_len > width:  # narrow slot: the numbers matter more than the title
        head = Text.assemble(("RV", "bold"), head[len("ResourceVersion"):])
    return head


def _counters(st: RVState) -> Text:
    c = st.counts
    reasons = ", ".join(f"{k} {v}" for k, v in sorted(st.relist_reasons.items()))
    return Text.assemble(
        f"lists {c['list']}  watches {c['watch']}  bookmarks {c['bookmark']}  relists {c['relist']}",
        f" ({reasons})" if reasons else "",
        "  410s ", (str(c["gone"]), "bold red" if c["gone"] else ""),
    )


def _legend() -> Text:
    legend = Text()
    for what in ("list", "watch", "bookmark", "relist", "gone"):
        glyph, style, _, name = MARKS[what]
        legend.append(glyph, style)
        legend.append(f" {name}  ")
    return legend


def _window_points(st: RVState, t0: float) -> tuple[list, list[tuple[float, float]] | None]:
    """Visible points plus the last one before the window (the step carries);
    and the same as numbers, or None when an RV is not a number."""
    pts = [p for p in st.points if p[0] >= t0]
    before = [p for p in st.points if p[0] < t0]
    if before:
        pts.insert(0, (t0, before[-1][1]))
    numeric: list[tuple[float, float]] | None = []
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
    chart, lw, plot_w = (_step_chart(numeric, t0, t1, width, chart_h) if numeric
                         else _change_dots(pts, t0, t1, width, chart_h))
    lines.extend(chart)
    lines.append(Text(" " * lw + " └" + "─" * plot_w, style="dim"))
    lines.append(_marks_strip(st, t0, t1, lw, plot_w))
    left = f"-{fmt_secs(t1 - t0)}"
    lines.append(Text(" " * (lw + 2) + left + "now".rjust(plot_w - len(left)), style="dim"))
    if show_legend:
        lines.append(_legend())
    if log_rows > 0:
        for t, what, text in list(st.marks)[-log_rows:][::-1]:
            glyph, style, _, _ = MARKS[what]
            lines.append(Text.assemble((f"{fmt_secs(now - t):>7} ago ", "dim"), (glyph, style), " ", text))
    return join_lines(lines[:height], width)
