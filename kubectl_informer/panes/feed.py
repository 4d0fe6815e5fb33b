"""The feed loop: the trace, drained in batches, into every pane's state.

The engine's threads emit into a bounded ``TraceBuffer``; whoever shows the
panes (the Textual app, the attach screen, a test, a headless summary) owns
one ``FeedLoop`` and calls ``drain`` once a frame. The loop moves events in
chunks of ``CHUNK`` to the header's and every pane's state (each through its
``feeder``: only the kinds it reads), counts what it absorbed, and starts
every state over at a ``run.restart`` event: what follows belongs to the new
run. Nothing here draws; ``on_reset`` tells the owner to rebind its views.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from operator import itemgetter

from kubectl_informer.core.run_info import RunInfo
from kubectl_informer.core.trace import TraceBuffer, TraceEvent
from kubectl_informer.core.trace_kinds import INFORMER_SYNCED, LIST_START, RUN_RESTART
from kubectl_informer.panes.collector import IdleCollector
from kubectl_informer.panes.header import FeedStats, HeaderState
from kubectl_informer.panes.pressure import Pressure
from kubectl_informer.panes.rv import RVState
from kubectl_informer.panes.state import PaneState, Stretch

_kind = itemgetter(2)

# Drain in chunks small enough that a frame's time budget is honoured.
CHUNK = 256


# Events still waiting when a frame's budget runs out that make the UI
# "behind" (pressure.py): more than a few chunks, not a frame's stragglers.
BEHIND_BACKLOG = 4 * CHUNK


# The newest waiting events a frame reads while behind, for the informer's sync.
LOOK_AHEAD = 1024


# More waiting at a frame's drain than the rest of its budget feeds event
# by event (at the cost per event measured so far), and more than this: all
# but the newest ``SUMMARY_TAIL`` are taken in as summaries (each state's
# ``summarise``: its figures, no rows), then a chunk in full, so the panes
# show recent rows and the backlog never grows without bound however fast
# the engine emits.
SUMMARISE_OVER = 4 * LOOK_AHEAD
SUMMARY_TAIL = CHUNK
SUMMARY_BLOCK = 2048  # a summary's events between two looks at the budget and the keys
# Seconds per event fed in full, before any was measured (the bench's mix).
FULL_COST = 10e-6


def feeder(state: PaneState):
    """How to feed ``state`` a batch of events, cheaply.

    A state that overrides ``feed_all`` filters its own kinds in one loop.
    One that keeps PaneState's per-event ``feed_all`` gets only the kinds it
    handles (``KINDS``, or the keys of its ``_handlers`` dispatch table), so
    the loop does not call it for the many events it would ignore; the
    events it gets, and their order, are the same.
    """
    if type(state).feed_all is not PaneState.feed_all:
        return state.feed_all
    kinds = getattr(state, "KINDS", None)
    handlers = getattr(state, "_handlers", None)
    if kinds is None and isinstance(handlers, dict):
        kinds = frozenset(handlers)
    if not kinds:
        return state.feed_all
    kinds = frozenset(kinds)
    feed = state.feed

    def feed_kinds(batch) -> None:
        for ev in batch:
            if ev.kind in kinds:
                feed(ev)

    return feed_kinds


def _kinds_read(state: PaneState) -> frozenset | None:
    kinds = getattr(state, "KINDS", None)
    handlers = getattr(state, "_handlers", None)
    if kinds is None and isinstance(handlers, dict):
        kinds = handlers
    return frozenset(kinds) if kinds else None


def summariser(state: PaneState):
    """How to take a ``Stretch`` into ``state`` as a summary: its
    ``summarise`` (the figures exact, no row per event), else in full: the
    kinds it reads (``KINDS`` or its dispatch table), picked at C speed."""
    summarise = getattr(state, "summarise", None)
    if summarise is not None:
        return summarise
    feed_all, kinds = state.feed_all, _kinds_read(state)
    if kinds is None:
        return lambda stretch: feed_all(stretch.events)
    return lambda stretch: feed_all(stretch.only(kinds))


def _tell_run(states: Iterable[PaneState], info: RunInfo) -> None:
    """States that read the run (``run_info``) are told it once, as made."""
    for st in states:
        tell = getattr(st, "run_info", None)
        if tell is not None:
            tell(info)


class FeedLoop:
    """``FeedLoop(buffer, {"deltas": DeltasState, ...}, info=RunInfo(...))``.

    ``header`` and ``states`` (name -> state, in the order given) are the
    states fed now; a reset replaces them (``on_reset(new_run)`` is called
    after). ``clock``, if given (tests: a FakeClock), is "now" and paces the
    rate, so what is drawn is deterministic. Feed statistics: ``absorbed``
    events, ``frames`` and ``skipped_frames`` (counted by the owner's
    timer), ``per_s`` (absorbed per second, over the last second or more),
    ``restarts`` (``run.restart`` events met).
    """

    def __init__(
        self,
        buffer: TraceBuffer,
        states: Mapping[str, Callable[[], PaneState]],
        *,
        info: RunInfo | None = None,
        clock=None,
        max_events: int = 200_000,
    ) -> None:
        self.buffer = buffer
        self._makers = dict(states)
        self.clock = clock
        self.max_events = max_events
        self.on_reset: Callable[[bool], None] | None = None
        self.absorbed = 0
        self.frames = 0
        self.skipped_frames = 0
        self.restarts = 0
        self.per_s = 0.0
        self.last_trace_time: float | None = None
        self.last_trace_mono = time.monotonic()
        self.on_select: Callable[[], None] | None = None
        self._rate_mark = (self.mono(), 0)
        self.pressure = Pressure()
        self.full_cost = FULL_COST  # seconds per event fed in full (a moving average)
        self.collector = IdleCollector()  # full collections once caught up (collector.py)
        self._fresh_states(info if info is not None else RunInfo())

    def _fresh_states(self, info: RunInfo) -> None:
        self.info = info
        self.informers: tuple[str, ...] = tuple(info.informers) if len(info.informers) > 1 else ()
        if self.informers:
            self._fresh_sets(info)
            return
        self.header = HeaderState()
        self.header.info = info
        self.states: dict[str, PaneState] = {name: make() for name, make in self._makers.items()}
        self.sets: dict[str, dict[str, PaneState]] = {}
        self.home = self.selected = info.resource
        _tell_run(self.states.values(), info)
        wired = self._wired(self.header, self.states.values(), self.states.get("rv"))
        self._feeders = [feeder(st) for st in wired]
        self._summarisers = [summariser(st) for st in wired]
        self._feed_all = self._feed_every

    def _wired(self, header: HeaderState, states, rv) -> list[PaneState]:
        """``header`` and ``states`` in the order they are fed, each state
        told the feed's pressure. One source for the reflector's RV and
        relists: the header reads the RV pane's state, fed before it."""
        states = self._pressed(states)
        if isinstance(rv, RVState):
            header.share_reflector(rv)
            return [*states, header]
        return [header, *states]

    def _pressed(self, states) -> list[PaneState]:
        """``states``, each that rows can be summarised in told the feed's pressure."""
        states = list(states)
        for st in states:
            if hasattr(st, "pressure"):
                st.pressure = self.pressure
        return states

    def _fresh_sets(self, info: RunInfo) -> None:
        """Several informers: the states that follow one informer
        (``FOLLOWS_INFORMER``, the header too) once per informer, each fed
        its informer's events; the others (the Queue, the Informers pane)
        once, fed every event. Selecting an informer swaps which set is
        ``states``, at no cost, with its whole history."""
        shared = {name: make() for name, make in self._makers.items() if not getattr(make, "FOLLOWS_INFORMER", True)}
        _tell_run(shared.values(), info)
        self.home = info.queue_resource if info.queue_resource in self.informers else self.informers[0]
        self.sets, self.headers, self._set_feeders, self._set_summarisers = {}, {}, {}, {}
        for name in self.informers:
            header = self.headers[name] = HeaderState()
            header.info = replace(info, resource=name)
            states = {n: shared[n] if n in shared else make() for n, make in self._makers.items()}
            own = [st for n, st in states.items() if n not in shared]
            _tell_run(own, header.info)
            self.sets[name] = states
            wired = self._wired(header, own, states.get("rv"))
            self._set_feeders[name] = [feeder(st) for st in wired]
            self._set_summarisers[name] = [summariser(st) for st in wired]
        shared_states = self._pressed(shared.values())
        self._feeders = [feeder(st) for st in shared_states]
        self._summarisers = [summariser(st) for st in shared_states]
        self._feed_all = self._feed_routed
        self.selected = ""
        self.select(self.home, tell=False)

    def select(self, informer: str, *, tell: bool = True) -> bool:
        """Show ``informer``'s states (a run with several); False if the
        run has no such informer. ``on_select`` tells the owner to rebind."""
        if informer not in self.sets:
            return False
        if informer != self.selected:
            self.selected = informer
            self.states = self.sets[informer]
            self.header = self.headers[informer]
            if tell and self.on_select is not None:
                self.on_select()
        return True

    @property
    def home_states(self) -> dict[str, PaneState]:
        """The states fed the events no informer emits (the workqueue's, the
        run's): the queue resource's informer's set, else ``states``."""
        return self.sets.get(self.home, self.states)

    def reset(self, info: RunInfo | None = None, *, new_run: bool = False) -> None:
        """Every state starts over; the header keeps the run's info (or
        takes ``info``). ``new_run``: a restart, not a replay's seek back."""
        selected = self.selected
        self._fresh_states(self.info if info is None else info)
        self.select(selected, tell=False)
        if self.on_reset is not None:
            self.on_reset(new_run)

    # -- feeding -------------------------------------------------------------------
    def feed(self, batch: list[TraceEvent], summarise: bool = False) -> int:
        """Feed every state ``batch`` (``summarise``: as a summary, each
        state's figures without its rows); at a ``run.restart`` event, fresh
        states first (the event itself goes to them: the header reads the
        new run from it). Returns how many restarts the batch held."""
        kinds = list(map(_kind, batch))
        marks = [i for i, k in enumerate(kinds) if k == RUN_RESTART] if RUN_RESTART in kinds else ()
        start = 0
        for i in marks:
            if i > start:
                self._feed_all(batch[start:i], summarise)
            self.reset(self._restarted(batch[i]), new_run=True)
            start = i
        self._feed_all(batch[start:] if start else batch, summarise)
        self.restarts += len(marks)
        return len(marks)

    def _restarted(self, ev: TraceEvent) -> RunInfo:
        """The run after a ``run.restart``: its informers (a profile change
        keeps them, a resource switch runs one); the header reads the rest."""
        informers = tuple(ev[4].get("informers") or ())
        if informers == tuple(self.info.informers):
            return self.info
        queue = self.info.queue_resource if self.info.queue_resource in informers else None
        return replace(self.info, informers=informers, queue_resource=queue)

    def _feed_every(self, batch: list[TraceEvent], summarise: bool = False) -> None:
        if summarise:
            stretch = Stretch(batch)
            for take in self._summarisers:
                take(stretch)
            return
        for feed in self._feeders:
            feed(batch)

    def _feed_routed(self, batch: list[TraceEvent], summarise: bool = False) -> None:
        """Several informers: the whole batch to the shared states, and to
        each informer's set its own events (an event no informer emitted,
        or one naming an informer the run does not have, to the home set)."""
        whole = Stretch(batch) if summarise else batch
        for feed in self._summarisers if summarise else self._feeders:
            feed(whole)
        home = self.home
        parts: dict[str, list[TraceEvent]] = {}
        for ev in batch:
            name = ev[4].get("informer") or home  # trace.informer_of, inlined: once per event
            part = parts.get(name)
            if part is None:
                part = parts[name] = []
            part.append(ev)
        feeders = self._set_summarisers if summarise else self._set_feeders
        for name, part in parts.items():
            taken = Stretch(part) if summarise else part
            for feed in feeders.get(name) or feeders[home]:
                feed(taken)

    def drain(
        self, budget: float | None = None, max_events: int | None = None, interrupted: Callable[[], bool] | None = None
    ) -> int:
        """Move events from the buffer into every state; returns how many.

        Stops after ``max_events``, or once ``budget`` seconds are spent or
        ``interrupted()`` says so (both checked between chunks, only with a
        budget); None: until the buffer is empty. With a budget, a backlog
        more than the rest of it feeds event by event is taken in as
        summaries (``SUMMARY_BLOCK`` at a time, all but the newest
        ``SUMMARY_TAIL``); then a chunk in full, for the panes' rows."""
        start = time.perf_counter()
        limit = self.max_events if max_events is None else max_events
        total = summarised = full = 0
        while total < limit:
            waiting = len(self.buffer)
            if budget is not None and self._too_much(waiting, budget - (time.perf_counter() - start)):
                n = self._summarise(min(SUMMARY_BLOCK, waiting - SUMMARY_TAIL, limit - total))
                summarised += n
            else:
                n = self._feed_chunk(min(CHUNK, limit - total))
                full += n
            if not n:
                break
            total += n
            if budget is None:
                continue
            if summarised and full:
                break  # the newest in full after the summaries: enough for this frame
            if time.perf_counter() - start > budget:
                if summarised and not full and total < limit:
                    total += self._feed_chunk(min(CHUNK, limit - total))  # rows, though late
                # Out of time with a backlog: behind until a drain empties it.
                self.pressure.behind = summarised > 0 or len(self.buffer) > BEHIND_BACKLOG
                break
            if interrupted is not None and interrupted():
                break
        if budget is not None:  # a frame's drain: idle frames make room for a full collection
            self.collector.frame(not self.buffer and not (interrupted is not None and interrupted()))
        if not self.buffer:
            self.pressure.behind = False
        elif self.pressure.behind and not self.header.synced:
            self._look_ahead()
        self.absorbed += total
        return total

    def _too_much(self, waiting: int, left: float) -> bool:
        """Whether ``waiting`` events are more than ``left`` seconds feed
        one by one (at the cost measured so far)."""
        return waiting > SUMMARISE_OVER and waiting * self.full_cost > left

    def _feed_chunk(self, n: int) -> int:
        """Up to ``n`` events in full; how many. Measures the cost per event."""
        batch = self.buffer.drain(n)
        if not batch:
            return 0
        fed = time.perf_counter()
        self.feed(batch)
        self.full_cost += 0.1 * ((time.perf_counter() - fed) / len(batch) - self.full_cost)
        self.last_trace_time = batch[-1][1]
        self.last_trace_mono = time.monotonic()
        return len(batch)

    def _summarise(self, n: int) -> int:
        """Up to ``n`` events as one summary; the UI is behind. How many."""
        head = self.buffer.drain(n) if n > 0 else []
        if not head:
            return 0
        self.feed(head, summarise=True)
        self.pressure.behind = True
        self.pressure.events_summarised += len(head)
        self.last_trace_time = head[-1][1]
        self.last_trace_mono = time.monotonic()
        return len(head)

    def _look_ahead(self) -> None:
        """Behind during a sync: the header's progress is the informer's, so
        it reads the sync from the newest events waiting, not only from
        those the panes took in (the informer's ``informer.synced`` follows
        its last applied delta, so it is among the newest while the UI is
        still catching up with the list)."""
        for ev in self.buffer.newest(LOOK_AHEAD):
            kind = ev[2]
            if kind == INFORMER_SYNCED:
                self.header.synced_ahead = ev
                return
            if kind in (LIST_START, RUN_RESTART):
                return  # a newer list is under way: nothing synced after it yet

    # -- time and statistics -----------------------------------------------------------
    def mono(self) -> float:
        """Monotonic seconds for rates and pacing (the clock's, if given)."""
        return self.clock.now() if self.clock is not None else time.monotonic()

    def now(self, paused: bool = False) -> float | None:
        """ "Now" in trace time, for ages and countdowns: the clock's, else
        the latest event's time moved on by the wall time since (held
        while ``paused``); None before the first event."""
        if self.clock is not None:
            return self.clock.now()
        if self.last_trace_time is None:
            return None
        if paused:
            return self.last_trace_time
        return self.last_trace_time + (time.monotonic() - self.last_trace_mono)

    def count_frame(self) -> float:
        """One frame drawn: counts it and moves the rate on; returns ``mono()``."""
        self.frames += 1
        mono = self.mono()
        t0, n0 = self._rate_mark
        if mono - t0 >= 1.0:
            self.per_s = (self.absorbed - n0) / (mono - t0)
            self._rate_mark = (mono, self.absorbed)
        return mono

    def stats(self, paused: bool = False) -> FeedStats:
        p = self.pressure
        return FeedStats(
            self.absorbed,
            self.per_s,
            len(self.buffer),
            self.buffer.dropped,
            paused,
            p.behind,
            p.summarised,
            p.events_summarised,
        )
