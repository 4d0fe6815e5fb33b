"""Quantiles from histogram buckets, as PromQL's ``histogram_quantile``.

Within the bucket where the rank falls, the value is interpolated linearly
between the bucket's lower and upper bound; a rank in the +Inf bucket gets
the highest finite bound (all a histogram knows). So these are estimates
whose precision is the bucket layout's: client-go's buckets grow tenfold.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from kubectl_informer.attach.page import Histogram

# A quantile estimate and the bucket it fell in, (None, None) with no observations.
Estimate = tuple[float | None, tuple[float, float] | None]


def histogram_quantile(q: float, buckets: Sequence[tuple[float, float]]) -> float | None:
    """``buckets``: (upper bound, cumulative count), ascending, +Inf last.
    None when there are no observations (PromQL's NaN)."""
    found = quantile_in_bucket(q, buckets)
    return None if found is None else found[0]


def quantile_in_bucket(q: float, buckets: Sequence[tuple[float, float]]) -> tuple[float, float, float] | None:
    """(estimate, bucket's lower bound, bucket's upper bound): the true
    quantile lies somewhere in that bucket, the estimate is only where linear
    interpolation puts it. A rank in the +Inf bucket gives (highest finite
    bound, that bound, inf)."""
    if not buckets or buckets[-1][0] != math.inf or len(buckets) < 2:
        return None
    total = buckets[-1][1]
    if total <= 0:
        return None
    rank = q * total
    prev_bound, prev_count = 0.0, 0.0
    for i, (bound, count) in enumerate(buckets):
        if count >= rank:
            if bound == math.inf:
                return buckets[-2][0], buckets[-2][0], math.inf
            if i == 0 and bound <= 0:
                return bound, bound, bound
            in_bucket = count - prev_count
            if in_bucket <= 0:
                return bound, prev_bound, bound
            return prev_bound + (bound - prev_bound) * (rank - prev_count) / in_bucket, prev_bound, bound
        prev_bound, prev_count = bound, count
    return buckets[-2][0], buckets[-2][0], math.inf


def bucket_delta(
    new: Sequence[tuple[float, float]], old: Sequence[tuple[float, float]] | None
) -> tuple[tuple[float, float], ...]:
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


def window_percentiles(new: Histogram | None, old: Histogram | None) -> tuple[Estimate, Estimate]:
    """p50 and p99, each with its bucket, of the observations between two
    scrapes, else of all of them (a histogram idle for the whole window still
    shows what it did), as the queue and informer tables read their latencies."""
    if new is None:
        return (None, None), (None, None)
    recent = bucket_delta(new.buckets, old.buckets if old else None)
    if not recent or recent[-1][1] <= 0:
        recent = new.buckets
    return _estimate(0.5, recent), _estimate(0.99, recent)


def _estimate(q: float, buckets: Sequence[tuple[float, float]]) -> Estimate:
    found = quantile_in_bucket(q, buckets)
    return (None, None) if found is None else (found[0], (found[1], found[2]))
