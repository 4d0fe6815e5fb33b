"""A pane drawn as lines of text, only as many as fit.

Textual's RichLog and DataTable cost about a quarter of a millisecond per
row written (docs/PERFORMANCE.md), far too slow for a stream of thousands of
deltas a second. A ``TextPane`` instead keeps nothing but its state's rings
and, when Textual asks for a frame, builds the few lines that are visible.
"""

from __future__ import annotations

from rich.text import Text

from kubectl_informer.panes.filters import MATCH_ALL, KeyFilter, parse_filter
from kubectl_informer.panes.state import PaneState
from kubectl_informer.tui.pane import Pane


class TextPane(Pane):
    """Base for the core panes: ``draw_lines`` builds the visible lines."""

    TITLE = ""

    def __init__(self, state: PaneState, **kwargs) -> None:
        super().__init__(state, **kwargs)
        self.filter_text = ""
        self.key_filter: KeyFilter = MATCH_ALL  # filter_text parsed (filters.py)
        if self.TITLE:
            self.border_title = self.TITLE

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

    def render_at(self, width: int, height: int) -> Text:
        """The pane drawn in ``width`` x ``height`` cells: at most ``height``
        lines, none wider than ``width`` (a pane 1 cell small still draws)."""
        width, height = max(width, 1), max(height, 1)
        lines = self.draw_lines(width, height)
        out = Text(no_wrap=True, overflow="ellipsis", end="")
        for i, line in enumerate(lines[:height]):
            if i:
                out.append("\n")
            line.truncate(width, overflow="ellipsis")
            out.append_text(line)
        return out

    def draw_lines(self, width: int, height: int) -> list[Text]:  # pragma: no cover - interface
        raise NotImplementedError


def matches(key: str | None, filter_text: str) -> bool:
    """Filter rule shared by the panes on a key alone (filters.py's syntax)."""
    return parse_filter(filter_text).matches(key)
