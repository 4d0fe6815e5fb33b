"""Moving through a recording on a clock: play at a speed, pause, step one
event, seek to an offset or to the next relist / 410 / tombstone.

The player owns no thread: whoever shows the replay calls ``tick()`` (the
UI's frame timer) and the player hands ``feed`` the events now due. A seek
backwards cannot un-feed events, so it calls ``reset`` (the UI drops its
pane states) and feeds again from the start up to the target; pane states
are rings, so that costs one pass over the recording at most.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Iterable

from kubectl_informer.clock import Clock, RealClock
from kubectl_informer.core.trace import TraceEvent
from kubectl_informer.replay.recording import Recording, mark_of

Feed = Callable[[list[TraceEvent]], None]
# Clock arithmetic in floats: an event due "now" must not wait for the next tick.
_EPSILON = 1e-9


class Player:
    """``Player(rec, feed, clock, speed=1.0, start=0.0)``: events
    ``[0, position)`` have been fed. ``speed`` 0 plays as fast as possible
    (everything at the first tick)."""

    def __init__(
        self,
        rec: Recording,
        feed: Feed,
        clock: Clock | None = None,
        speed: float = 1.0,
        start: float = 0.0,
        reset: Callable[[], None] | None = None,
    ) -> None:
        self.rec = rec
        self.feed = feed
        self.clock = clock or RealClock()
        self.speed = max(float(speed), 0.0)
        self.reset = reset
        self.position = 0
        self.playing = True
        self._offsets = rec.offsets()
        self._marks = rec.marks()
        self._anchor_clock = self.clock.now()
        self._anchor_offset = 0.0
        if start > 0:
            self.seek_to(start)

    # -- where we are ------------------------------------------------------------
    @property
    def duration(self) -> float:
        return self._offsets[-1]

    @property
    def finished(self) -> bool:
        return self.position >= len(self._offsets)

    def offset(self) -> float:
        """The playhead: seconds from the recording's start."""
        if not self.playing:
            return self._anchor_offset
        if self.speed == 0:
            return self.duration
        moved = (self.clock.now() - self._anchor_clock) * self.speed
        return min(self._anchor_offset + moved, self.duration)

    def _anchor(self, offset: float) -> None:
        self._anchor_offset = offset
        self._anchor_clock = self.clock.now()

    # -- feeding -------------------------------------------------------------------
    def _feed_to(self, end: int) -> int:
        """Feed events up to index ``end`` (excluded)."""
        start = self.position
        if end > start:
            self.feed(self.rec.events[start:end])
            self.position = end
        return max(end - start, 0)

    def tick(self) -> int:
        """Feed what is due at the playhead; returns how many events."""
        if not self.playing:
            return 0
        n = self._feed_to(bisect_right(self._offsets, self.offset() + _EPSILON))
        if self.finished:
            self._anchor(self.duration)
            self.playing = False
        return n

    # -- controls ------------------------------------------------------------------
    def pause(self) -> None:
        if self.playing:
            self._anchor(self.offset())
            self.playing = False

    def play(self) -> None:
        if not self.playing and not self.finished:
            self._anchor(self._anchor_offset)
            self.playing = True

    def toggle(self) -> None:
        self.pause() if self.playing else self.play()

    def set_speed(self, speed: float) -> None:
        self._anchor(self.offset())
        self.speed = max(float(speed), 0.0)

    def step(self) -> TraceEvent | None:
        """Pause and feed the next event alone; the playhead moves to it."""
        self.pause()
        if self.finished:
            return None
        ev = self.rec.events[self.position]
        self._feed_to(self.position + 1)
        self._anchor(self._offsets[self.position - 1])
        return ev

    def seek_to(self, offset: float) -> None:
        """Every event up to ``offset`` fed, none after it."""
        offset = min(max(offset, 0.0), self.duration)
        self._seek_index(bisect_right(self._offsets, offset + _EPSILON), offset)

    def _seek_index(self, end: int, offset: float) -> None:
        if end < self.position:
            if self.reset is not None:
                self.reset()
            self.position = 0
        self._feed_to(end)
        self._anchor(offset)

    def next_mark(self) -> TraceEvent | None:
        """Seek to the next relist, 410 or tombstone after the playhead (fed,
        and paused on it); None when there is none."""
        for i in self._marks:
            if i >= self.position:
                self.pause()
                self._seek_index(i + 1, self._offsets[i])
                return self.rec.events[i]
        return None

    def prev_mark(self) -> TraceEvent | None:
        """Seek back to the mark before the one just passed."""
        for i in reversed(self._marks):
            if i < self.position - 1:
                self.pause()
                self._seek_index(i + 1, self._offsets[i])
                return self.rec.events[i]
        return None

    def marks_ahead(self) -> int:
        return sum(1 for i in self._marks if i >= self.position)


def describe_mark(ev: TraceEvent) -> str:
    what = mark_of(ev) or ev.kind
    if what == "relist":
        return f"relist ({ev.fields.get('reason', '')})"
    if what == "410":
        return "watch ended 410 Gone"
    return f"tombstone {ev.key}"


def play_headless(
    events: Iterable[TraceEvent],
    t0: float,
    render: Callable[[Iterable[TraceEvent]], object],
    speed: float = 0.0,
    start: float = 0.0,
    clock: Clock | None = None,
) -> int:
    """Render the events (held or streamed) from ``start`` on, each at its
    offset from ``t0`` divided by ``speed`` (0: at once); returns how many
    were rendered."""
    clock = clock or RealClock()
    began = clock.now()
    n, at = 0, 0.0
    for ev in events:
        at = max(at, ev.time - t0)  # as recording.offsets: never before the event before
        if at < start:
            continue
        if speed > 0:
            wait = began + (at - start) / speed - clock.now()
            if wait > 0:
                clock.sleep(wait)
        render((ev,))
        n += 1
    return n
