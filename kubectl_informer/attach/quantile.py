"""Quantiles from histogram buckets, as PromQL's ``histogram_quantile``.

Within the bucket where the rank falls, the value is interpolated linearly
between the bucket's lower and upper bound; a rank in the +Inf bucket gets
the highest finite bound (all a histogram knows). So these are estimates
whose precision is the bucket layout's: client-go's buckets grow tenfold.
"""

from __future__ import annotations

import math
from typing import Sequence


def histogram_quantile(q: float, buckets: Sequence[tuple[float, float]]) -> float | None:
    """``buckets``: (upper bound, cumulative count), ascending, +Inf last.
    None when there are no observations (PromQL's NaN)."""
    if not buckets or buckets[-1][0] != math.inf:
        return None
    total = buckets[-1][1]
    if total <= 0:
        return None
    if len(buckets) < 2:
        return None
    rank = q * total
    prev_bound, prev_count = 0.0, 0.0
    for i, (bound, count) in enumerate(buckets):
        if count >= rank:
            if bound == math.inf:
                return buckets[-2][0]
            if i == 0 and bound <= 0:
                return bound
            in_bucket = count - prev_count
            if in_bucket <= 0:
                return bound
            return prev_bound + (bound - prev_bound) * (rank - prev_count) / in_bucket
        prev_bound, prev_count = bound, count
    return buckets[-2][0]


def bucket_delta(new: Sequence[tuple[float, float]], old: Sequence[tuple[float, float]] | None):
    """The observations between two scrapes of one histogram (PromQL's
    ``increase`` per bucket); a counter reset (any bucket went down) means
    the process restarted, and ``new`` is all there is."""
    if not old:
        return tuple(new)
    before = dict(old)
    out = []
    for bound, count in new:
        prev = before.get(bound, 0.0)
        if count < prev:
            return tuple(new)
        out.append((bound, count - prev))
    return tuple(out)
