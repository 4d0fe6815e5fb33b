"""The Textual app: header, panes, and the timer that feeds them.

The engine's threads emit into a bounded ``TraceBuffer``; the UI never runs
per event. A timer at ``frame_rate`` has the app's ``FeedLoop``
(panes/feed.py) drain the buffer within a time budget (so a flood cannot
starve key presses) into every pane's state (cheap: counters and rings),
then redraws, inside one ``batch_update``, only the visible panes whose
state changed. The layout (tabs or a grid) and the pane table: layout.py.

The app is made of parts, not mixins: the feed loop, the `:` line
(command_mode.py), restarts (restarts.py), the experiments menu
(experiments.py) and the YAML view (objects.py); what they report comes back
as messages to the ``@on`` handlers below. A replay is this app with a
player as its ``source`` (replay.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from textual import on
from textual.app import App, ComposeResult
from textual.containers import Container
from textual.events import Key, Resize
from textual.screen import Screen
from textual.widgets import Input

from kubectl_informer.core.run_info import RunInfo
from kubectl_informer.core.trace import TraceBuffer
from kubectl_informer.panes.feed import FeedLoop
from kubectl_informer.panes.header import HeaderState
from kubectl_informer.panes.inspector import InspectorState
from kubectl_informer.panes.state import PaneState
from kubectl_informer.tui.command import PipelineRestarted, next_profile
from kubectl_informer.tui.command_mode import CommandLine
from kubectl_informer.tui.crash import KeepsCrash
from kubectl_informer.tui.experiments import ExperimentsScreen
from kubectl_informer.tui.filter_line import FilterLine
from kubectl_informer.tui.frames import clock_refresh, drain_budget, redraws_due
from kubectl_informer.tui.header import HeaderPane
from kubectl_informer.tui.help import HelpScreen
from kubectl_informer.tui.informers import InformerChoice
from kubectl_informer.tui.inspector import InspectorPane
from kubectl_informer.tui.keyhints import KeyHints
from kubectl_informer.tui.keymap import APP_BINDINGS, FOOTER_HINTS_SEVERAL, JUMP_BINDINGS, PANE_LETTERS
from kubectl_informer.tui.layout import (
    GRID_MIN,
    PANE_NAMES,
    PANES,  # noqa: F401 - tests name the pane table from here
    TabBar,
    shown_names,
    shown_specs,
)
from kubectl_informer.tui.navigation import go_back
from kubectl_informer.tui.objects import yaml_view
from kubectl_informer.tui.pane import Pane
from kubectl_informer.tui.printable_text import PrintableNotices
from kubectl_informer.tui.restarts import ResourceNamesFound, RestartFinished, Restarts

# Keys that open a line (the command line, the filter): the action opening it.
_LINE_KEYS = {"colon": "action_command", "slash": "action_filter"}


class FrameSource(Protocol):
    """What else feeds the buffer, once a frame: a replay's player. It is
    the app's base screen (its keys, k9s-style: the view wraps the panes)."""

    def start(self, app: InformerApp) -> None: ...  # mounted: header line, keys, first seek

    def tick(self) -> None: ...  # before each frame's drain

    def now(self) -> float | None: ...  # "now" for ages and countdowns


