"""The Handlers pane: one lane per event handler (processorListener).

client-go gives every handler its own listener: a goroutine pair and an
unbounded ring buffer of pending notifications, so a slow handler delays
only itself while its buffer grows. Per lane this pane shows the resync
asked and got, the notifications it was given (add, update, delete, and
sync: the resync-driven updates), its pending buffer now, at its peak and
over time, and a SLOW flag.

Counts come from ``handler.add/update/delete`` (emitted as the informer
hands a notification to the listener, with the buffer's length);
``handler.lane`` reports what the handler has finished and how long its
last call took.
"""

from __future__ import annotations

from collections import deque

from rich.text import Text

from ..cache.shared_informer import LANE_SAMPLE_EVERY, SLOW_CALL, SLOW_PENDING, is_slow
from ..trace import TraceEvent
from ..trace_kinds import (
    HANDLER_ADD,
    HANDLER_DELETE,
    HANDLER_ERROR,
    HANDLER_LANE,
    HANDLER_REGISTER,
    HANDLER_UPDATE,
    INFORMER_START,
    RESYNC_TICK,
)
from .chart import fmt_secs, join_lines
from .pane import DispatchState, Pane

SPARK = "▁▂▃▄▅▆▇█"
BUCKET = 0.5       # seconds of history per sparkline cell
HISTORY = 240      # cells kept per lane (two minutes)
MAX_LANES = 64     # a replay naming more listeners keeps the first ones


