"""Drawing the Queue pane from its state.

What the pane knows, and why: ``panes/queue.py``.
"""

from __future__ import annotations

import heapq
import itertools
import textwrap

from rich.text import Text

from kubectl_informer.panes.queue import QueueState
from kubectl_informer.tui.chart import any_size, bar, fmt_secs, join_lines, side_by_side
from kubectl_informer.tui.cursor import CURSOR_BINDINGS, HOME_BINDING, KeyCursor
from kubectl_informer.tui.queue_history import history_line, history_lines
from kubectl_informer.tui.queue_sections import LABEL_W, allocate, build, flow, flowed, want_flow
from kubectl_informer.tui.queue_why import _why_lines
from kubectl_informer.tui.textpane import TextPane, text_lines

WATCH_NOTE = (
    "watch runs no workqueue: `kubectl informer queue` feeds each notified key into one, drained by simulated workers"
)


# Items the cursor walks (what is processing, queued, waiting): the first ones.
MAX_CURSOR_ITEMS = 500


def cursor_items(st: QueueState) -> list[str]:
    """The items a cursor can select, in the order the pane lists them:
    what workers hold, then the queue in Get order, then what waits to be
    ready (soonest first)."""
    items = list(itertools.islice(st.processing, MAX_CURSOR_ITEMS))
    items += itertools.islice((k for k in st.queue if k not in st.processing), MAX_CURSOR_ITEMS - len(items))
    if len(items) < MAX_CURSOR_ITEMS:
        items += [
            k for k, _ in heapq.nsmallest(MAX_CURSOR_ITEMS - len(items), st.waiting.items(), key=lambda kv: kv[1])
        ]
    return items


class QueuePane(KeyCursor, TextPane):
    """The workqueue; j/k put a cursor on an item (a line on top names it),
    which ``e`` explains and Enter inspects; home (g) goes back to none."""

    DEFAULT_CSS = """
    QueuePane { height: 1fr; width: 1fr; padding: 0 1; }
    """
    BINDINGS = [*CURSOR_BINDINGS, HOME_BINDING]

    state: QueueState

    def __init__(self, state: QueueState, **kwargs) -> None:
        super().__init__(state, **kwargs)
        self.cursor_keys: list[str] = []
        self.cursor_item: str | None = None  # the item under the cursor (None: no cursor)

    def on_mount(self) -> None:
        self.state.mode = getattr(getattr(self.app, "info", None), "mode", None)

    def reset_view(self) -> None:
        self.cursor, self.cursor_item = 0, None

    def action_cursor(self, step: int) -> None:
        self.cursor_keys = cursor_items(self.state)
        if self.cursor_item is None:
            self.cursor = -1 if step > 0 else len(self.cursor_keys)
        elif self.cursor_item in self.cursor_keys:
            self.cursor = self.cursor_keys.index(self.cursor_item)
        self.cursor = max(0, min(self.cursor + step, len(self.cursor_keys) - 1))
        self.cursor_item = self.cursor_key()
        self.refresh()

    def action_cursor_home(self) -> None:
        self.reset_view()
        self.refresh()

    def selected_key(self) -> str | None:
        return self.cursor_item

    def draw_lines(self, width: int, height: int) -> list[Text]:
        if self.cursor_item is None:
            return text_lines(render_queue(self.state, self.now, width, height))
        body = render_queue(self.state, self.now, width, max(height - 1, 3))
        head = _cursor_line(self.state, self.cursor_item, cursor_items(self.state), max(width, 30))
        return [head, *text_lines(body)]


def _cursor_line(st: QueueState, key: str, items: list[str], width: int) -> Text:
    """``▸ default/web-3 · processing (w0) · 2/37``: the item under the cursor."""
    if key in st.processing:
        worker = next((w for w, slot in st.workers.items() if slot is not None and slot[0] == key), None)
        where = "processing" + (f" (w{worker})" if worker is not None else "")
        if key in st.dirty:
            where += ", dirty: runs again after Done"
    elif key in st.queue:
        where = "queued"
    elif key in st.waiting:
        where = "waiting for its back-off"
    else:
        where = "done: no longer in the queue"
    t = Text(no_wrap=True, overflow="ellipsis")
    t.append("▸ ", "bold reverse")
    t.append(key, "bold reverse")
    t.append(f" · {where}", "bold")
    t.append(_limiter_words(st, key), "yellow")
    pos = f" · {items.index(key) + 1}/{len(items)}" if key in items else ""
    t.append(f"{pos} · j/k item · e explains · g none", "dim")
    t.truncate(width, overflow="ellipsis")
    return t


