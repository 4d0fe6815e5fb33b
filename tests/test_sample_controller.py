"""SimulatedController: event handler -> RateLimitingQueue -> workers, on a
FakeClock, with a tiny fake informer that calls handlers directly."""

import threading

import pytest

from kubectl_informer.cache.keys import DeletedFinalStateUnknown
from kubectl_informer.clock import RealClock
from kubectl_informer.clock.testing import FakeClock, wait_for
from kubectl_informer.run.sample_controller import SimulatedController
from kubectl_informer.workqueue import ItemExponentialFailureRateLimiter, RateLimitingQueue


class FakeInformer:
    """Only what the controller needs: add_event_handler, and a way to fire
    the registered handlers."""

    def __init__(self):
        self.handlers = []

    def add_event_handler(self, handler, resync_period=None, name=None):
        self.handlers.append((name, handler))
        return object()

    def add(self, obj, initial=False):
        for _, h in self.handlers:
            h.on_add(obj, initial)

    def update(self, old, new):
        for _, h in self.handlers:
            h.on_update(old, new)

    def delete(self, obj):
        for _, h in self.handlers:
            h.on_delete(obj)


def pod(name, ns="default", rv="1"):
    return {"metadata": {"name": name, "namespace": ns, "resourceVersion": rv}}


@pytest.fixture
def informer():
    return FakeInformer()


