"""Rate limiters: ports of client-go util/workqueue/default_rate_limiters_test.go,
the token bucket against golang.org/x/time/rate's reservation rule on a
FakeClock, and parse_rate_limiter."""

import pytest

from kubectl_informer.workqueue import (
    BucketRateLimiter,
    ItemExponentialFailureRateLimiter,
    ItemFastSlowRateLimiter,
    MaxOfRateLimiter,
    default_controller_rate_limiter,
    parse_rate_limiter,
)

MS = 0.001


def test_item_exponential_failure_rate_limiter():
    # client-go: TestItemExponentialFailureRateLimiter
    limiter = ItemExponentialFailureRateLimiter(1 * MS, 1.0)
    assert [limiter.when("one") for _ in range(5)] == [1 * MS, 2 * MS, 4 * MS, 8 * MS, 16 * MS]
    assert limiter.num_requeues("one") == 5
    assert [limiter.when("two") for _ in range(2)] == [1 * MS, 2 * MS]
    assert limiter.num_requeues("two") == 2
    limiter.forget("one")
    assert limiter.num_requeues("one") == 0
    assert limiter.when("one") == 1 * MS


def test_item_exponential_failure_rate_limiter_overflow():
    # client-go: TestItemExponentialFailureRateLimiterOverFlow
    limiter = ItemExponentialFailureRateLimiter(1 * MS, 1000.0)
    for _ in range(5):
        limiter.when("one")
    assert limiter.when("one") == 32 * MS
    for _ in range(1000):
        limiter.when("overflow1")
    assert limiter.when("overflow1") == 1000.0

    limiter = ItemExponentialFailureRateLimiter(60.0, 1000 * 3600.0)
    for _ in range(2):
        limiter.when("two")
    assert limiter.when("two") == 4 * 60.0
    for _ in range(1000):
        limiter.when("overflow2")
    assert limiter.when("overflow2") == 1000 * 3600.0


def test_item_exponential_caps_at_max():
    limiter = ItemExponentialFailureRateLimiter(1.0, 5.0)
    assert [limiter.when("x") for _ in range(5)] == [1.0, 2.0, 4.0, 5.0, 5.0]


def test_item_fast_slow_rate_limiter():
    # client-go: TestItemFastSlowRateLimiter
    limiter = ItemFastSlowRateLimiter(5 * MS, 10.0, 3)
    assert [limiter.when("one") for _ in range(5)] == [5 * MS, 5 * MS, 5 * MS, 10.0, 10.0]
    assert limiter.num_requeues("one") == 5
    assert [limiter.when("two") for _ in range(2)] == [5 * MS, 5 * MS]
    assert limiter.num_requeues("two") == 2
    limiter.forget("one")
    assert limiter.num_requeues("one") == 0
    assert limiter.when("one") == 5 * MS


def test_max_of_rate_limiter():
    # client-go: TestMaxOfRateLimiter
    limiter = MaxOfRateLimiter(
        ItemFastSlowRateLimiter(5 * MS, 3.0, 3),
        ItemExponentialFailureRateLimiter(1 * MS, 1.0),
    )
    assert [limiter.when("one") for _ in range(5)] == [5 * MS, 5 * MS, 5 * MS, 3.0, 3.0]
    assert limiter.num_requeues("one") == 5
    assert [limiter.when("two") for _ in range(2)] == [5 * MS, 5 * MS]
    assert limiter.num_requeues("two") == 2
    limiter.forget("one")
    assert limiter.num_requeues("one") == 0
    assert limiter.when("one") == 5 * MS


def test_bucket_starts_full_then_spaces_reservations(clock):
    # x/time/rate: a new limiter holds `burst` tokens; each reservation past
    # them waits one more 1/qps slot.
    b = BucketRateLimiter(10, 3, clock=clock)
    assert [b.when(i) for i in range(3)] == [0.0, 0.0, 0.0]
    assert b.when("x") == pytest.approx(0.1)
    assert b.when("y") == pytest.approx(0.2)
    assert b.tokens() == pytest.approx(-2.0)
    assert b.num_requeues("x") == 0
    b.forget("x")  # no per-item state


