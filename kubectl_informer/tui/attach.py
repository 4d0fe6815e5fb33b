"""The attach screen: a running controller's workqueues, from its metrics.

One card per workqueue (figures, then sparklines of depth, adds/s and
retries/s, and the backing-up sentence when it applies), one per
controller (reconciles/s by result, errors/s, workers), then the REST
client and informer counts. With ``--resource`` our own informer's Deltas
pane runs beside it, fed from the trace as in the main app.

The scraper thread writes the model under ``lock``; a timer here reads it at
a few Hz and updates only the cards whose figures changed.
"""

from __future__ import annotations

import threading

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Label, Sparkline, Static

from kubectl_informer.attach.model import (
    AttachModel,
    ControllerFigures,
    QueueFigures,
    fmt_seconds,
)
from kubectl_informer.attach.report import model_lines
from kubectl_informer.tui.crash import KeepsCrash

REFRESH_HZ = 4.0


def queue_text(q: QueueFigures) -> Text:
    t = Text.assemble(("workqueue ", "dim"), (q.name, "bold cyan"))
    if q.controller and q.controller != q.name:
        t.append(f" (controller {q.controller})", "dim")
    t.append("\n")
    t.append_text(Text.assemble(
        "depth ", (f"{q.depth:g}", "bold"), f" · adds {q.adds_per_s:.1f}/s · drain {q.drain_per_s:.1f}/s · retries ",
        (f"{q.retries_per_s:.1f}/s", "bold yellow" if q.retries_per_s else ""),
        f" · unfinished {fmt_seconds(q.unfinished)} · longest running {fmt_seconds(q.longest)}\n",
        "queue latency p50 ", (fmt_seconds(q.latency_p50), "bold"), " p99 ", (fmt_seconds(q.latency_p99), "bold"),
        " · work duration p50 ", (fmt_seconds(q.work_p50), "bold"), " p99 ", (fmt_seconds(q.work_p99), "bold"),
        (f" · totals: adds {q.adds_total:g}, retries {q.retries_total:g}", "dim")))
    if q.backing_up:
        t.append("\n")
        t.append(q.backing_up, "bold red")
    return t


def controller_text(c: ControllerFigures) -> Text:
    t = Text.assemble(("controller ", "dim"), (c.name, "bold magenta"), "  reconciles ")
    parts = [f"{r} {v:.1f}/s" for r, v in c.reconciles_per_s.items()] or ["-"]
    t.append(" · ".join(parts))
    t.append(" · errors ")
    t.append(f"{c.errors_per_s:.1f}/s", "bold red" if c.errors_per_s else "")
    active = "-" if c.active is None else f"{c.active:g}"
    most = "-" if c.max_workers is None else f"{c.max_workers:g}"
    t.append(f" · workers {active}/{most} active")
    return t


class SparkRow(Horizontal):
    DEFAULT_CSS = """
    SparkRow { height: 1; }
    SparkRow Label { width: 16; color: $text-muted; }
    SparkRow Sparkline { width: 1fr; margin-right: 2; }
    """

    def __init__(self, names: tuple[str, ...], **kw) -> None:
        super().__init__(**kw)
        self.names = names
        self.lines: dict[str, Sparkline] = {}
        self.labels: dict[str, Label] = {}

    def compose(self) -> ComposeResult:
        for n in self.names:
            self.labels[n] = Label(n)
            yield self.labels[n]
            line = Sparkline([0.0], summary_function=max)
            self.lines[n] = line
            yield line

    def show(self, series: dict[str, list[float]]) -> None:
        for n, data in series.items():
            self.lines[n].data = data or [0.0]
            # The scale: a sparkline's top is the largest value it holds.
            self.labels[n].update(f"{n} ≤{max(data or [0.0]):.3g}")


class QueueCard(Vertical):
    DEFAULT_CSS = """
    QueueCard { height: auto; border: round $primary 50%; padding: 0 1; }
    QueueCard Static { height: auto; }
    """

    def compose(self) -> ComposeResult:
        self.text = Static()
        yield self.text
        self.sparks = SparkRow(("depth", "adds/s", "retries/s"))
        yield self.sparks

    def show(self, q: QueueFigures) -> None:
        self.text.update(queue_text(q))
        self.sparks.show({"depth": list(q.depth_history), "adds/s": list(q.adds_history),
                          "retries/s": list(q.retries_history)})


