"""The Textual app: header, panes, and the timer that feeds them.

The engine's threads emit into a bounded ``TraceBuffer``; the UI never runs
per event. A timer at ``frame_rate`` drains the buffer within a time budget
(so a flood cannot starve key presses), feeds every event to every pane's
state (cheap: counters and rings), then redraws, inside one
``batch_update``, only the visible panes whose state changed.

Small terminals get one pane at a time behind a tab bar (two side by side
from 120 columns), as k9s does; large ones a grid of every pane.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from rich.text import Text
from textual.app import App, ComposeResult
from textual.containers import Container
from textual.events import Key, Resize
from textual.widget import Widget
from textual.widgets import Input

from kubectl_informer.core.run_info import RunInfo
from kubectl_informer.core.trace import TraceBuffer
from kubectl_informer.panes.cache import CacheState
from kubectl_informer.panes.deltas import DeltasState
from kubectl_informer.panes.explain_state import ExplainState
from kubectl_informer.panes.feed import feeder as _feeder
from kubectl_informer.panes.fifo import FifoState
from kubectl_informer.panes.handlers import HandlersState
from kubectl_informer.panes.header import FeedStats, HeaderState
from kubectl_informer.panes.inspector import InspectorState
from kubectl_informer.panes.queue import QueueState
from kubectl_informer.panes.resync import ResyncState
from kubectl_informer.panes.rv import RVState
from kubectl_informer.panes.state import PaneState
from kubectl_informer.tui.cache import CachePane
from kubectl_informer.tui.command_mode import CommandMode
from kubectl_informer.tui.deltas import DeltasPane
from kubectl_informer.tui.experiments import ExperimentsMixin
from kubectl_informer.tui.explain import ExplainPane
from kubectl_informer.tui.fifo import FifoPane
from kubectl_informer.tui.handlers import HandlersPane
from kubectl_informer.tui.header import HeaderPane
from kubectl_informer.tui.help import HelpScreen
from kubectl_informer.tui.inspector import InspectorPane
from kubectl_informer.tui.keyhints import KeyHints
from kubectl_informer.tui.keymap import APP_BINDINGS, JUMP_BINDINGS, PANE_LETTERS
from kubectl_informer.tui.objects import ObjectActions
from kubectl_informer.tui.pane import Pane
from kubectl_informer.tui.queue import QueuePane
from kubectl_informer.tui.resync import ResyncPane
from kubectl_informer.tui.rv import RVPane


@dataclass(frozen=True)
class PaneSpec:
    name: str
    title: str
    state_cls: type[PaneState]
    pane_cls: type[Pane]
    short: str = ""  # tab bar label, so seven tabs fit in 80 columns


# Tab order; the grid places them in this order too (see app.tcss).
PANES: tuple[PaneSpec, ...] = (
    PaneSpec("deltas", "Deltas", DeltasState, DeltasPane),
    PaneSpec("fifo", "FIFO", FifoState, FifoPane),
    PaneSpec("rv", "ResourceVersion", RVState, RVPane, "RV"),
    PaneSpec("resync", "Resync", ResyncState, ResyncPane),
    PaneSpec("queue", "Queue", QueueState, QueuePane),
    PaneSpec("cache", "Cache", CacheState, CachePane),
    PaneSpec("inspector", "Inspector", InspectorState, InspectorPane),
    PaneSpec("handlers", "Handlers", HandlersState, HandlersPane),
    PaneSpec("explain", "Explain", ExplainState, ExplainPane),
)
PANE_NAMES = tuple(p.name for p in PANES)

# Below this the grid is unreadable: one (or two) panes behind tabs instead.
GRID_MIN = (150, 36)
COMPANION_MIN_WIDTH = 120
# Keys that open a line (the command line, the filter): the action opening it.
_LINE_KEYS = {"colon": "action_command", "slash": "action_filter"}
# Drain in chunks small enough that the frame's time budget is honoured.
CHUNK = 256
# Unchanged panes still redraw this often, for ages and countdowns.
CLOCK_REFRESH = 0.5
# Drawing is most of a frame's cost on a big grid: the focused pane redraws
# every frame, the others every BACKGROUND_EVERY frames (5 Hz at 15 Hz).
BACKGROUND_EVERY = 3


class TabBar(Widget):
    """One line: the panes with their jump keys, the active one highlighted.

    Drawn with ``render`` and a plain refresh: Static.update would ask for
    a relayout of the screen on every tab press."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self._text = Text()

    def show_tabs(self, specs: list[PaneSpec], active: str, shown: set[str], filter_text: str) -> None:
        width = self.app.size.width
        # Too many tabs for the line: the other tabs' labels shorten, the active one never does.
        for cut in (99, 6, 5, 4, 3):
            t = Text(no_wrap=True, overflow="ellipsis", end="")
            for i, spec in enumerate(specs, 1):
                style = "bold reverse" if spec.name == active else ("bold" if spec.name in shown else "dim")
                label = spec.short or spec.title
                t.append(f" {i}", "cyan" if spec.name != active else style)
                t.append(f" {label if spec.name == active else label[:cut]} ", style)
            if filter_text:
                t.append(f"  /{filter_text}", "bold yellow")
            if t.cell_len <= width:
                break
        self._text = t
        self.refresh()

    def render(self) -> Text:
        return self._text


