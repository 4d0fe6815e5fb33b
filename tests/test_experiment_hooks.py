"""The engine's hooks for the experiments (key x), on a FakeClock: the
reflector's close_watch / forget_resource_version, a held FIFO (the paused
consumer), a held workqueue (paused workers) and the controller's fail_next."""

from __future__ import annotations

import random
import threading

import pytest

from kubectl_informer.cache.delta_fifo import DeltaFIFO, FIFOClosedError
from kubectl_informer.cache.real_fifo import RealFIFO
from kubectl_informer.cache.reflector import Reflector
from kubectl_informer.cache.shared_informer import SharedIndexInformer
from kubectl_informer.cache.testing.fake_controller_source import make_object
from kubectl_informer.clock.testing import wait_for
from kubectl_informer.run.sample_controller import SimulatedController
from kubectl_informer.workqueue import ItemExponentialFailureRateLimiter, RateLimitingQueue

from .cache.helpers import empty_known, mk
from .cache.running import Runner, each_closed
from .cache.running import Running as RunningInformer
from .cache.test_reflector import RecordingStore, calls, seeded
from .cache.test_shared_informer import Recorder, source
from .test_sample_controller import FakeInformer, Running, pod


@pytest.fixture
def runners():
    """As tests/cache's: ``runners(reflector)`` runs it on a thread, stopped after the test."""
    yield from each_closed(Runner)


@pytest.fixture
def start():
    """As tests/cache's: ``start(informer)`` runs it on a thread, stopped after the test."""
    yield from each_closed(RunningInformer)


# --- Reflector ------------------------------------------------------------------


def test_close_watch_rewatches_from_the_last_rv_without_a_list(clock, tracer, trace, runners):
    src = seeded(2)
    r = Reflector(src, RecordingStore(), clock=clock, tracer=tracer)
    assert r.close_watch() is False  # nothing open yet
    runners(r)
    assert wait_for(lambda: len(calls(src, "watch")) == 1)
    src.add(make_object("p9"))
    assert wait_for(lambda: r.last_sync_resource_version() == "3")
    assert r.close_watch() is True
    assert wait_for(lambda: len(calls(src, "watch")) == 2)
    assert calls(src, "watch")[1].resource_version == "3"
    assert len(calls(src, "list")) == 1
    kinds = [(e.kind, e.fields.get("reason")) for e in trace.drain() if e.kind in ("watch.end", "relist")]
    assert kinds == [("watch.end", "closed")]


def test_forget_resource_version_relists_at_empty_rv_then_as_usual(clock, tracer, trace, runners):
    # As client-go after a LIST at the last RV answered 410: the next list is
    # a consistent read at "", after the reflector's back-off.
    src = seeded(2)
    r = Reflector(src, RecordingStore(), clock=clock, tracer=tracer, rng=random.Random(0))
    runners(r)
    assert wait_for(lambda: len(calls(src, "watch")) == 1)
    src.add(make_object("p9"))
    assert wait_for(lambda: r.last_sync_resource_version() == "3")
    assert r.forget_resource_version() is True
    assert wait_for(clock.has_waiters)  # the back-off between two ListAndWatch
    clock.step(5.0)
    assert wait_for(lambda: len(calls(src, "watch")) == 2)
    assert [o.resource_version for o in calls(src, "list")] == ["0", ""]
    assert r.relist_resource_version() == "3"  # the relist at "" made the RV available again
    evs = [e for e in trace.drain() if e.kind in ("watch.end", "relist", "list.start")]
    assert [(e.kind, e.fields.get("reason", e.fields.get("resource_version"))) for e in evs] == [
        ("list.start", "0"),
        ("watch.end", "closed"),
        ("relist", "forgotten"),
        ("list.start", ""),
    ]


def test_forget_between_watches_takes_effect_at_the_next_turn(clock, tracer, trace, runners):
    src = seeded(1)
    r = Reflector(src, RecordingStore(), clock=clock, tracer=tracer, rng=random.Random(0))
    assert r.forget_resource_version() is False  # no watch open: remembered
    runners(r)
    # The first list happens, the watch loop sees the request and relists at "".
    assert wait_for(clock.has_waiters)
    clock.step(5.0)
    assert wait_for(lambda: len(calls(src, "list")) == 2)
    assert [o.resource_version for o in calls(src, "list")] == ["0", ""]


# --- FIFOs: hold ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "make",
    [lambda: DeltaFIFO(known_objects=empty_known()), lambda: RealFIFO(known_objects=empty_known())],
    ids=["DeltaFIFO", "RealFIFO"],
)
def test_a_held_fifo_queues_but_pops_nothing_until_let_go(make):
    f = make()
    f.hold(True)
    f.add(mk("a", 1))
    f.update(mk("a", 2))
    with pytest.raises(TimeoutError):
        f.pop(lambda d, i: None, timeout=0.05)
    got = []
    t = threading.Thread(target=lambda: got.append(f.pop(lambda d, i: None)), daemon=True)
    t.start()
    assert not wait_for(lambda: got, timeout=0.05)
    f.hold(False)
    t.join(2)
    assert [d.type for d in got[0]] == (["Added", "Updated"] if isinstance(f, DeltaFIFO) else ["Added"])
    f.hold(True)
    f.close()
    with pytest.raises(FIFOClosedError):
        f.pop(lambda d, i: None, timeout=1)