class InformerApp(PrintableNotices, KeepsCrash, App[None]):
    """``InformerApp(buffer, info, start_pane="deltas", frame_rate=15.0)``.

    ``panes`` limits the panes shown (tests, snapshots); ``clock``, if given,
    gives "now" for ages and countdowns (else the trace clock's latest event
    time, moved on by wall time since); ``experiments`` is the run's control
    for the experiments menu (key x). ``pipeline`` (``lifecycle.Running``)
    lets `:` commands and ``P`` restart it (restarts.py); after a restart
    ``experiments`` is the new run's. ``source`` feeds the buffer instead of
    the engine (a replay: tui/replay.py).

    Its parts: ``feed_loop`` (panes/feed.py: the states, fed from the
    buffer), the pane widgets drawing them, ``command_line`` (the `:` line)
    and ``restarts``. Their messages come back through ``@on`` handlers.
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
        source: FrameSource | None = None,
    ) -> None:
        super().__init__()
        self.buffer = buffer
        self.experiments = experiments  # the run's control for key x (None: a replay)
        self.info = info
        self.source = source
        self.frame_rate = max(float(frame_rate), 1.0)
        wanted = PANE_NAMES if panes is None else tuple(panes)
        unknown = [n for n in wanted if n not in PANE_NAMES]
        if unknown:
            raise ValueError(f"unknown pane {unknown[0]!r}; panes: {', '.join(PANE_NAMES)}")
        self.specs = shown_specs(wanted, len(info.informers) > 1)
        self.feed_loop = FeedLoop(
            buffer, {s.name: s.state_cls for s in self.specs}, info=info, clock=clock, max_events=max_events_per_frame
        )
        self.feed_loop.on_reset = self._states_replaced
        self.informer_choice = InformerChoice(self)  # several informers: the one the panes show
        self.restarts = Restarts(self, pipeline)
        self.command_line = CommandLine(self)
        self.panes: dict[str, Pane] = {}
        self.filter_line = FilterLine(self, self.panes, self._update_tabbar)
        self.active = start_pane if start_pane in self.states else self.specs[0].name
        self._previous = self.active
        self.paused = False
        self.zoomed = False
        self.layout_mode = "tabs"
        self._last_clock_refresh = 0.0

    @property
    def states(self) -> dict[str, PaneState]:
        """The pane states fed now (a restart replaces them)."""
        return self.feed_loop.states

    @property
    def header_state(self) -> HeaderState:
        return self.feed_loop.header

    def get_default_screen(self) -> Screen:
        return self.source if isinstance(self.source, Screen) else super().get_default_screen()

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
        self.filter_input = self.filter_line.input
        yield self.filter_input
        self.command_input = self.command_line.input
        yield self.command_input
        yield KeyHints(FOOTER_HINTS_SEVERAL if "informers" in self.panes else None, id="keyhints")

    def on_mount(self) -> None:
        self.filter_input.display = False
        self._apply_layout(self.size.width, self.size.height)
        self.panes[self.active].focus()
        self.set_interval(1.0 / self.frame_rate, self._tick, name="drain")
        self.restarts.load_resource_names()
        if self.source is not None:
            self.source.start(self)

    def on_resize(self, event: Resize) -> None:
        self._apply_layout(event.size.width, event.size.height)

    def _apply_layout(self, width: int, height: int) -> None:
        grid = width >= GRID_MIN[0] and height >= GRID_MIN[1] and not self.zoomed
        self.layout_mode = "grid" if grid else "tabs"
        container = self.query_one("#panes")
        container.set_class(grid, "-grid")
        container.set_class(not grid, "-tabs")
        container.set_class("informers" in self.panes, "-informers")
        shown = self.shown_panes(width)
        for name, pane in self.panes.items():
            pane.display = name in shown
            pane.set_class(name == self.active, "-active")
        self._update_tabbar(width)
        # Panes just shown need drawing even if their state did not change.
        now = self._now()
        for name in shown:
            self.panes[name].refresh_view(now)

    def shown_panes(self, width: int | None = None) -> set[str]:
        width = self.size.width if width is None else width
        grid = self.layout_mode == "grid"
        return shown_names(list(self.panes), self.active, self._previous, width, grid, self.zoomed)

    def _update_tabbar(self, width: int | None = None) -> None:
        self.tabbar.show_tabs(self.specs, self.active, self.shown_panes(width), self.filter_text, width)

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
    def _now(self) -> float | None:
        if self.source is not None:
            return self.source.now()
        return self.feed_loop.now(self.paused)

    def drain(self, budget: float | None = None, max_events: int | None = None) -> int:
        """Move events from the buffer into every pane state; returns how many.

        Stops after ``budget`` seconds or when a key waits (None: until the
        buffer is empty). A ``run.restart`` on the way resets the panes
        (``_states_replaced``); then the app posts ``PipelineRestarted``."""
        restarts = self.feed_loop.restarts
        n = self.feed_loop.drain(budget, max_events, self._input_waiting)
        if self.feed_loop.restarts != restarts:
            self.post_message(PipelineRestarted(self.current_run(), self.header_state.info))
        return n

    def _states_replaced(self, new_run: bool) -> None:
        """The feed loop started over (a restart, a replay's seek back): the
        widgets draw the new states; after a restart, from a fresh view."""
        self.header.state = self.header_state
        for name, state in self.states.items():
            pane = self.panes.get(name)
            if pane is not None:
                pane.state = state
                pane._rendered_version = -1
                reset = getattr(pane, "reset_view", None)
                if new_run and reset is not None:
                    reset()

    def _input_waiting(self) -> bool:
        """A key is on its way (app → screen → focused widget): answer it
        first; the buffer keeps the rest of the events for the next frame."""
        if self.message_queue_size or self.screen.message_queue_size:
            return True
        focused = self.focused
        return focused is not None and focused.message_queue_size > 0

    def _tick(self) -> None:
        if self.source is not None:
            self.source.tick()
        if not self.screen_stack:
            return  # a last frame timer firing while the app closes: nothing left to draw
        if self._input_waiting():
            # A key is travelling app → screen → widget; each hop is a message
            # and would wait behind a whole frame. Let it through first.
            self.feed_loop.skipped_frames += 1
            return
        header_version = self.header_state.version
        if not self.paused:
            # A share of the frame (frames.py); a key stops it between chunks.
            self.drain(drain_budget(self.frame_rate, self.feed_loop.pressure.behind, self.header_state.synced))
        mono = self.feed_loop.count_frame()
        stats = self.feed_loop.stats(self.paused)
        header_due = stats != self.header.stats or header_version != self.header_state.version
        self.header.stats = stats
        clock_due = mono - self._last_clock_refresh >= clock_refresh(self.feed_loop.pressure.behind)
        if clock_due:
            self._last_clock_refresh = mono
        self._redraw(clock_due, header_due or clock_due)

    def _redraw(self, clock_due: bool, header_due: bool) -> None:
        """Draw what changed: the focused pane and the others as often as
        frames.py says; when the clock is due, every pane that changed or
        reads the clock (``Pane.READS_CLOCK``)."""
        now = self._now()
        with self.batch_update():
            if header_due:
                self.header.refresh_view(now)
            if self.paused:
                return
            focused_due, background_due = redraws_due(self.feed_loop.frames, self.feed_loop.pressure.behind)
            for name in self.shown_panes():
                pane = self.panes[name]
                changed = pane.state.version != pane._rendered_version
                if (clock_due and (changed or pane.READS_CLOCK)) or (
                    changed and (background_due or (focused_due and name == self.active))
                ):
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
        # 1-9 jump to the first nine panes; a pane after them has its letter only.
        panes = [
            (f"{i if i <= 9 else ''} {PANE_LETTERS.get(s.name, '')}".strip(), s.title, s.name)
            for i, s in enumerate(self.specs, 1)
        ]
        self.push_screen(HelpScreen(panes))

    def action_pause(self) -> None:
        self.paused = not self.paused
        self.header.stats = self.feed_loop.stats(self.paused)
        self.header.refresh_view(self._now())

    def action_next_pane(self) -> None:
        self._cycle(1)

    def action_prev_pane(self) -> None:
        self._cycle(-1)

    def _cycle(self, step: int) -> None:
        if isinstance(self.focused, Input):
            self.command_line.complete()
            return
        if self.active == "informers" and self.informer_choice.step(step, wrap=False):
            return  # tab walks the informers first, then on to the next pane
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
        self.filter_line.open()

    async def on_event(self, event) -> None:
        # ':' and '/' open their line as the key is read. Textual hands each
        # key to the widget focused when it reads it, and a binding runs (and
        # Widget.focus moves the focus) only later: a fast ":q⏎" or a paste
        # gave the q to the pane, where the line's claim on printable keys
        # hid it from the bindings, and the line got the ⏎ alone.
        if (
            type(event) is Key
            and not event.is_forwarded
            and event.key in _LINE_KEYS
            and len(self.screen_stack) == 1
            and not isinstance(self.focused, Input)
        ):
            getattr(self, _LINE_KEYS[event.key])()
            return
        await super().on_event(event)

    @property
    def filter_text(self) -> str:
        return self.filter_line.text

    def set_filter(self, text: str) -> None:
        self.filter_line.set(text)

    @on(Input.Changed, "#filter")
    def on_filter_changed(self, event: Input.Changed) -> None:
        self.set_filter(event.value.strip())

    @on(Input.Submitted, "#filter")
    def on_filter_submitted(self, event: Input.Submitted) -> None:
        self.filter_line.submitted(event.value)
        self.panes[self.active].focus()

    def action_escape(self) -> None:
        """esc goes back one step, as in k9s (``tui/navigation.py``)."""
        go_back(self)

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

    def action_yaml(self) -> None:
        """``y``: the selected key's object as YAML (the Inspector's cursor
        picks a version, else the newest object held)."""
        inspector = self.panes.get("inspector")
        entry = None
        key: str | None
        if self.active == "inspector" and isinstance(inspector, InspectorPane) and inspector.inspected:
            key, entry = inspector.inspected, inspector.cursor_entry()
        else:
            key = self.selected_key()
        if key is None:
            self.notify("no key selected: move the cursor in Deltas or FIFO", severity="warning")
            return
        state = self.states.get("inspector")
        view = yaml_view(key, entry, state.objects if isinstance(state, InspectorState) else None, self.info)
        if isinstance(view, str):
            self.notify(view, severity="warning")
        else:
            self.push_screen(view)

    def action_experiments(self) -> None:
        if isinstance(self.screen, ExperimentsScreen):
            self.pop_screen()
            return
        if self.experiments is None:
            self.notify("experiments act on a live run: not in a replay", severity="warning")
            return
        self.push_screen(ExperimentsScreen(self.experiments, self.selected_key()))

    # -- the command line and restarts --------------------------------------------
    def action_command(self) -> None:
        self.command_line.open()

    @on(Input.Submitted, "#command")
    def on_command_submitted(self, event: Input.Submitted) -> None:
        self.command_line.close(self.panes[self.active])
        self.command_line.run(event.value)

    def action_cycle_profile(self) -> None:
        run = self.current_run()
        if run is None:
            self.notify("P: nothing to restart here (a replay shows a recording)", severity="error")
            return
        self.command_line.run(f"profile {next_profile(run.config.profile.client_go)}")

    def action_invert_filter(self) -> None:
        if not self.filter_line.invert():
            self.notify("!: type a filter with / first; ! then shows what it leaves out", severity="warning")

    def restart_pipeline(self, what: str, derive: Callable[[Any], Any]) -> None:
        """What commands call: restart the pipeline on ``derive(config)`` of
        the running config, in a worker thread (restarts.py)."""
        self.restarts.request(what, derive)

    def current_run(self) -> Any:
        """The Run running now (None in a replay): follow it after ``PipelineRestarted``."""
        return self.restarts.current_run()

    @on(RestartFinished)
    def on_restart_finished(self, done: RestartFinished) -> None:
        if self.restarts.finished(done, self.header_state.info.resource):
            run = self.current_run()
            if run is not None and hasattr(run, "experiments"):
                self.experiments = run.experiments  # key x acts on the new run

    @on(ResourceNamesFound)
    def on_resource_names_found(self, found: ResourceNamesFound) -> None:
        self.command_line.set_resource_names(found.names)
