"""Help screen: the keys, and what each pane tells a controller author."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from kubectl_informer.tui.keymap import HELP_KEYS

PANE_HELP = {
    "informers": "a run with several informers (queue --controller deployment, queue --owns, "
    "watch deploy,rs,pods): one row per informer, "
    "each its own reflector, FIFO, indexer and handlers from one factory: synced, the resourceVersion it "
    "reached, objects cached, FIFO depth, notifications its handlers still have to take, relists, and owned "
    "objects' events that mapped to no key (dropped); ▶ marks the informer every other pane shows (↑ ↓, tab, :rs)",
    "deltas": "every delta the informer applied to its indexer, in the order your handlers get them: "
    "type (Added Updated Deleted Replaced Sync), key, resourceVersion, status and what changed; on an update "
    "GRLA are the controller-runtime predicates that would pass it (GenerationChanged, ResourceVersionChanged, "
    "LabelChanged, AnnotationChanged; · drops it), resync an update with the same RV, init a delta of the "
    "initial list, tombstone a delete a relist found (DeletedFinalStateUnknown: last state unknown)",
    "fifo": "keys waiting in the DeltaFIFO/RealFIFO with their pending deltas; DeltaFIFO accumulates a key's "
    "deltas in one slot (they pop together, the handler still gets each), RealFIFO keeps each as its own "
    "entry; a dedup is two deletions made one, a skip a delta not queued",
    "rv": "resourceVersion over time with list, watch start, bookmark, relist and 410 Gone marks",
    "resync": "resync check-period ticks; per handler the period asked and the period got, and why",
    "queue": "the workqueue: queued, dirty, processing, waiting (rate limited), workers and metrics",
    "cache": "objects in the informer's indexer (your lister's view), per namespace",
    "handlers": "one lane per event handler (client-go's processorListener, its own goroutine and buffer): "
    "the resync asked and got, add/update/delete/sync notifications given and handled, its pending buffer "
    "now, at its peak and over time; SLOW when the buffer grows behind a slow call",
    "inspector": "one key's whole life: watch event → FIFO → pop → store → handler → queue → worker",
    "server": "the API server's side of the watch: its watch cache's window (oldest to newest RV kept), every "
    "watcher's position in it with ours marked, one per informer (simulator, exact), or the cache's RV against "
    "ours in etcd revisions, events/s, capacity, terminated watchers and consistent reads from its /metrics (a "
    "real cluster, 1.30 to 1.36); the 410s, "
    "too-large answers and cache re-initialisations it gave us",
    "explain": "what client-go did for the selection in the pane you came from, and why, with this run's "
    "numbers and a docs/ link; j/k step through older RV marks, resync ticks and queue items",
}


class HelpScreen(ModalScreen[None]):
    """Keys first (what you need now), then one line per pane."""

    BINDINGS = [
        Binding("escape,question_mark", "dismiss_help", "Close"),
        Binding("q", "app.quit", "Quit"),
    ]

    def __init__(
        self, panes: list[tuple[str, str, str]], keys=None, title: str = "kubectl informer: keys", about: str = ""
    ) -> None:
        """``panes``: (jump keys, title, name) in tab order; ``keys`` and
        ``title`` another app's (attach), ``about`` what its screen shows."""
        super().__init__(id="help")
        self.panes = panes
        self.keys = HELP_KEYS if keys is None else keys
        self.title_text = title
        self.about = about

    def compose(self) -> ComposeResult:
        keys = Table.grid(padding=(0, 2))
        keys.add_column(style="bold cyan", no_wrap=True)
        keys.add_column()
        for k, what in self.keys:
            keys.add_row(k, what)
        if not self.panes:  # attach: its keys and what it shows
            with VerticalScroll(id="help-body"):
                yield Static(Text(self.title_text, style="bold reverse"))
                yield Static(keys)
                if self.about:
                    yield Static(Text("\n" + self.about))
                yield Static(Text("\nesc or ? closes this help", style="dim"))
            return
        panes = Table.grid(padding=(0, 2))
        panes.add_column(style="bold cyan", no_wrap=True)
        panes.add_column(style="bold", no_wrap=True)
        panes.add_column()
        for jump, title, name in self.panes:
            panes.add_row(jump, title, PANE_HELP.get(name, ""))
        from kubectl_informer.tui.command import help_rows

        commands = Table.grid(padding=(0, 2))
        commands.add_column(style="bold cyan", no_wrap=True)
        commands.add_column()
        for usage, what in help_rows():
            commands.add_row(usage, what)
        with VerticalScroll(id="help-body"):
            yield Static(Text(self.title_text, style="bold reverse"))
            yield Static(keys)
            yield Static(Text("\npanes", style="bold reverse"))
            yield Static(panes)
            yield Static(Text("\n: commands", style="bold reverse"))
            yield Static(commands)
            yield Static(Text("\nesc or ? closes this help", style="dim"))

    def action_dismiss_help(self) -> None:
        self.dismiss(None)