def _limiter_words(st: QueueState, key: str) -> str:
    """`` · failure 4, back-off 3.2s``: the rate limiter's state for ``key``."""
    n = st.requeues.get(key)
    if not n:
        return ""
    delay = st.backoff.get(key)
    return f" · failure {n}" + (f", back-off {fmt_secs(delay)}" if delay is not None else "")


def _header(st: QueueState, now: float, width: int) -> Text:
    busy = sum(1 for w in st.workers.values() if w is not None)
    head = Text.assemble(
        ("Workqueue", "bold"),
        "  depth ",
        (str(st.depth), "bold cyan"),
        f" · adds {st.adds_per_second(now):.0f}/s ({st.adds})",
        " · retries ",
        (str(st.retries), "bold yellow" if st.retries else ""),
    )
    if st.dropped:
        head.append(f" · gave up {st.dropped}", "bold red")
    if st.workers:
        head.append(f" · workers {busy}/{len(st.workers)} busy")
    if st.shutting_down:
        head.append("  SHUTTING DOWN" + (" (drain)" if st.drain else ""), "bold red")
    _experiment_marks(head, st)
    if st.gaps:
        head.append(f"  trace gaps {st.gaps}", "dim red")
    if head.cell_len > width:
        # A narrow slot: the same facts, fewer words.
        head = Text.assemble(
            ("depth ", "bold"),
            (str(st.depth), "bold cyan"),
            f" · {st.adds_per_second(now):.0f} adds/s · retries {st.retries}",
        )
        if st.dropped:
            head.append(f" · gave up {st.dropped}", "bold red")
        if st.workers:
            head.append(f" · busy {busy}/{len(st.workers)}")
        if st.shutting_down:
            head.append(" · SHUT DOWN", "bold red")
        _experiment_marks(head, st)
    return head


def _experiment_marks(head: Text, st: QueueState) -> None:
    """What the experiments left in effect; first to go in a narrow slot is nothing."""
    if st.workers_paused:
        head.append("  ⏸ WORKERS PAUSED", "bold reverse yellow")
    if st.fail_left:
        head.append(f"  failing next {st.fail_left}", "bold magenta")
    elif st.injected:
        head.append(f"  injected failures {st.injected}", "magenta")


def _metric_lines(st: QueueState, now: float, width: int, height: int) -> list[Text]:
    """client-go's workqueue metrics in one, two or a compact line."""
    lp50, lp99 = st.percentiles("latency")
    wp50, wp99 = st.percentiles("work")
    unfinished, longest = st.unfinished_work(now)
    metrics = Text.assemble(
        ("queue latency", "bold"),
        f" p50 {fmt_secs(lp50)} p99 {fmt_secs(lp99)} · ",
        ("work duration", "bold"),
        f" p50 {fmt_secs(wp50)} p99 {fmt_secs(wp99)}",
    )
    unfin = Text.assemble(
        ("unfinished work", "bold"),
        f" {fmt_secs(unfinished)} · ",
        ("longest running", "bold"),
        f" {fmt_secs(longest)}",
    )
    if metrics.cell_len + 3 + unfin.cell_len <= width:
        metrics.append(" · ")
        metrics.append_text(unfin)
        return [metrics]
    if height >= 12:
        return [metrics, unfin]
    compact = Text.assemble(
        ("p50/p99", "bold"),
        f" latency {fmt_secs(lp50)}/{fmt_secs(lp99)}",
        f" work {fmt_secs(wp50)}/{fmt_secs(wp99)} · ",
        ("longest", "bold"),
        f" {fmt_secs(longest)}",
    )
    more = Text.assemble(" · ", ("unfinished", "bold"), f" {fmt_secs(unfinished)}")
    if compact.cell_len + more.cell_len <= width:
        compact.append_text(more)
    elif compact.cell_len > width:
        compact = Text.assemble(
            ("p50/p99", "bold"), f" lat {fmt_secs(lp50)}/{fmt_secs(lp99)} work {fmt_secs(wp50)}/{fmt_secs(wp99)}"
        )
    return [compact]


