"""Drawing the objects behind the deltas: the YAML screen (``y``) and diff lines.

What is kept per key, and why, is said in ``panes/objects.py``.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.markup import escape
from textual.screen import ModalScreen
from textual.widgets import Static

from kubectl_informer.core.diff import (
    METADATA,
    NOISE_RANK,
    SPEC,
    STATUS,
)
from kubectl_informer.core.printable import printable, printable_lines
from kubectl_informer.panes.objects import to_yaml

RANK_STYLES = {STATUS: "green", SPEC: "yellow", METADATA: "cyan", NOISE_RANK: "dim"}


def rank_style(rank: int) -> str:
    return RANK_STYLES.get(rank, "")


# --- YAML ------------------------------------------------------------------------------------


class YamlScreen(ModalScreen[None]):
    """The object as YAML, scrollable (↑ ↓ pgup pgdn home end); esc, q or y closes."""

    DEFAULT_CSS = """
    YamlScreen { align: center middle; }
    YamlScreen > VerticalScroll { width: 100%; height: 100%; border: round $accent; background: $surface; }
    """
    BINDINGS = [Binding("escape,q,y", "close", "Close")]

    def __init__(self, title: str, text: str) -> None:
        super().__init__()
        # The object is the server's: its strings shown printable, the title never read as markup.
        self.title_text = escape(printable(title))
        self.text = printable_lines(text)

    def compose(self) -> ComposeResult:
        # Imported when the screen opens: rich.syntax brings Pygments, a
        # tenth of the app's own import cost, and most runs never press y.
        from rich.syntax import Syntax

        scroll = VerticalScroll(id="yaml")
        scroll.border_title = self.title_text
        scroll.border_subtitle = "managedFields hidden, as kubectl · ↑↓ pgup pgdn home end · esc closes"
        with scroll:
            yield Static(Syntax(self.text, "yaml", theme="ansi_dark", word_wrap=False), id="yaml-body")

    def on_mount(self) -> None:
        self.query_one("#yaml").focus()

    def action_close(self) -> None:
        self.dismiss(None)


def yaml_view(key: str, entry, history, info) -> YamlScreen | str:
    """``y``: ``key``'s object as YAML, or why there is none (a warning).

    ``entry``: the Inspector's version under its cursor (a ``DeltaEntry``),
    if any; else the newest object ``history`` (the Inspector state's
    ``ObjectHistory``) holds. ``info`` is the run's: its resource says how
    to redact, ``show_secret_data`` whether to."""
    obj = entry.obj if entry is not None and entry.obj is not None else None
    if obj is None and history is not None:
        obj = history.latest(key)
        entry = None
    if obj is None:
        why = (
            "a recording keeps summaries and diffs, not objects"
            if info.replay
            else "its deltas are older than the objects the UI keeps"
        )
        return f"no object held for {key}: {why}"
    text = to_yaml(obj, info.resource, info.show_secret_data)
    meta = obj.get("metadata") or {}
    title = f"{key}  rv={meta.get('resourceVersion', '')}"
    if entry is not None:
        title += f"  as of {entry.event.fields.get('delta', '')} (seq {entry.event.seq})"
    return YamlScreen(title, text)


def change_text(rank: int, line: str, indent: int = 12) -> Text:
    t = Text(no_wrap=True)
    t.append(" " * indent)
    t.append(line, rank_style(rank))
    return t
