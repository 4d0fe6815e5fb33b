"""RateLimitingQueue: port of client-go util/workqueue/rate_limiting_queue_test.go
on a FakeClock, plus its trace events."""

import pytest

from kubectl_informer.clock.testing import wait_for
from kubectl_informer.workqueue import (
    ItemExponentialFailureRateLimiter,
    MaxOfRateLimiter,
    RateLimitingQueue,
)


@pytest.fixture
def q(clock):
    q = RateLimitingQueue(ItemExponentialFailureRateLimiter(0.001, 1.0), clock=clock)
    yield q
    q.shut_down()


def ready_in(q, item, clock):
    return dict(q.waiting())[item] - clock.now()


def test_rate_limiting_queue(q, clock):
    # client-go: TestRateLimitingQueue (the delay handed to add_after is the
    # limiter's answer)
    q.add_rate_limited("one")
    assert ready_in(q, "one", clock) == pytest.approx(0.001)
    q.add_rate_limited("one")
    # The earlier ready time is kept for a parked duplicate.
    assert ready_in(q, "one", clock) == pytest.approx(0.001)
    assert q.num_requeues("one") == 2

    q.add_rate_limited("two")
    assert ready_in(q, "two", clock) == pytest.approx(0.001)
    q.forget("one")
    assert q.num_requeues("one") == 0
    assert q.num_requeues("two") == 1


def test_rate_limited_item_becomes_ready_after_its_delay(q, clock):
    for _ in range(3):
        q.rate_limiter.when("x")  # three earlier failures
    q.add_rate_limited("x")  # 1ms * 2**3
    assert ready_in(q, "x", clock) == pytest.approx(0.008)
    assert wait_for(lambda: clock.next_deadline() is not None)
    clock.step(0.007)
    assert q.len() == 0
    clock.step(0.001)  # float sum lands within 1 ns of the ready time
    assert wait_for(lambda: q.len() == 1)
    assert q.get() == ("x", False)


def test_default_limiter_on_queue_clock(clock):
    q = RateLimitingQueue(clock=clock)
    assert isinstance(q.rate_limiter, MaxOfRateLimiter)
    for i in range(100):
        q.add_rate_limited(i)
    q.add_rate_limited(100)
    # 101st failure at the same instant waits for the 10 qps bucket.
    assert dict(q.waiting())[100] - clock.now() == pytest.approx(0.1)
    q.shut_down()


def test_trace_rate_limited_and_forget(clock, tracer, trace):
    q = RateLimitingQueue(ItemExponentialFailureRateLimiter(0.5, 10), clock=clock, tracer=tracer)
    q.add_rate_limited("k")
    q.forget("k")
    q.shut_down()
    evs = [(e.kind, e.key, e.fields) for e in trace.drain()]
    assert evs == [
        ("queue.rate_limited", "k", {"delay": 0.5, "requeues": 1}),
        ("queue.add_after", "k", {"delay": 0.5}),
        ("queue.forget", "k", {"requeues": 1}),
        ("queue.shutdown", None, {"drain": False}),
    ]
