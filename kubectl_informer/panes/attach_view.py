"""What the attach screen shows of a controller's workqueues, without Textual.

A kube-controller-manager runs about 50 workqueues; a screen shows a handful
of cards. So queues are ordered by activity (the busiest first: depth, then
adds/s, then retries/s), narrowed by the `/` filter (the panes' grammar:
text or regex on the queue's name, ``!`` first inverts), and above
``TABLE_ABOVE`` of them drawn as a table of one row each.

Percentiles come from histogram buckets (PromQL's ``histogram_quantile``:
linear inside the bucket the rank falls in), so they are estimates: shown
with ``≈``, and the bucket the true value lies in is given beside them in
the detail.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from kubectl_informer.attach.counters import rate
from kubectl_informer.attach.informers import InformerFigures
from kubectl_informer.attach.model import ControllerFigures, QueueFigures, fmt_seconds
from kubectl_informer.core.printable import printable
from kubectl_informer.panes.filters import KeyFilter

# A queue card is 6 rows (its border 2, figures 3, sparklines 1; 7 while it
# is backing up). At 160x45, under the status line and above the key line and
# the REST/informer lines, 6 cards fill the screen; a seventh would start
# below the fold. Above 6 queues the table is the default (`t` switches).
TABLE_ABOVE = 6
SPARK = " ▁▂▃▄▅▆▇█"
SPARK_CELLS = 16


def by_activity(queues: Iterable[QueueFigures]) -> list[QueueFigures]:
    """The busiest first: deepest, then most adds/s, then most retries/s;
    idle queues by name."""
    return sorted(queues, key=lambda q: (-q.depth, -q.adds_per_s, -q.retries_per_s, q.name))


def shown_queues(queues: Iterable[QueueFigures], key_filter: KeyFilter) -> list[QueueFigures]:
    """Ordered by activity, those whose name (or controller) passes the filter."""
    if not key_filter:
        return by_activity(queues)
    return by_activity(
        q
        for q in queues
        if key_filter.matches(q.name) or (q.controller and q.controller != q.name and key_filter.matches(q.controller))
    )


def estimate(v: float | None) -> str:
    """A percentile from buckets: ``≈550ms``; ``-`` with no observation."""
    return "-" if v is None else f"≈{fmt_seconds(v)}"


def bucket_range(b: tuple[float, float] | None) -> str:
    if b is None:
        return "-"
    lo, hi = b
    if math.isinf(hi):
        return f"above {fmt_seconds(lo)}"
    return f"{fmt_seconds(lo)}–{fmt_seconds(hi)}"


def percentile_detail(q: QueueFigures) -> str:
    """One line: the bucket each percentile's true value lies in."""
    return (
        f"≈ estimated inside histogram buckets; the true value lies in: latency p50 "
        f"{bucket_range(q.latency_p50_bucket)}, p99 {bucket_range(q.latency_p99_bucket)} · work p50 "
        f"{bucket_range(q.work_p50_bucket)}, p99 {bucket_range(q.work_p99_bucket)}"
    )


def spark(values: Iterable[float], cells: int = SPARK_CELLS) -> str:
    """The last ``cells`` values as block characters, scaled to their maximum."""
    tail = list(values)[-cells:]
    top = max(tail, default=0.0)
    if top <= 0:
        return (SPARK[1] * len(tail)).ljust(cells)
    return "".join(SPARK[1 + min(7, max(0, int(v / top * 7.999)))] for v in tail).ljust(cells)


@dataclass(frozen=True)
class Window:
    """Rows ``top`` .. ``top + rows`` of ``total`` are drawn; ``above`` and
    ``below`` are the rows left out (each gets a hint line when non-zero)."""

    top: int
    rows: int
    above: int
    below: int


def window(total: int, cursor: int, height: int, top: int) -> Window:
    """The rows a table of ``height`` lines shows with ``cursor`` in view,
    moving ``top`` as little as possible. A hint line (``▲ N more`` or
    ``▼ N more``) takes a row of its own, so fewer rows show with them."""
    height = max(1, height)
    if total <= height:
        return Window(0, total, 0, 0)
    cursor = min(max(cursor, 0), total - 1)
    top = min(max(0, top), cursor)
    while cursor >= top + _rows_from(top, total, height):
        top += 1
    rows = _rows_from(top, total, height)
    return Window(top, rows, top, total - top - rows)


