"""The Explain pane: what client-go did for the selected thing, and why.

It follows the active pane's selection (the Deltas row, the FIFO key, the
Inspector's key, the Cache) or, for the panes without a cursor (RV, Resync,
Queue), their newest record; with the Explain pane focused, j/k step back to
older records. Jump here with ``e``; ``e`` again goes back. The words come
from ``explain/texts.toml`` through ``explain.match``; this module only picks
the subject and draws.
"""

from __future__ import annotations

from kubectl_informer.core.durations import format_short
from kubectl_informer.panes.explain import (
    Facts,
)
from kubectl_informer.panes.explain.match import Subject
from kubectl_informer.panes.state import PaneState

SOURCE_TITLES = {
    "deltas": "Deltas",
    "fifo": "FIFO",
    "rv": "RV",
    "resync": "Resync",
    "queue": "Queue",
    "cache": "Cache",
    "inspector": "Inspector",
    "server": "Server",
}


class ExplainState(PaneState):
    """The run's facts, fed like every pane state."""

    def __init__(self) -> None:
        super().__init__()
        self.facts = Facts()

    def run_info(self, info) -> None:
        self.facts.mode = info.mode
        self.facts.profile = info.profile

    def feed(self, ev) -> None:
        self.feed_all((ev,))

    def feed_all(self, events) -> None:
        before = self.facts.version
        self.facts.feed_all(events)
        if self.facts.version != before:
            self.version += 1

    def summarise(self, stretch) -> None:
        """A stretch the UI could not take in event by event (feed.py)."""
        before = self.facts.version
        self.facts.summarise(stretch)
        if self.facts.version != before:
            self.version += 1


def describe(subject: Subject) -> str:
    """A few words naming what is explained."""
    rec = subject.rec
    if rec is None:
        if subject.pane == "queue" and subject.key:
            return f"item {subject.key}"
        if subject.pane == "fifo":
            return f"key {subject.key}" if subject.key else "the FIFO"
        return {"cache": "the indexer", "queue": "the workqueue", "resync": "resync", "server": "the API server"}.get(
            subject.pane, ""
        )
    f, kind = rec.fields, rec.kind
    if kind.startswith("store."):
        return f"{f.get('delta', '')} {rec.key} (RV {f.get('resource_version', '')})"
    words = {
        "list.done": lambda: f"list of {f.get('items', 0)} at RV {f.get('resource_version', '')}",
        "relist": lambda: f"relist ({f.get('reason', '')})",
        "watch.end": lambda: f"watch ended at RV {f.get('resource_version', '')}",
        "reflector.backoff": lambda: f"back-off {format_short(f.get('delay') or 0)}",
        "watch.bookmark": lambda: f"bookmark at RV {f.get('resource_version', '')}",
        "resync.tick": lambda: "resync tick",
        "handler.register": lambda: f"handler {f.get('listener', '')}",
        "server.window": lambda: f"the watch cache's window, RV {f.get('oldest_rv', '')}-{f.get('newest_rv', '')}",
        "server.metrics": lambda: f"the watch cache at RV {f.get('cache_rv', '')}",
        "server.too_large": lambda: f"too large RV {f.get('requested_rv', '')}",
        "server.reinit": lambda: "the watch cache re-initialised",
        "queue.add": lambda: f"queued {rec.key}",
    }.get(kind)
    return words() if words is not None else f"{kind.split('.')[-1]} {rec.key or ''}".strip()
