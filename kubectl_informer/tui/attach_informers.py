"""The attach screen's informers table: one row per informer of the process.

client-go 1.36's ``informer_*`` series (attach/informers.py), the busiest
first, drawn as text like the queue table (a header, the rows in view,
``▲ N more`` / ``▼ N more`` for the rest). The cursor follows an informer
by its identity while rows reorder; the app shows the selected one's
percentile buckets under the table.
"""

from __future__ import annotations

from rich.text import Text
from textual.message import Message

from kubectl_informer.attach.informers import InformerFigures
from kubectl_informer.panes.attach_view import informer_header, informer_row
from kubectl_informer.tui.row_table import RowTable

NAME_MAX = 70  # "admissionregistration.k8s.io/v1 validatingadmissionpolicybindings" is 66
NAME_MIN = 30  # narrower than this, the informer column is cut with … rather than lose a figure
# Dropped in this order while a row is wider than the table: what can be read off another column first.
DROP_ORDER = ("SERVER RV", "PROCESSING p50", "NAME", "STORE RV")


def identity(f: InformerFigures) -> tuple[str, str, str, str]:
    return f.name, f.group, f.version, f.resource


class InformerTable(RowTable):
    DEFAULT_CSS = """
    InformerTable { height: 1fr; padding: 0 1; }
    """
    EMPTY = "no informer matches"

    class Selected(Message):
        """The informer under the cursor changed (or its figures did)."""

        def __init__(self, informer: InformerFigures | None) -> None:
            super().__init__()
            self.informer = informer

    @property
    def informers(self) -> list[InformerFigures]:
        return self.items

    def item_id(self, item: InformerFigures) -> tuple[str, str, str, str]:
        return identity(item)

    def selected_message(self, item: InformerFigures | None) -> Message:
        return self.Selected(item)

    def show(self, informers: list[InformerFigures]) -> None:
        self.show_items(informers)

    def render(self) -> Text:
        with_name = len({f.name for f in self.items}) > 1
        header, rows, widths = fitted(
            informer_header(with_name), [informer_row(f, with_name) for f in self.items], self.content_size.width
        )
        left = 2 if "NAME" in header else 1  # the text columns, left-aligned
        return self.draw(header, rows, lambda cells: _line(cells, widths, left))


def fitted(header: tuple[str, ...], rows: list[tuple[str, ...]], width: int):
    """The columns that fit ``width`` (all when it is 0: not laid out yet),
    dropping DROP_ORDER's first, then narrowing the informer column down to
    NAME_MIN; a row is never wrapped."""
    keep = list(range(len(header)))

    def widths_of(cols):
        return [min(NAME_MAX if c == 0 else 1000, max(len(r[c]) for r in [header, *rows])) for c in cols]

    def total(ws):
        return sum(ws) + 2 * (len(ws) - 1)

    for name in DROP_ORDER:
        if not width or total(widths_of(keep)) <= width:
            break
        if name in header:
            keep.remove(header.index(name))
    widths = widths_of(keep)
    if width and total(widths) > width:
        widths[0] = max(NAME_MIN, widths[0] - (total(widths) - width))
    return tuple(header[c] for c in keep), [tuple(r[c] for c in keep) for r in rows], widths


def _line(cells: tuple[str, ...], widths: list[int], left: int) -> str:
    """The ``left`` first (text) columns left-aligned, the figures right-aligned."""
    out = []
    for i, (cell, w) in enumerate(zip(cells, widths, strict=True)):
        if len(cell) > w:
            cell = cell[: w - 1] + "…"
        out.append(cell.ljust(w) if i < left else cell.rjust(w))
    return "  ".join(out)
