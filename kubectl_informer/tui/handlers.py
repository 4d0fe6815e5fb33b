"""Drawing the Handlers pane from its state.

What the pane knows, and why: ``panes/handlers.py``.
"""

from __future__ import annotations

from rich.text import Text

from kubectl_informer.cache.shared_processor import (
    SLOW_CALL,
    SLOW_PENDING,
)
from kubectl_informer.panes.handlers import HandlersState, Lane
from kubectl_informer.tui.chart import any_size, fmt_secs, join_lines
from kubectl_informer.tui.textpane import TextPane, text_lines


class HandlersPane(TextPane):
    DEFAULT_CSS = """
    HandlersPane { height: 1fr; width: 1fr; padding: 0 1; }
    """

    def draw_lines(self, width: int, height: int) -> list[Text]:
        return text_lines(render_handlers(self.state, self.now, width, height))


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
    # The registration's HasSynced (client-go's WaitForCacheSync on the handle): its own initial adds handled.
    state = Text.assemble(
        (
            "  ✓ synced" if ln.synced_at is not None else "  ◌ syncing",
            "green" if ln.synced_at is not None else "bold yellow",
        ),
        f"  handled {ln.done}/{ln.given}",
    )
    if ln.call >= 0.001:
        state.append(f" call {fmt_secs(ln.call)}", "yellow" if ln.call >= SLOW_CALL else "dim")
    if ln.errors:
        state.append(f" {ln.errors} errors", "red")
    if slow:
        state.append("  SLOW", "bold reverse red")
    # upd and sync apart, as the Deltas pane counts Updated and Sync: a sync is an
    # OnUpdate too (client-go's updateNotification), counted once, under sync.
    counts = Text.assemble(
        ("add ", "dim"),
        (f"{ln.adds}", "green"),
        ("  upd ", "dim"),
        f"{ln.updates - ln.syncs}",
        ("  del ", "dim"),
        (f"{ln.deletes}", "red"),
        ("  sync ", "dim"),
        (f"{ln.syncs}", "cyan"),
    )
    if ln.synthetic:
        counts.append(f" ({ln.synthetic} replayed)", "dim")
    pend = Text.assemble(
        ("  pending ", "dim"), (f"{ln.pending}", "bold red" if slow else "bold"), (f" peak {ln.peak} ", "dim")
    )
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


@any_size(20, 2)
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
        lines.append(
            Text(
                f"SLOW: >{SLOW_PENDING} pending and a call ≥ {fmt_secs(SLOW_CALL)} "
                "(client-go's slow-handler thresholds)",
                "dim",
            )
        )
    return join_lines(lines[:height], width)
