"""Queue metrics: port of client-go util/workqueue/metrics_test.go (TestMetrics,
TestSinceInMicroseconds) on a FakeClock, and the reservoir's bounds."""

import pytest

from kubectl_informer.workqueue import DelayingQueue, Queue
from kubectl_informer.workqueue.metrics import Reservoir


def test_metrics(clock):
    # client-go: TestMetrics
    q = Queue(name="test", clock=clock)
    q.add("foo")
    m = q.metrics()
    assert (m.adds, m.depth) == (1, 1)

    clock.step(50e-6)
    i, _ = q.get()
    assert i == "foo"
    m = q.metrics()
    assert m.queue_latency.count == 1
    assert m.queue_latency.max == pytest.approx(5e-05)

    # Re-added while processing; repeats are collapsed.
    for _ in range(5):
        q.add(i)
    m = q.metrics()
    assert m.adds == 2
    assert m.depth == 1

    clock.step(25e-6)
    q.done(i)
    m = q.metrics()
    assert m.work_duration.count == 1
    assert m.work_duration.sum == pytest.approx(2.5e-05)
    assert m.depth == 1

    i, _ = q.get()
    assert i == "foo"
    m = q.metrics()
    assert m.queue_latency.count == 2
    # Latency counts from the re-add, not from the first add.
    assert m.queue_latency.sum == pytest.approx(5e-05 + 2.5e-05)

    clock.step(0.001)
    m = q.metrics()
    assert m.unfinished_work_seconds == pytest.approx(0.001)
    assert m.longest_running_processor_seconds == pytest.approx(0.001)

    q.done(i)
    m = q.metrics()
    assert m.work_duration.count == 2
    assert m.work_duration.sum == pytest.approx(2.5e-05 + 0.001)
    assert (m.unfinished_work_seconds, m.longest_running_processor_seconds) == (0.0, 0.0)
    assert m.depth == 0
    assert m.name == "test"


def test_unfinished_work_sums_all_processing_items(clock):
    q = Queue(clock=clock)
    q.add("a")
    q.get()
    clock.step(3)
    q.add("b")
    q.get()
    clock.step(1)
    m = q.metrics()
    assert m.unfinished_work_seconds == pytest.approx(5.0)  # 4 + 1
    assert m.longest_running_processor_seconds == pytest.approx(4.0)


@pytest.mark.parametrize("us", [1, 50, 100, 500, 1000, 10000, 100000, 1000000])
def test_since_in_seconds(clock, us):
    # client-go: TestSinceInMicroseconds (durations are clock deltas)
    q = Queue(clock=clock)
    q.add("x")
    clock.step(us * 1e-6)
    q.get()
    assert q.metrics().queue_latency.sum == pytest.approx(us * 1e-6)


def test_retries_and_waiting(clock):
    q = DelayingQueue(clock=clock)
    q.add_after("a", 5)
    q.add_after("b", 5)
    m = q.metrics()
    assert (m.retries, m.waiting, m.depth) == (2, 2, 0)
    q.shut_down()


def test_reservoir_is_bounded_and_percentiles_are_observed_values():
    r = Reservoir(size=100)
    for v in range(1, 1001):
        r.observe(float(v))
    s = r.summary()
    assert s.count == 1000
    assert s.sum == sum(range(1, 1001))
    assert len(r.window) == 100
    # Percentiles over the most recent 100 (901..1000).
    assert (s.p50, s.p90, s.p99, s.max) == (950.0, 990.0, 999.0, 1000.0)
    assert s.mean == pytest.approx(500.5)


def test_empty_summary():
    s = Reservoir().summary()
    assert (s.count, s.sum, s.p50, s.max, s.mean) == (0, 0.0, 0.0, 0.0, 0.0)


def test_snapshot_to_dict_is_json_ready(clock):
    import json

    q = Queue(name="n", clock=clock)
    q.add("a")
    d = q.metrics().to_dict()
    json.dumps(d)
    assert d["depth"] == 1 and d["queue_latency"]["count"] == 0


def test_buckets_count_every_observation_cumulatively():
    # le semantics: a value equal to a bound is in that bound's bucket.
    from kubectl_informer.workqueue.metrics import BUCKETS

    r = Reservoir(size=2)
    for v in (0.0, 1e-6, 5e-3, 0.01, 0.5, 7.0, 5000.0):
        r.observe(v)
    s = r.summary()
    assert BUCKETS[0] == 1e-6 and BUCKETS[1] == 9.999999999999999e-06 and BUCKETS[-1] == 1000.0 and len(BUCKETS) == 10
    got = dict(zip(BUCKETS, s.buckets, strict=True))
    assert got[1e-6] == 2  # 0 and 1e-6
    assert got[0.01] == 4  # + 5ms, 10ms
    assert got[1.0] == 5  # + 0.5s
    assert got[10.0] == 6  # + 7s
    assert got[1000.0] == 6  # 5000s is only in +Inf, which is count
    assert s.count == 7  # the window keeps 2, the buckets all 7
