"""The cursor the panes share: up/down (and home) over the rows a pane drew
last, so Enter inspects the key under it. One implementation, used by the
FIFO and Inspector panes; the Deltas pane, whose cursor follows a row while
new ones arrive, takes the same keys."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.binding import Binding

if TYPE_CHECKING:
    from textual.widget import Widget

    _PaneWidget = Widget  # what this is mixed into, for the type checker
else:
    _PaneWidget = object

CURSOR_BINDINGS = [
    Binding("up,k", "cursor(-1)", "Up", show=False),
    Binding("down,j", "cursor(1)", "Down", show=False),
]
HOME_BINDING = Binding("home,g", "cursor_home", "Top", show=False)


class KeyCursor(_PaneWidget):
    """A cursor over ``cursor_keys``, the selectable keys of the last frame
    (the pane's draw sets them). Mixed into a pane widget."""

    cursor: int = 0
    cursor_keys: list[str]

    def action_cursor(self, step: int) -> None:
        self.cursor = max(0, min(self.cursor + step, max(len(self.cursor_keys) - 1, 0)))
        self.refresh()

    def action_cursor_home(self) -> None:
        self.cursor = 0
        self.refresh()

    def cursor_key(self) -> str | None:
        if not self.cursor_keys:
            return None
        return self.cursor_keys[min(self.cursor, len(self.cursor_keys) - 1)]

    def clamp_cursor(self) -> int:
        """The cursor kept inside the keys just drawn."""
        self.cursor = min(self.cursor, max(len(self.cursor_keys) - 1, 0))
        return self.cursor
