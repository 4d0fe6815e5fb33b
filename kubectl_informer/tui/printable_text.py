"""core/printable.py's rule for what the UI draws: rich ``Text`` rows,
blocks, and the app's notifications.

Rich drops BEL and a few other C0 controls when it renders, but not ESC nor
C1 controls nor bidi overrides: a name holding ``ESC ] 52 ; c ; ... BEL``
reached the terminal as a clipboard write. Every pane row goes through
``printable_row`` where TextPane builds its rows (tui/textpane.py), every
other widget showing a server's words (the YAML view, attach's cards and
table, a notification) through ``printable_text``. A row with nothing to
escape is returned as it is (one ``str.isprintable`` call: the UI draws
every visible row of a changed pane each frame).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, overload

from rich.text import Span, Text

from kubectl_informer.core.printable import escape_char, is_shown_raw, printable, printable_lines

if TYPE_CHECKING:
    from textual.app import App

    _App = App[None]  # what this is mixed into, for the type checker
else:
    _App = object


def _escaped(text: Text, keep: str) -> Text:
    plain = text.plain
    pieces = [ch if ch in keep or is_shown_raw(ch) else escape_char(ch) for ch in plain]
    offsets = [0]
    for piece in pieces:
        offsets.append(offsets[-1] + len(piece))
    out = Text(
        "".join(pieces),
        style=text.style,
        justify=text.justify,
        overflow=text.overflow,
        no_wrap=text.no_wrap,
        end=text.end,
        tab_size=text.tab_size,
    )
    out.spans = [Span(offsets[s.start], offsets[min(s.end, len(plain))], s.style) for s in text.spans]
    return out


def printable_row(text: Text) -> Text:
    """One row, its control characters (line breaks and tabs too) shown as
    escapes, its styles kept on the characters they styled."""
    if text.plain.isprintable():
        return text
    return _escaped(text, "")


@overload
def printable_text(text: Text) -> Text: ...
@overload
def printable_text(text: str) -> str: ...
def printable_text(text: Text | str) -> Text | str:
    """A block (a Text or a str): as ``printable_row`` but line breaks and tabs kept."""
    if isinstance(text, str):
        return printable_lines(text)
    if text.plain.isprintable():
        return text
    return _escaped(text, "\n\t")


class PrintableNotices(_App):
    """Mixed into an ``App``: a notification's message and title shown
    printable (they quote names and a server's errors), never as markup."""

    def notify(self, message, *, title: str = "", **kwargs) -> None:
        kwargs["markup"] = False
        super().notify(printable_lines(str(message)), title=printable(title), **kwargs)
