"""The Resync pane: check-period ticks, listeners' periods, Syncs per tick.

A shared informer has one resync *check period*: the reflector's timer fires
that often and asks the informer whether any listener is due. Each listener
(event handler) asked for its own period, but client-go adjusts it:

- a period below 1 s becomes 1 s;
- a period below the check period lowers the check period when the handler
  is added before the informer starts, and is raised to the check period when
  added after (the check period can no longer change);
- with check period 0 (the informer has no resync), every period becomes 0.

And a listener is only resynced on a tick, at the first tick at or after its
due time, so its real cadence is its period rounded up to a multiple of the
check period. This pane shows all of that, plus how many ``Sync`` deltas each
tick queued and how many keys it skipped because they already had deltas
pending (client-go's resync only queues keys with nothing queued).
"""

from __future__ import annotations

import math
from collections import deque

from kubectl_informer.core.durations import format_short as fmt_secs
from kubectl_informer.core.trace import TraceEvent
from kubectl_informer.core.trace_kinds import (
    FIFO_COALESCE,
    FIFO_QUEUE,
    FIFO_SKIP,
    HANDLER_REGISTER,
    HANDLER_UPDATE,
    INFORMER_START,
    RESYNC_TICK,
)
from kubectl_informer.panes.state import DispatchState

MAX_TICKS = 256


MIN_PERIOD = 1.0  # client-go's minimumResyncPeriod


SYNC_TYPES = frozenset(("Sync", "SyncAll"))


# Kinds this pane reads only when they are a resync's (a Sync delta queued or
# skipped, a Sync update handed to a listener).
_RESYNC_ONLY = frozenset((FIFO_QUEUE, FIFO_COALESCE, FIFO_SKIP, HANDLER_UPDATE))


def _seconds(v) -> float:
    """A period from the trace: finite, not negative and not absurdly small
    (ticks are counted by division), else the event is bad."""
    x = float(v)
    if not math.isfinite(x) or x < 0 or 0 < x < 1e-6:
        raise ValueError(f"bad period {v!r}")
    return x


def cadence(effective: float, check: float | None) -> float:
    """How often a listener with ``effective`` period really resyncs when
    ticks come every ``check`` seconds: the period rounded up to ticks."""
    if not effective or not check:
        return effective or 0.0
    return math.ceil(effective / check - 1e-9) * check


class Listener:
    __slots__ = (
        "name",
        "requested",
        "effective",
        "check_period",
        "reason",
        "registered_at",
        "after_start",
        "prev_check",
        "next_due",
        "last_resync",
        "resyncs",
        "syncs",
    )

    def __init__(
        self,
        name: str,
        requested: float,
        effective: float,
        check_period: float | None,
        reason: str | None,
        registered_at: float,
        after_start: bool,
        prev_check: float | None,
    ) -> None:
        self.name = name
        self.requested = requested
        self.effective = effective
        self.check_period = check_period
        self.reason = reason
        self.registered_at = registered_at
        self.after_start = after_start
        self.prev_check = prev_check
        # As client-go's processorListener: due one period after it was added,
        # then one period after each tick that resynced it.
        self.next_due = registered_at + effective if effective > 0 else None
        self.last_resync: float | None = None
        self.resyncs = 0  # ticks that found it due
        self.syncs = 0  # Sync updates delivered to its handler

    def why(self, check: float | None) -> list[str]:
        """Why the effective period differs from the asked one, in client-go's terms."""
        r, e = self.requested, self.effective
        out: list[str] = []
        if self.reason:
            out.append(self.reason)
        elif r and not e:
            out.append("the informer has no resync (check period 0), so no resync")
        elif r and e != r:
            if r < MIN_PERIOD:
                out.append(f"below client-go's {fmt_secs(MIN_PERIOD)} minimum")
            c = self.check_period
            if c and e == c and max(r, MIN_PERIOD) < c:
                when = "after start" if self.after_start else "with a larger check period"
                out.append(f"asked {fmt_secs(r)} {when}; below the {fmt_secs(c)} check period, so raised to it")
        elif r and self.prev_check and self.check_period == r and self.prev_check > r and not self.after_start:
            out.append(f"added before start: lowered the check period {fmt_secs(self.prev_check)} → {fmt_secs(r)}")
        cad = cadence(e, check)
        if e and check and abs(cad - e) > 1e-6:
            out.append(
                f"ticks come every {fmt_secs(check)}; resynced on the first tick once due: every {fmt_secs(cad)}"
            )
        return out


class Tick:
    __slots__ = ("time", "due", "queued", "skipped")

    def __init__(self, time: float, due: tuple[str, ...]) -> None:
        self.time = time
        self.due = due
        self.queued = 0  # Sync deltas queued by this tick's resync
        self.skipped = 0  # keys skipped: deltas already pending


