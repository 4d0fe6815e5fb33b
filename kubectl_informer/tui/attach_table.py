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

# Left-aligned; the others are figures, right-aligned.
TEXT_COLUMNS = ("QUEUE", "DEPTH (last scrapes)", "CONTROLLER rec/s, errors, workers")
NAME_MAX = 40  # a longer queue name is cut with … (kcm's longest is 36)
# Short of width, columns go in this order (as k9s drops its wide columns), never
# the queue's name, depth, adds or retries: a row stays one line.
DROP_ORDER = ("DEPTH (last scrapes)", "LONGEST", "WORK p50", "DRAIN/S", "CONTROLLER rec/s, errors, workers",
              "LATENCY p99", "WORK p99")


def fitted_columns(header: tuple[str, ...], widths: list[int], width: int) -> list[int]:
    """The indexes of the columns shown in ``width`` cells (two between columns)."""
    keep = list(range(len(header)))
    for name in DROP_ORDER:
        if sum(widths[i] for i in keep) + 2 * (len(keep) - 1) <= width:
            break
        if name in header:
            keep.remove(header.index(name))
    return keep


class QueueTable(Widget, can_focus=True):
    DEFAULT_CSS = """
    QueueTable { height: 1fr; padding: 0 1; text-wrap: nowrap; text-overflow: clip; }
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
        keep = fitted_columns(header, widths, self.content_region.width or 160)
        header, widths = tuple(header[i] for i in keep), [widths[i] for i in keep]
        rows = [tuple(r[i] for i in keep) for r in rows]
        out = Text(no_wrap=True, overflow="crop")
        out.append(_line(header, widths, header), "bold")
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
            out.append(_line(rows[i], widths, header), "reverse" if i == self.cursor else "")
        if win.below:
            out.append(f"\n▼ {win.below} more", "bold yellow")
            out.append("  (↑↓ PgUp PgDn move)", "dim")
        return out


def _line(cells: tuple[str, ...], widths: list[int], header: tuple[str, ...]) -> str:
    out = []
    for cell, w, name in zip(cells, widths, header):
        if len(cell) > w:
            cell = cell[:w - 1] + "…"
        out.append(cell.ljust(w) if name in TEXT_COLUMNS else cell.rjust(w))
    return "  ".join(out)
