"""A pane's row, a rich ``Text``, made into the ``Strip`` Textual would make
of it, at a fraction of the cost.

Textual draws a rich Text through its Visual protocol: ``visualize`` turns
it into a ``Content`` (every span's style converted), ``Visual.to_strips``
wraps and formats it, and every segment gets a rich style built afresh,
with the cell offset text selection reads in its meta (about 0.5-0.9 ms a
row on the 2-core machine this was measured on: most of what a steady UI
costs, docs/panes.md). A pane's rows are already one line, cut to the
pane's width, and their styles repeat from row to row and frame to frame;
``RowPainter`` splits a row into rich Segments (``Text.render``) and looks
each segment's final style up by (its style, its column) in a table made
once per widget style. The segments and styles are those Textual's path
makes (tests/tui/test_row_strips.py compares them on every pane).

What the fast path does not cover it declines (``None``), and the caller
goes through Textual: a text selection in the widget (its highlight), a
link in the row, a line break or tab, content not aligned left-top.
"""

from __future__ import annotations

from rich.segment import Segment
from rich.text import Text
from textual.strip import Strip
from textual.style import Style
from textual.widget import Widget

# Final styles kept per widget style: a pane's (style, column) pairs number
# a few hundred; past this the table starts over (a pane that drew every
# colour at every column would otherwise grow it without bound).
MAX_PLACED = 4096
_LEFT_TOP = ("left", "top")


def _pieces(text: Text, console) -> tuple[str | None, list[Segment]]:
    """``text`` as rich Segments, and its own style when Textual reads that
    style its own way. Content parses a row's style given as a string with
    Textual's parser (``magenta`` is then the CSS colour, not the ANSI one
    a span's string gets), so such a style is kept apart, not rendered in;
    and Text.render leaves a text without spans unstyled (its caller's job)."""
    style = text.style
    if isinstance(style, str) and style:
        if text._spans:
            text = text.copy()
            text.style = ""
            return style, list(text.render(console, end=""))
        return style, [Segment(text.plain)]
    if text._spans:
        return None, list(text.render(console, end=""))
    return None, [Segment(text.plain, style or None)]


class RowPainter:
    """One widget's rows as Strips: ``strip(widget, text)`` or None when
    Textual's own path must draw it (see the module docstring)."""

    __slots__ = ("_visual", "_theme", "_styles", "_placed")

    def __init__(self) -> None:
        self._visual: Style | None = None
        self._theme = None
        self._styles: dict = {}   # (row style, segment's rich style) -> the widget style + them (a Textual Style)
        self._placed: dict = {}   # (row style, segment's style, column) -> the segment's final rich style

    def strip(self, widget: Widget, text: Text) -> Strip | None:
        plain = text.plain
        if "\n" in plain or "\t" in plain or widget.text_selection is not None:
            return None
        if widget.styles.content_align != _LEFT_TOP:
            return None
        visual = widget.visual_style
        app = widget.app
        if visual is not self._visual:
            # A new theme restyles every widget: a new visual style, read here.
            self._visual, self._theme = visual, app.ansi_theme
            self._styles.clear()
            self._placed.clear()
        placed = self._placed
        if len(placed) > MAX_PLACED:
            placed.clear()
        segments: list[Segment] = []
        append = segments.append
        x = 0
        base, pieces = _pieces(text, app.console)
        if base is not None and base.startswith("."):
            return None  # a component class's style, looked up in the CSS
        for chunk, style, _ in pieces:
            if not chunk:
                continue
            key = (base, style, x)
            final = placed.get(key)
            if final is None:
                if style is not None and style.link:
                    return None  # Textual gives links the widget's link style
                final = placed[key] = self._combined(base, style).rich_style_with_offset(x, 0)
            append(Segment(chunk, final))
            x += len(chunk)
        return Strip(segments, text.cell_len)

    def _combined(self, base: str | None, style) -> Style:
        """A segment's style as Content builds it: the widget's style, the
        row's own (``base``, Textual-parsed), the span's; and the widget's
        again under all that (``to_strip``)."""
        key = (base, style)
        combined = self._styles.get(key)
        if combined is None:
            visual = self._visual
            spans = visual if base is None else visual + Style.parse(base)
            if style is not None:
                spans = spans + Style.from_rich_style(style, self._theme)
            combined = self._styles[key] = visual + spans
        return combined
