"""The app's side of `:` commands and restarts, mixed into ``InformerApp``.

- ``:`` opens a command line at the bottom (resource names from discovery
  and the registered commands complete with tab or →); enter runs it
  (``command.run_command``), esc closes it.
- ``restart_pipeline(what, derive)`` runs ``Running.restart`` on the config
  ``derive`` makes of the running one, in a worker thread; the trace's ``run.restart`` event, when the drain reaches it,
  resets every pane's state (what follows belongs to the new run) and the
  header takes the new resource and profile from it, replays included.
- ``P`` cycles the client-go profiles; ``!`` inverts the current filter.
- ``current_run()`` is the Run running now (None in a replay): follow it
  after ``PipelineRestarted``; the app's ``experiments`` (key x) follows it.
"""

from __future__ import annotations

from typing import Any, Callable

from textual.suggester import SuggestFromList
from textual.widgets import Input

from kubectl_informer.core.trace_kinds import RUN_RESTART
from kubectl_informer.panes.feed import feeder as _feeder
from kubectl_informer.tui.command import (
    COMMANDS,
    CommandError,
    PipelineRestarted,
    next_profile,
    run_command,
)

PLACEHOLDER = ": pods · deploy -n kube-system · cm -A · profile 1.36 · fifo real · watchlist off · help · q"


def _one_line(e: BaseException) -> str:
    text = " ".join(str(e).split())
    return text or type(e).__name__


