"""The Explain pane: what client-go did for the selected thing, and why.

It follows the active pane's selection (the Deltas row, the FIFO key, the
Inspector's key, the Cache, the Queue item under its cursor) or, for the
panes without one (RV, Resync, the Queue before j/k), their newest record;
with the Explain pane focused, j/k step back to older records. Jump here with
``e``; ``e`` again goes back. The words come from ``explain/texts.toml`` through
``explain.match``; this module only picks the subject and draws.
"""

from __future__ import annotations

import textwrap

from rich.text import Text
from textual.binding import Binding

from kubectl_informer.panes.explain import (
    explain,
    load_texts,
    render,
    subject_for,
)
from kubectl_informer.panes.explain.facts import PER_KEY
from kubectl_informer.panes.explain.match import MARK_PANES, Subject, marks_for
from kubectl_informer.panes.explain_state import SOURCE_TITLES, ExplainState, describe
from kubectl_informer.tui.textpane import TextPane


class ExplainPane(TextPane):
    """2-3 sentences per text that applies, each with its docs/ link."""

    TITLE = "Explain"
    BINDINGS = [
        Binding("up,k", "back(1)", "Older", show=False),
        Binding("down,j", "back(-1)", "Newer", show=False),
        Binding("home,g", "back(1000000)", "Oldest", show=False),
        Binding("end,G", "back(-1000000)", "Newest", show=False),
    ]

    state: ExplainState

    def __init__(self, state: ExplainState, **kwargs) -> None:
        super().__init__(state, **kwargs)
        self.back = 0  # records back from the newest, for RV, Resync and Queue
        self._source: str | None = None

    def on_mount(self) -> None:
        info = getattr(self.app, "info", None)
        self.state.facts.mode = getattr(info, "mode", None)
        self.state.facts.profile = getattr(info, "profile", "") or ""

    def on_focus(self) -> None:
        # In the grid its row grows while it is the pane you are in (app.tcss).
        if self.parent is not None:
            self.parent.add_class("-explaining")

    def on_blur(self) -> None:
        if self.parent is not None:
            self.parent.remove_class("-explaining")

    def source(self) -> str:
        """The pane whose selection is explained: the active one, or the one
        active before the Explain pane."""
        app = self.app
        active = getattr(app, "active", "deltas")
        if active == "explain":
            active = getattr(app, "_previous", "deltas")
        return active if active in SOURCE_TITLES else "deltas"

    def action_back(self, step: int) -> None:
        source = self.source()
        marks = marks_for(source, self.facts_for(source))
        self.back = max(0, min(self.back + step, max(len(marks) - 1, 0)))
        self.refresh()

    def facts_for(self, source: str):
        """The facts the selection in ``source`` is explained from: the
        selected informer's, but the workqueue's story (Queue) is in the
        queue resource's informer's (its events name no informer)."""
        loop = getattr(self.app, "feed_loop", None)
        if source == "queue" and loop is not None:
            home = loop.home_states.get("explain")
            if isinstance(home, ExplainState):
                return home.facts
        return self.state.facts

    def subject(self, source: str) -> Subject:
        facts = self.facts_for(source)
        pane = self.app.panes.get(source) if hasattr(self.app, "panes") else None
        item = pane.selected_key() if source == "queue" and pane is not None and hasattr(pane, "selected_key") else None
        if item is not None:  # the Queue pane's cursor is on an item: that one, not the newest record
            return subject_for("queue", facts, key=item)
        if source in MARK_PANES or pane is None:
            return subject_for(source, facts, back=self.back)
        if source == "deltas":
            rows = pane._visible_rows()
            i = pane._cursor_index(rows)
            if i < 0:
                return Subject("deltas")
            subject = subject_for("deltas", facts, key=rows[i].key, seq=rows[i].seq)
            if subject.rec is None:  # its record is older than the key's last PER_KEY: the newest instead
                newest = subject_for("deltas", facts, key=rows[i].key)
                if newest.rec is not None:
                    newest.fields["older_than_kept"] = rows[i].seq
                    return newest
            return subject
        key = pane.selected_key()
        if source == "fifo":
            return subject_for("fifo", facts, key=key, pending=pane.state.queued.get(key) if key else None)
        return subject_for(source, facts, key=key)

    def draw_lines(self, width: int, height: int) -> list[Text]:
        source = self.source()
        if source != self._source:
            self._source, self.back = source, 0
        subject = self.subject(source)
        head = Text(no_wrap=True)
        head.append(f"{SOURCE_TITLES[source]} ▸ ", "bold cyan")
        head.append(describe(subject), "bold")
        if source in MARK_PANES and self.has_focus:
            head.append(f"  ({self.back} back · j/k older/newer)", "dim")
        lines = [head]
        if (seq := subject.fields.get("older_than_kept")) is not None:
            lines.append(
                Text(
                    f"the delta under the cursor (seq {seq}) is older than the last {PER_KEY} records "
                    f"Explain keeps for this key: its newest delta instead",
                    "yellow",
                )
            )
        found = explain(subject, self.facts_for(source))
        if not found:
            lines.append(
                Text(
                    "Nothing to explain here yet: select a delta, a FIFO key or a key in the Inspector, "
                    "or wait for a list, a resync tick or a queue item.",
                    "dim",
                )
            )
        texts = load_texts()
        for text_id, values in found:
            lines.extend(_paragraph(render(text_id, values), f"docs/{texts[text_id].doc}", max(width, 20)))
        return lines if len(lines) <= height else _fit(lines, height)


def _paragraph(body: str, link: str, width: int) -> list[Text]:
    """The text wrapped to ``width``, ending with its docs link, dim."""
    parts = textwrap.wrap(f"{body} {link}", width, break_long_words=False, break_on_hyphens=False)
    out = [Text(p) for p in parts[:-1]]
    last = parts[-1][: -len(link)] if parts else ""
    out.append(Text.assemble(last, (link, "dim")))
    return out


def _fit(lines: list[Text], height: int) -> list[Text]:
    """Too tall: keep the head and what fits, mark the cut."""
    out = lines[: max(height - 1, 1)]
    if height > 1:
        out.append(Text("… more: e here, then z zooms the Explain pane", "dim"))
    return out
