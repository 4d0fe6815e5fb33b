"""The attach screen: a running controller's workqueues, from its metrics.

Queues are ordered by activity, busiest first (panes/attach_view.py). Up to
``TABLE_ABOVE`` of them: one card each (figures, then sparklines of depth,
adds/s and retries/s, and the backing-up sentence when it applies); above
that (a kube-controller-manager runs about 50), a table of one row per
queue with the selected queue's card under it; ``t`` switches. ``/``
filters queues by name as the main app filters keys. Lines ``▲ N more`` /
``▼ N more`` say what is off screen. One card per controller (reconciles/s
by result, errors/s, workers), then the REST client and informer counts and
kube-controller-manager's stale-sync skips. ``i`` switches to the
informers view: client-go 1.36's informer series, one row per informer
(tui/attach_informers.py), sorted and filtered the same way.
With ``--resource`` our own informer's Deltas pane runs beside it, fed from
the trace as in the main app.

The scraper thread writes the model under ``lock``; a timer here reads it at
a few Hz and updates only the cards whose figures changed.
"""

from __future__ import annotations

import threading

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Input, Static

from kubectl_informer.attach.informers import InformerFigures, informer_notes
from kubectl_informer.attach.model import (
    AttachModel,
    ControllerFigures,
    QueueFigures,
)
from kubectl_informer.attach.report import model_lines, skips_lines
from kubectl_informer.core.printable import printable_lines
from kubectl_informer.panes.attach_view import (
    TABLE_ABOVE,
    informer_detail,
    shown_informers,
    shown_queues,
)
from kubectl_informer.panes.deltas import DeltasState
from kubectl_informer.panes.feed import FeedLoop
from kubectl_informer.panes.filters import KeyFilter, parse_filter
from kubectl_informer.tui.attach_cards import ControllerCard, QueueCard
from kubectl_informer.tui.attach_informers import InformerTable
from kubectl_informer.tui.attach_table import QueueTable
from kubectl_informer.tui.crash import KeepsCrash
from kubectl_informer.tui.deltas import DeltasPane
from kubectl_informer.tui.printable_text import PrintableNotices, printable_text

REFRESH_HZ = 4.0


CARDS_MAX = 2 * TABLE_ABOVE  # queue cards mounted at most (two screens of them)
KEYS = (
    ("?", "Help"),
    ("q", "Quit"),
    ("/", "Filter"),
    ("t", "Table/cards"),
    ("i", "Informers/queues"),
    ("↑↓", "Move"),
    ("esc", "Clear filter"),
)
HELP_KEYS = (
    ("?", "this help (esc closes)"),
    ("q / ctrl+c", "quit"),
    (
        "/",
        "filter the queues (or the informers): text or a regex on the name, ! first inverts; enter keeps, esc clears",
    ),
    ("t", "table (every queue, busiest first) or cards (one per queue, with sparklines)"),
    ("i", "queues ⇄ informers: a client-go 1.36 process's informers, one row each"),
    ("↑ ↓ j k", "move through the queues; the table's selected queue opens below it"),
    ("esc", "clear the filter"),
)
HELP_ABOUT = (
    "The controller's own workqueues and reconciles, read from its /metrics page every "
    "--interval: depth, adds/s, retries/s, queue latency and work duration (p50/p99 estimated "
    "from the histogram buckets), unfinished work and the longest running processor, as "
    "client-go's workqueue metrics name them; with i, its informers (queued items, processing "
    "latency, store RV). docs/attach.md says where each figure comes from."
)


FILTER_QUEUES = "filter queues: text or regex on the name · ! first inverts · enter keeps · esc clears"
FILTER_INFORMERS = (
    "filter informers: text or regex on group/version/resource or the name · ! first inverts · enter keeps · esc clears"
)


