"""Drawing the Resync pane from its state.

What the pane knows, and why: ``panes/resync.py``.
"""

from __future__ import annotations

import textwrap

from rich.text import Text

from kubectl_informer.panes.resync import Listener, ResyncState, cadence
from kubectl_informer.tui.chart import any_size, column_of, fmt_secs, join_lines
from kubectl_informer.tui.textpane import TextPane, text_lines

NEXT_W = 14  # "due; tick 2.6s"


class ResyncPane(TextPane):
    DEFAULT_CSS = """
    ResyncPane { height: 1fr; width: 1fr; padding: 0 1; }
    """

    def draw_lines(self, width: int, height: int) -> list[Text]:
        return text_lines(render_resync(self.state, self.now, width, height))


# What the ticks row's marks mean (the table numbers its listeners 1-9), said
# on the axis row between its left label and ▲now where it fits.
TIMELINE_LEGEND = "┃ resynced │ none due ┆ next 1-9 listener"


def _timeline(st: ResyncState, now: float, width: int) -> list[Text]:
    """Two rows: the ticks (past solid, expected dashed) and a time axis."""
    cp = st.check_period or 1.0
    window = min(max(width * cp / 3, 10.0), 600.0)  # about 3 columns per tick
    past = window * 0.8
    if st.started_at is not None:  # never before the run began: a 13 s run spanned -2m39s
        past = min(past, max(now - st.started_at, cp))
    t0, t1 = now - past, now + min(window * 0.2, max(past / 4, 1.2 * cp))
    cells: list[tuple[str, str]] = [("·", "dim")] * width
    for tk in st.ticks:
        if tk.time >= t0:
            cells[column_of(tk.time, t0, t1, width)] = ("┃", "bold yellow") if tk.due else ("│", "yellow")
    nt = st.next_tick(now)
    for _ in range(width):  # bounded: a tiny period would otherwise loop for ages
        if nt is None or nt > t1:
            break
        cells[column_of(nt, t0, t1, width)] = ("┆", "dim yellow")
        nt += cp
    for i, ls in enumerate(st.listeners.values()):
        at = st.resync_at(ls, now)
        if at is not None and now < at <= t1 and i < 9:
            cells[column_of(at, t0, t1, width)] = (str(i + 1), "bold magenta")
    now_col = column_of(now, t0, t1, width)
    row = Text()
    for ch, style in cells:
        row.append(ch, style)
    axis = [" "] * width
    left = f"-{fmt_secs(now - t0)}"
    right = f"+{fmt_secs(t1 - now)}"
    for i, ch in enumerate(left):
        axis[i] = ch
    # "▲now" under the now column; the future span's label only if it fits after it.
    start = max(len(left) + 1, now_col)
    if len(left) + 2 + len(TIMELINE_LEGEND) + 1 <= start:
        for i, ch in enumerate(TIMELINE_LEGEND):
            axis[len(left) + 2 + i] = ch
    for i, ch in enumerate("▲now"):
        if start + i < width:
            axis[start + i] = ch
    if start + 4 + 1 + len(right) <= width:
        for i, ch in enumerate(right):
            axis[width - len(right) + i] = ch
    return [row, Text("".join(axis), style="dim")]


def _listener_rows(entries, head: Text, budget: int) -> list[Text]:
    """The listener table in ``budget`` rows. When it does not all fit, the
    listeners whose period client-go changed (those with a why) come first:
    they are what this pane is for."""
    if not entries:
        return [Text("no listeners registered yet", style="dim")]
    full = [head] + [ln for _, row, whys, _ in entries for ln in (row, *whys)]
    if len(full) <= budget:
        return full
    budget -= 1  # the header
    ranked = sorted(entries, key=lambda e: (e[3], e[0]))
    chosen = {e[0] for e in ranked[:budget]}
    left = budget - len(chosen)
    extra: dict[int, int] = {}
    for i, _, whys, _ in ranked:
        if i in chosen and whys and left > 0:
            extra[i] = min(len(whys), left)
            left -= extra[i]
    out = [head]
    for i, row, whys, _ in entries:
        if i in chosen:
            out.append(row)
            out.extend(whys[: extra.get(i, 0)])
    return out


def _header(st: ResyncState, now: float | None, width: int) -> Text:
    cp = st.check_period
    head = Text.assemble(("Resync", "bold"), "  check ")
    if cp is None:
        head.append("-", "dim")
    elif cp == 0:
        head.append("0 (resync off)", "dim")
    else:
        head.append(fmt_secs(cp), "bold yellow")
    head.append(f" · {st.tick_count} ticks · Syncs {st.syncs_queued} queued, {st.syncs_skipped} skipped")
    if now is None:
        return head
    nt = st.next_tick(now)
    if nt is not None:
        head.append(f" · next tick {fmt_secs(nt - now)}")
    if head.cell_len > width and cp:
        # A narrow slot: the same facts, fewer words.
        head = Text.assemble(
            ("Resync ", "bold"),
            (fmt_secs(cp), "bold yellow"),
            f" · {st.tick_count} ticks · Syncs {st.syncs_queued}/{st.syncs_skipped} skipped",
        )
        if nt is not None:
            head.append(f" · next {fmt_secs(nt - now)}")
    return head