class Running:
    """Runs controller.run in a thread; stops and joins on exit."""

    def __init__(self, ctrl):
        self.ctrl = ctrl
        self.stop = threading.Event()
        self.thread = threading.Thread(target=ctrl.run, args=(self.stop,), daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        self.thread.join(5)
        assert not self.thread.is_alive(), "controller.run did not return after stop"


def test_registers_handler_and_enqueues_keys(informer, clock):
    ctrl = SimulatedController(informer, clock=clock)
    assert [n for n, _ in informer.handlers] == ["controller"]
    informer.add(pod("web-1"), True)
    informer.update(pod("web-1"), pod("web-1", rv="2"))  # collapses into the queued key
    informer.add({"metadata": {"name": "node-1"}})
    informer.delete(DeletedFinalStateUnknown("default/gone", None))
    informer.delete(pod("web-2"))
    assert ctrl.queue.queued() == ["default/web-1", "node-1", "default/gone", "default/web-2"]


def test_unkeyable_objects_are_skipped(informer, clock):
    ctrl = SimulatedController(informer, clock=clock)
    informer.add(42)  # no metadata: client-go's handler logs and skips
    assert ctrl.queue.len() == 0


def test_workers_work_for_work_time_on_clock(informer, clock, tracer, trace):
    ctrl = SimulatedController(informer, workers=2, work_time=1.0, clock=clock, tracer=tracer)
    for n in ("a", "b", "c"):
        informer.add(pod(n))
    with Running(ctrl):
        # Two workers hold a and b, waiting on the clock; c waits its turn.
        assert wait_for(lambda: clock.waiter_count() == 2)
        assert ctrl.queue.processing() == {"default/a", "default/b"}
        assert ctrl.queue.queued() == ["default/c"]
        clock.step(1.0)
        assert wait_for(lambda: ctrl.queue.processing() == {"default/c"} and clock.waiter_count() == 1)
        clock.step(1.0)
        assert wait_for(lambda: ctrl.stats()["processed"] == 3)
    evs = trace.drain()
    # queue.get and queue.done say which worker, and how it went.
    starts = [e for e in evs if e.kind == "queue.get"]
    dones = [e for e in evs if e.kind == "queue.done"]
    assert sorted(e.key for e in starts) == ["default/a", "default/b", "default/c"]
    assert {e.fields["worker"] for e in starts} <= {1, 2}
    assert [(e.fields["outcome"], e.fields["worked"]) for e in dones] == [("ok", 1.0)] * 3
    # Each item is done by the worker that got it. Per key: a and b end at the
    # same clock step, their two workers' queue.done in either order.
    assert {e.key: e.fields["worker"] for e in dones} == {e.key: e.fields["worker"] for e in starts}
    # Success forgets the key's failures; a key that never failed has none
    # to forget, and no queue.forget is traced for it.
    kinds = [e.kind for e in evs if e.key == "default/c"]
    assert kinds[-2:] == ["queue.get", "queue.done"]
    assert "queue.forget" not in [e.kind for e in evs]
    assert ctrl.stats() == {"processed": 3, "failures": 0, "overlaps": 0, "active": 0}


def test_failures_are_rate_limited_and_retried(informer, clock, tracer, trace):
    ctrl = SimulatedController(
        informer,
        workers=1,
        work_time=0.0,
        fail_rate=1.0,
        rate_limiter=ItemExponentialFailureRateLimiter(1.0, 100.0),
        clock=clock,
        tracer=tracer,
    )
    informer.add(pod("x"))
    with Running(ctrl):
        q = ctrl.queue
        assert wait_for(lambda: q.waiting() == [("default/x", clock.now() + 1.0)])
        assert q.num_requeues("default/x") == 1
        assert wait_for(lambda: clock.next_deadline() is not None)
        clock.step(1.0)
        # Retried, failed again: the back-off doubled.
        assert wait_for(lambda: q.num_requeues("default/x") == 2)
        assert wait_for(lambda: q.waiting() == [("default/x", clock.now() + 2.0)])
    dones = [e for e in trace.drain() if e.kind in ("queue.done", "queue.rate_limited")]
    assert [(e.kind, e.fields.get("outcome"), e.fields.get("delay")) for e in dones[:4]] == [
        ("queue.rate_limited", None, 1.0),
        ("queue.done", "error", None),
        ("queue.rate_limited", None, 2.0),
        ("queue.done", "error", None),
    ]
    assert ctrl.stats()["failures"] == 2


def test_max_retries_forgets_and_reports_at_the_limit(informer, clock, tracer, trace):
    # client-go's examples/workqueue handleErr: NumRequeues below the limit
    # requeues rate-limited; at the limit, Forget and report, no requeue.
    ctrl = SimulatedController(
        informer,
        workers=1,
        work_time=0.0,
        fail_rate=1.0,
        max_retries=2,
        rate_limiter=ItemExponentialFailureRateLimiter(1.0, 100.0),
        clock=clock,
        tracer=tracer,
    )
    informer.add(pod("x"))
    with Running(ctrl):
        q = ctrl.queue
        assert wait_for(lambda: q.waiting() == [("default/x", clock.now() + 1.0)])
        clock.step(1.0)
        assert wait_for(lambda: q.waiting() == [("default/x", clock.now() + 2.0)])
        clock.step(2.0)
        # The third failure meets NumRequeues == 2: dropped, forgotten, not waiting.
        assert wait_for(lambda: ctrl.dropped == 1)
        assert wait_for(lambda: not q.processing())
        assert q.waiting() == [] and q.len() == 0 and q.num_requeues("default/x") == 0
        # A new event for the key starts its back-off over.
        informer.update(pod("x"), pod("x", rv="2"))
        assert wait_for(lambda: q.waiting() == [("default/x", clock.now() + 1.0)])
    evs = [e for e in trace.drain() if e.key == "default/x"]
    steps = [
        (e.kind, e.fields.get("requeues"))
        for e in evs
        if e.kind in ("queue.rate_limited", "queue.forget", "queue.dropped")
    ]
    assert steps == [
        ("queue.rate_limited", 1),
        ("queue.rate_limited", 2),
        ("queue.forget", 2),
        ("queue.dropped", 2),
        ("queue.rate_limited", 1),
    ]
    dropped = next(e for e in evs if e.kind == "queue.dropped")
    assert dropped.fields == {"requeues": 2, "max_retries": 2, "worker": 1}
    assert ctrl.stats()["failures"] == 4


def test_seeded_fail_rate_is_reproducible(clock):
    def outcomes(seed):
        inf = FakeInformer()
        ctrl = SimulatedController(inf, workers=1, work_time=0, fail_rate=0.5, clock=clock, seed=seed)
        res = []
        for i in range(40):
            inf.add(pod(f"p{i}"))
        for _ in range(40):
            ctrl.process_next_work_item(1)
            res.append(ctrl.failures)
        ctrl.queue.shut_down()
        return res

    a, b = outcomes(7), outcomes(7)
    assert a == b
    assert 0 < a[-1] < 40


def test_stop_cuts_work_short_and_run_returns(informer, clock):
    ctrl = SimulatedController(informer, workers=2, work_time=1000.0, clock=clock)
    informer.add(pod("slow"))
    r = Running(ctrl)
    with r:
        assert wait_for(lambda: ctrl.queue.processing() == {"default/slow"})
    # Exiting Running asserted run() returned without the clock moving.
    assert ctrl.queue.shutting_down()
    assert ctrl.stats()["active"] == 0


def test_uses_given_queue_and_its_clock(informer):
    clock = FakeClock()
    q = RateLimitingQueue(clock=clock)
    ctrl = SimulatedController(informer, queue=q)
    assert ctrl.queue is q and ctrl.clock is clock
    informer.add(pod("a"))
    assert q.queued() == ["default/a"]
    q.shut_down()


def test_no_key_held_by_two_workers_under_load(informer):
    ctrl = SimulatedController(
        informer,
        workers=4,
        work_time=0.0,
        fail_rate=0.2,
        clock=RealClock(),
        seed=1,
        rate_limiter=ItemExponentialFailureRateLimiter(0.0001, 0.001),
    )
    stop = threading.Event()
    t = threading.Thread(target=ctrl.run, args=(stop,), daemon=True)
    t.start()
    for round_ in range(20):
        for i in range(50):
            informer.update(pod(f"p{i}"), pod(f"p{i}", rv=str(round_)))
    assert wait_for(lambda: ctrl.queue.len() == 0 and not ctrl.queue.processing() and not ctrl.queue.waiting(), 10)
    stop.set()
    t.join(5)
    s = ctrl.stats()
    assert s["overlaps"] == 0
    assert s["processed"] >= 50


@pytest.mark.parametrize(
    "kwargs",
    [
        {"workers": 0},
        {"workers": 1.5},
        {"work_time": -1},
        {"fail_rate": 1.5},
        {"fail_rate": -0.1},
        {"max_retries": -1},
        {"max_retries": 1.5},
    ],
)
def test_bad_settings_are_one_line_errors(informer, kwargs):
    with pytest.raises(ValueError) as e:
        SimulatedController(informer, **kwargs)
    assert "\n" not in str(e.value)


def test_with_real_shared_informer_over_fake_source(clock, tracer):
    # The real pipeline: FakeSource -> Reflector -> FIFO -> Indexer ->
    # SharedIndexInformer handler -> RateLimitingQueue -> workers.
    from kubectl_informer.cache.shared_informer import SharedIndexInformer
    from kubectl_informer.cache.testing.fake_controller_source import FakeSource, make_object

    src = FakeSource(clock=clock)
    for i in range(20):
        src.add(make_object(f"p{i}"))
    informer = SharedIndexInformer(src, clock=clock, tracer=tracer)
    ctrl = SimulatedController(informer, workers=2, work_time=0.0, clock=clock, tracer=tracer)
    done_keys = []
    tracer.subscribe(lambda e: done_keys.append(e.key) if e.kind == "queue.done" else None)

    stop = threading.Event()
    threads = [
        threading.Thread(target=informer.run, args=(stop,), daemon=True),
        threading.Thread(target=ctrl.run, args=(stop,), daemon=True),
    ]
    for t in threads:
        t.start()
    try:
        assert wait_for(lambda: set(done_keys) == {f"default/p{i}" for i in range(20)}, 10)
        del done_keys[:]
        src.modify(make_object("p3", phase="Running"))
        src.delete(make_object("p7"))
        assert wait_for(lambda: {"default/p3", "default/p7"} <= set(done_keys), 10)
        assert ctrl.stats()["overlaps"] == 0
    finally:
        stop.set()
        for t in threads:
            t.join(10)
    assert not any(t.is_alive() for t in threads)
