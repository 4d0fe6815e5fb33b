"""What every pane is made of: a state fed by TraceEvents, and a widget.

A pane never calls the engine. The app drains the tracer at a bounded frame
rate, ``feed``s each event to every pane state (cheap: counters, ring
buffers), then asks the panes whose state changed to ``refresh_view``.
A pane module holds one ``PaneState`` subclass and one ``Pane`` subclass, so
a pane can be tested alone by feeding its state a recorded trace.
"""

from __future__ import annotations

from collections import Counter
from itertools import accumulate, compress
from operator import itemgetter

from kubectl_informer.core.run_info import RunInfo  # noqa: F401 - panes and tests name it from here
from kubectl_informer.core.trace import TraceEvent

_seq = itemgetter(0)
_kind = itemgetter(2)


class Stretch:
    """Events the feed loop takes in as one summary (the UI behind), with
    their kinds counted once at C speed, so each state picks the kinds it
    reads without a Python loop over the rest (``only``)."""

    __slots__ = ("events", "kinds", "counts", "_only")

    def __init__(self, events: list[TraceEvent]) -> None:
        self.events = events
        self.kinds = list(map(_kind, events))
        self.counts = Counter(self.kinds)
        self._only: dict[frozenset, list[TraceEvent]] = {}

    def __len__(self) -> int:
        return len(self.events)

    def has(self, kinds) -> bool:
        counts = self.counts
        return any(counts[k] for k in kinds) if len(kinds) < len(counts) else any(k in kinds for k in counts)

    def only(self, kinds: frozenset) -> list[TraceEvent]:
        """The events of ``kinds``, in order (computed once per set of the
        kinds present: states reading different kinds often share it)."""
        present = frozenset([k for k in self.counts if k in kinds])
        got = self._only.get(present)
        if got is None:
            got = self._only[present] = (
                list(compress(self.events, map(present.__contains__, self.kinds))) if present else []
            )
        return got


def thinned(events, handled, latest) -> list:
    """What a summary (feed.py) feeds a state whose ``latest`` kinds only
    set a figure (the last one wins: an RV, a depth): the events of the
    ``handled`` kinds in order, but of a run of ``latest`` ones between two
    others only the last of each kind (and informer)."""
    out: list = []
    run: dict = {}
    for ev in events:
        kind = ev[2]
        if kind in latest:
            run[kind, ev[4].get("informer")] = ev
        elif kind in handled:
            if run:
                out += sorted(run.values(), key=_seq)
                run.clear()
            out.append(ev)
    if run:
        out += sorted(run.values(), key=_seq)
    return out


def floored_walk(start: int, steps) -> int:
    """Where a count starting at ``start`` ends after ``steps`` (+1 or -1
    each) when a step never takes it below 0: as one step at a time does,
    at C speed (the lowest prefix sum says how far the floor lifted it)."""
    if not steps:
        return start
    lowest = min(accumulate(steps))
    return start + sum(steps) - min(0, start + lowest)


class PaneState:
    """Fed every event in order; bumps ``version`` when it changed.

    A state may also have ``summarise(events)``: what the feed loop calls
    for a stretch the UI cannot take in event by event (it is behind). It
    must leave every figure the pane shows (counts, depth, RV, relists,
    cached objects) as ``feed_all`` would, and may keep no row for the
    stretch; a state without one is fed the stretch in full.
    """

    def __init__(self) -> None:
        self.version = 0

    def feed(self, ev: TraceEvent) -> None:  # pragma: no cover - interface
        raise NotImplementedError

    def feed_all(self, events) -> None:
        for ev in events:
            self.feed(ev)


class DispatchState(PaneState):
    """A state fed a few kinds, one method each: ``HANDLERS`` maps a
    ``trace_kinds`` kind to a method name. An event a method cannot use (a
    recording outside the contract) is counted in ``bad_events`` and skipped,
    never raised into the UI; a method returning False changed nothing."""

    HANDLERS: dict[str, str] = {}

    def __init__(self) -> None:
        super().__init__()
        self.bad_events = 0
        self.last_time: float | None = None
        self._handlers = {kind: getattr(self, name) for kind, name in self.HANDLERS.items()}

    def handle(self, handler, ev: TraceEvent):
        return handler(ev)

    def feed_all(self, events) -> None:
        # The hot path: ``feed``'s work in one loop, no call per event but
        # the handler's.
        get = self._handlers.get
        handle = self.handle
        for ev in events:
            h = get(ev[2])
            if h is None:
                continue
            try:
                if handle(h, ev) is False:
                    continue
            except (TypeError, ValueError, AttributeError, OverflowError):
                self.bad_events += 1
                continue
            self.last_time = ev[1]
            self.version += 1

    def feed(self, ev: TraceEvent) -> None:
        h = self._handlers.get(ev.kind)
        if h is None:
            return
        try:
            if self.handle(h, ev) is False:
                return
        except (TypeError, ValueError, AttributeError, OverflowError):
            self.bad_events += 1
            return
        self.last_time = ev.time
        self.version += 1
