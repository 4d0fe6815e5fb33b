"""The attach screen's table: one row per workqueue, the busiest first.

Drawn as text (a header, the rows in view, ``▲ N more`` / ``▼ N more``
lines for the rest) so the hints count exactly what is off screen. The
cursor follows a queue by name while rows reorder with activity; the
selected queue's card (figures, sparklines, percentile buckets) is shown
under the table by the app.
"""

from __future__ import annotations

from rich.text import Text
from textual.binding import Binding
from textual.message import Message
from textual.widget import Widget

from kubectl_informer.attach.model import ControllerFigures, QueueFigures
from kubectl_informer.panes.attach_view import TABLE_HEADER, table_row, window
from kubectl_informer.tui.printable_text import printable_text

_SPARK_COLUMN = TABLE_HEADER.index("DEPTH (last scrapes)")  # it and the controller's are text, left-aligned
NAME_MAX = 40  # a longer queue name is cut with … (kcm's longest is 36)


class QueueTable(Widget, can_focus=True):
    DEFAULT_CSS = """
    QueueTable { height: 1fr; padding: 0 1; }
    """
    BINDINGS = [
        Binding("up,k", "move(-1)", "Up", show=False),
        Binding("down,j", "move(1)", "Down", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("home", "move(-1000000)", "First", show=False),
        Binding("end", "move(1000000)", "Last", show=False),
    ]

    class Selected(Message):
        """The queue under the cursor changed (or its figures did)."""

        def __init__(self, queue: QueueFigures | None) -> None:
            super().__init__()
            self.queue = queue

    def __init__(self, **kw) -> None:
        super().__init__(**kw)
        self.queues: list[QueueFigures] = []
        self.controllers: dict[str, ControllerFigures] = {}
        self.cursor = 0
        self.cursor_name: str | None = None
        self.top = 0
        self.hidden = (0, 0)  # (above, below) at the last draw

    @property
    def selected(self) -> QueueFigures | None:
        return self.queues[self.cursor] if self.queues else None

    def show(self, queues: list[QueueFigures], controllers: dict[str, ControllerFigures]) -> None:
        """New figures, ordered; the cursor stays on its queue if it is still shown."""
        self.queues, self.controllers = queues, controllers
        names = [q.name for q in queues]
        if self.cursor_name in names:
            self.cursor = names.index(self.cursor_name)
        self.cursor = min(self.cursor, max(0, len(queues) - 1))
        self.cursor_name = names[self.cursor] if names else None
        self.refresh()
        self.post_message(self.Selected(self.selected))

    def action_move(self, by: int) -> None:
        if not self.queues:
            return
        self.cursor = min(max(0, self.cursor + by), len(self.queues) - 1)
        self.cursor_name = self.queues[self.cursor].name
        self.refresh()
        self.post_message(self.Selected(self.selected))

    def action_page(self, direction: int) -> None:
        self.action_move(direction * max(1, self.size.height - 3))

    def _rows(self) -> list[tuple[str, ...]]:
        return [table_row(q, self._controller_of(q) if self.controllers else None) for q in self.queues]

    def _controller_of(self, q: QueueFigures) -> ControllerFigures | None:
        return self.controllers.get(q.controller or q.name) or self.controllers.get(q.name)

    def render(self) -> Text:
        # Queue and controller names are the metrics page's labels.
        return printable_text(self._table_text())

    def _table_text(self) -> Text:
        header = TABLE_HEADER + (("CONTROLLER rec/s, errors, workers",) if self.controllers else ())
        rows = self._rows()
        widths = [min(NAME_MAX if i == 0 else 1000, max(len(r[i]) for r in [header, *rows]))
                  for i in range(len(header))]
        out = Text(no_wrap=True, overflow="crop")
        out.append(_line(header, widths), "bold")
        if not rows:
            out.append("\nno workqueue matches" if self.queues is not None else "")
            self.hidden = (0, 0)
            return out
        win = window(len(rows), self.cursor, self.size.height - 1, self.top)
        self.top, self.hidden = win.top, (win.above, win.below)
        if win.above:
            out.append(f"\n▲ {win.above} more", "bold yellow")
        for i in range(win.top, win.top + win.rows):
            out.append("\n")
            out.append(_line(rows[i], widths), "reverse" if i == self.cursor else "")
        if win.below:
            out.append(f"\n▼ {win.below} more", "bold yellow")
            out.append("  (↑↓ PgUp PgDn move)", "dim")
        return out


def _line(cells: tuple[str, ...], widths: list[int]) -> str:
    out = []
    for i, (cell, w) in enumerate(zip(cells, widths)):
        if len(cell) > w:
            cell = cell[:w - 1] + "…"
        out.append(cell.ljust(w) if i == 0 or i >= _SPARK_COLUMN else cell.rjust(w))
    return "  ".join(out)
