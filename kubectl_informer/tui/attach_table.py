"""The attach screen's table: one row per workqueue, the busiest first.

Drawn as text (a header, the rows in view, ``▲ N more`` / ``▼ N more``
lines for the rest) so the hints count exactly what is off screen. The
cursor follows a queue by name while rows reorder with activity; the
selected queue's card (figures, sparklines, percentile buckets) is shown
under the table by the app.
"""

from __future__ import annotations

from rich.text import Text
from textual.message import Message

from kubectl_informer.attach.model import ControllerFigures, QueueFigures
from kubectl_informer.panes.attach_view import TABLE_HEADER, table_row
from kubectl_informer.tui.printable_text import printable_text
from kubectl_informer.tui.row_table import RowTable

# Left-aligned; the others are figures, right-aligned.
TEXT_COLUMNS = ("QUEUE", "DEPTH (last scrapes)", "CONTROLLER rec/s, errors, workers")
NAME_MAX = 40  # a longer queue name is cut with … (kcm's longest is 36)
# Short of width, columns go in this order (as k9s drops its wide columns), never
# the queue's name, depth, adds or retries: a row stays one line.
DROP_ORDER = (
    "DEPTH (last scrapes)",
    "LONGEST",
    "WORK p50",
    "DRAIN/S",
    "CONTROLLER rec/s, errors, workers",
    "LATENCY p99",
    "WORK p99",
)


def fitted_columns(header: tuple[str, ...], widths: list[int], width: int) -> list[int]:
    """The indexes of the columns shown in ``width`` cells (two between columns)."""
    keep = list(range(len(header)))
    for name in DROP_ORDER:
        if sum(widths[i] for i in keep) + 2 * (len(keep) - 1) <= width:
            break
        if name in header:
            keep.remove(header.index(name))
    return keep


class QueueTable(RowTable):
    DEFAULT_CSS = """
    QueueTable { height: 1fr; padding: 0 1; text-wrap: nowrap; text-overflow: clip; }
    """
    EMPTY = "no workqueue matches"

    class Selected(Message):
        """The queue under the cursor changed (or its figures did)."""

        def __init__(self, queue: QueueFigures | None) -> None:
            super().__init__()
            self.queue = queue

    def __init__(self, **kw) -> None:
        super().__init__(**kw)
        self.controllers: dict[str, ControllerFigures] = {}

    @property
    def queues(self) -> list[QueueFigures]:
        return self.items

    def item_id(self, item: QueueFigures) -> str:
        return item.name

    def selected_message(self, item: QueueFigures | None) -> Message:
        return self.Selected(item)

    def show(self, queues: list[QueueFigures], controllers: dict[str, ControllerFigures]) -> None:
        self.controllers = controllers
        self.show_items(queues)

    def _rows(self) -> list[tuple[str, ...]]:
        return [table_row(q, self._controller_of(q) if self.controllers else None) for q in self.items]

    def _controller_of(self, q: QueueFigures) -> ControllerFigures | None:
        return self.controllers.get(q.controller or q.name) or self.controllers.get(q.name)

    def render(self) -> Text:
        # Queue and controller names are the metrics page's labels.
        return printable_text(self._table_text())

    def _table_text(self) -> Text:
        header = TABLE_HEADER + (("CONTROLLER rec/s, errors, workers",) if self.controllers else ())
        rows = self._rows()
        widths = [
            min(NAME_MAX if i == 0 else 1000, max(len(r[i]) for r in [header, *rows])) for i in range(len(header))
        ]
        keep = fitted_columns(header, widths, self.content_region.width or 160)
        header, widths = tuple(header[i] for i in keep), [widths[i] for i in keep]
        rows = [tuple(r[i] for i in keep) for r in rows]
        return self.draw(header, rows, lambda cells: _line(cells, widths, header))


def _line(cells: tuple[str, ...], widths: list[int], header: tuple[str, ...]) -> str:
    out = []
    for cell, w, name in zip(cells, widths, header, strict=True):
        if len(cell) > w:
            cell = cell[: w - 1] + "…"
        out.append(cell.ljust(w) if name in TEXT_COLUMNS else cell.rjust(w))
    return "  ".join(out)
