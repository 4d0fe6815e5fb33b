"""FIFO pane: what waits in the informer's queue, and what the queue did.

Built from ``fifo.queue``/``fifo.coalesce``/``fifo.dedup``/``fifo.skip``/
``fifo.pop``. DeltaFIFO keeps one slot per key and appends deltas to a key
already queued (a coalesce), so a key shows its pending deltas
(``default/web-1 [Updated Updated Deleted]``); RealFIFO queues every delta on
its own, and a key queued twice shows both.
"""

from __future__ import annotations

from collections import OrderedDict, deque

from rich.text import Text

from ..trace import TraceEvent
from ..trace_kinds import EXPERIMENT, FIFO_COALESCE, FIFO_DEDUP, FIFO_POP, FIFO_QUEUE, FIFO_SKIP, INFORMER_START
from .cursor import CURSOR_BINDINGS, HOME_BINDING, KeyCursor
from .deltas import delta_style
from .pane import PaneState
from .textpane import TextPane

# The key a FIFO entry has when it is not one object (an atomic ReplacedAll /
# SyncAll batch, or a Bookmark, in client-go 1.36's RealFIFO).
BATCH_KEY = "(batch)"
MAX_PENDING_SHOWN = 32


class FifoState(PaneState):
    """Keys queued now, with their pending delta types; counters; recent events."""

    KINDS = frozenset((FIFO_QUEUE, FIFO_COALESCE, FIFO_DEDUP, FIFO_SKIP, FIFO_POP, EXPERIMENT, INFORMER_START))

    def __init__(self, max_keys: int = 100_000, recent: int = 200) -> None:
        super().__init__()
        self.max_keys = max_keys
        # Insertion order is queue order: the oldest key pops first.
        self.queued: OrderedDict[str, list[str]] = OrderedDict()
        self.depth = 0
        self.queues = self.coalesces = self.dedups = self.skips = self.pops = 0
        # (time, kind, key, detail) of coalesces, dedups and skips, newest last.
        self.recent: deque[tuple[float, str, str, str]] = deque(maxlen=recent)
        self.t0: float | None = None
        # The pause-fifo experiment: while paused the pane says how the
        # backlog is held (slots, keys, deltas), which is what differs
        # between DeltaFIFO and RealFIFO.
        self.fifo_label = ""
        self.consumer_paused = False
        self.deltas_waiting = 0

    def feed(self, ev: TraceEvent) -> None:
        if self.t0 is None:
            self.t0 = ev.time
        kind = ev.kind
        if kind not in self.KINDS:
            return
        if kind == EXPERIMENT or kind == INFORMER_START:
            self._feed_run(ev)
            return
        key = ev.key if ev.key is not None else BATCH_KEY
        f = ev.fields
        if kind == FIFO_QUEUE or kind == FIFO_COALESCE:
            typ = str(f.get("type", "?"))
            pend = self.queued.get(key)
            if pend is None:
                if len(self.queued) >= self.max_keys:
                    self.queued.popitem(last=False)
                pend = self.queued[key] = []
            pend.append(typ)
            if len(pend) > MAX_PENDING_SHOWN:
                del pend[0]
            self.deltas_waiting += 1
            if kind == FIFO_QUEUE:
                self.queues += 1
            else:
                self.coalesces += 1
                self.recent.append((ev.time, "coalesce", key, f"+{typ} → [{' '.join(pend)}]"))
            if "depth" in f:
                self.depth = f["depth"]
        elif kind == FIFO_POP:
            self.pops += 1
            types = f.get("types") or []
            self.deltas_waiting = max(self.deltas_waiting - max(len(types), 1), 0)
            pend = self.queued.get(key)
            if pend is not None:
                # DeltaFIFO pops all of a key's deltas; RealFIFO one entry.
                n = len(types) if types else len(pend)
                del pend[:n]
                if not pend:
                    del self.queued[key]
            self.depth = max(self.depth - 1, len(self.queued)) if self.depth else len(self.queued)
        elif kind == FIFO_DEDUP:
            self.dedups += 1
            # The second deletion replaced the first in place (no coalesce
            # was reported for it): the key's pending types are unchanged.
            self.recent.append((ev.time, "dedup", key, f"dropped {f.get('dropped', '?')} kept {f.get('kept', '?')}"))
        else:  # fifo.skip
            self.skips += 1
            self.recent.append((ev.time, "skip", key, f"{f.get('type', '?')}: {f.get('reason', '?')}"))
        self.version += 1

    def _feed_run(self, ev: TraceEvent) -> None:
        f = ev.fields
        if ev.kind == INFORMER_START:
            self.fifo_label = str(f.get("fifo") or "")
            self.consumer_paused = False
        elif f.get("name") in ("pause-fifo", "resume-fifo"):
            self.consumer_paused = f["name"] == "pause-fifo"
        else:
            return
        self.version += 1

    def backlog_line(self) -> Text:
        """While the consumer is paused: how the FIFO holds what waits."""
        keys = len(self.queued)
        t = Text(no_wrap=True)
        t.append("⏸ consumer paused", "bold reverse yellow")
        t.append(f" {self.depth} slots · {keys} keys · {self.deltas_waiting} deltas ", "bold")
        if self.fifo_label.startswith("RealFIFO"):
            t.append("RealFIFO: a slot per delta, popped in order", "yellow")
        else:
            t.append("DeltaFIFO: one slot per key; its deltas pop together, the handler gets each", "yellow")
        return t

    def feed_all(self, events) -> None:
        kinds = self.KINDS
        feed = self.feed
        if self.t0 is None and events:
            self.t0 = events[0].time
        for ev in events:
            if ev.kind in kinds:
                feed(ev)


