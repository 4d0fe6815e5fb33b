"""Rates from a metrics page's counters, the queue and the informer figures alike."""

from __future__ import annotations


def increase(new: float, old: float | None) -> float:
    """A counter's increase; a drop means the process restarted (PromQL)."""
    if old is None:
        return 0.0
    return new - old if new >= old else new


def rate(value: float, rated: bool, unit: str = "/s") -> str:
    """A per-second figure, or "–" before a second scrape gave one."""
    return f"{value:.1f}{unit}" if rated else "–"
