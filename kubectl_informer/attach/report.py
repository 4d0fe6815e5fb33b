"""The model as data (``-o json``) and as lines (``-o text``), one scrape at a time."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from kubectl_informer.attach.model import AttachModel, fmt_seconds, rate

_HISTORY_FIELDS = ("depth_history", "adds_history", "retries_history", "reconcile_history", "error_history")


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
    }


def _est(v: float | None) -> str:
    """A percentile interpolated inside a histogram bucket: an estimate, so ≈."""
    return "-" if v is None else f"≈{fmt_seconds(v)}"


def _num(v: float | None) -> str:
    return "-" if v is None else f"{v:g}"


def model_lines(model: AttachModel) -> list[str]:
    out = []
    for n, q in sorted(model.queues.items()):
        out.append(f"queue {n}: depth {q.depth:g} · adds {rate(q.adds_per_s, q.rated)} ({q.adds_total:g}) · "
                   f"drain {rate(q.drain_per_s, q.rated)} · retries {rate(q.retries_per_s, q.rated)} "
                   f"({q.retries_total:g}) · "
                   f"latency p50 {_est(q.latency_p50)} p99 {_est(q.latency_p99)} · "
                   f"work p50 {_est(q.work_p50)} p99 {_est(q.work_p99)} · "
                   f"unfinished {fmt_seconds(q.unfinished)} · longest {fmt_seconds(q.longest)}")
        if q.backing_up:
            out.append(f"  ! {q.backing_up}")
    for n, c in sorted(model.controllers.items()):
        by = ", ".join(f"{r} {v:.1f}/s ({c.reconciles_total[r]:g})" for r, v in c.reconciles_per_s.items())
        out.append(f"controller {n}: reconciles {by or '-'} · errors {c.errors_per_s:.1f}/s ({c.errors_total:g}) "
                   f"· workers {_num(c.active)}/{_num(c.max_workers)} active")
    if model.rest:
        out.append("rest client: " + ", ".join(f"{code} {t:g} ({rate(r, model.rest_rated)})"
                                               for code, (t, r) in model.rest.items()))
    for n, (lists, watches) in model.reflectors.items():
        out.append(f"informer {n}: lists {_num(lists)} · watches {_num(watches)}")
    if not model.queues and not model.controllers:
        out.append("no workqueue or controller metrics on this page (is it a client-go controller's?)")
    return out
