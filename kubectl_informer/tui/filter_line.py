"""The `/` filter line: a part the app owns.

``/`` opens an input at the bottom; each key typed filters the Deltas,
FIFO, Cache and Inspector panes (filters.py: text or regex,
``type:Deleted``, ``label:app=web``, ``!`` first inverts); enter keeps the
filter (one naming a key exactly picks it for the Inspector), esc clears
it, ``!`` inverts it. The app routes the input's messages here.
"""

from __future__ import annotations

from collections.abc import Callable

from textual.app import App
from textual.widget import Widget
from textual.widgets import Input

from kubectl_informer.tui.inspector import InspectorPane
from kubectl_informer.tui.pane import Pane
from kubectl_informer.tui.textpane import TextPane

PLACEHOLDER = "filter keys: text or regex · type:Deleted · label:app=web · ! first inverts · enter keeps · esc clears"
# The panes that filter their keys.
FILTERED = ("deltas", "fifo", "cache", "inspector")


class FilterLine:
    """``FilterLine(app, panes, changed)``: ``text`` is the filter now;
    ``changed()`` runs after it changed (the tab bar shows it)."""

    def __init__(self, app: App, panes: dict[str, Pane], changed: Callable[[], None]) -> None:
        self.app = app
        self.panes = panes
        self.changed = changed
        self.text = ""
        self.input = Input(placeholder=PLACEHOLDER, id="filter")

    def open(self) -> None:
        self.input.value = self.text
        self.input.display = True
        self.app.screen.set_focus(self.input)  # now: see InformerApp.on_event

    def set(self, text: str) -> None:
        self.text = text
        for name in FILTERED:
            pane = self.panes.get(name)
            if isinstance(pane, TextPane):  # every filtered pane is one
                pane.set_filter(text)
        self.changed()

    def submitted(self, value: str) -> None:
        """Enter: keep the filter, close the line."""
        self.set(value.strip())
        self.input.display = False
        inspector = self.panes.get("inspector")
        # A filter that names a key exactly picks it for the inspector.
        if self.text and isinstance(inspector, InspectorPane) and self.text in inspector.state.history:
            inspector.inspect(self.text)

    def escape(self, focus: Widget) -> bool:
        """Esc: close the line and clear the filter, or clear a kept filter.
        False if there was neither (esc means something else then)."""
        if self.input.display:
            self.input.display = False
            self.set("")
            focus.focus()
        elif self.text:
            self.set("")
        else:
            return False
        return True

    def invert(self) -> bool:
        """``!``: the filter inverted; False if there is none to invert."""
        if not self.text:
            return False
        self.set(self.text[1:].lstrip() if self.text.startswith("!") else f"!{self.text}")
        return True