_RECENT_STYLE = {"coalesce": "yellow", "dedup": "magenta", "skip": "dim cyan"}


class FifoPane(KeyCursor, TextPane):
    """Queued keys on top (oldest first: next to pop), recent queue events below."""

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

    def draw_lines(self, width: int, height: int) -> list[Text]:
        st = self.state
        f = self.filter_text
        head = Text(no_wrap=True)
        head.append(f"depth {len(st.queued)} ", "bold")
        head.append(f"queued {st.queues}  ", "green")
        head.append(f"coalesces {st.coalesces}  ", "yellow")
        head.append(f"dedups {st.dedups}  ", "magenta")
        head.append(f"skips {st.skips}  ", "cyan")
        head.append(f"pops {st.pops}", "blue")
        if f:
            head.append(f"  filter /{f}", "reverse")
        # (line, key): a line with a key is selectable.
        rows: list[tuple[Text, str | None]] = [(head, None)]
        if st.consumer_paused:
            rows.append((st.backlog_line(), None))
        body = height - len(rows)
        # Queued keys get the upper part, recent events at least the rest.
        q_space = max(body - min(len(st.recent), body // 2) - 1, 1) if st.recent else body
        queued = [(k, p) for k, p in st.queued.items() if not f or f in k] if f else None
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
            line.append(" [")
            for j, t in enumerate(pend):
                if j:
                    line.append(" ")
                line.append(t, delta_style(t))
            line.append("]")
            rows.append((line, key))
        if n_match > limit:
            rows.append((Text(f"… {n_match - limit} more queued", "dim"), None))
        if st.recent and height - len(rows) >= 2:
            rows.append((Text("recent coalesces, dedups, skips (newest first)", "bold dim"), None))
            t0 = st.t0 or 0.0
            for t, kind, key, detail in reversed(st.recent):
                if len(rows) >= height:
                    break
                if f and f not in key:
                    continue
                line = Text(no_wrap=True)
                line.append(f"{t - t0:7.2f} ", "dim")
                line.append(f"{kind:<8} ", _RECENT_STYLE.get(kind, ""))
                line.append(f"{key} ", "bold")
                line.append(detail)
                rows.append((line, key))
        selectable = [i for i, (_, k) in enumerate(rows) if k is not None]
        self.cursor_keys = [rows[i][1] for i in selectable]  # type: ignore[misc]
        if self.cursor_keys:
            self.clamp_cursor()
            if self.has_focus:
                line = rows[selectable[self.cursor]][0]
                line.truncate(width, overflow="ellipsis", pad=True)
                line.stylize("reverse")
        return [line for line, _ in rows]