class InformerApp(CommandMode, ExperimentsMixin, ObjectActions, App[None]):
    """``InformerApp(buffer, info, start_pane="deltas", frame_rate=15.0)``.

    ``panes`` limits the panes shown (tests, snapshots); ``clock``, if given,
    gives "now" for ages and countdowns (else the trace clock's latest event
    time, moved on by wall time since); ``experiments`` is the run's control
    for the experiments menu (key x). ``pipeline`` (``lifecycle.Running``)
    lets `:` commands and ``P`` restart it (command_mode.py); after a restart
    ``experiments`` is the new run's.
    """

    CSS_PATH = "app.tcss"
    TITLE = "kubectl informer"
    BINDINGS = [*APP_BINDINGS, *JUMP_BINDINGS]
    ENABLE_COMMAND_PALETTE = False

    def __init__(
        self,
        buffer: TraceBuffer,
        info: RunInfo,
        *,
        start_pane: str = "deltas",
        frame_rate: float = 15.0,
        panes: tuple[str, ...] | list[str] | None = None,
        clock=None,
        max_events_per_frame: int = 200_000,
        experiments=None,
        pipeline=None,
    ) -> None:
        super().__init__()
        self.pipeline = pipeline
        self.buffer = buffer
        self.experiments = experiments  # the run's control for key x (None: a replay)
        self.info = info
        self.frame_rate = max(float(frame_rate), 1.0)
        self.clock = clock
        self.max_events_per_frame = max_events_per_frame
        wanted = PANE_NAMES if panes is None else tuple(panes)
        unknown = [n for n in wanted if n not in PANE_NAMES]
        if unknown:
            raise ValueError(f"unknown pane {unknown[0]!r}; panes: {', '.join(PANE_NAMES)}")
        self.specs = [s for s in PANES if s.name in wanted]
        self.header_state = HeaderState()
        self.states: dict[str, PaneState] = {s.name: s.state_cls() for s in self.specs}
        self.panes: dict[str, Pane] = {}
        self._all_states = [self.header_state, *self.states.values()]
        self._feeders = [_feeder(st) for st in self._all_states]
        self.active = start_pane if start_pane in self.states else self.specs[0].name
        self._previous = self.active
        self.paused = False
        self.zoomed = False
        self.layout_mode = "tabs"
        self.filter_text = ""
        # Feed statistics.
        self.absorbed = 0
        self.frames = 0
        self.skipped_frames = 0
        self._rate_mark = (self._mono(), 0)
        self._per_s = 0.0
        self._last_trace_time: float | None = None
        self._last_trace_mono = time.monotonic()
        self._last_clock_refresh = 0.0
        # At most 30% of a frame draining: a key arriving mid-drain waits for
        # what is left of it. (Absorbing stays well above 20k events/s.)
        self._budget = min(0.3 / self.frame_rate, 0.05)

    # -- layout --------------------------------------------------------------
    def compose(self) -> ComposeResult:
        self.header = HeaderPane(self.header_state, self.info, id="header")
        yield self.header
        self.tabbar = TabBar(id="tabbar")
        yield self.tabbar
        with Container(id="panes"):
            for spec in self.specs:
                pane = spec.pane_cls(self.states[spec.name], id=f"pane-{spec.name}")
                pane.add_class("pane")
                pane.border_title = spec.title
                self.panes[spec.name] = pane
                yield pane
        self.filter_input = Input(placeholder="filter keys: text or regex · type:Deleted · label:app=web · ! first inverts · "
                                         "enter keeps · esc clears", id="filter")
        yield self.filter_input
        yield from self.compose_command_line()
        yield KeyHints(id="keyhints")

    def on_mount(self) -> None:
        self.filter_input.display = False
        self._apply_layout(self.size.width, self.size.height)
        self.panes[self.active].focus()
        self.set_interval(1.0 / self.frame_rate, self._tick, name="drain")
        self.load_resource_names()

    def on_resize(self, event: Resize) -> None:
        self._apply_layout(event.size.width, event.size.height)

    def _apply_layout(self, width: int, height: int) -> None:
        grid = width >= GRID_MIN[0] and height >= GRID_MIN[1] and not self.zoomed
        self.layout_mode = "grid" if grid else "tabs"
        container = self.query_one("#panes")
        container.set_class(grid, "-grid")
        container.set_class(not grid, "-tabs")
        shown = self.shown_panes(width)
        for name, pane in self.panes.items():
            pane.display = name in shown
            pane.set_class(name == self.active, "-active")
        self._update_tabbar()
        # Panes just shown need drawing even if their state did not change.
        now = self._now()
        for name in shown:
            self.panes[name].refresh_view(now)

    def shown_panes(self, width: int | None = None) -> set[str]:
        if self.layout_mode == "grid":
            return set(self.panes)
        width = self.size.width if width is None else width
        shown = {self.active}
        if self.zoomed:  # z: the focused pane alone, on all the room there is
            return shown
        if width >= COMPANION_MIN_WIDTH and len(self.panes) > 1:
            # A companion to the active pane: where enter leads, or back.
            companion = "inspector" if self.active != "inspector" else "deltas"
            if self.active == "explain":
                companion = self._previous  # what is explained, beside its explanation
            if companion not in self.panes:
                companion = next(n for n in self.panes if n != self.active)
            shown.add(companion)
        return shown

    def _update_tabbar(self) -> None:
        self.tabbar.show_tabs(self.specs, self.active, self.shown_panes(), self.filter_text)

    def activate(self, name: str) -> None:
        """Make ``name`` the active pane: shown, focused, highlighted."""
        if name not in self.panes:
            return
        if name != self.active:
            self._previous = self.active
        previous, self.active = self.active, name
        if self.layout_mode == "grid":
            # Every pane is already shown: move the highlight only, no relayout.
            self.panes[previous].remove_class("-active")
            self.panes[name].add_class("-active")
            self._update_tabbar()
        else:
            self._apply_layout(self.size.width, self.size.height)
        self.panes[name].focus()

    def on_descendant_focus(self, event) -> None:
        # A click in the grid moves the active pane too.
        for name, pane in self.panes.items():
            if pane is event.widget and name != self.active:
                self._previous = self.active
                self.active = name
                for n, p in self.panes.items():
                    p.set_class(n == name, "-active")
                self._update_tabbar()

    # -- feeding -------------------------------------------------------------
    def _mono(self) -> float:
        # With a clock given (tests: a FakeClock), rates and refresh pacing
        # follow it too, so what is drawn is deterministic.
        return self.clock.now() if self.clock is not None else time.monotonic()

    def _now(self) -> float | None:
        if self.clock is not None:
            return self.clock.now()
        if self._last_trace_time is None:
            return None
        if self.paused:
            return self._last_trace_time
        return self._last_trace_time + (time.monotonic() - self._last_trace_mono)

    def drain(self, budget: float | None = None, max_events: int | None = None) -> int:
        """Move events from the buffer into every pane state; returns how many.

        Stops after ``budget`` seconds (None: until the buffer is empty)."""
        start = time.perf_counter()
        limit = self.max_events_per_frame if max_events is None else max_events
        total = 0
        while total < limit:
            batch = self.buffer.drain(min(CHUNK, limit - total))
            if not batch:
                break
            self.feed_batch(batch)  # resets the panes at a run.restart
            total += len(batch)
            self._last_trace_time = batch[-1].time
            self._last_trace_mono = time.monotonic()
            if budget is not None and (time.perf_counter() - start > budget or self._input_waiting()):
                break
        self.absorbed += total
        return total

    def _input_waiting(self) -> bool:
        """A key is on its way (app → screen → focused widget): answer it
        first; the buffer keeps the rest of the events for the next frame."""
        if self.message_queue_size or self.screen.message_queue_size:
            return True
        focused = self.focused
        return focused is not None and focused.message_queue_size > 0

    def _tick(self) -> None:
        if not self.screen_stack:
            return  # a last frame timer firing while the app closes: nothing left to draw
        if self._input_waiting():
            # A key is travelling app → screen → widget; each hop is a message
            # and would wait behind a whole frame. Let it through first.
            self.skipped_frames += 1
            return
        header_version = self.header_state.version
        if not self.paused:
            self.drain(self._budget)
        self.frames += 1
        mono = self._mono()
        t0, n0 = self._rate_mark
        if mono - t0 >= 1.0:
            self._per_s = (self.absorbed - n0) / (mono - t0)
            self._rate_mark = (mono, self.absorbed)
        stats = FeedStats(self.absorbed, self._per_s, len(self.buffer), self.buffer.dropped, self.paused)
        stats_changed = stats != self.header.stats
        self.header.stats = stats
        clock_due = mono - self._last_clock_refresh >= CLOCK_REFRESH
        if clock_due:
            self._last_clock_refresh = mono
        now = self._now()
        with self.batch_update():
            if clock_due or stats_changed or header_version != self.header_state.version:
                self.header.refresh_view(now)
            if self.paused:
                return
            background_due = self.frames % BACKGROUND_EVERY == 0
            for name in self.shown_panes():
                pane = self.panes[name]
                changed = pane.state.version != pane._rendered_version
                if clock_due or (changed and (background_due or name == self.active)):
                    pane.refresh_view(now)

    def pump(self) -> int:
        """Drain everything now and redraw (tests, replays)."""
        n = self.drain()
        now = self._now()
        with self.batch_update():
            self.header.refresh_view(now)
            for name in self.shown_panes():
                self.panes[name].refresh_view(now)
        return n

    # -- actions -------------------------------------------------------------
    def action_help(self) -> None:
        if isinstance(self.screen, HelpScreen):
            self.pop_screen()
            return
        panes = [(f"{i} {PANE_LETTERS.get(s.name, '')}".strip(), s.title, s.name) for i, s in enumerate(self.specs, 1)]
        self.push_screen(HelpScreen(panes))

    def action_pause(self) -> None:
        self.paused = not self.paused
        self.header.stats = FeedStats(self.absorbed, self._per_s, len(self.buffer), self.buffer.dropped, self.paused)
        self.header.refresh_view(self._now())

    def action_next_pane(self) -> None:
        self._cycle(1)

    def action_prev_pane(self) -> None:
        self._cycle(-1)

    def _cycle(self, step: int) -> None:
        if isinstance(self.focused, Input):
            self.complete_command()
            return
        names = [s.name for s in self.specs]
        i = names.index(self.active) if self.active in names else 0
        self.activate(names[(i + step) % len(names)])

    def action_jump(self, name: str) -> None:
        if name == self.active == "explain":  # e again: back to the pane explained
            name = self._previous
        self.activate(name)

    def action_jump_index(self, index: int) -> None:
        if 1 <= index <= len(self.specs):
            self.activate(self.specs[index - 1].name)

    def action_zoom(self) -> None:
        self.zoomed = not self.zoomed
        self._apply_layout(self.size.width, self.size.height)
        self.panes[self.active].focus()

    def action_filter(self) -> None:
        self.filter_input.value = self.filter_text
        self.filter_input.display = True
        self.screen.set_focus(self.filter_input)  # now: see on_event

    async def on_event(self, event) -> None:
        # ':' and '/' open their line as the key is read. Textual hands each
        # key to the widget focused when it reads it, and a binding runs (and
        # Widget.focus moves the focus) only later: a fast ":q⏎" or a paste
        # gave the q to the pane, where the line's claim on printable keys
        # hid it from the bindings, and the line got the ⏎ alone.
        if (type(event) is Key and not event.is_forwarded and event.key in _LINE_KEYS
                and len(self.screen_stack) == 1 and not isinstance(self.focused, Input)):
            getattr(self, _LINE_KEYS[event.key])()
            return
        await super().on_event(event)

    def set_filter(self, text: str) -> None:
        self.filter_text = text
        for name in ("deltas", "fifo", "cache", "inspector"):
            pane = self.panes.get(name)
            if pane is not None:
                pane.set_filter(text)
        self._update_tabbar()

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input is self.filter_input:
            self.set_filter(event.value.strip())

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input is not self.filter_input:
            return
        self.set_filter(event.value.strip())
        self.filter_input.display = False
        inspector = self.panes.get("inspector")
        # A filter that names a key exactly picks it for the inspector.
        if self.filter_text and isinstance(inspector, InspectorPane) and self.filter_text in inspector.state.history:
            inspector.inspect(self.filter_text)
        self.panes[self.active].focus()

    def action_escape(self) -> None:
        if self.close_command_line():
            return
        if self.filter_input.display:
            self.filter_input.display = False
            self.set_filter("")
            self.panes[self.active].focus()
        elif self.filter_text:
            self.set_filter("")
        elif self.active == "inspector" and self._previous != "inspector":
            self.activate(self._previous)

    def selected_key(self) -> str | None:
        pane = self.panes.get(self.active)
        key = pane.selected_key() if pane is not None and hasattr(pane, "selected_key") else None
        if key is None and self.filter_text:
            inspector = self.panes.get("inspector")
            if isinstance(inspector, InspectorPane):
                key = inspector.state.find(self.filter_text)
        return key

    def action_inspect(self) -> None:
        inspector = self.panes.get("inspector")
        if not isinstance(inspector, InspectorPane):
            return
        key = self.selected_key()
        if key is None:
            self.notify("no key selected: move the cursor in Deltas or FIFO, or / to filter", severity="warning")
            return
        inspector.inspect(key)
        self.activate("inspector")