def _next_cell(st: ResyncState, ls: Listener, now: float) -> Text:
    at = st.resync_at(ls, now)
    if ls.effective <= 0:
        return Text("never", style="dim")
    if at is None:
        return Text("-", style="dim")
    due_in = ls.next_due - now if ls.next_due is not None else None
    if due_in is not None and due_in <= 0:
        return Text(f"due; tick {fmt_secs(at - now)}", style="bold magenta")
    return Text(f"in {fmt_secs(at - now)}", style="magenta")


def _listener_table(st: ResyncState, now: float, width: int) -> tuple[Text, list[tuple[int, Text, list[Text], int]]]:
    """The table's head and, per listener, (index, row, why lines, priority
    when rows are short: changed periods first)."""
    cp = st.check_period
    nw = min(max([8] + [len(n) for n in st.listeners]), max(8, width // 4))
    # Columns give way in a narrow slot: syncs first, then the cadence.
    show_syncs = nw + 47 <= width
    show_every = nw + 40 <= width
    table_head = f"  {'listener':<{nw}}  {'asked':>6} {'got':>6}"
    if show_every:
        table_head += f" {'every':>6}"
    table_head += f" {'next':>{NEXT_W}}"
    if show_syncs:
        table_head += f" {'syncs':>6}"
    entries: list[tuple[int, Text, list[Text], int]] = []
    for i, ls in enumerate(st.listeners.values()):
        nxt = _next_cell(st, ls, now)
        differs = ls.effective != ls.requested
        name = ls.name if len(ls.name) <= nw else ls.name[: nw - 1] + "…"
        row = Text.assemble(
            (f"{i + 1} " if i < 9 else "  ", "bold magenta"),
            f"{name:<{nw}}  {fmt_secs(ls.requested):>6} ",
            (f"{fmt_secs(ls.effective):>6}", "bold yellow" if differs else ""),
        )
        if show_every:
            row.append(f" {fmt_secs(cadence(ls.effective, cp)):>6}")
        row.append(" ")
        nxt.pad_left(NEXT_W - nxt.cell_len)
        row.append_text(nxt)
        if show_syncs:
            row.append(f" {ls.syncs:>6}")
        whys = [
            Text.assemble(("    ↳ " if j == 0 else "      ", "yellow"), (part, "italic"))
            for why in ls.why(cp)
            for j, part in enumerate(textwrap.wrap(why, max(10, width - 6)))
        ]
        entries.append((i, row, whys, 0 if differs and whys else 1 if whys else 2))
    return Text(table_head, style="bold"), entries


def _recent_ticks(st: ResyncState, now: float, height: int) -> list[Text]:
    """Recent ticks, newest first, under a head line."""
    tt: list[Text] = [Text(f"  {'tick':>9}  {'Syncs':>5} {'skipped':>7}  due listeners", style="bold")]
    for tk in reversed(st.ticks):
        due = ", ".join(tk.due) if tk.due else "(none due)"
        tt.append(
            Text.assemble(
                f"  {fmt_secs(now - tk.time) + ' ago':>9}  ",
                (f"{tk.queued:>5}", "green" if tk.queued else "dim"),
                " ",
                (f"{tk.skipped:>7}", "yellow" if tk.skipped else "dim"),
                "  ",
                (due, "" if tk.due else "dim"),
            )
        )
        if len(tt) > height:
            break
    if len(tt) == 1:
        tt.append(Text("  no ticks yet" if st.check_period else "  no ticks: resync is off", style="dim"))
    return tt


@any_size(20, 3)
def render_resync(st: ResyncState, now: float | None, width: int, height: int) -> Text:
    width = max(width, 20)
    height = max(height, 3)
    if now is None:
        now = st.last_time
    head = _header(st, now, width)
    if now is None:
        return join_lines([head, Text("no informer yet", style="dim")], width)
    lines: list[Text] = [head]
    label_w = 7
    if st.check_period:
        tl = _timeline(st, now, max(10, width - label_w))
        lines.append(Text.assemble(("ticks  ", "bold"), tl[0]))
        if height >= 10:
            lines.append(Text.assemble(" " * label_w, tl[1]))
    table_head, entries = _listener_table(st, now, width)
    tt = _recent_ticks(st, now, height)
    avail = height - len(lines)
    # Listeners first (the why lines are the point), but leave ticks some rows.
    ticks_min = min(len(tt), 3 if avail >= 8 else 2 if avail >= 5 else 0)
    lines.extend(_listener_rows(entries, table_head, max(1, avail - ticks_min)))
    lines.extend(tt[: max(0, height - len(lines))])
    return join_lines(lines[:height], width)
