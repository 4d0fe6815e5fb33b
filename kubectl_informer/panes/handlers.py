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

from collections import Counter, deque

from kubectl_informer.cache.shared_processor import (
    LANE_SAMPLE_EVERY,
    SLOW_PENDING,
    is_slow,
)
from kubectl_informer.core.trace import TraceEvent
from kubectl_informer.core.trace_kinds import (
    HANDLER_ADD,
    HANDLER_DELETE,
    HANDLER_ERROR,
    HANDLER_LANE,
    HANDLER_REGISTER,
    HANDLER_SYNCED,
    HANDLER_UPDATE,
    INFORMER_START,
    RESYNC_TICK,
)
from kubectl_informer.panes.state import DispatchState

SPARK = "▁▂▃▄▅▆▇█"


BUCKET = 0.5  # seconds of history per sparkline cell


HISTORY = 240  # cells kept per lane (two minutes)


MAX_LANES = 64  # a replay naming more listeners keeps the first ones


class Lane:
    __slots__ = (
        "name",
        "requested",
        "effective",
        "reason",
        "adds",
        "updates",
        "deletes",
        "syncs",
        "synthetic",
        "pending",
        "peak",
        "handled",
        "call",
        "slow",
        "errors",
        "reported_at",
        "history",
        "synced_at",
    )

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
        self.slow = False  # as the last handler.lane said
        self.errors = 0
        self.reported_at: float | None = None  # last handler.lane
        self.synced_at: float | None = None  # its registration's HasSynced turned true (handler.synced)
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


_GIVEN = frozenset((HANDLER_ADD, HANDLER_UPDATE, HANDLER_DELETE))


class HandlersState(DispatchState):
    HANDLERS = {
        HANDLER_REGISTER: "_register",
        HANDLER_ADD: "_add",
        HANDLER_UPDATE: "_update",
        HANDLER_DELETE: "_delete",
        HANDLER_LANE: "_lane",
        HANDLER_ERROR: "_error",
        INFORMER_START: "_start",
        RESYNC_TICK: "_tick",
        HANDLER_SYNCED: "_synced",
    }

    def __init__(self) -> None:
        super().__init__()
        self.lanes: dict[str, Lane] = {}
        self.check_period: float | None = None
        self._rest = frozenset(self._handlers) - _GIVEN

    def lane(self, name) -> Lane:
        if not isinstance(name, str):
            raise ValueError(f"listener {name!r}")
        ln = self.lanes.get(name)
        if ln is None:
            if len(self.lanes) >= MAX_LANES:
                raise ValueError("too many listeners")
            ln = self.lanes[name] = Lane(name)
        return ln

    def summarise(self, stretch) -> None:
        """A stretch the UI could not take in event by event (feed.py): the
        calls each listener got counted at C speed (a buffer length they
        carry still noted in order); every other event fed in full."""
        self.feed_all(stretch.only(self._rest))
        calls = stretch.only(_GIVEN)
        if not calls:
            return
        buffered = [ev for ev in calls if ev[4].get("buffered") is not None]
        for ev in buffered:
            self.feed(ev)  # a lane's pending history: one at a time
        if buffered:
            calls = [ev for ev in calls if ev[4].get("buffered") is None]
        fields = [ev[4] for ev in calls]
        tally = Counter(
            zip(
                [f.get("listener") for f in fields],
                [ev[2] for ev in calls],
                [bool(f.get("is_sync")) for f in fields],
                [bool(f.get("synthetic")) for f in fields],
                strict=True,
            )
        )
        for (listener, kind, sync, synthetic), n in tally.items():
            try:
                ln = self.lane(listener)
            except ValueError:
                self.bad_events += n
                continue
            if kind == HANDLER_ADD:
                ln.adds += n
            elif kind == HANDLER_UPDATE:
                ln.updates += n
                ln.syncs += n if sync else 0
            else:
                ln.deletes += n
            ln.synthetic += n if synthetic else 0
        if calls:
            self.last_time = calls[-1][1]
        self.version += 1

    def _synced(self, ev: TraceEvent) -> None:
        self.lane(ev.fields.get("listener")).synced_at = ev.time

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