class CommandMode:
    """Needs the app's ``panes``, ``specs``, ``states``, ``header``,
    ``header_state``, ``_feeders``, ``active`` and ``set_filter``."""

    pipeline: Any = None  # lifecycle.Running: restartable; None for a replay
    restarting = False
    resource_names: tuple[str, ...] = ()

    def current_run(self) -> Any:
        """The Run whose pipeline runs now (a restart replaces it), or None."""
        return self.pipeline.run if self.pipeline is not None else None

    # -- the command line ---------------------------------------------------
    def compose_command_line(self):
        self.command_input = Input(placeholder=PLACEHOLDER, id="command", suggester=self._suggester())
        self.command_input.border_title = ": command (tab completes, enter runs, esc closes)"
        self.command_input.display = False
        yield self.command_input

    def _suggester(self) -> SuggestFromList:
        return SuggestFromList([*COMMANDS.names(), *self.resource_names], case_sensitive=False)

    def action_command(self) -> None:
        self.command_input.value = ""
        self.command_input.display = True
        # Focused now, not after the keys already read (InformerApp.on_event).
        self.screen.set_focus(self.command_input)

    def close_command_line(self) -> bool:
        """Esc: close the command line if open (True if it was)."""
        if not self.command_input.display:
            return False
        self.command_input.display = False
        self.panes[self.active].focus()
        return True

    def complete_command(self) -> None:
        """Tab in the command line takes the suggestion shown."""
        if self.command_input.has_focus:
            self.command_input.action_cursor_right()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input is not getattr(self, "command_input", None):
            return
        text = event.value
        self.close_command_line()
        self.run_command_line(text)

    def run_command_line(self, text: str) -> None:
        """Run one command; a bad one is a one-line notification."""
        try:
            run_command(self, text)
        except CommandError as e:
            self.notify(_one_line(e), severity="error")

    # -- restarts -------------------------------------------------------------
    def restart_pipeline(self, what: str, derive: Callable[[Any], Any]) -> None:
        """Restart the pipeline on ``derive(config)`` of the running config
        (a ``RunConfig``; see ``lifecycle.Running.restart``), in a worker thread."""
        if self.pipeline is None:
            raise CommandError(f"{what}: nothing to restart here (a replay shows a recording)")
        if self.restarting:
            raise CommandError(f"{what}: a restart is already under way")
        self.restarting = True
        self.notify(f"{what}: restarting the pipeline…", timeout=2)
        self.run_worker(lambda: self._restart_in_thread(what, derive), thread=True, group="restart",
                        exit_on_error=False)

    def _restart_in_thread(self, what: str, derive: Callable[[Any], Any]) -> None:
        try:
            info = self.pipeline.restart(derive(self.pipeline.config))
            error = None
        except Exception as e:  # noqa: BLE001 - RunError, a usage error, the unexpected: one line each
            info, error = None, _one_line(e)
        names = self._discovered_names()
        self.call_from_thread(self._restart_done, what, info, error, names)

    def _restart_done(self, what: str, info: Any, error: str | None, names: tuple[str, ...]) -> None:
        self.restarting = False
        if names:
            self.resource_names = names
            self.command_input.suggester = self._suggester()
        if error is not None:
            now = self.header_state.info
            self.notify(f"{what}: {error} (still watching {now.resource})", severity="error", timeout=8)
            return
        run = self.current_run()
        if run is not None and hasattr(run, "experiments"):
            self.experiments = run.experiments  # key x acts on the new run (experiments.py)
        scope = "all namespaces" if info.namespace is None else f"ns {info.namespace}"
        self.notify(f"{what}: now {info.resource} in {scope}, client-go {info.profile} "
                    f"({info.fifo} · {info.initial_list})")

    def _discovered_names(self) -> tuple[str, ...]:
        """Resource names and short names the cluster serves (discovery is
        cached per client once a run resolved its resource)."""
        run = self.current_run()
        if run is None or getattr(run, "target", None) is None:
            return ()
        try:
            from kubectl_informer.kube.discovery import get_discovery
            names: dict[str, None] = {}
            for r in get_discovery(run.target.api_client).ordered():
                for n in (r.resource, *r.short_names):
                    names.setdefault(n, None)
            return tuple(names)
        except Exception:  # noqa: BLE001 - completion is a nicety
            return ()

    def load_resource_names(self) -> None:
        if self.pipeline is not None:
            self.run_worker(lambda: self.call_from_thread(self._restart_done_names, self._discovered_names()),
                            thread=True, group="discovery", exit_on_error=False)

    def _restart_done_names(self, names: tuple[str, ...]) -> None:
        if names:
            self.resource_names = names
            self.command_input.suggester = self._suggester()

    def action_cycle_profile(self) -> None:
        run = self.current_run()
        if run is None:
            self.notify("P: nothing to restart here (a replay shows a recording)", severity="error")
            return
        nxt = next_profile(run.config.profile.client_go)
        self.run_command_line(f"profile {nxt}")

    def action_invert_filter(self) -> None:
        text = self.filter_text
        if not text:
            self.notify("!: type a filter with / first; ! then shows what it leaves out", severity="warning")
            return
        self.set_filter(text[1:].lstrip() if text.startswith("!") else f"!{text}")

    # -- feeding across a restart ----------------------------------------------
    def feed_batch(self, batch) -> None:
        """Feed every pane state; at a ``run.restart`` event, fresh states
        first (the event itself goes to them: the header reads the new run
        from it)."""
        marks = [i for i, ev in enumerate(batch) if ev.kind == RUN_RESTART]
        if not marks:
            for feed in self._feeders:
                feed(batch)
            return
        start = 0
        for i in marks:
            if i > start:
                for feed in self._feeders:
                    feed(batch[start:i])
            self.reset_panes()
            start = i
        for feed in self._feeders:
            feed(batch[start:])
        self.post_message(PipelineRestarted(self.current_run(), self.header_state.info))

    def reset_panes(self) -> None:
        """Every pane starts over with a fresh state (the header keeps the run's info)."""
        from kubectl_informer.panes.header import HeaderState

        info = self.header_state.info
        self.header_state = HeaderState()
        self.header_state.info = info
        self.header.state = self.header_state
        for spec in self.specs:
            state = spec.state_cls()
            self.states[spec.name] = state
            pane = self.panes.get(spec.name)
            if pane is not None:
                pane.state = state
                pane._rendered_version = -1
                reset = getattr(pane, "reset_view", None)
                if reset is not None:
                    reset()
        self._all_states = [self.header_state, *self.states.values()]
        self._feeders = [_feeder(st) for st in self._all_states]
