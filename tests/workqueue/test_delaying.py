"""DelayingQueue: ports of client-go util/workqueue/delaying_queue_test.go,
driven by a FakeClock (no sleeps)."""

import threading

import pytest

from kubectl_informer.clock.testing import wait_for
from kubectl_informer.workqueue import DelayingQueue


def settle(q, clock):
    """Wait until the waiting loop is parked on the clock at the heap's head
    (so a step cannot race the loop computing its wait)."""

    def parked():
        w = q.waiting()
        d = clock.next_deadline()
        if not w:
            return d is None
        # The loop wakes up to 1 ns early (see DelayingQueue._waiting_loop).
        return d is not None and abs(d - w[0][1]) < 1e-6

    assert wait_for(parked, timeout=5), (q.waiting(), clock.next_deadline())


def added(q, n):
    assert wait_for(lambda: q.len() == n, timeout=5), q.len()


def fire(q, clock, step, waiting, ready, waiting_after):
    """``waiting`` items wait and none is queued; ``step`` clock seconds later
    ``ready`` are queued and ``waiting_after`` still wait."""
    settle(q, clock)
    assert q.metrics().waiting == waiting
    assert q.len() == 0
    clock.step(step)
    added(q, ready)
    assert q.metrics().waiting == waiting_after


def process_then_nothing_more(q, clock, step):
    """Get and finish the queued item; ``step`` clock seconds later nothing
    else has been queued."""
    item, _ = q.get()
    q.done(item)
    clock.step(step)
    settle(q, clock)
    assert q.len() == 0


@pytest.fixture
def q(clock):
    q = DelayingQueue(name="test", clock=clock)
    yield q
    q.shut_down()


def test_simple_queue(q, clock):
    # client-go: TestSimpleQueue
    q.add_after("foo", 0.050)
    fire(q, clock, 0.060, waiting=1, ready=1, waiting_after=0)
    # Past client-go's heartbeat: nothing more appears.
    process_then_nothing_more(q, clock, 10)


def test_deduping(q, clock):
    # client-go: TestDeduping (a later duplicate does not delay the item; an
    # earlier one brings it forward)
    q.add_after("foo", 0.050)
    q.add_after("foo", 0.070)
    fire(q, clock, 0.060, waiting=1, ready=1, waiting_after=0)
    process_then_nothing_more(q, clock, 0.020)  # past the second add_after: it was collapsed

    q.add_after("foo", 0.050)
    q.add_after("foo", 0.030)
    settle(q, clock)
    assert q.waiting() == [("foo", clock.now() + 0.030)]
    assert q.len() == 0
    clock.step(0.040)
    added(q, 1)
    process_then_nothing_more(q, clock, 0.020)


def test_add_two_fire_early(q, clock):
    # client-go: TestAddTwoFireEarly
    q.add_after("foo", 1)
    q.add_after("bar", 0.050)
    fire(q, clock, 0.060, waiting=2, ready=1, waiting_after=1)
    assert q.get()[0] == "bar"

    q.add_after("baz", 2)
    settle(q, clock)
    clock.step(1)
    added(q, 1)
    assert q.metrics().waiting == 1
    assert q.get()[0] == "foo"

    settle(q, clock)
    clock.step(2)
    added(q, 1)
    assert q.metrics().waiting == 0
    assert q.get()[0] == "baz"


def test_copy_shifting(q, clock):
    # client-go: TestCopyShifting (ready items enter in ready-time order)
    q.add_after("foo", 1)
    q.add_after("bar", 0.5)
    q.add_after("baz", 0.25)
    fire(q, clock, 2, waiting=3, ready=3, waiting_after=0)
    assert [q.get()[0] for _ in range(3)] == ["baz", "bar", "foo"]


def test_non_positive_delay_adds_at_once(q, clock):
    q.add_after("a", 0)
    q.add_after("b", -1)
    assert q.queued() == ["a", "b"]
    assert q.waiting() == []


def test_waiting_view_is_absolute_on_clock(q, clock):
    start = clock.now()
    q.add_after("b", 5)
    q.add_after("a", 2)
    assert q.waiting() == [("a", start + 2), ("b", start + 5)]


def test_add_after_then_add_keeps_one_queue_entry(q, clock):
    q.add_after("a", 1)
    q.add("a")
    settle(q, clock)
    clock.step(1)
    assert wait_for(lambda: not q.waiting())
    # The delayed add collapsed into the dirty item.
    assert q.queued() == ["a"]
    assert q.metrics().adds == 1


def test_shutdown_stops_waiting_loop_and_ignores_add_after(clock):
    q = DelayingQueue(clock=clock)
    q.add_after("a", 1)
    settle(q, clock)
    loop = q._loop
    q.shut_down()
    loop.join(5)
    assert not loop.is_alive()
    q.add_after("b", 1)
    q.add_after("c", 0)
    clock.step(5)
    assert q.len() == 0
    assert not clock.has_waiters()


def test_one_waiting_thread_for_many_delays(clock):
    def loops():
        return [t for t in threading.enumerate() if t.name == "workqueue-waiting-one-thread"]

    q = DelayingQueue(name="one-thread", clock=clock)
    assert loops() == []  # started lazily
    for i in range(50):
        q.add_after(i, 1 + i / 100)
    assert len(loops()) == 1
    settle(q, clock)
    clock.step(10)
    added(q, 50)
    assert [q.get()[0] for _ in range(50)] == list(range(50))
    q.shut_down()


def test_retries_metric_counts_every_add_after(q, clock):
    q.add_after("a", 1)
    q.add_after("a", 0)
    q.add_after("b", 2)
    assert q.metrics().retries == 3


def test_trace_add_after(clock, tracer, trace):
    q = DelayingQueue(clock=clock, tracer=tracer)
    q.add_after("a", 1.5)
    settle(q, clock)
    clock.step(1.5)
    added(q, 1)
    q.shut_down()
    evs = [(e.kind, e.key, e.fields) for e in trace.drain()]
    assert evs[0] == ("queue.add_after", "a", {"delay": 1.5})
    assert evs[1] == ("queue.add", "a", {"outcome": "queued", "depth": 1})
    assert evs[-1] == ("queue.shutdown", None, {"drain": False})