class ResyncState(DispatchState):
    HANDLERS = {
        INFORMER_START: "_informer_start",
        HANDLER_REGISTER: "_register",
        RESYNC_TICK: "_tick",
        FIFO_QUEUE: "_fifo_queue",
        FIFO_COALESCE: "_fifo_queue",
        FIFO_SKIP: "_fifo_skip",
        HANDLER_UPDATE: "_handler_update",
    }

    def __init__(self) -> None:
        super().__init__()
        self.check_period: float | None = None
        self.started_at: float | None = None
        self.listeners: dict[str, Listener] = {}
        self.ticks: deque[Tick] = deque(maxlen=MAX_TICKS)
        self.tick_count = 0
        self.syncs_queued = 0
        self.syncs_skipped = 0
        self._kinds = frozenset(self._handlers)
        self._rare = self._kinds - _RESYNC_ONLY

    def feed_all(self, events) -> None:
        # The hot path: most FIFO and handler events of a flood are not a
        # resync's; skip them before the dispatch (their handlers would
        # return False: nothing changed).
        handled = self._handlers
        feed = self.feed
        for ev in events:
            kind = ev[2]
            if kind not in handled:
                continue
            if kind in _RESYNC_ONLY:
                f = ev[4]
                if f.get("type") not in SYNC_TYPES and f.get("reason") != "resync_pending" and not f.get("is_sync"):
                    continue
            feed(ev)

    def summarise(self, stretch) -> None:
        """A stretch the UI could not take in event by event (feed.py): with
        no tick, start or registration in it, only its Sync deltas, resync
        skips and Sync handler calls can change a figure, picked first."""
        if stretch.has(self._rare):
            self.feed_all(stretch.only(self._kinds))
        else:
            self.feed_all(
                [
                    ev
                    for ev in stretch.only(_RESYNC_ONLY)
                    if ev[4].get("type") in SYNC_TYPES
                    or ev[4].get("reason") == "resync_pending"
                    or ev[4].get("is_sync")
                ]
            )

    # -- handlers -------------------------------------------------------
    def _informer_start(self, ev: TraceEvent) -> None:
        self.started_at = ev.time
        cp = ev.fields.get("resync_check_period")
        if cp is not None:
            self.check_period = _seconds(cp)

    def _register(self, ev: TraceEvent) -> None:
        f = ev.fields
        name = str(f.get("listener") or f"handler-{len(self.listeners) + 1}")
        requested = _seconds(f.get("requested") or 0.0)
        effective = _seconds(f.get("effective") or 0.0)
        cp = f.get("check_period")
        cp = None if cp is None else _seconds(cp)
        prev = self.check_period
        after = self.started_at is not None and ev.time >= self.started_at
        reason = f.get("reason")
        reason = str(reason) if reason else None
        self.listeners[name] = Listener(name, requested, effective, cp, reason, ev.time, after, prev)
        if cp is not None:
            self.check_period = cp

    def _tick(self, ev: TraceEvent) -> None:
        f = ev.fields
        due = tuple(str(x) for x in (f.get("due") or ()))
        cp = f.get("check_period")
        if cp is not None:
            self.check_period = _seconds(cp)
        self.ticks.append(Tick(ev.time, due))
        self.tick_count += 1
        for name in due:
            ls = self.listeners.get(name)
            if ls is not None:
                ls.resyncs += 1
                ls.last_resync = ev.time
                if ls.effective > 0:
                    ls.next_due = ev.time + ls.effective

    def _fifo_queue(self, ev: TraceEvent):
        if ev.fields.get("type") not in SYNC_TYPES or not self.ticks:
            return False
        self.ticks[-1].queued += 1
        self.syncs_queued += 1

    def _fifo_skip(self, ev: TraceEvent):
        if ev.fields.get("reason") != "resync_pending" or not self.ticks:
            return False
        self.ticks[-1].skipped += 1
        self.syncs_skipped += 1

    def _handler_update(self, ev: TraceEvent):
        if not ev.fields.get("is_sync"):
            return False
        ls = self.listeners.get(str(ev.fields.get("listener")))
        if ls is None:
            return False
        ls.syncs += 1

    # -- views ----------------------------------------------------------
    def next_tick(self, now: float) -> float | None:
        """When the next check-period tick is expected (ticks follow the last
        one every check period)."""
        cp = self.check_period
        if not cp:
            return None
        base = self.ticks[-1].time if self.ticks else self.started_at
        if base is None:
            return None
        n = max(1, math.ceil((now - base) / cp - 1e-9))
        return base + n * cp

    def resync_at(self, ls: Listener, now: float) -> float | None:
        """The tick at which ``ls`` will next be resynced: the first at or
        after its due time."""
        if ls.next_due is None or not self.check_period:
            return None
        nt = self.next_tick(now)
        if nt is None:
            return ls.next_due
        cp = self.check_period
        k = max(0, math.ceil((ls.next_due - nt) / cp - 1e-9))
        return nt + k * cp
