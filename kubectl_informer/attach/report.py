"""The model as data (``-o json``) and as lines (``-o text``), one scrape at a time."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from kubectl_informer.attach.counters import rate
from kubectl_informer.attach.informers import informer_notes
from kubectl_informer.attach.model import AttachModel, fmt_seconds

_HISTORY_FIELDS = (
    "depth_history",
    "adds_history",
    "retries_history",
    "reconcile_history",
    "error_history",
    "queued_history",
)


def _plain(obj: Any) -> dict:
    d = asdict(obj)
    for k in _HISTORY_FIELDS:
        d.pop(k, None)
    return d


def model_dict(model: AttachModel, target: str) -> dict:
    return {
        "time": model.last_time,
        "target": target,
        "queues": {n: _plain(q) for n, q in sorted(model.queues.items())},
        "controllers": {n: _plain(c) for n, c in sorted(model.controllers.items())},
        "rest_client_requests": {code: {"total": t, "per_s": r} for code, (t, r) in model.rest.items()},
        "reflectors": {n: {"lists": li, "watches": w} for n, (li, w) in model.reflectors.items()},
        # client-go 1.36's informer_* series, one row per informer; lag_rv in resource versions
        "informers": [_plain(f) for f in _by_gvr(model)],
        "stale_sync_skips": [_plain(s) for _, s in sorted(model.stale_skips.items())],
        "informer_notes": informer_notes(model.has_informers, model.informers.values(), model.server_note),
    }


def _by_gvr(model: AttachModel) -> list:
    return [f for _, f in sorted(model.informers.items(), key=lambda kv: (kv[0][1], kv[0][3], kv[0][2], kv[0][0]))]


def _est(v: float | None) -> str:
    """A percentile interpolated inside a histogram bucket: an estimate, so ≈."""
    return "-" if v is None else f"≈{fmt_seconds(v)}"


def _num(v: float | None) -> str:
    return "-" if v is None else f"{v:g}"


def _rv(v: int | None) -> str:
    return "-" if v is None else str(v)


def informer_lines(model: AttachModel) -> list[str]:
    """One line per informer (by group and resource), the controllers'
    stale-sync skips, and what the figures cannot say."""
    out = []
    for f in _by_gvr(model):
        lag = "-" if f.lag_rv is None else f"{f.lag_rv} RV"
        out.append(
            f"informer {f.gvr} ({f.name}): queued {f.queued:g} · processed {rate(f.processed_per_s, f.rated)} "
            f"({f.processed_total:g}) · processing p50 {_est(f.latency_p50)} p99 {_est(f.latency_p99)} · "
            f"store RV {_rv(f.store_rv)} · server RV {_rv(f.server_rv)} · lag {lag}"
        )
    out.extend(skips_lines(model))
    out.extend(informer_notes(model.has_informers, model.informers.values(), model.server_note))
    return out


def skips_lines(model: AttachModel) -> list[str]:
    """``stale-sync skips replicaset_controller: pods 2 (0.0/s) · ...``, one line a controller."""
    per: dict[str, list[str]] = {}
    for (controller, _, _), s in sorted(model.stale_skips.items()):
        per.setdefault(controller, []).append(f"{s.what} {s.total:g} ({rate(s.per_s, s.rated)})")
    return [f"stale-sync skips {c}: " + " · ".join(parts) for c, parts in per.items()]


def model_lines(model: AttachModel, informers: bool = True) -> list[str]:
    """Every figure as lines; ``informers=False`` leaves out the informer rows
    (the screen draws them as a table of their own)."""
    out = []
    for n, q in sorted(model.queues.items()):
        out.append(
            f"queue {n}: depth {q.depth:g} · adds {rate(q.adds_per_s, q.rated)} ({q.adds_total:g}) · "
            f"drain {rate(q.drain_per_s, q.rated)} · retries {rate(q.retries_per_s, q.rated)} "
            f"({q.retries_total:g}) · "
            f"latency p50 {_est(q.latency_p50)} p99 {_est(q.latency_p99)} · "
            f"work p50 {_est(q.work_p50)} p99 {_est(q.work_p99)} · "
            f"unfinished {fmt_seconds(q.unfinished)} · longest {fmt_seconds(q.longest)}"
        )
        if q.backing_up:
            out.append(f"  ! {q.backing_up}")
    for n, c in sorted(model.controllers.items()):
        by = ", ".join(f"{r} {v:.1f}/s ({c.reconciles_total[r]:g})" for r, v in c.reconciles_per_s.items())
        out.append(
            f"controller {n}: reconciles {by or '-'} · errors {c.errors_per_s:.1f}/s ({c.errors_total:g}) "
            f"· workers {_num(c.active)}/{_num(c.max_workers)} active"
        )
    if model.rest:
        out.append(
            "rest client: "
            + ", ".join(f"{code} {t:g} ({rate(r, model.rest_rated)})" for code, (t, r) in model.rest.items())
        )
    for n, (lists, watches) in model.reflectors.items():
        out.append(f"informer {n}: lists {_num(lists)} · watches {_num(watches)}")
    if not model.queues and not model.controllers:
        out.append("no workqueue or controller metrics on this page (is it a client-go controller's?)")
    if informers:
        out.extend(informer_lines(model))
    return out