def test_bucket_refills_with_clock_time_up_to_burst(clock):
    b = BucketRateLimiter(10, 3, clock=clock)
    for i in range(5):
        b.when(i)
    clock.step(0.25)  # -2 + 2.5 tokens
    assert b.tokens() == pytest.approx(0.5)
    assert b.when("a") == pytest.approx(0.05)
    clock.step(100)
    assert b.tokens() == pytest.approx(3.0)  # capped at burst
    assert [b.when(i) for i in range(3)] == [0.0, 0.0, 0.0]
    assert b.when("z") == pytest.approx(0.1)


def test_bucket_rejects_unusable_settings():
    with pytest.raises(ValueError):
        BucketRateLimiter(0, 10)
    with pytest.raises(ValueError):
        BucketRateLimiter(10, 0)


def test_default_controller_rate_limiter(clock):
    # client-go's DefaultControllerRateLimiter: exponential 5ms..1000s max'd
    # with a 10 qps / 100 burst bucket.
    limiter = default_controller_rate_limiter(clock)
    # 100 distinct first failures: the bucket has tokens, exponential rules.
    assert {limiter.when(f"k{i}") for i in range(100)} == {5 * MS}
    # The 101st failure at the same instant waits for the bucket.
    assert limiter.when("k100") == pytest.approx(0.1)
    # Per item back-off keeps doubling and caps at 1000 s.
    for _ in range(30):
        d = limiter.when("hot")
    assert d == 1000.0
    assert limiter.num_requeues("hot") == 30
    limiter.forget("hot")
    assert limiter.num_requeues("hot") == 0


@pytest.mark.parametrize(
    "spec,check",
    [
        ("default", lambda r: isinstance(r, MaxOfRateLimiter)),
        (
            "exponential:5ms,1000s",
            lambda r: isinstance(r, ItemExponentialFailureRateLimiter) and (r.base, r.max) == (0.005, 1000.0),
        ),
        (
            "fastslow:5ms,10s,3",
            lambda r: (
                isinstance(r, ItemFastSlowRateLimiter) and (r.fast, r.slow, r.max_fast_attempts) == (0.005, 10.0, 3)
            ),
        ),
        ("bucket:10,100", lambda r: isinstance(r, BucketRateLimiter) and (r.qps, r.burst) == (10.0, 100)),
        (" Exponential: 1m30s , 1h ", lambda r: (r.base, r.max) == (90.0, 3600.0)),
    ],
)
def test_parse_rate_limiter(spec, check):
    assert check(parse_rate_limiter(spec))


def test_parsed_limiters_use_given_clock(clock):
    b = parse_rate_limiter("bucket:1,1", clock=clock)
    assert b.when("a") == 0.0
    assert b.when("b") == pytest.approx(1.0)
    clock.step(2)
    assert b.when("c") == 0.0


@pytest.mark.parametrize(
    "spec",
    [
        "",
        "fast",
        "default:1",
        "exponential:5ms",
        "exponential:5x,1s",
        "exponential:0s,1s",
        "exponential:2s,1s",
        "exponential:-5ms,1s",
        "fastslow:5ms,10s",
        "fastslow:5ms,10s,three",
        "bucket:ten,100",
        "bucket:10,0",
        "bucket:0,10",
        "bucket:10,1.5",
    ],
)
def test_parse_rate_limiter_errors_are_one_line(spec):
    with pytest.raises(ValueError) as e:
        parse_rate_limiter(spec)
    msg = str(e.value)
    assert msg.startswith(f'invalid rate limiter "{spec}"')
    assert "\n" not in msg


def test_repr_round_trips_through_parse():
    for spec in ["exponential:5ms,16m40s", "fastslow:5ms,10s,3", "bucket:10,100"]:
        assert repr(parse_rate_limiter(spec)) == spec