class Lane:
    __slots__ = ("name", "requested", "effective", "reason", "adds", "updates", "deletes", "syncs", "synthetic",
                 "pending", "peak", "handled", "call", "slow", "errors", "reported_at", "history")

    def __init__(self, name: str) -> None:
        self.name = name
        self.requested: float | None = None
        self.effective: float | None = None
        self.reason: str | None = None
        self.adds = self.updates = self.deletes = self.syncs = self.synthetic = 0
        self.pending = 0
        self.peak = 0
        self.handled = 0
        self.call = 0.0
        self.slow = False              # as the last handler.lane said
        self.errors = 0
        self.reported_at: float | None = None  # last handler.lane
        self.history: deque[list] = deque(maxlen=HISTORY)  # [bucket, max pending in it, pending at its end]

    def __repr__(self) -> str:
        return "Lane(" + ", ".join(f"{n}={getattr(self, n)!r}" for n in self.__slots__) + ")"

    @property
    def given(self) -> int:
        return self.adds + self.updates + self.deletes

    @property
    def done(self) -> int:
        """Finished calls: the last report, or more if the buffer was seen
        shorter since (reports are rate-limited, buffer lengths are not)."""
        return max(self.handled, self.given - self.pending)

    def note_pending(self, t: float, n: int) -> None:
        self.pending = n
        self.peak = max(self.peak, n)
        b = int(t // BUCKET)
        h = self.history
        if h and h[-1][0] == b:
            h[-1][1] = max(h[-1][1], n)
            h[-1][2] = n
        else:
            h.append([b, n, n])

    def is_slow(self, now: float | None) -> bool:
        """The engine's flag, or a backlog behind a call still running: a
        lane with work reports at least every LANE_SAMPLE_EVERY, so no
        report for twice that means its current call is a long one."""
        if self.slow and self.pending > SLOW_PENDING:
            return True
        if now is None or self.reported_at is None:
            return False
        quiet = now - self.reported_at
        return quiet >= 2 * LANE_SAMPLE_EVERY and is_slow(self.pending, quiet)

    def spark(self, now: float | None, width: int) -> str:
        """Max pending per BUCKET, the newest cell on the right, scaled to the peak."""
        if width <= 0 or not self.history:
            return ""
        last = int(now // BUCKET) if now is not None else self.history[-1][0]
        first = last - width + 1
        by_bucket = {b: (peak, end) for b, peak, end in self.history}
        level = 0  # a bucket with no event holds the level the previous one ended at
        for b, _, end in self.history:
            if b >= first:
                break
            level = end
        cells = []
        for b in range(first, last + 1):
            peak, end = by_bucket.get(b, (level, level))
            cells.append(peak)
            level = end
        top = max(max(cells), 1)
        return "".join(" " if v == 0 else SPARK[min(len(SPARK) - 1, (v * len(SPARK) - 1) // top)] for v in cells)


def _count(v) -> int:
    n = int(v)
    if n < 0:
        raise ValueError(f"negative count {v!r}")
    return n


class HandlersState(DispatchState):
    HANDLERS = {HANDLER_REGISTER: "_register", HANDLER_ADD: "_add", HANDLER_UPDATE: "_update",
                HANDLER_DELETE: "_delete", HANDLER_LANE: "_lane", HANDLER_ERROR: "_error",
                INFORMER_START: "_start", RESYNC_TICK: "_tick"}

    def __init__(self) -> None:
        super().__init__()
        self.lanes: dict[str, Lane] = {}
        self.check_period: float | None = None

    def lane(self, name) -> Lane:
        if not isinstance(name, str):
            raise ValueError(f"listener {name!r}")
        ln = self.lanes.get(name)
        if ln is None:
            if len(self.lanes) >= MAX_LANES:
                raise ValueError("too many listeners")
            ln = self.lanes[name] = Lane(name)
        return ln

    def _register(self, ev: TraceEvent) -> None:
        f = ev.fields
        requested, effective = float(f.get("requested")), float(f.get("effective"))
        ln = self.lane(f.get("listener"))
        ln.requested, ln.effective = requested, effective
        ln.reason = str(f.get("reason")) if f.get("reason") else None
        if f.get("check_period") is not None:
            self.check_period = float(f.get("check_period"))

    def _given(self, ev: TraceEvent) -> Lane:
        f = ev.fields
        buffered = f.get("buffered")
        buffered = None if buffered is None else _count(buffered)
        ln = self.lane(f.get("listener"))
        if buffered is not None:
            ln.note_pending(ev.time, buffered)
        if f.get("synthetic"):
            ln.synthetic += 1
        return ln

    def _add(self, ev: TraceEvent) -> None:
        self._given(ev).adds += 1

    def _update(self, ev: TraceEvent) -> None:
        ln = self._given(ev)
        ln.updates += 1
        if ev.fields.get("is_sync"):
            ln.syncs += 1

    def _delete(self, ev: TraceEvent) -> None:
        self._given(ev).deletes += 1

    def _lane(self, ev: TraceEvent) -> None:
        f = ev.fields
        pending, handled, call = _count(f.get("pending")), _count(f.get("handled")), float(f.get("call"))
        ln = self.lane(f.get("listener"))
        ln.note_pending(ev.time, pending)
        ln.handled, ln.call, ln.slow = handled, call, f.get("slow") is True
        ln.reported_at = ev.time

    def _error(self, ev: TraceEvent) -> None:
        self.lane(ev.fields.get("listener")).errors += 1

    def _start(self, ev: TraceEvent) -> None:
        self.check_period = float(ev.fields.get("resync_check_period"))

    def _tick(self, ev: TraceEvent) -> None:
        self.check_period = float(ev.fields.get("check_period"))


class HandlersPane(Pane):
    DEFAULT_CSS = """
    HandlersPane { height: 1fr; width: 1fr; padding: 0 1; }
    """

    def render(self) -> Text:
        return render_handlers(self.state, self.now, self.size.width, self.size.height)


def _resync_cell(ln: Lane) -> Text:
    if ln.requested is None:
        return Text("resync ?", "dim")
    got = ln.effective or 0.0
    if not ln.requested and not got:
        return Text("no resync", "dim")
    t = Text(f"resync {fmt_secs(ln.requested)}")
    if got != ln.requested:
        t.append(f"→{fmt_secs(got) if got else 'off'}", "bold yellow")
    return t


def _lane_lines(i: int, ln: Lane, now: float | None, width: int, one_line: bool) -> list[Text]:
    """A lane on one line when the pane is wide, else on two: who and how
    it is doing, then its counts and its buffer."""
    slow = ln.is_slow(now)
    head = Text.assemble((f"{i} " if i < 10 else "  ", "bold magenta"), (f"{ln.name:<12} ", "bold"))
    head.append_text(_resync_cell(ln))
    head.pad_right(max(0, 30 - head.cell_len))
    state = Text(f"  handled {ln.done}/{ln.given}")
    if ln.call >= 0.001:
        state.append(f" call {fmt_secs(ln.call)}", "yellow" if ln.call >= SLOW_CALL else "dim")
    if ln.errors:
        state.append(f" {ln.errors} errors", "red")
    if slow:
        state.append("  SLOW", "bold reverse red")
    counts = Text.assemble(("add ", "dim"), (f"{ln.adds}", "green"), ("  upd ", "dim"), f"{ln.updates}",
                           ("  del ", "dim"), (f"{ln.deletes}", "red"), ("  sync ", "dim"), (f"{ln.syncs}", "cyan"))
    if ln.synthetic:
        counts.append(f" ({ln.synthetic} replayed)", "dim")
    pend = Text.assemble(("  pending ", "dim"), (f"{ln.pending}", "bold red" if slow else "bold"),
                         (f" peak {ln.peak} ", "dim"))
    if one_line:  # what matters most first: a narrow slot crops the sparkline
        line = Text.assemble(head, state, "  ", counts, pend)
        line.append(ln.spark(now, min(40, max(0, width - line.cell_len))), "red" if slow else "yellow")
        return [line]
    second = Text.assemble("   ", counts, pend)
    room = max(0, width - second.cell_len)
    spark = ln.spark(now, min(40, room))
    second.pad_right(room - len(spark))  # the newest cell at the right edge, in every lane
    second.append(spark, "red" if slow else "yellow")
    return [Text.assemble(head, state), second]


def render_handlers(st: HandlersState, now: float | None, width: int, height: int) -> Text:
    width, height = max(width, 20), max(height, 2)
    if now is None:
        now = st.last_time
    cp = st.check_period
    head = Text.assemble(("Handlers", "bold"), f"  {len(st.lanes)} listeners")
    head.append(" · check " + ("-" if cp is None else "off" if cp == 0 else fmt_secs(cp)))
    slow = [ln.name for ln in st.lanes.values() if ln.is_slow(now)]
    if slow:
        head.append(" · slow: " + ", ".join(slow), "bold red")
    lines = [head]
    if not st.lanes:
        lines.append(Text("no handlers registered yet", "dim"))
        return join_lines(lines, width)
    one_line = width >= 120 or height < 2 * len(st.lanes) + 1
    per_lane = 1 if one_line else 2
    # Room to spare: say why client-go changed a lane's period (a 0 check
    # period silencing every handler's resync is the usual surprise).
    why = len(st.lanes) * (per_lane + 1) + 2 <= height
    for i, ln in enumerate(st.lanes.values(), 1):
        block = _lane_lines(i, ln, now, width, one_line)
        if why and ln.reason:
            block.append(Text.assemble(("    ↳ ", "yellow"), (ln.reason, "italic")))
        if len(lines) + len(block) > height:
            lines.append(Text(f"… {len(st.lanes) - i + 1} more (z zooms)", "dim"))
            break
        lines.extend(block)
    if len(lines) < height:
        lines.append(Text(f"SLOW: >{SLOW_PENDING} pending and a call ≥ {fmt_secs(SLOW_CALL)} "
                          "(client-go's slow-handler thresholds)", "dim"))
    return join_lines(lines[:height], width)
