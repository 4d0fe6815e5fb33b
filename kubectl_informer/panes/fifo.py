"""FIFO pane: what waits in the informer's queue, and what the queue did.

Built from ``fifo.queue``/``fifo.coalesce``/``fifo.dedup``/``fifo.skip``/
``fifo.pop`` (and ``informer.start`` for which FIFO runs). DeltaFIFO keeps
one slot per key: a delta for a key already queued *accumulates* in its slot
(the trace calls it a coalesce), and one Pop hands all of them to the
informer, which still calls the handler once per delta; nothing is dropped
but a repeated deletion. RealFIFO keeps every delta as its own entry, popped
one at a time. Collapsing a key into one unit of work is the workqueue's job
(the Queue pane), not the FIFO's. A key shows its pending deltas either way
(``default/web-1 [Updated Updated Deleted]``).
"""

from __future__ import annotations

from collections import OrderedDict, deque

from rich.text import Text

from kubectl_informer.core.trace import TraceEvent
from kubectl_informer.core.trace_kinds import (
    EXPERIMENT,
    FIFO_COALESCE,
    FIFO_DEDUP,
    FIFO_POP,
    FIFO_QUEUE,
    FIFO_SKIP,
    INFORMER_START,
)
from kubectl_informer.panes.state import PaneState

# The key a FIFO entry has when it is not one object (an atomic ReplacedAll /
# SyncAll batch, or a Bookmark, in client-go 1.36's RealFIFO).
BATCH_KEY = "(batch)"


MAX_PENDING_SHOWN = 32


# What the running FIFO does with a second delta for a key, in one line
# that fits 80 columns.
FIFO_RULES = {
    "DeltaFIFO": "one slot per key: deltas accumulate, pop together, handler gets each",
    "RealFIFO": "every delta its own entry, popped one by one in arrival order",
    "RealFIFO (atomic)": "every delta its own entry; relist/resync: one ReplacedAll/SyncAll",
}


QUEUE_NOTE = "the workqueue, not the FIFO, collapses a key (Queue pane)"


def delta_runs(types) -> list[tuple[str, int]]:
    """Runs of one delta type: ``[("Updated", 7)]`` for seven Updated in a row."""
    runs: list[list] = []
    for t in types:
        if runs and runs[-1][0] == t:
            runs[-1][1] += 1
        else:
            runs.append([t, 1])
    return [(t, n) for t, n in runs]


def slot_words(types) -> str:
    """A slot's deltas, a run as a count: ``Updated ×7``, ``Updated ×2 Deleted``."""
    return " ".join(t if n == 1 else f"{t} ×{n}" for t, n in delta_runs(types))


class FifoState(PaneState):
    """Keys queued now, with their pending delta types; counters; recent events."""

    KINDS = frozenset((FIFO_QUEUE, FIFO_COALESCE, FIFO_DEDUP, FIFO_SKIP, FIFO_POP, EXPERIMENT, INFORMER_START))

    def __init__(self, max_keys: int = 100_000, recent: int = 200) -> None:
        super().__init__()
        self.max_keys = max_keys
        # Insertion order is queue order: the oldest key pops first.
        self.queued: OrderedDict[str, list[str]] = OrderedDict()
        # The labels a key's last queued delta carried (for /label:), the
        # most recent max_keys keys.
        self.labels: OrderedDict[str, dict | None] = OrderedDict()
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
        if kind in (EXPERIMENT, INFORMER_START):
            self._feed_run(ev)
            return
        key = ev.key if ev.key is not None else BATCH_KEY
        f = ev.fields
        if kind in (FIFO_QUEUE, FIFO_COALESCE):
            typ = str(f.get("type", "?"))
            if "labels" in f:
                self._keep_labels(key, f["labels"])
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
                self.recent.append((ev.time, "append", key, f"+{typ} → slot [{slot_words(pend)}]"))
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

    def _keep_labels(self, key: str, labels: dict | None) -> None:
        known = self.labels
        if key in known:
            known.move_to_end(key)
        elif len(known) >= self.max_keys:
            known.popitem(last=False)
        known[key] = labels

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

    def summarise(self, stretch) -> None:
        """A stretch the UI could not take in event by event (feed.py): the
        slots and counters followed exactly in one tight loop, without the
        recent appends' rows (dedups and skips, rare, are fed in full)."""
        if self.t0 is None and stretch.events:
            self.t0 = stretch.events[0][1]
        events = stretch.only(self.KINDS)
        queued, feed, kinds = self.queued, self.feed, self.KINDS
        queues = coalesces = pops = waiting = 0
        depth = self.depth
        for ev in events:
            kind = ev[2]
            if kind in (FIFO_QUEUE, FIFO_COALESCE):
                f = ev[4]
                key = ev[3] if ev[3] is not None else BATCH_KEY
                if "labels" in f:
                    self._keep_labels(key, f["labels"])
                pend = queued.get(key)
                if pend is None:
                    if len(queued) >= self.max_keys:
                        queued.popitem(last=False)
                    pend = queued[key] = []
                pend.append(str(f.get("type", "?")))
                if len(pend) > MAX_PENDING_SHOWN:
                    del pend[0]
                waiting += 1
                if kind == FIFO_QUEUE:
                    queues += 1
                else:
                    coalesces += 1
                if "depth" in f:
                    depth = f["depth"]
            elif kind == FIFO_POP:
                key = ev[3] if ev[3] is not None else BATCH_KEY
                types = ev[4].get("types") or []
                pops += 1
                self.deltas_waiting = max(self.deltas_waiting + waiting - max(len(types), 1), 0)
                waiting = 0
                pend = queued.get(key)
                if pend is not None:
                    del pend[: len(types) if types else len(pend)]
                    if not pend:
                        del queued[key]
                depth = max(depth - 1, len(queued)) if depth else len(queued)
            elif kind in kinds:
                self.depth, self.deltas_waiting = depth, self.deltas_waiting + waiting
                waiting = 0
                feed(ev)
                depth = self.depth
        self.depth, self.deltas_waiting = depth, self.deltas_waiting + waiting
        self.queues += queues
        self.coalesces += coalesces
        self.pops += pops
        self.version += 1

    def feed_all(self, events) -> None:
        kinds = self.KINDS
        feed = self.feed
        if self.t0 is None and events:
            self.t0 = events[0].time
        for ev in events:
            if ev.kind in kinds:
                feed(ev)
