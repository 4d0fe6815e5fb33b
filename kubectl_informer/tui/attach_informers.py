"""The attach screen's informers table: one row per informer of the process.

client-go 1.36's ``informer_*`` series (attach/informers.py), the busiest
first, drawn as text like the queue table (a header, the rows in view,
``▲ N more`` / ``▼ N more`` for the rest). The cursor follows an informer
by its identity while rows reorder; the app shows the selected one's
percentile buckets under the table.
"""

from __future__ import annotations

from rich.text import Text
from textual.binding import Binding
from textual.message import Message
from textual.widget import Widget

from kubectl_informer.attach.informers import InformerFigures
from kubectl_informer.panes.attach_view import informer_header, informer_row, window

NAME_MAX = 70  # "admissionregistration.k8s.io/v1 validatingadmissionpolicybindings" is 66
NAME_MIN = 30  # narrower than this, the informer column is cut with … rather than lose a figure
# Dropped in this order while a row is wider than the table: what can be read off another column first.
DROP_ORDER = ("SERVER RV", "PROCESSING p50", "NAME", "STORE RV")


def identity(f: InformerFigures) -> tuple[str, str, str, str]:
    return f.name, f.group, f.version, f.resource


class InformerTable(Widget, can_focus=True):
    DEFAULT_CSS = """
    InformerTable { height: 1fr; padding: 0 1; }
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
        """The informer under the cursor changed (or its figures did)."""

        def __init__(self, informer: InformerFigures | None) -> None:
            super().__init__()
            self.informer = informer

    def __init__(self, **kw) -> None:
        super().__init__(**kw)
        self.informers: list[InformerFigures] = []
        self.cursor = 0
        self.cursor_id: tuple[str, str, str, str] | None = None
        self.top = 0
        self.hidden = (0, 0)  # (above, below) at the last draw

    @property
    def selected(self) -> InformerFigures | None:
        return self.informers[self.cursor] if self.informers else None

    def show(self, informers: list[InformerFigures]) -> None:
        """New figures, ordered; the cursor stays on its informer if still shown."""
        self.informers = informers
        ids = [identity(f) for f in informers]
        if self.cursor_id in ids:
            self.cursor = ids.index(self.cursor_id)
        self.cursor = min(self.cursor, max(0, len(informers) - 1))
        self.cursor_id = ids[self.cursor] if ids else None
        self.refresh()
        self.post_message(self.Selected(self.selected))

    def action_move(self, by: int) -> None:
        if not self.informers:
            return
        self.cursor = min(max(0, self.cursor + by), len(self.informers) - 1)
        self.cursor_id = identity(self.informers[self.cursor])
        self.refresh()
        self.post_message(self.Selected(self.selected))

    def action_page(self, direction: int) -> None:
        self.action_move(direction * max(1, self.size.height - 3))

    def render(self) -> Text:
        with_name = len({f.name for f in self.informers}) > 1
        header, rows, widths = fitted(informer_header(with_name), [informer_row(f, with_name) for f in self.informers],
                                      self.content_size.width)
        left = 2 if "NAME" in header else 1  # the text columns, left-aligned
        out = Text(no_wrap=True, overflow="crop")
        out.append(_line(header, widths, left), "bold")
        if not rows:
            out.append("\nno informer matches")
            self.hidden = (0, 0)
            return out
        win = window(len(rows), self.cursor, self.size.height - 1, self.top)
        self.top, self.hidden = win.top, (win.above, win.below)
        if win.above:
            out.append(f"\n▲ {win.above} more", "bold yellow")
        for i in range(win.top, win.top + win.rows):
            out.append("\n")
            out.append(_line(rows[i], widths, left), "reverse" if i == self.cursor else "")
        if win.below:
            out.append(f"\n▼ {win.below} more", "bold yellow")
            out.append("  (↑↓ PgUp PgDn move)", "dim")
        return out


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
    for i, (cell, w) in enumerate(zip(cells, widths)):
        if len(cell) > w:
            cell = cell[:w - 1] + "…"
        out.append(cell.ljust(w) if i < left else cell.rjust(w))
    return "  ".join(out)
