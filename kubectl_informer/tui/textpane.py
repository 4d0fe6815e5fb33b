"""A pane drawn as lines of text, only as many as fit.

Textual's RichLog and DataTable cost about a quarter of a millisecond per
row written (docs/PERFORMANCE.md), far too slow for a stream of thousands of
deltas a second. A ``TextPane`` instead keeps nothing but its state's rings
and, when Textual asks for a frame, builds the few lines that are visible.
"""

from __future__ import annotations

from rich.text import Text
from textual.geometry import Region
from textual.strip import Strip
from textual.visual import Visual, visualize

from kubectl_informer.panes.filters import MATCH_ALL, KeyFilter, parse_filter
from kubectl_informer.panes.state import PaneState
from kubectl_informer.tui.pane import Pane
from kubectl_informer.tui.printable_text import printable_row
from kubectl_informer.tui.row_strips import RowPainter


def text_lines(text: Text) -> list[Text]:
    """A multi-line Text as ``draw_lines`` returns it: one Text a row, blank rows kept."""
    return list(text.split("\n", allow_blank=True))


class TextPane(Pane):
    """Base for the core panes: ``draw_lines`` builds the visible lines.

    Drawing through Textual costs far more than building the lines (about
    10 ms a pane on the grid), so a redraw the app asks for
    (``render_state``) builds the lines, compares them with those on screen
    and repaints only the rows that changed; each row is converted once
    (``render_line``). Anything else asking for a whole refresh (a resize,
    the focus, a cursor) redraws every row, as Textual would."""

    TITLE = ""
    _row_texts: list[Text] | None = None  # the rows on screen (None: redraw all)
    _row_strips: list[Strip | None] = []  # each row converted, when asked for
    _rows_size: tuple[int, int] = (0, 0)
    _rows_outer = None  # the outer size the rows were drawn at

    def __init__(self, state: PaneState, **kwargs) -> None:
        super().__init__(state, **kwargs)
        self.filter_text = ""
        self.key_filter: KeyFilter = MATCH_ALL  # filter_text parsed (filters.py)
        if self.TITLE:
            self.border_title = self.TITLE
        self._painter = RowPainter()

    def set_filter(self, text: str) -> None:
        self.filter_text = text
        self.key_filter = parse_filter(text)
        self.refresh()

    def selected_key(self) -> str | None:
        """The key Enter should inspect; panes with a cursor override."""
        return None

    def render(self) -> Text:
        size = self.content_region.size if self.is_mounted else None
        return self.render_at(size.width if size else 80, size.height if size else 24)

    # -- repainting only the rows that changed ---------------------------------------
    def refresh(self, *regions: Region, **kwargs):
        if not regions:
            self._row_texts = None  # a whole refresh: every row drawn again
        return super().refresh(*regions, **kwargs)

    def render_state(self, now: float | None) -> None:
        if now is not None:
            self.now = now
        old = self._row_texts
        size = self.content_region.size if self.is_mounted else None
        if old is None or not size or (size.width, size.height) != self._rows_size:
            self.refresh()
            return
        rows = self._screen_rows(size.width, size.height)
        changed = [
            y for y in range(max(len(rows), len(old))) if y >= len(rows) or y >= len(old) or not _same(rows[y], old[y])
        ]
        if not changed:
            return
        self._row_strips = _moved_strips(old, self._row_strips, rows, changed)
        self._row_texts = rows
        self.refresh(*(Region(0, y, size.width, 1) for y in changed))

    def _screen_rows(self, width: int, height: int) -> list[Text]:
        """The rows as ``render_at`` draws them, one Text each."""
        width, height = max(width, 1), max(height, 1)
        # The one place a pane's rows pass before the screen: a server's
        # control characters shown as escapes (tui/printable_text.py).
        rows = [printable_row(line) for line in self.draw_lines(width, height)[:height]]
        for line in rows:
            line.truncate(width, overflow="ellipsis")
            line.end = ""
        return rows

    def render_line(self, y: int) -> Strip:
        # The widget's outer size read per row (cheap); its content region
        # (a look-up in the screen's map) only when that moved: a change of
        # border or padding comes with a whole refresh.
        outer = self.outer_size
        if self._row_texts is None or outer != self._rows_outer:
            size = self.content_region.size
            self._rows_outer = outer
            self._rows_size = (size.width, size.height)
            self._row_texts = self._screen_rows(size.width, size.height)
            self._row_strips = [None] * len(self._row_texts)
        width = self._rows_size[0]
        if y >= len(self._row_texts):
            return Strip.blank(width, self.visual_style.rich_style)
        strip = self._row_strips[y]
        if strip is None:
            strip = self._row_strips[y] = self._row_strip(self._row_texts[y], width)
        return strip

    def _row_strip(self, text: Text, width: int) -> Strip:
        """One row as a Strip: row_strips.py's fast path, else Textual's."""
        strip = self._painter.strip(self, text)
        if strip is None:
            made = Visual.to_strips(self, visualize(self, text), width, 1, self.visual_style)
            strip = made[0] if made else Strip.blank(width, self.visual_style.rich_style)
        return strip

    def render_at(self, width: int, height: int) -> Text:
        """The pane drawn in ``width`` x ``height`` cells: at most ``height``
        lines, none wider than ``width`` (a pane 1 cell small still draws)."""
        width, height = max(width, 1), max(height, 1)
        lines = self.draw_lines(width, height)
        out = Text(no_wrap=True, overflow="ellipsis", end="")
        for i, line in enumerate(lines[:height]):
            if i:
                out.append("\n")
            line = printable_row(line)
            line.truncate(width, overflow="ellipsis")
            out.append_text(line)
        return out

    def draw_lines(self, width: int, height: int) -> list[Text]:  # pragma: no cover - interface
        raise NotImplementedError


def _same(a: Text, b: Text) -> bool:
    """Whether two rows draw the same: rich's Text equality leaves out the
    text's own style (a row gone from dim to bold would not be redrawn)."""
    return a == b and a.style == b.style


def _moved_strips(
    old: list[Text], strips: list[Strip | None], rows: list[Text], changed: list[int]
) -> list[Strip | None]:
    """The strips for ``rows``: unchanged rows keep theirs, and a changed
    row that was on screen at another row (a list scrolled by one) takes
    that row's strip (a strip holds no row number: row_strips.py), so only
    rows new to the pane are converted again."""
    kept: dict[str, list[tuple[Text, Strip]]] = {}
    for text, strip in zip(old, strips, strict=False):
        if strip is not None:
            kept.setdefault(text.plain, []).append((text, strip))
    fresh = list(strips) + [None] * (len(rows) - len(strips))
    for y in changed:
        if y < len(fresh):
            fresh[y] = None
            if y < len(rows):
                fresh[y] = next((strip for text, strip in kept.get(rows[y].plain, ()) if _same(text, rows[y])), None)
    return fresh


def matches(key: str | None, filter_text: str) -> bool:
    """Filter rule shared by the panes on a key alone (filters.py's syntax)."""
    return parse_filter(filter_text).matches(key)
