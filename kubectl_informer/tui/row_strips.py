"""A pane's row, a rich ``Text``, made into the ``Strip`` Textual would make
of it, at a fraction of the cost.

Textual draws a rich Text through its Visual protocol: ``visualize`` turns
it into a ``Content`` (every span's style converted), ``Visual.to_strips``
wraps and formats it, and every segment gets a rich style built afresh,
with the cell offset text selection reads in its meta (0.5-0.9 ms a row
here, measured on a loaded 2-core machine: most of what a steady UI cost,
docs/panes.md). A pane's rows are already one line, cut to the pane's
width, and their styles repeat from row to row and frame to frame:
``RowPainter`` cuts a row at its spans and looks each piece's final style
up by (the row's style, the piece's style as given, its column) in a table
made once per widget style (rows whose spans overlap go through rich's
``Text.render`` first). The segments, their styles and the offsets in
their meta (the column, and row 0 of the one-line content, as Textual's
path writes them) are those Textual's path makes
(tests/tui/test_row_strips.py compares them on every pane and on
generated rows).

What the fast path does not cover it declines (``None``), and the caller
goes through Textual: a text selection in the widget (its highlight), a
link in the row, a line break or tab, content not aligned left-top, a
row styled by a component class.
"""

from __future__ import annotations

from rich.console import Console
from rich.segment import Segment
from rich.terminal_theme import TerminalTheme
from rich.text import Text
from textual.strip import Strip
from textual.style import Style
from textual.widget import Widget

# Final styles kept per widget style: a pane's (style, column) pairs number
# a few hundred; past this the table starts over (a pane that drew every
# colour at every column would otherwise grow it without bound).
MAX_PLACED = 4096
_LEFT_TOP = ("left", "top")


def _runs(text: Text) -> list[tuple[str, object]] | None:
    """``text`` cut at its spans, each piece with its span's style as given
    (a string or a rich Style; None between spans), when the spans neither
    overlap nor go back, as a row built by appending has them; else None
    (rich's Text.render then combines what overlaps)."""
    plain = text.plain
    runs: list[tuple[str, object]] = []
    x = 0
    for start, end, style in text._spans:
        if start < x:
            return None
        if start > x:
            runs.append((plain[x:start], None))
        if end > start:
            runs.append((plain[start:end], style))
            x = end
    if x < len(plain):
        runs.append((plain[x:], None))
    return runs


# A segment's style key: (how its style is given, the row's style, the segment's).
_AS_GIVEN, _RENDERED = 0, 1

# What a widget's rows are styled with: its visual style, and its app's ANSI theme and console.
_Look = tuple[Style, TerminalTheme, Console]


class RowPainter:
    """One widget's rows as Strips: ``strip(widget, text)`` or None when
    Textual's own path must draw it (see the module docstring)."""

    __slots__ = ("_look", "_styles", "_placed")

    def __init__(self) -> None:
        self._look: _Look | None = None  # None: no row drawn yet
        self._styles: dict = {}  # style key -> the widget's style + the row's + the segment's (a Textual Style)
        self._placed: dict = {}  # (style key, column) -> the segment's final rich style

    def strip(self, widget: Widget, text: Text) -> Strip | None:
        plain = text.plain
        if "\n" in plain or "\t" in plain or widget.text_selection is not None:
            return None
        if widget.styles.content_align != _LEFT_TOP:
            return None
        base = text.style
        if isinstance(base, str) and base.startswith("."):
            return None  # a component class's style, looked up in the CSS
        visual = widget.visual_style
        look = self._look
        if look is None or visual is not look[0]:
            # A new theme restyles every widget: a new visual style, read here.
            app = widget.app
            look = self._look = (visual, app.ansi_theme, app.console)
            self._styles.clear()
            self._placed.clear()
        pieces = self._pieces(text, look[2])
        placed = self._placed
        if len(placed) > MAX_PLACED:
            placed.clear()
        segments: list[Segment] = []
        append = segments.append
        x = 0
        for chunk, key in pieces:
            place = (key, x)
            final = placed.get(place)
            if final is None:
                combined = self._combined(key, look)
                if combined is None:
                    return None  # a link: Textual gives it the widget's link style
                final = placed[place] = combined.rich_style_with_offset(x, 0)
            append(Segment(chunk, final))
            x += len(chunk)
        return Strip(segments, text.cell_len)

    def _pieces(self, text: Text, console: Console) -> list[tuple[str, tuple]]:
        """``text``'s pieces, each with its style key (``_combined``)."""
        base = text.style or None
        runs = _runs(text)
        if runs is not None:
            return [(chunk, (_AS_GIVEN, base, style)) for chunk, style in runs if chunk]
        # Overlapping spans: rich combines them. A row style given as a
        # string stays apart (Content parses it with Textual's parser).
        if isinstance(base, str):
            text = text.copy()
            text.style = ""
        else:
            base = None  # rendered in
        return [(seg.text, (_RENDERED, base, seg.style)) for seg in text.render(console, end="") if seg.text]

    def _combined(self, key: tuple, look: _Look) -> Style | None:
        """A segment's style as Content builds it: the widget's style, the
        row's own (a string parsed by Textual's parser, as Content does),
        the span's (a string parsed by rich's, as Content does); and the
        widget's again under all that (``to_strip``). None: a link."""
        combined = self._styles.get(key)
        if combined is None:
            how, base, style = key
            visual, theme, console = look
            spans = visual
            if base is not None:
                spans = spans + (Style.parse(base) if isinstance(base, str) else Style.from_rich_style(base, theme))
            if style is not None:
                rich = console.get_style(style) if isinstance(style, str) else style
                if rich.link:
                    return None
                spans = spans + Style.from_rich_style(rich, theme)
            combined = self._styles[key] = visual + spans
        return combined
