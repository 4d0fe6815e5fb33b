"""Drawing the Informers pane; its rows choose the informer the other panes follow.

What the pane knows, and why: ``panes/informers.py``. The app's feed loop
holds the selection (``FeedLoop.select``); this pane moves it: ↑ ↓ j k, and
tab / shift+tab, which walk the informers before moving on to the next pane
(``InformerApp._cycle``), and ``:rs`` (``InformerChoice.named``).
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.binding import Binding

from kubectl_informer.panes.causes import drops_text
from kubectl_informer.panes.informers import InformerRow, InformersState
from kubectl_informer.tui.cursor import CURSOR_BINDINGS
from kubectl_informer.tui.host import informer_host
from kubectl_informer.tui.textpane import TextPane

# (title, width, cell) of each column after the informer's name, in the
# order they go when the pane is narrow (the last first).
COLUMNS = (
    ("synced", 8, lambda r: ("✓ " + str(r.synced_items)) if r.synced else "syncing"),
    ("RV", 10, lambda r: r.rv or "-"),
    ("store RV", 10, lambda r: "-" if r.store_rv is None else (r.store_rv or '""')),
    ("behind", 8, lambda r: "-" if r.lag is None else str(r.lag)),
    ("cached", 7, lambda r: str(r.cached)),
    ("FIFO", 6, lambda r: str(r.fifo_depth)),
    ("pending", 8, lambda r: str(r.pending)),
    ("relists", 8, lambda r: str(r.relists)),
    ("dropped", 8, lambda r: str(r.dropped)),
)


def _fit_columns(width: int, name_w: int) -> int:
    """How many of COLUMNS fit beside names ``name_w`` wide."""
    used = 2 + name_w
    n = 0
    for _, w, _ in COLUMNS:
        if used + w > width:
            break
        used += w
        n += 1
    return n


class InformersPane(TextPane):
    """One row per informer; the selected one (▶) is what the other panes show."""

    TITLE = "Informers"
    BINDINGS = [*CURSOR_BINDINGS, Binding("enter", "show_deltas", "Deltas", show=False)]

    state: InformersState

    def selected(self) -> str:
        loop = getattr(self.app, "feed_loop", None) if self.is_mounted else None
        return loop.selected if loop is not None else self.state.home

    def action_cursor(self, step: int) -> None:
        informer_host(self).informer_choice.step(step, wrap=False)

    def action_show_deltas(self) -> None:
        informer_host(self).activate("deltas")

    def draw_lines(self, width: int, height: int) -> list[Text]:
        st = self.state
        names = st.names()
        selected = self.selected()
        name_w = min(max((len(n) for n in names), default=8), max(width // 3, 8))
        ncols = _fit_columns(width, name_w)
        head = Text("  " + "informer".ljust(name_w), "bold")
        for title, w, _ in COLUMNS[:ncols]:
            head.append(title.rjust(w - 1) + " ", "bold")
        lines = [head]
        room = max(height - 2, 1)
        start = max(0, min(names.index(selected) - room + 1, len(names) - room)) if selected in names else 0
        for name in names[start : start + room]:
            lines.append(self._row(st.rows[name], name == selected, name_w, ncols, width))
        lines.append(self._foot(st, len(names), selected))
        return lines

    def _row(self, row: InformerRow, chosen: bool, name_w: int, ncols: int, width: int) -> Text:
        t = Text(no_wrap=True)
        t.append("▶ " if chosen else "  ", "bold cyan")
        t.append(row.name[:name_w].ljust(name_w), "bold" if chosen else "")
        for title, w, cell in COLUMNS[:ncols]:
            value = cell(row)
            style = ("green" if row.synced else "yellow") if title == "synced" else ""
            if title == "pending" and row.pending:
                style = "yellow"
            if title == "dropped" and row.dropped:
                style = "magenta"
            if title == "behind" and row.lag:
                style = "yellow"
            t.append(value[: w - 1].rjust(w - 1) + " ", style)
        if chosen and self.has_focus:
            t.truncate(width, overflow="ellipsis", pad=True)
            t.stylize("reverse")
        return t

    def _foot(self, st: InformersState, n: int, selected: str) -> Text:
        synced = sum(1 for r in st.rows.values() if r.synced)
        foot = Text(no_wrap=True)
        foot.append(f"{synced}/{n} synced", "green" if synced == n else "yellow")
        foot.append(f" · panes show {selected}", "")
        foot.append(" · tab next informer · :rs", "dim")
        drops: dict[str, int] = {}
        for r in st.rows.values():
            for reason, k in r.drops.items():
                drops[reason] = drops.get(reason, 0) + k
        if drops:
            foot.append(f" · dropped: {drops_text(drops)}", "magenta")
        foot.append(behind_note(st), "dim")
        return foot


def behind_note(st: InformersState) -> str:
    """What "store RV" and "behind" mean in this run, in a few words."""
    rows = list(st.rows.values())
    if not any(r.store_rv is not None for r in rows):
        return ""
    if all(r.store_rv == "" for r in rows if r.store_rv is not None):
        return ' · store RV "": client-go < 1.36 keeps none (--client-go 1.36)'
    if any(r.lag_source == "sim" for r in rows):
        return " · behind: RV units after the server's newest (exact)"
    return " · behind: RV units after our reflectors' newest (our backlog, not the watch's delay)"


class InformerChoice:
    """The app's part that moves the informer every pane follows: the feed
    loop swaps the states (``FeedLoop.select``), this rebinds the widgets."""

    def __init__(self, app: Any) -> None:
        self.app = app
        app.feed_loop.on_select = self._selected

    def select(self, name: str) -> bool:
        """Show informer ``name`` in every pane; False if the run has none."""
        return self.app.feed_loop.select(name)

    def step(self, step: int, *, wrap: bool = True) -> bool:
        """The informer ``step`` rows away (``wrap``: round the list); False
        in a one-informer run or past either end without ``wrap``."""
        loop = self.app.feed_loop
        names = list(loop.informers)
        if not names:
            return False
        i = names.index(loop.selected) + step
        if not wrap and not 0 <= i < len(names):
            return False
        return loop.select(names[i % len(names)])

    def named(self, word: str) -> bool:
        """``:rs``: the informer ``word`` names (a short name, plural,
        singular or resource id) if the run has it; else False."""
        loop = self.app.feed_loop
        informers = loop.states.get("informers")
        name = informers.find(word) if isinstance(informers, InformersState) and loop.informers else None
        if name is None:
            return False
        self.select(name)
        self.app.notify(f"every pane now shows the {name} informer", timeout=2)
        return True

    def _selected(self) -> None:
        """The feed loop swapped the states: the widgets draw the selected
        informer's, from a fresh view (cursors and the key inspected were another's)."""
        app = self.app
        app._states_replaced(True)
        with app.batch_update():
            now = app._now()
            app.header.refresh_view(now)
            for name in app.shown_panes():
                app.panes[name].refresh_view(now)
