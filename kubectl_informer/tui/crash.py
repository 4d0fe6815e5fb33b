"""What the UI does with an exception nobody handled: keep it for the CLI.

Textual's answer to one is to exit and print a Rich traceback *with local
variables* (``show_locals=True``) once the terminal is restored: some 200
lines, and a local may hold a token. Here the app still exits the same way
(the terminal restored) but prints nothing; ``crash`` holds the exception,
and ``lifecycle.serve_app`` raises it after ``run()`` so that the CLI writes
the crash log and says one line (kubectl_informer.run.crash).

Textual offers no public hook for this: ``_fatal_error`` and ``panic`` are
what its ``_handle_exception`` and its input thread call (Textual 8).
"""

from __future__ import annotations

import io
from typing import TYPE_CHECKING

from rich.console import Console

from kubectl_informer.run.crash import UICrash

if TYPE_CHECKING:
    from textual.app import App

    _App = App[None]  # what this is mixed into, for the type checker
else:
    _App = object


class KeepsCrash(_App):
    """Mixed into an ``App``: an unhandled exception closes it quietly."""

    _panic_text: str | None = None

    def _fatal_error(self) -> None:
        # Textual's renders Traceback(show_locals=True) into the exit output.
        self.bell()
        self._close_messages_no_wait()

    def panic(self, *renderables) -> None:
        # Textual's input thread hands over a rendered traceback (no locals).
        if self._panic_text is None:
            out = io.StringIO()
            Console(file=out, width=120, color_system=None, force_terminal=False).print(*renderables)
            self._panic_text = out.getvalue()
        self._return_code = 1
        self._close_messages_no_wait()

    @property
    def crash(self) -> BaseException | None:
        """The exception that ended the app, None after a normal quit."""
        if self._exception is not None:
            return self._exception
        if self._panic_text is not None:
            return UICrash("the UI's input thread failed", self._panic_text)
        return None
