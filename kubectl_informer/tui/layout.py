"""What the app's screen is made of: the pane table (name, title, state,
widget, in tab order), the tab bar, the key hints, and the sizes where the
layout changes.

Small terminals get one pane at a time behind a tab bar (two side by side
from ``COMPANION_MIN_WIDTH`` columns), as k9s does; from ``GRID_MIN`` a grid
of every pane (app.tcss places them).
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual.widget import Widget

from kubectl_informer.panes.cache import CacheState
from kubectl_informer.panes.deltas import DeltasState
from kubectl_informer.panes.explain_state import ExplainState
from kubectl_informer.panes.fifo import FifoState
from kubectl_informer.panes.handlers import HandlersState
from kubectl_informer.panes.informers import InformersState
from kubectl_informer.panes.inspector import InspectorState
from kubectl_informer.panes.queue import QueueState
from kubectl_informer.panes.resync import ResyncState
from kubectl_informer.panes.rv import RVState
from kubectl_informer.panes.server import ServerState
from kubectl_informer.panes.state import PaneState
from kubectl_informer.tui.cache import CachePane
from kubectl_informer.tui.deltas import DeltasPane
from kubectl_informer.tui.explain import ExplainPane
from kubectl_informer.tui.fifo import FifoPane
from kubectl_informer.tui.handlers import HandlersPane
from kubectl_informer.tui.informers import InformersPane
from kubectl_informer.tui.inspector import InspectorPane
from kubectl_informer.tui.keymap import PANE_LETTERS
from kubectl_informer.tui.pane import Pane
from kubectl_informer.tui.queue import QueuePane
from kubectl_informer.tui.resync import ResyncPane
from kubectl_informer.tui.rv import RVPane
from kubectl_informer.tui.server import ServerPane


@dataclass(frozen=True)
class PaneSpec:
    name: str
    title: str
    state_cls: type[PaneState]
    pane_cls: type[Pane]
    short: str = ""  # tab bar label, so seven tabs fit in 80 columns


# A tab's label when the bar is short of room: three letters that still tell the
# panes apart (cutting "Resync" and "RV" both to "R" did not).
TAB_ABBREVIATIONS = {
    "informers": "Inf",
    "deltas": "Dlt",
    "fifo": "FIFO",
    "rv": "RV",
    "resync": "Rsy",
    "queue": "Que",
    "cache": "Cch",
    "inspector": "Ins",
    "handlers": "Hnd",
    "explain": "Exp",
    "server": "Srv",
}


def tab_label(spec: PaneSpec, shorten: int | str | None) -> str:
    """The tab's label: whole, cut to a few letters, abbreviated, or none (the key alone)."""
    label = spec.short or spec.title
    if shorten is None:
        return label
    if shorten == "abbrev":
        return TAB_ABBREVIATIONS.get(spec.name, label[:3])
    if shorten == "key":
        return ""
    return label[: int(shorten)]


# Tab order; the grid places them in this order too (see app.tcss). The
# Informers pane is there only in a run with several informers (``shown_specs``).
PANES: tuple[PaneSpec, ...] = (
    PaneSpec("informers", "Informers", InformersState, InformersPane),
    PaneSpec("deltas", "Deltas", DeltasState, DeltasPane),
    PaneSpec("fifo", "FIFO", FifoState, FifoPane),
    PaneSpec("rv", "ResourceVersion", RVState, RVPane, "RV"),
    PaneSpec("resync", "Resync", ResyncState, ResyncPane),
    PaneSpec("queue", "Queue", QueueState, QueuePane),
    PaneSpec("cache", "Cache", CacheState, CachePane),
    PaneSpec("inspector", "Inspector", InspectorState, InspectorPane),
    PaneSpec("handlers", "Handlers", HandlersState, HandlersPane),
    PaneSpec("explain", "Explain", ExplainState, ExplainPane),
    PaneSpec("server", "Server", ServerState, ServerPane),
)
PANE_NAMES = tuple(p.name for p in PANES)
# Panes a run with one informer leaves out: they would say nothing more.
SEVERAL_INFORMERS_ONLY = frozenset({"informers"})


def shown_specs(wanted, several: bool) -> list[PaneSpec]:
    """The panes of ``wanted`` (names) an app shows, in tab order: the
    Informers pane only when the run has several informers."""
    return [s for s in PANES if s.name in wanted and (several or s.name not in SEVERAL_INFORMERS_ONLY)]


# Below this the grid is unreadable: one (or two) panes behind tabs instead.
GRID_MIN = (150, 36)
COMPANION_MIN_WIDTH = 120


def shown_names(names: list[str], active: str, previous: str, width: int, grid: bool, zoomed: bool) -> set[str]:
    """The panes of ``names`` on screen: all of them in the grid; else the
    ``active`` one, and from ``COMPANION_MIN_WIDTH`` columns a companion
    beside it (where enter leads, or back: the pane Explain explains, the
    ``previous`` one), unless it is zoomed."""
    if grid:
        return set(names)
    shown = {active}
    if zoomed:  # z: the focused pane alone, on all the room there is
        return shown
    if width >= COMPANION_MIN_WIDTH and len(names) > 1:
        companion = "inspector" if active != "inspector" else "deltas"
        if active == "explain":
            companion = previous  # what is explained, beside its explanation
        if companion not in names:
            companion = next(n for n in names if n != active)
        shown.add(companion)
    return shown


class TabBar(Widget):
    """One line: the panes with their jump keys, the active one highlighted.

    Drawn with ``render`` and a plain refresh: Static.update would ask for
    a relayout of the screen on every tab press."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self._text = Text()

    def show_tabs(
        self, specs: list[PaneSpec], active: str, shown: set[str], filter_text: str, width: int | None = None
    ) -> None:
        # ``width``: the size a resize brings (the app's may still be the old one then).
        width = self.app.size.width if width is None else width
        # Too many tabs for the line: the other tabs' labels shorten (whole words, then
        # abbreviations a reader can still tell apart, then the jump keys alone), the
        # active one never does.
        for shorten in (None, 6, "abbrev", "key"):
            t = Text(no_wrap=True, overflow="ellipsis", end="")
            for i, spec in enumerate(specs, 1):
                style = "bold reverse" if spec.name == active else ("bold" if spec.name in shown else "dim")
                # A tab's jump key: its number, or past nine its letter.
                key = str(i) if i <= 9 else PANE_LETTERS.get(spec.name, "")
                t.append(f" {key}", "cyan" if spec.name != active else style)
                label = tab_label(spec, None if spec.name == active else shorten)
                t.append(f" {label} " if label else " ", style)
            if filter_text:
                t.append(f"  /{filter_text}", "bold yellow")
            if t.cell_len <= width:
                break
        self._text = t
        self.refresh()

    def render(self) -> Text:
        return self._text