def _processing_lines(st: QueueState, now: float, dwp: set) -> list[Text]:
    """Worker slots when workers report, else the processing set."""
    wp99 = st.percentiles("work")[1]
    scale = max([wp99 or 0.0] + [now - s for s in st.processing.values()] + [1e-9])

    def proc_line(k: str, start: float, slot: str | None) -> Text:
        age = now - start
        t = Text()
        if slot is not None:
            t.append(f"{slot} ", "bold")
            t.append("▶ ", "green")
        t.append(k)
        t.append(f" {fmt_secs(age):>6} ", "dim")
        t.append(bar(age / scale, 8), "green")
        if k in dwp:
            t.append(" ↻ dirty: requeued on done", "yellow")
        return t

    proc: list[Text] = []
    held = set()
    for wid in sorted(st.workers):
        slot = st.workers[wid]
        if slot is None:
            proc.append(Text.assemble((f"w{wid} ", "bold"), ("· idle", "dim")))
        else:
            held.add(slot[0])
            start = st.processing.get(slot[0], slot[1])
            proc.append(proc_line(slot[0], start, f"w{wid}"))
    for k, start in st.processing.items():
        if k not in held:
            proc.append(proc_line(k, start, None))
    return proc or [Text("nothing", style="dim")]


def _waiting_items(st: QueueState, now: float):
    """Waiting items, soonest first, with countdowns."""
    for k, ready in heapq.nsmallest(64, st.waiting.items(), key=lambda kv: kv[1]):
        left = ready - now
        t = Text(k)
        t.append(f" in {fmt_secs(max(0.0, left))}" if left > 0 else " ready", "magenta")
        delay = st.backoff.get(k)
        if delay is not None and left > 0:
            t.append(f" of {fmt_secs(delay)}", "dim")
        n = st.requeues.get(k)
        if n:
            t.append(f" ×{n}", "yellow")
        yield t


def _dirty_body(st: QueueState, dwp: set, w: int) -> list[Text]:
    if not st.dirty:
        return [Text("none", style="dim")]
    parts = Text(f"{len(st.queue)} queued", style="dim")
    if dwp:
        parts.append(f" + {len(dwp)} processing (requeued on done): ", "dim")
        more = flow((Text(k, style="yellow") for k in dwp), len(dwp), max(10, w - parts.cell_len), 1)[0]
        parts.append_text(more)
    return [parts]


