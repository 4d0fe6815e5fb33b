"""The attach screen's cards (tui/attach.py lays them out): one a workqueue
(its figures, then sparklines of depth, adds/s and retries/s, and the
backing-up sentence when it applies), one a controller (reconciles/s by
result, errors/s, workers)."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Label, Sparkline, Static

from kubectl_informer.attach.counters import rate
from kubectl_informer.attach.model import ControllerFigures, QueueFigures, fmt_seconds
from kubectl_informer.panes.attach_view import estimate, percentile_detail
from kubectl_informer.tui.printable_text import printable_text


def queue_text(q: QueueFigures, buckets: bool = False) -> Text:
    """The card's figures; ``buckets`` adds the line saying which histogram
    bucket each (estimated) percentile lies in."""
    t = Text.assemble(("workqueue ", "dim"), (q.name, "bold cyan"))
    if q.controller and q.controller != q.name:
        t.append(f" (controller {q.controller})", "dim")
    t.append("\n")
    t.append_text(
        Text.assemble(
            "depth ",
            (f"{q.depth:g}", "bold"),
            f" · adds {rate(q.adds_per_s, q.rated)} · drain {rate(q.drain_per_s, q.rated)} · retries ",
            (rate(q.retries_per_s, q.rated), "bold yellow" if q.retries_per_s else ""),
            f" · unfinished {fmt_seconds(q.unfinished)} · longest running {fmt_seconds(q.longest)}\n",
            "queue latency p50 ",
            (estimate(q.latency_p50), "bold"),
            " p99 ",
            (estimate(q.latency_p99), "bold"),
            " · work duration p50 ",
            (estimate(q.work_p50), "bold"),
            " p99 ",
            (estimate(q.work_p99), "bold"),
            (f" · totals: adds {q.adds_total:g}, retries {q.retries_total:g}", "dim"),
        )
    )
    if buckets:
        t.append("\n")
        t.append(percentile_detail(q), "dim")
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
    SparkRow { height: 1; width: 100%; }
    SparkRow Label { width: 18; padding-left: 2; color: $text-muted; }
    SparkRow Label.first { width: 16; padding-left: 0; }
    SparkRow Sparkline { width: 1fr; min-width: 1; }
    """
    # Gaps are the labels' own padding: a margin beside a 1fr sparkline
    # was not taken from the row's width, and drew its cells past the
    # card's border.

    def __init__(self, names: tuple[str, ...], **kw) -> None:
        super().__init__(**kw)
        self.names = names
        self.lines: dict[str, Sparkline] = {}
        self.labels: dict[str, Label] = {}
        self._series: dict[str, list[float]] = {}

    def compose(self) -> ComposeResult:
        for i, n in enumerate(self.names):
            self.labels[n] = Label(n, classes="" if i else "first")
            yield self.labels[n]
            line = Sparkline([0.0], summary_function=max)
            self.lines[n] = line
            yield line

    def show(self, series: dict[str, list[float]]) -> None:
        self._series = series
        if not self.lines:
            # A card mounted in this same refresh has not composed its row
            # yet (a KeyError under load): the series is drawn on mount.
            return
        for n, data in series.items():
            self.lines[n].data = data or [0.0]
            # The scale: a sparkline's top is the largest value it holds.
            self.labels[n].update(f"{n} ≤{max(data or [0.0]):.3g}")

    def on_mount(self) -> None:
        if self._series:
            self.show(self._series)


class QueueCard(Vertical):
    DEFAULT_CSS = """
    QueueCard { height: auto; border: round $primary 50%; padding: 0 1; }
    QueueCard Static { height: auto; }
    """

    def __init__(self, buckets: bool = False, **kw) -> None:
        super().__init__(**kw)
        self.buckets = buckets
        self.name_shown: str | None = None

    def compose(self) -> ComposeResult:
        self.text = Static()
        yield self.text
        self.sparks = SparkRow(("depth", "adds/s", "retries/s"))
        yield self.sparks

    def show(self, q: QueueFigures) -> None:
        self.name_shown = q.name
        self.text.update(printable_text(queue_text(q, self.buckets)))  # names: the metrics page's labels
        self.sparks.show(
            {"depth": list(q.depth_history), "adds/s": list(q.adds_history), "retries/s": list(q.retries_history)}
        )


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
        self.text.update(printable_text(controller_text(c)))
        self.sparks.show({"rec/s": list(c.reconcile_history), "errors/s": list(c.error_history)})