class AttachApp(PrintableNotices, KeepsCrash, App[None]):
    """``AttachApp(model, lock, target)``; ``run`` (our informer, for
    ``--resource``) and its ``buffer`` put the Deltas pane beside."""

    TITLE = "kubectl informer attach"
    ENABLE_COMMAND_PALETTE = False
    AUTO_FOCUS = None  # not the hidden filter line: it would take the keys
    BINDINGS = [
        Binding("q", "quit", "Quit"),
        Binding("ctrl+c", "quit", "Quit", show=False, priority=True),
        Binding("question_mark", "help", "Help"),
        Binding("slash", "filter", "Filter"),
        Binding("t", "toggle_table", "Table/cards"),
        Binding("i", "toggle_informers", "Informers/queues"),
        Binding("escape", "clear_filter", "Clear filter", show=False),
    ]
    CSS = """
    #status { height: 1; background: $boost; padding: 0 1; text-wrap: nowrap; text-overflow: ellipsis; }
    #main { height: 1fr; }
    #left { width: 1fr; }
    #cards { height: 1fr; scrollbar-size-vertical: 0; }
    #cards.table-mode { height: auto; max-height: 40%; }
    #detail { height: auto; }
    #hint { height: 1; padding: 0 1; }
    #informer-notes, #informer-detail { height: auto; padding: 0 1; color: $text-muted; }
    #deltas { width: 1fr; border: round $secondary 50%; }
    #others { height: auto; padding: 0 1; color: $text-muted; }
    #filter { height: 1; border: none; padding: 0 1; }
    #keys { height: 1; }
    """

    def __init__(self, model: AttachModel, lock: threading.Lock, target: str, buffer=None, resource: str = "") -> None:
        super().__init__()
        self.model = model
        self.lock = lock
        self.target = target
        # Our informer's trace, fed to the Deltas pane by the loop every app shares.
        self.feed_loop = FeedLoop(buffer, {"deltas": DeltasState}) if buffer is not None else None
        self.resource = resource
        self.queue_cards: dict[str, QueueCard] = {}
        self.controller_cards: dict[str, ControllerCard] = {}
        self._shown = -1
        self.key_filter: KeyFilter = KeyFilter()
        self.mode = "auto"  # auto | table | cards
        self.shown: list[QueueFigures] = []  # the queues on screen, in order
        self.view = "queues"  # queues | informers (i)
        self.shown_informers: list[InformerFigures] = []  # the informers on screen, in order

    def compose(self) -> ComposeResult:
        self.status = Static(id="status")
        yield self.status
        with Horizontal(id="main"):
            with Vertical(id="left"):
                self.cards = VerticalScroll(id="cards")
                with self.cards:
                    self.others = Static(id="others")
                    yield self.others
                self.table = QueueTable(id="table")
                yield self.table
                self.detail = QueueCard(buckets=True, id="detail")
                yield self.detail
                self.informer_table = InformerTable(id="informers")
                yield self.informer_table
                self.informer_detail = Static(id="informer-detail")
                yield self.informer_detail
                self.informer_notes = Static(id="informer-notes")
                yield self.informer_notes
                self.hint = Static(id="hint")
                yield self.hint
            if self.feed_loop is not None:
                state = self.feed_loop.states["deltas"]
                assert isinstance(state, DeltasState)  # the feed loop made it from DeltasState (__init__)
                self.deltas = DeltasPane(state, id="deltas")
                self.deltas.border_title = f"Deltas: our informer on {self.resource}"
                yield self.deltas
        self.filter_input = Input(placeholder=FILTER_QUEUES, id="filter")
        yield self.filter_input
        # One line whatever the width: the keys that do not fit are cut, Quit (first) never.
        keys = Text.assemble(*[part for key, what in KEYS for part in ((f" {key} ", "bold reverse"), f" {what}  ")])
        keys.no_wrap, keys.overflow = True, "ellipsis"
        yield Static(keys, id="keys")

    def on_mount(self) -> None:
        self.filter_input.display = False
        self.table.display = self.detail.display = False
        self.informer_table.display = self.informer_detail.display = self.informer_notes.display = False
        # The hint line says what is off screen, in cards; a scrollbar's
        # thumb end (▁▁ past the cards' border) read as stray sparkline cells.
        self.watch(self.cards, "scroll_y", self._card_hint_after_refresh, init=False)
        self.set_interval(1.0 / REFRESH_HZ, self.refresh_model)
        self.refresh_model()
        self._focus_queues()

    def _card_hint_after_refresh(self, _scroll_y: float) -> None:
        self.call_after_refresh(self._card_hint)

    def _focus_queues(self) -> None:
        if self.view == "informers":
            self.informer_table.focus()
        else:
            (self.table if self.table_mode else self.cards).focus()

    @property
    def table_mode(self) -> bool:
        """Whether the queues are a table: asked with ``t``, else when more
        than TABLE_ABOVE would need cards."""
        if self.mode != "auto":
            return self.mode == "table"
        return len(self.shown) > TABLE_ABOVE

    def refresh_model(self) -> None:
        if self.feed_loop is not None and self.feed_loop.drain(max_events=5000):
            self.deltas.refresh_view(self.feed_loop.last_trace_time)
        self._card_hint()  # cards laid out since the last tick move what is off screen
        with self.lock:
            if self.model.version == self._shown:
                return
            self._shown = self.model.version
            self.shown = shown_queues(self.model.queues.values(), self.key_filter)
            self.shown_informers = shown_informers(self.model.informers.values(), self.key_filter)
            informers = self.view == "informers"
            total = len(self.model.informers if informers else self.model.queues)
            controllers = dict(self.model.controllers)
            # The scrape count and a failure before the target (long through pods/proxy): one line, cut at its end.
            status = Text.assemble(("attach", "bold"), f" · scrape {self.model.scrapes}")
            if self.key_filter:
                shown, what = (len(self.shown_informers), "informers") if informers else (len(self.shown), "queues")
                status.append(f" · /{self.key_filter.text}: {shown} of {total} {what}", "bold yellow")
            if self.key_filter.note:
                status.append(f" ({self.key_filter.note})", "yellow")
            if self.model.error:
                status.append(f" · last scrape failed: {self.model.error}", "bold red")
            rest = [
                ln
                for ln in model_lines(self.model, informers=False)
                if ln.startswith(("rest client", "informer ", "no work"))
            ]
            skips = skips_lines(self.model)
            has_informers = self.model.has_informers
            notes = informer_notes(has_informers, self.model.informers.values(), self.model.server_note)
            if self.model.informers:
                rest.append(
                    f"informers: {len(self.model.informers)} with client-go 1.36's informer series · i shows them"
                )
            status.append(f" · {self.target}")
        self.status.update(printable_text(status))  # a failed scrape's error quotes the page
        self.others.update(Text(printable_lines("\n".join(rest + skips + ([] if has_informers else notes)))))
        # Controller names and the API server's words: shown printable, never as markup.
        self.informer_notes.update(Text(printable_lines("\n".join(skips + notes))))
        if informers:
            self._place_informers(has_informers)
        else:
            self._place(controllers)

    def _place_informers(self, has_informers: bool) -> None:
        """The informers view: their table, their notes, nothing of the queues;
        a process without the series gets the note alone, no empty table."""
        self.cards.display = self.table.display = self.detail.display = False
        self.informer_table.display = self.informer_detail.display = has_informers
        self.informer_notes.display = True
        self.informer_table.show(self.shown_informers)
        hint = (
            f"{len(self.shown_informers)} informers, busiest first (queued, events/s, lag) · i queues · / filter"
            if has_informers
            else "i queues"
        )
        self.hint.update(Text(hint, "dim"))

    def _place(self, controllers: dict[str, ControllerFigures]) -> None:
        self.cards.display = True
        self.informer_table.display = self.informer_detail.display = self.informer_notes.display = False
        table = self.table_mode
        self.cards.set_class(table, "table-mode")
        self.table.display = self.detail.display = table
        # In the table, a controller-runtime controller's figures sit in its
        # queue's row: its card only shows when no queue shown is its own.
        own = {q.controller or q.name for q in self.shown} | {q.name for q in self.shown} if table else set()
        self._cards(
            self.controller_cards,
            ControllerCard,
            [c for c in controllers.values() if c.name not in own and self._passes(c.name)],
        )
        # Cards for the busiest CARDS_MAX only: 50 cards of 3 sparklines
        # took seconds to mount on a busy machine; the table shows them all.
        self._cards(self.queue_cards, QueueCard, [] if table else self.shown[:CARDS_MAX])
        if table:
            self.table.show(self.shown, controllers)
            self._table_hint()
        else:
            self.call_after_refresh(self._card_hint)  # once the cards are laid out

    def _passes(self, name: str) -> bool:
        return not self.key_filter or self.key_filter.matches(name)

    def _cards(self, cards: dict, cls, figures: list) -> None:
        """One card per figure, in the figures' order, before ``others``;
        cards of the figures not given are hidden (kept for their history)."""
        if self.others.parent is not self.cards:
            return  # the screen is being torn down (its children pruned): nothing to place them before
        wanted = {f.name for f in figures}
        for name, card in cards.items():
            card.display = name in wanted
        for f in figures:
            card = cards.get(f.name)
            if card is None:
                card = cards[f.name] = cls()
            if card.parent is None:  # new, or its mount was refused (a container closing does not mount)
                self.cards.mount(card, before=self.others)
            else:
                self.cards.move_child(card, before=self.others)
            self._show(card, f)

    def _show(self, card, figures) -> None:
        if hasattr(card, "text"):
            card.show(figures)
        else:
            self._shown = -1  # composed on the next frame: show it then

    def _card_hint(self) -> None:
        """``▲ N above · ▼ N more``: queue cards wholly out of the view."""
        if self.table_mode or self.view == "informers":
            return
        top, height = self.cards.scroll_y, self.cards.scrollable_content_region.height
        above = below = 0
        for card in self.queue_cards.values():
            region = card.virtual_region  # in the scrolled content; 0 high until laid out
            if not card.display:
                continue
            if not region.height:
                below += 1  # mounted, not laid out yet: placed after the others
            elif region.bottom <= top:
                above += 1
            elif region.y >= top + height:
                below += 1
        below += max(0, len(self.shown) - CARDS_MAX)  # no card: in the table (t)
        parts = ([f"▲ {above} above"] if above else []) + ([f"▼ {below} more"] if below else [])
        self.hint.update(
            Text.assemble(
                (" · ".join(parts), "bold yellow"), ("  (↑↓ PgUp PgDn scroll · t table)", "dim") if parts else ""
            )
        )

    def _table_hint(self) -> None:
        self.hint.update(
            Text(f"{len(self.shown)} queues, busiest first (depth, adds/s, retries/s) · t cards · / filter", "dim")
        )

    def on_queue_table_selected(self, message: QueueTable.Selected) -> None:
        if message.queue is None:
            self.detail.display = False
        elif hasattr(self.detail, "text"):
            self.detail.display = self.table_mode
            self.detail.show(message.queue)

    def action_help(self) -> None:
        from kubectl_informer.tui.help import HelpScreen

        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen([], keys=HELP_KEYS, title="kubectl informer attach: keys", about=HELP_ABOUT))

    def on_informer_table_selected(self, message: InformerTable.Selected) -> None:
        self.informer_detail.update(Text(informer_detail(message.informer)) if message.informer else "")

    def action_toggle_informers(self) -> None:
        self.view = "queues" if self.view == "informers" else "informers"
        self._shown = -1
        self.refresh_model()
        self._focus_queues()

    def action_toggle_table(self) -> None:
        self.mode = "cards" if self.table_mode else "table"
        self._shown = -1
        self.refresh_model()
        self._focus_queues()

    def action_filter(self) -> None:
        self.filter_input.placeholder = FILTER_INFORMERS if self.view == "informers" else FILTER_QUEUES
        self.filter_input.value = self.key_filter.text
        self.filter_input.display = True
        self.filter_input.focus()

    def set_filter(self, text: str) -> None:
        self.key_filter = parse_filter(text)
        self._shown = -1
        self.refresh_model()

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input is self.filter_input and self.filter_input.display:
            self.set_filter(event.value)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input is self.filter_input:
            self.set_filter(event.value)
            self.filter_input.display = False
            self._focus_queues()

    def action_clear_filter(self) -> None:
        self.filter_input.display = False
        if self.key_filter:
            self.set_filter("")
        self._focus_queues()
