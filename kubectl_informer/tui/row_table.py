"""A table drawn as text whose cursor follows a row by its identity.

The attach screen's two tables (its workqueues, its informers) share it: a
header, the rows in view and ``▲ N more`` / ``▼ N more`` lines for the
rest, so the hints count exactly what is off screen; rows reorder with
activity while the cursor stays on its row. A subclass says what a row's
identity is, how its rows and columns are laid out, and which message
tells the app the selection moved.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rich.text import Text
from textual.binding import Binding
from textual.message import Message
from textual.widget import Widget

from kubectl_informer.panes.attach_view import window


class RowTable(Widget, can_focus=True):
    BINDINGS = [
        Binding("up,k", "move(-1)", "Up", show=False),
        Binding("down,j", "move(1)", "Down", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("home", "move(-1000000)", "First", show=False),
        Binding("end", "move(1000000)", "Last", show=False),
    ]
    EMPTY = "no row matches"

    def __init__(self, **kw) -> None:
        super().__init__(**kw)
        self.items: list[Any] = []
        self.cursor = 0
        self.cursor_id: Any = None
        self.top = 0
        self.hidden = (0, 0)  # (above, below) at the last draw

    # -- what a subclass says ---------------------------------------------------------
    def item_id(self, item: Any) -> Any:
        raise NotImplementedError

    def selected_message(self, item: Any) -> Message:
        raise NotImplementedError

    # -- the cursor -----------------------------------------------------------------------
    @property
    def selected(self) -> Any:
        return self.items[self.cursor] if self.items else None

    def show_items(self, items: list[Any]) -> None:
        """New rows, ordered; the cursor stays on its row if it is still shown."""
        self.items = items
        ids = [self.item_id(i) for i in items]
        if self.cursor_id in ids:
            self.cursor = ids.index(self.cursor_id)
        self.cursor = min(self.cursor, max(0, len(items) - 1))
        self.cursor_id = ids[self.cursor] if ids else None
        self.refresh()
        self.post_message(self.selected_message(self.selected))

    def action_move(self, by: int) -> None:
        if not self.items:
            return
        self.cursor = min(max(0, self.cursor + by), len(self.items) - 1)
        self.cursor_id = self.item_id(self.items[self.cursor])
        self.refresh()
        self.post_message(self.selected_message(self.selected))

    def action_page(self, direction: int) -> None:
        self.action_move(direction * max(1, self.size.height - 3))

    # -- drawing --------------------------------------------------------------------------
    def draw(
        self, header: tuple[str, ...], rows: list[tuple[str, ...]], line: Callable[[tuple[str, ...]], str]
    ) -> Text:
        """The header, the rows that fit around the cursor, and the more-lines."""
        out = Text(no_wrap=True, overflow="crop")
        out.append(line(header), "bold")
        if not rows:
            out.append(f"\n{self.EMPTY}")
            self.hidden = (0, 0)
            return out
        win = window(len(rows), self.cursor, self.size.height - 1, self.top)
        self.top, self.hidden = win.top, (win.above, win.below)
        if win.above:
            out.append(f"\n▲ {win.above} more", "bold yellow")
        for i in range(win.top, win.top + win.rows):
            out.append("\n")
            out.append(line(rows[i]), "reverse" if i == self.cursor else "")
        if win.below:
            out.append(f"\n▼ {win.below} more", "bold yellow")
            out.append("  (↑↓ PgUp PgDn move)", "dim")
        return out
