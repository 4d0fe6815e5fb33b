"""Key ``x``: the experiments menu, and the app's side of running one.

``ExperimentsScreen`` lists every experiment with its key and whether it
can run here (queue mode, simulated cluster); a key runs one, after a prompt
for the ones that take a value (how many items to fail, the new handler's
resync period). The screen holds the run's ``Experiments`` control (the app
opens it with the control of the run running now): ``run_experiment`` has
it act, and a notification says what happened and where to look. The trace's
``experiment`` events put it in the panes and the recording.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from kubectl_informer.core.printable import printable
from kubectl_informer.run.experiments import (
    BY_NAME,
    CATALOG,
    Experiment,
    ExperimentError,
)
from kubectl_informer.run.experiments.catalog import COUNT, NEEDS_QUEUE, NEEDS_SIM

_SHORT_WHY = {NEEDS_QUEUE: "queue mode only", NEEDS_SIM: "--demo only"}
_PROMPTS = {
    COUNT: "how many work items fail? (1-1000) · enter runs · esc back",
    "duration": "resync period of the new handler (Go duration: 3s, 1m, 0) · enter runs · esc back",
}


class ExperimentsScreen(ModalScreen[None]):
    """The menu, a panel on the right: one line per experiment; its key runs it."""

    # A side panel: the panes stay in sight (to the left, untinted) while
    # you pick what to break and watch it happen (the screen's own style,
    # see-through, is in app.tcss: it must win over the app's Screen rule).
    DEFAULT_CSS = """
    #experiments-body {
        width: 72; max-width: 90%; height: 100%;
        border: round $accent; border-title-color: $accent; padding: 0 1; background: $surface;
    }
    #experiments-prompt { height: 3; border: tall $accent; }
    """
    BINDINGS = [Binding("escape", "back", "Back"), Binding("x", "close", "Close", show=False)]
    BINDINGS += [Binding(e.key, f"pick('{e.name}')", e.title, show=False) for e in CATALOG]

    def __init__(self, experiments, selected_key: str | None = None) -> None:
        super().__init__(id="experiments")
        self.experiments = experiments
        self.selected_key = selected_key
        self.asking: Experiment | None = None

    def compose(self) -> ComposeResult:
        with Vertical(id="experiments-body") as body:
            body.border_title = "experiments · on this run"
            self.listing = Static(self.render_list(), id="experiments-list")
            yield self.listing
            # Disabled (so never focused) until it asks: the keys go to the menu.
            self.prompt = Input(id="experiments-prompt", disabled=True)
            yield self.prompt

    def on_mount(self) -> None:
        self.prompt.display = False

    def render_list(self) -> Text:
        t = Text(no_wrap=True, overflow="ellipsis")
        for e in CATALOG:
            why = self.experiments.unavailable(e.name)
            name = self.experiments.name_for(e)
            title = e.title
            if e.toggle:
                title = title.replace("pause / resume", "resume" if name == e.toggle else "pause")
            t.append(f" {e.key} ", "dim" if why else "bold reverse")
            t.append(f" {title}", "dim" if why else "")
            if why:
                t.append(f"  ✕ {_SHORT_WHY.get(e.needs, why)}", "dim red")
            elif name == e.toggle:
                t.append("  (paused now)", "bold yellow")
            elif e.name == "fail-next" and (left := self.experiments.failures_to_come()):
                t.append(f"  ({left} to fail)", "bold yellow")
            t.append("\n")
        if any(self.experiments.unavailable(e.name) for e in CATALOG if e.needs == NEEDS_SIM):
            t.append(" --demo only: the simulator faults itself, never a real cluster\n", "dim")
        key = printable(self.selected_key) if self.selected_key else "none (select one in a pane)"  # a server's name
        t.append(f" selected key: {key}\n", "dim")
        t.append(" a key runs one · esc closes · docs/experiments.md tells what to look at", "dim")
        return t

    def action_pick(self, name: str) -> None:
        if self.asking is not None:
            return
        exp = BY_NAME[name]
        why = self.experiments.unavailable(name)
        if why is not None:
            self.app.notify(f"{exp.title}: {why}", title="not available here", severity="warning")
            return
        if exp.prompt:
            self.asking = exp
            self.prompt.placeholder = _PROMPTS[exp.prompt]
            self.prompt.value = exp.default
            self.prompt.disabled = False
            self.prompt.display = True
            # Now, not at the next idle (Widget.focus): a key typed right after
            # this one (enter) is read after this action and must reach the prompt.
            self.set_focus(self.prompt)
            return
        self._run(exp, None)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if self.asking is not None:
            self._run(self.asking, event.value)

    def _run(self, exp: Experiment, value: str | None) -> None:
        if run_experiment(self.app, self.experiments, self.experiments.name_for(exp), value, self.selected_key):
            self.dismiss(None)
        # A bad value: the notification said why; the prompt stays for another try.

    def action_back(self) -> None:
        if self.asking is not None:
            self.asking = None
            self.prompt.display = False
            self.prompt.disabled = True
            return
        self.dismiss(None)

    def action_close(self) -> None:
        if self.asking is None:
            self.dismiss(None)


def run_experiment(app: App, experiments, name: str, value: str | None = None, key: str | None = None) -> bool:
    """Run one on the run's ``experiments`` control; a notification on
    ``app`` says what happened (or why not). True if it ran."""
    try:
        message = experiments.run(name, value, key)
    except ExperimentError as e:
        app.notify(str(e), title="experiment", severity="error")
        return False
    exp = BY_NAME.get(name) or next(e for e in CATALOG if e.toggle == name)
    app.notify(f"{message}\nlook: {exp.look}", title=f"experiment: {name}", timeout=8)
    return True