def _rows_from(top: int, total: int, height: int) -> int:
    avail = height - (top > 0)
    if total - top <= avail:
        return total - top
    return max(1, avail - 1)


TABLE_HEADER = (
    "QUEUE",
    "DEPTH",
    "ADDS/S",
    "DRAIN/S",
    "RETRIES/S",
    "LATENCY p99",
    "WORK p50",
    "WORK p99",
    "LONGEST",
    "DEPTH (last scrapes)",
)


def table_row(q: QueueFigures, controller: ControllerFigures | None = None) -> tuple[str, ...]:
    row = (
        q.name,
        f"{q.depth:g}",
        rate(q.adds_per_s, q.rated, ""),
        rate(q.drain_per_s, q.rated, ""),
        rate(q.retries_per_s, q.rated, ""),
        estimate(q.latency_p99),
        estimate(q.work_p50),
        estimate(q.work_p99),
        fmt_seconds(q.longest),
        spark(q.depth_history),
    )
    if controller is None:
        return row
    return row + (controller_cell(controller),)


def controller_cell(c: ControllerFigures) -> str:
    active = "-" if c.active is None else f"{c.active:g}"
    most = "-" if c.max_workers is None else f"{c.max_workers:g}"
    return f"{sum(c.reconciles_per_s.values()):.1f}/s err {c.errors_per_s:.1f}/s w {active}/{most}"


# --- informers (client-go 1.36's informer_* series) --------------------------------------


def by_busyness(informers: Iterable[InformerFigures]) -> list[InformerFigures]:
    """The busiest first: most queued in the FIFO, then most processed/s,
    then furthest behind the server; idle ones by group and resource."""
    return sorted(
        informers,
        key=lambda f: (-f.queued, -f.processed_per_s, -(f.lag_rv or 0), f.group, f.resource, f.version, f.name),
    )


def shown_informers(informers: Iterable[InformerFigures], key_filter: KeyFilter) -> list[InformerFigures]:
    """Ordered by busyness, those whose ``group/version/resource`` or
    informer name passes the filter (``apps/`` finds the apps group)."""
    if not key_filter:
        return by_busyness(informers)
    # Inverted (``!apps``), a row stays only if neither its resource nor its name holds the text.
    either = all if key_filter.invert else any
    return by_busyness(f for f in informers if either(key_filter.matches(s) for s in (gvr_path(f), f.name)))


def gvr_path(f: InformerFigures) -> str:
    """``apps/v1/deployments``, ``v1/pods``: what the filter reads."""
    return "/".join(p for p in (f.group, f.version, f.resource) if p)


INFORMER_HEADER = (
    "INFORMER (group/version resource)",
    "QUEUED",
    "EVENTS/S",
    "PROCESSING p50",
    "p99",
    "STORE RV",
    "SERVER RV",
    "LAG (RV)",
)


def informer_row(f: InformerFigures, with_name: bool = False) -> tuple[str, ...]:
    """One table row; ``-`` for what the page does not say. ``with_name``
    adds the informer's name (a process with several informer factories)."""

    def rv(v: int | None) -> str:
        return "-" if v is None else str(v)

    # The gvr and the name are the page's labels: shown printable, escaped before the columns are sized.
    row = (
        printable(f.gvr),
        f"{f.queued:g}",
        rate(f.processed_per_s, f.rated, ""),
        estimate(f.latency_p50),
        estimate(f.latency_p99),
        rv(f.store_rv),
        rv(f.server_rv),
        rv(f.lag_rv),
    )
    return row[:1] + (printable(f.name),) + row[1:] if with_name else row


def informer_header(with_name: bool = False) -> tuple[str, ...]:
    return INFORMER_HEADER[:1] + ("NAME",) + INFORMER_HEADER[1:] if with_name else INFORMER_HEADER


def informer_detail(f: InformerFigures) -> str:
    """One line on the selected informer: the buckets its percentiles lie in
    and what its lag counts."""
    lag = (
        "lag: server RV − store RV, in resource versions (every write to the cluster moves them), not events"
        if f.lag_rv is not None
        else "lag unknown (store RV or server RV missing)"
    )
    return (
        f"{printable(f.gvr)} ({printable(f.name)}): ≈ estimated inside histogram buckets; p50 lies in "
        f"{bucket_range(f.latency_p50_bucket)}, p99 in {bucket_range(f.latency_p99_bucket)} · "
        f"{f.processed_total:g} processed in all · {lag}"
    )
