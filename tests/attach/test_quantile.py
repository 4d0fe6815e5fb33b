"""histogram_quantile as PromQL computes it (linear within the bucket)."""

import math

import pytest

from kubectl_informer.attach.quantile import bucket_delta, histogram_quantile

INF = math.inf


def test_interpolates_within_the_bucket_the_rank_falls_in():
    # 10 observations: 4 <= 0.1, 6 more <= 1. Rank 5 of 10 is 1/6 into (0.1, 1].
    b = [(0.1, 4), (1.0, 10), (INF, 10)]
    assert histogram_quantile(0.5, b) == pytest.approx(0.1 + 0.9 * (5 - 4) / 6)
    # The lowest bucket starts at 0.
    assert histogram_quantile(0.2, b) == pytest.approx(0.1 * 2 / 4)


def test_a_rank_in_the_inf_bucket_gets_the_highest_finite_bound():
    assert histogram_quantile(0.99, [(0.1, 1), (1.0, 1), (INF, 10)]) == 1.0


def test_no_observations_is_none():
    assert histogram_quantile(0.5, [(0.1, 0), (INF, 0)]) is None
    assert histogram_quantile(0.5, []) is None
    assert histogram_quantile(0.5, [(0.1, 3)]) is None  # no +Inf: not a histogram


def test_bucket_delta_is_the_increase_and_a_reset_restarts_it():
    old = [(0.1, 2), (1.0, 5), (INF, 6)]
    new = [(0.1, 3), (1.0, 9), (INF, 10)]
    assert bucket_delta(new, old) == ((0.1, 1), (1.0, 4), (INF, 4))
    restarted = [(0.1, 1), (1.0, 1), (INF, 1)]
    assert bucket_delta(restarted, old) == tuple(restarted)
    assert bucket_delta(new, None) == tuple(new)


def test_the_bucket_a_quantile_lies_in_comes_with_the_estimate():
    from kubectl_informer.attach.quantile import quantile_in_bucket

    # Every one of 10 reconciles took 200ms: all in (0.1, 1]; the estimate is only interpolated.
    b = [(0.01, 0), (0.1, 0), (1.0, 10), (INF, 10)]
    assert quantile_in_bucket(0.5, b) == (pytest.approx(0.55), 0.1, 1.0)
    assert quantile_in_bucket(0.99, [(0.1, 1), (1.0, 1), (INF, 10)]) == (1.0, 1.0, INF)
    assert quantile_in_bucket(0.5, [(0.1, 0), (INF, 0)]) is None
