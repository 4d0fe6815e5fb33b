"""The footer: the app's keys on one line, fitted to the terminal's width.

Textual's Footer recomposes its keys on every focus change, which costs a
relayout per tab press and, under a flood of events, left its old key
widgets alive (hundreds a minute in bench/tui.py); our keys do not change
with focus, so one line of text says them, drawn for the width there is.
"""

from __future__ import annotations

from rich.text import Text
from textual.widget import Widget

from kubectl_informer.tui.keymap import FOOTER_HINTS


def hints_line(hints, width: int) -> Text:
    """``hints`` (key, what, short what, rank) in ``width`` cells: full words
    if they fit, else the short ones, else without the lowest ranks."""
    for words in (1, 2):
        line = _line(hints, words)
        if line.cell_len <= width:
            return line
    kept = list(hints)
    for rank in sorted({h[3] for h in hints})[:-1]:
        kept = [h for h in kept if h[3] > rank]
        line = _line(kept, 2)
        if line.cell_len <= width:
            return line
    return _line(kept, 2)  # the last ranks alone; the widget crops them


def _line(hints, words: int) -> Text:
    t = Text(no_wrap=True, overflow="ellipsis", end="")
    for i, hint in enumerate(hints):
        t.append(f" {hint[0]} ", "bold reverse")
        t.append(f" {hint[words]}" + (" " if i < len(hints) - 1 else ""))
    return t


class KeyHints(Widget):
    """One line of key hints; ``set_hints`` replaces them (the replay's keys)."""

    DEFAULT_CSS = "KeyHints { height: 1; }"

    def __init__(self, hints=None, **kwargs) -> None:
        super().__init__(**kwargs)
        self.hints = list(FOOTER_HINTS if hints is None else hints)

    def set_hints(self, hints) -> None:
        self.hints = list(hints)
        self.refresh()

    def render(self) -> Text:
        return hints_line(self.hints, self.size.width or 80)
