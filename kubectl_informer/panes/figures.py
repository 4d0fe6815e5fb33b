"""Figures computed from samples, shared by pane states and their drawing."""

from __future__ import annotations

import math
from collections.abc import Sequence


def percentile(sorted_values: Sequence[float], p: float) -> float | None:
    """Nearest-rank percentile (``p`` in 0..100) of an already sorted list."""
    n = len(sorted_values)
    if n == 0:
        return None
    rank = max(1, math.ceil(p / 100.0 * n))
    return sorted_values[min(rank, n) - 1]
