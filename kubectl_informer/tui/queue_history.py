"""The Queue pane's history line: sparklines of depth, adds/s and queue
latency over the last seconds, drawn from ``QueueState.history_series``
(what the pane knows: ``panes/queue.py``)."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text

from kubectl_informer.panes.attach_view import spark
from kubectl_informer.panes.queue import HISTORY, QueueState
from kubectl_informer.tui.chart import fmt_secs

HISTORY_CELLS = 40  # seconds a sparkline covers at most on the one line (one cell a second)


def history_line(st: QueueState, now: float, width: int) -> Text | None:
    """``depth ▁▂▅█ max 29 · adds/s ▃▁▁ max 31 · latency ▁▂▁ max 590ms``: the last
    seconds of client-go's depth, adds and queue latency as attach's cards
    draw them, each scaled to its peak (shown after it); None before the
    first add or when too narrow."""
    if not st.history:
        return None
    words = 53  # the labels and peaks around three sparklines
    cells = min(HISTORY_CELLS, (width - words) // 3)
    if cells < 6:
        return None
    depth, adds, latency = st.history_series(now, cells)
    t = Text()
    series: tuple[tuple[str, Sequence[float], str], ...] = (
        ("depth", depth, str(max(depth))),
        ("adds/s", adds, str(max(adds))),
        ("latency", latency, fmt_secs(max(latency)) if max(latency) > 0 else "-"),
    )
    for i, (label, values, peak) in enumerate(series):
        if i:
            t.append(" · ")
        t.append(f"{label} ", "bold")
        t.append(spark(values, cells).rstrip(), "cyan")
        t.append(f" max {peak}", "dim")
    return t


def history_lines(st: QueueState, now: float, width: int) -> list[Text]:
    """The three sparklines on a line each, as wide as the slot allows (up
    to the HISTORY seconds the state keeps): for a slot with rows to spare."""
    if not st.history:
        return []
    cells = min(HISTORY, width - 22)
    if cells < 6:
        return []
    depth, adds, latency = st.history_series(now, cells)
    out = []
    for label, values, peak in (
        ("depth", depth, str(max(depth))),
        ("adds/s", adds, str(max(adds))),
        ("latency", latency, fmt_secs(max(latency)) if max(latency) > 0 else "-"),
    ):
        t = Text(f"{label:<8}", "bold")
        t.append(spark(values, cells).rstrip(), "cyan")
        t.append(f" max {peak}", "dim")
        out.append(t)
    out[0].append(f"  ({cells}s)", "dim")
    return out