def _section_specs(st: QueueState, now: float, proc: list[Text], dwp: set) -> dict[str, tuple]:
    """(title, count, body(width, rows)) of every section."""
    top_requeues = heapq.nlargest(64, st.requeues.items(), key=lambda kv: kv[1])
    queued = flowed(
        lambda w, rows: (
            Text(k, style="bold" if i == 0 else "")
            for i, k in enumerate(itertools.islice(st.queue, rows * (w // 4 + 1)))
        ),
        len(st.queue),
        "empty",
    )
    return {
        "queued": ("queued", len(st.queue), queued),
        "processing": (
            "processing",
            len(st.processing),
            lambda w, rows: (
                proc[:rows]
                if len(proc) <= rows
                else proc[: rows - 1] + [Text(f"…+{len(proc) - rows + 1}", style="dim")]
            ),
        ),
        "waiting": (
            "waiting",
            len(st.waiting),
            flowed(lambda w, rows: _waiting_items(st, now), len(st.waiting), "none"),
        ),
        "requeues": (
            "requeues",
            len(st.requeues),
            flowed(lambda w, rows: (_requeue_item(st, k, n) for k, n in top_requeues), len(st.requeues), "none"),
        ),
        "dirty": ("dirty", len(st.dirty), lambda w, rows: _dirty_body(st, dwp, w)),
        "totals": (
            "totals",
            None,
            lambda w, rows: [
                Text(
                    f"gets {st.gets} · requeued on done {st.requeued_on_done} · "
                    f"work ok {st.worker_ok} / errors {st.worker_errors}" + _dropped_words(st),
                    style="dim",
                )
            ],
        ),
    }


def _requeue_item(st: QueueState, key: str, n: int) -> Text:
    """``default/web-7 ×4 3.2s``: failures so far and the limiter's last back-off."""
    t = Text.assemble(key, (f" ×{n}", "yellow"))
    delay = st.backoff.get(key)
    if delay is not None:
        t.append(f" {fmt_secs(delay)}", "dim")
    return t


def _dropped_words(st: QueueState) -> str:
    """`` · gave up 3 (max 5)``: keys forgotten at --max-retries 5."""
    return f" · gave up {st.dropped} (max {st.max_retries})" if st.dropped else ""


def _wants_left(st: QueueState, w: int, avail: int) -> list[int]:
    cap = avail * (w // 4 + 1)
    return [
        want_flow((len(k) for k in itertools.islice(st.queue, cap)), w, avail),
        want_flow((len(k) + 20 for k in itertools.islice(st.waiting, cap)), w, avail),
        want_flow((len(k) + 11 for k in itertools.islice(st.requeues, cap)), w, avail),
    ]


def _rows_wanted(st: QueueState, proc: list[Text], w: int, wide: bool, avail: int) -> int:
    """Rows the sections would fill in ``avail``: what is left is to spare."""
    left = sum(_wants_left(st, w, avail))
    return max(left, len(proc) + 2) if wide else left + len(proc) + 1


def staleness_lines(s, width: int) -> list[Text]:
    """The controller's read-your-own-writes check and what it did: stale-sync
    skips and catch-ups (on), or the duplicate creates a stale cache made."""
    on = s.consistency
    head = Text.assemble(("read-your-own-writes ", "bold"), ("ON" if on else "OFF", "bold green" if on else "bold red"))
    if s.skips:
        by = ", ".join(f"{r} {n}" for r, n in sorted(s.skips_by_resource.items()))
        head.append(" · stale-sync skips ")
        head.append(str(s.skips), "bold yellow")
        head.append(f" ({by})")
    if s.last_catch_up is not None:
        key, n, took = s.last_catch_up
        head.append(f" · caught up {s.catch_ups}×, last {key} after {n} skips ({took:.1f}s)")
    writes = Text.assemble(("writes", "bold"), f" {s.creates} creates · {s.deletes} deletes · {s.status_writes} status")
    if s.duplicates:
        writes.append(" · ")
        writes.append(f"{s.duplicates} duplicate creates (acted on a stale cache)", "bold red")
        if on and s.store_rvs and not any(s.store_rvs.values()):
            writes.append(' · the stores read "": before client-go 1.36 the check sees nothing', "yellow")
    elif on and s.skips:
        writes.append(" · no duplicate create", "green")
    if head.cell_len + 3 + writes.cell_len <= width:
        head.append(" · ")
        head.append_text(writes)
        return [head]
    return [head, writes]


@any_size(30, 3)
def render_queue(st: QueueState, now: float | None, width: int, height: int) -> Text:
    width = max(width, 30)
    height = max(height, 3)
    if now is None:
        now = st.last_time if st.last_time is not None else 0.0
    lines = [_header(st, now, width)]
    if st.mode == "watch" and not st.adds:
        lines += [Text(part, "bold yellow") for part in textwrap.wrap(WATCH_NOTE, width)]
    lines += _metric_lines(st, now, width, height)
    if st.stale.active:
        lines += staleness_lines(st.stale, width)
    wide = width >= 110
    lw = (width * 9) // 20 if wide else width
    body_l = lw - LABEL_W
    body_r = (width - lw - 2 if wide else width) - LABEL_W
    dwp = {k for k in st.processing if k in st.dirty}
    proc = _processing_lines(st, now, dwp)
    spare = height - len(lines)
    if spare < 8:
        pass  # no room for history
    elif spare - 3 >= _rows_wanted(st, proc, body_l, wide, spare) and not st.shows_causes():
        lines += history_lines(st, now, width)  # rows to spare: a sparkline a line, as wide as the slot
    elif (history := history_line(st, now, width)) is not None:
        lines.append(history)
    avail = height - len(lines)
    if avail > 1 and st.shows_causes():
        why = _why_lines(st, width, max(1, min(3 * len(st.stories.stories) + 1, avail // 2)))
        lines += why
        avail -= len(why)
    if avail <= 0:
        return join_lines(lines[:height], width)
    specs = _section_specs(st, now, proc, dwp)
    if wide:
        lw_rows = allocate(_wants_left(st, body_l, avail), avail)
        rw_rows = allocate([len(proc), 1, 1], avail)
        left = [
            ln
            for name, r in zip(("queued", "waiting", "requeues"), lw_rows, strict=True)
            if r
            for ln in build(specs[name], body_l, r)
        ]
        right = [
            ln
            for name, r in zip(("processing", "dirty", "totals"), rw_rows, strict=True)
            if r
            for ln in build(specs[name], body_r, r)
        ]
        lines.extend(side_by_side(left, right, lw))
    else:
        wq, ww, wr = _wants_left(st, body_l, avail)
        wants = [wq, len(proc), ww, wr, 1]
        for name, r in zip(
            ("queued", "processing", "waiting", "requeues", "dirty"), allocate(wants, avail), strict=True
        ):
            if r:
                lines.extend(build(specs[name], body_l, r))
    return join_lines(lines[:height], width)