class ControllerCard(Vertical):
    DEFAULT_CSS = """
    ControllerCard { height: auto; padding: 0 1; }
    ControllerCard Static { height: auto; }
    """

    def compose(self) -> ComposeResult:
        self.text = Static()
        yield self.text
        self.sparks = SparkRow(("rec/s", "errors/s"))
        yield self.sparks

    def show(self, c: ControllerFigures) -> None:
        self.text.update(controller_text(c))
        self.sparks.show({"rec/s": list(c.reconcile_history), "errors/s": list(c.error_history)})


class AttachApp(KeepsCrash, App[None]):
    """``AttachApp(model, lock, target)``; ``run`` (our informer, for
    ``--resource``) and its ``buffer`` put the Deltas pane beside."""

    TITLE = "kubectl informer attach"
    ENABLE_COMMAND_PALETTE = False
    BINDINGS = [Binding("q", "quit", "Quit"), Binding("ctrl+c", "quit", "Quit", show=False, priority=True)]
    CSS = """
    #status { height: 1; background: $boost; padding: 0 1; }
    #cards { width: 1fr; }
    #deltas { width: 1fr; border: round $secondary 50%; }
    #others { height: auto; padding: 0 1; color: $text-muted; }
    """

    def __init__(self, model: AttachModel, lock: threading.Lock, target: str, buffer=None, resource: str = "") -> None:
        super().__init__()
        self.model = model
        self.lock = lock
        self.target = target
        self.buffer = buffer
        self.resource = resource
        self.queue_cards: dict[str, QueueCard] = {}
        self.controller_cards: dict[str, ControllerCard] = {}
        self._shown = -1

    def compose(self) -> ComposeResult:
        self.status = Static(id="status")
        yield self.status
        with Horizontal():
            self.cards = VerticalScroll(id="cards")
            with self.cards:
                self.others = Static(id="others")
                yield self.others
            if self.buffer is not None:
                from kubectl_informer.panes.deltas import DeltasState
                from kubectl_informer.tui.deltas import DeltasPane
                self.deltas = DeltasPane(DeltasState(), id="deltas")
                self.deltas.border_title = f"Deltas: our informer on {self.resource}"
                yield self.deltas
        yield Static(Text.assemble((" q ", "bold reverse"), " Quit"), id="keys")

    def on_mount(self) -> None:
        self.set_interval(1.0 / REFRESH_HZ, self.refresh_model)
        self.refresh_model()

    def refresh_model(self) -> None:
        if self.buffer is not None:
            batch = self.buffer.drain(5000)
            if batch:
                self.deltas.state.feed_all(batch)
                self.deltas.refresh_view(batch[-1].time)
        with self.lock:
            if self.model.version == self._shown:
                return
            self._shown = self.model.version
            queues = list(self.model.queues.values())
            controllers = list(self.model.controllers.values())
            status = Text.assemble(("attach ", "bold"), self.target, f" · scrape {self.model.scrapes}")
            if self.model.error:
                status.append(f" · last scrape failed: {self.model.error}", "bold red")
            rest = [ln for ln in model_lines(self.model) if ln.startswith(("rest client", "informer ", "no work"))]
            self._place(queues, controllers)
        self.status.update(status)
        self.others.update("\n".join(rest))

    def _place(self, queues: list[QueueFigures], controllers: list[ControllerFigures]) -> None:
        # Controllers first, then queues; a new name gets a card, in arrival order.
        for figures, cards, cls in ((controllers, self.controller_cards, ControllerCard),
                                    (queues, self.queue_cards, QueueCard)):
            for f in figures:
                card = cards.get(f.name)
                if card is None:
                    card = cards[f.name] = cls()
                    self.cards.mount(card, before=self.others)
                self._show(card, f)

    def _show(self, card, figures) -> None:
        if hasattr(card, "text"):
            card.show(figures)
        else:
            self._shown = -1  # composed on the next frame: show it then