# --- SharedIndexInformer: the FIFO consumer ----------------------------------------


@pytest.mark.parametrize("fifo,slots", [("delta", 1), ("real", 5)])
def test_paused_consumer_leaves_deltas_in_the_fifo_until_resumed(clock, tracer, trace, start, fifo, slots):
    src = source(2)
    inf = SharedIndexInformer(src, clock=clock, tracer=tracer, fifo=fifo)
    rec = Recorder()
    inf.add_event_handler(rec)
    start(inf)
    assert wait_for(lambda: len(rec.events) == 2)
    inf.pause_consumer()
    assert inf.consumer_paused
    for i in range(5):
        src.modify(dict(src.get("default/pod1"), n=i))
    assert wait_for(lambda: len(inf.fifo.list_keys() if fifo == "delta" else inf.fifo.pending()) == slots)
    if fifo == "delta":
        deltas, _ = inf.fifo.get_by_key("default/pod1")
        assert len(deltas) == 5  # one slot holds all five
    assert inf.indexer.get_by_key("default/pod1")[0]["metadata"]["resourceVersion"] == "1"
    assert rec.of("update") == []
    inf.pause_consumer(False)
    assert wait_for(lambda: len(rec.of("update")) == 5)  # the handler still gets every one
    assert inf.indexer.get_by_key("default/pod1")[0]["metadata"]["resourceVersion"] == "7"


def test_a_paused_consumer_does_not_hold_up_stop(clock, start):
    inf = SharedIndexInformer(source(1), clock=clock)
    run = start(inf)
    assert wait_for(inf.has_synced)
    inf.pause_consumer()
    run.close()  # asserts the thread ended
    assert inf.is_stopped()


# --- SimulatedController ------------------------------------------------------------


def test_a_held_queue_collapses_adds_and_hands_out_nothing_until_let_go():
    q = RateLimitingQueue()
    q.hold(True)
    for item in ("a", "b", "a"):
        q.add(item)
    assert q.queued() == ["a", "b"]
    with pytest.raises(TimeoutError):
        q.get(timeout=0.05)
    q.hold(False)
    assert q.get(timeout=1) == ("a", False)
    q.hold(True)
    q.shut_down()  # shutting down ends the hold: what is queued is still handed out
    assert q.get(timeout=1) == ("b", False)


def test_paused_workers_take_nothing_until_resumed(clock, tracer):
    informer = FakeInformer()
    ctrl = SimulatedController(informer, workers=2, work_time=0.0, clock=clock, tracer=tracer)
    with Running(ctrl):
        assert wait_for(lambda: ctrl.queue._getters == 2)  # both workers blocked in get
        ctrl.pause_workers()
        assert ctrl.workers_paused
        for n in "abcd":
            informer.add(pod(n))
        assert wait_for(lambda: len(ctrl.queue) == 4)
        assert ctrl.stats()["processed"] == 0 and ctrl.queue.processing() == set()
        ctrl.pause_workers(False)
        assert wait_for(lambda: ctrl.stats()["processed"] == 4)


def test_paused_workers_do_not_hold_up_stop(clock):
    ctrl = SimulatedController(FakeInformer(), workers=2, clock=clock)
    ctrl.pause_workers()
    with Running(ctrl):
        pass  # __exit__ asserts run() returned


def test_fail_next_fails_that_many_then_the_back_off_grows(clock, tracer, trace):
    informer = FakeInformer()
    ctrl = SimulatedController(
        informer,
        workers=1,
        work_time=0.0,
        clock=clock,
        tracer=tracer,
        rate_limiter=ItemExponentialFailureRateLimiter(1.0, 100.0),
    )
    ctrl.fail_next(3)
    assert ctrl.failures_to_come() == 3
    informer.add(pod("x"))
    with Running(ctrl):
        q = ctrl.queue
        for requeues, delay in ((1, 1.0), (2, 2.0), (3, 4.0)):
            assert wait_for(lambda requeues=requeues: q.num_requeues("default/x") == requeues and q.waiting())
            assert q.waiting() == [("default/x", clock.now() + delay)]
            clock.step(delay)
        assert wait_for(lambda: ctrl.stats()["processed"] == 4)
        assert q.num_requeues("default/x") == 0  # the success forgot it
    evs = trace.drain()
    assert [e.fields["left"] for e in evs if e.kind == "experiment.failed"] == [2, 1, 0]
    assert [e.fields["outcome"] for e in evs if e.kind == "queue.done"] == ["error"] * 3 + ["ok"]
    with pytest.raises(ValueError):
        ctrl.fail_next(-1)
