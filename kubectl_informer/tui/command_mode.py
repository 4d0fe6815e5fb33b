"""The `:` command line: a part the app owns.

``:`` opens an input at the bottom (resource names from discovery and the
registered commands complete with tab or →); enter runs the line
(``command.run_command`` on the app: a command calls the app's
``restart_pipeline``, ``action_help``, ``exit``...), esc closes it. A bad
command is one notification. The app routes the input's ``Submitted``
message here (``InformerApp.on_command_submitted``).
"""

from __future__ import annotations

from textual.app import App
from textual.suggester import SuggestFromList
from textual.widget import Widget
from textual.widgets import Input

from kubectl_informer.core.printable import printable
from kubectl_informer.tui.command import COMMANDS, CommandError, run_command

PLACEHOLDER = ": pods · deploy -n kube-system · cm -A · profile 1.36 · fifo real · watchlist off · help · q"


def one_line(e: BaseException) -> str:
    """An error as one line (its type's name if it says nothing)."""
    text = " ".join(str(e).split())
    return text or type(e).__name__


class CommandLine:
    """``CommandLine(app)``: ``input`` is the line's widget (composed by the
    app); ``resource_names`` what discovery found, for completion."""

    def __init__(self, app: App) -> None:
        self.app = app
        self.resource_names: tuple[str, ...] = ()
        self.input = Input(placeholder=PLACEHOLDER, id="command", suggester=self._suggester())
        self.input.border_title = ": command (tab completes, enter runs, esc closes)"
        self.input.display = False

    def _suggester(self) -> SuggestFromList:
        return SuggestFromList([*COMMANDS.names(), *self.resource_names], case_sensitive=False)

    def set_resource_names(self, names: tuple[str, ...]) -> None:
        # Discovery's names are a server's words: one a terminal could act on is never offered.
        names = tuple(n for n in names if printable(n) == n)
        if names:
            self.resource_names = names
            self.input.suggester = self._suggester()

    def open(self) -> None:
        self.input.value = ""
        self.input.display = True
        # Focused now, not after the keys already read (InformerApp.on_event).
        self.app.screen.set_focus(self.input)

    def close(self, focus: Widget) -> bool:
        """Esc: close the line if open, focus back on ``focus`` (True if it was open)."""
        if not self.input.display:
            return False
        self.input.display = False
        focus.focus()
        return True

    def complete(self) -> None:
        """Tab in the line takes the suggestion shown."""
        if self.input.has_focus:
            self.input.action_cursor_right()

    def run(self, text: str) -> None:
        """Run one command on the app; a bad one is a one-line notification."""
        try:
            run_command(self.app, text)
        except CommandError as e:
            self.app.notify(one_line(e), severity="error")
