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
        header = informer_header(with_name)
        rows = [informer_row(f, with_name) for f in self.informers]
        widths = [min(NAME_MAX if i == 0 else 1000, max(len(r[i]) for r in [header, *rows]))
                  for i in range(len(header))]
        out = Text(no_wrap=True, overflow="crop")
        out.append(_line(header, widths, with_name), "bold")
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
            out.append(_line(rows[i], widths, with_name), "reverse" if i == self.cursor else "")
        if win.below:
            out.append(f"\n▼ {win.below} more", "bold yellow")
            out.append("  (↑↓ PgUp PgDn move)", "dim")
        return out


def _line(cells: tuple[str, ...], widths: list[int], with_name: bool) -> str:
    """The name columns left-aligned, the figures right-aligned."""
    left = 2 if with_name else 1
    out = []
    for i, (cell, w) in enumerate(zip(cells, widths)):
        if len(cell) > w:
            cell = cell[:w - 1] + "…"
        out.append(cell.ljust(w) if i < left else cell.rjust(w))
    return "  ".join(out)
