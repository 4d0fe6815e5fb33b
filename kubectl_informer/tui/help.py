"""Help screen: the keys, and what each pane tells a controller author."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from .keymap import HELP_KEYS

PANE_HELP = {
    "deltas": "every delta the informer applied to its indexer, in the order your handlers get them: "
    "type (Added Updated Deleted Replaced Sync), key, resourceVersion, status and what changed",
    "fifo": "keys waiting in the DeltaFIFO/RealFIFO with their pending deltas; a coalesce is a delta "
    "appended to a key already queued, a dedup two deletions collapsed, a skip a delta dropped",
    "rv": "resourceVersion over time with list, watch start, bookmark, relist and 410 Gone marks",
    "resync": "resync check-period ticks; per handler the period asked and the period got, and why",
    "queue": "the workqueue: queued, dirty, processing, waiting (rate limited), workers and metrics",
    "cache": "objects in the informer's indexer (your lister's view), per namespace",
    "inspector": "one key's whole life: watch event → FIFO → pop → store → handler → queue → worker",
    "explain": "what client-go did for the selection in the pane you came from, and why, with this run's "
    "numbers and a docs/ link; j/k step through older RV marks, resync ticks and queue items",
}


class HelpScreen(ModalScreen[None]):
    """Keys first (what you need now), then one line per pane."""

    BINDINGS = [
        Binding("escape,question_mark", "dismiss_help", "Close"),
        Binding("q", "app.quit", "Quit"),
    ]

    def __init__(self, panes: list[tuple[str, str, str]]) -> None:
        """``panes``: (jump keys, title, name) in tab order."""
        super().__init__(id="help")
        self.panes = panes

    def compose(self) -> ComposeResult:
        keys = Table.grid(padding=(0, 2))
        keys.add_column(style="bold cyan", no_wrap=True)
        keys.add_column()
        for k, what in HELP_KEYS:
            keys.add_row(k, what)
        panes = Table.grid(padding=(0, 2))
        panes.add_column(style="bold cyan", no_wrap=True)
        panes.add_column(style="bold", no_wrap=True)
        panes.add_column()
        for jump, title, name in self.panes:
            panes.add_row(jump, title, PANE_HELP.get(name, ""))
        with VerticalScroll(id="help-body"):
            yield Static(Text("kubectl informer: keys", style="bold reverse"))
            yield Static(keys)
            yield Static(Text("\npanes", style="bold reverse"))
            yield Static(panes)
            yield Static(Text("\nesc or ? closes this help", style="dim"))

    def action_dismiss_help(self) -> None:
        self.dismiss(None)
