"""Queue: ports of client-go util/workqueue/queue_test.go, plus trace and
timeout behaviour of our API."""

import gc
import threading
import weakref

import pytest

from kubectl_informer.clock.testing import wait_for
from kubectl_informer.workqueue import Queue

SHUTDOWNS = [Queue.shut_down, Queue.shut_down_with_drain]


def _run_threads(targets):
    threads = [threading.Thread(target=t, daemon=True) for t in targets]
    for t in threads:
        t.start()
    return threads


def _join(threads, timeout=10.0):
    for t in threads:
        t.join(timeout)
        assert not t.is_alive(), "thread did not finish"


@pytest.mark.parametrize("shutdown", SHUTDOWNS, ids=["shut_down", "shut_down_with_drain"])
def test_basic(shutdown):
    # client-go: TestBasic (producers and consumers; nothing added after shutdown)
    q = Queue()
    held = set()
    overlap = []
    lock = threading.Lock()
    processed = []

    def producer(i):
        def run():
            for _ in range(20):
                q.add(i)

        return run

    def consumer():
        while True:
            item, quit_ = q.get(timeout=10)
            if item == "added after shutdown!":
                overlap.append("late item")
            if quit_:
                return
            with lock:
                if item in held:
                    overlap.append(item)
                held.add(item)
                processed.append(item)
            with lock:
                held.discard(item)
            q.done(item)

    producers = _run_threads([producer(i) for i in range(20)])
    consumers = _run_threads([consumer for _ in range(5)])
    _join(producers)
    # Items still queued at shutdown are handed out before get reports it.
    shutdown(q)
    q.add("added after shutdown!")
    _join(consumers)
    assert overlap == []
    assert q.len() == 0
    assert set(processed) == set(range(20))


@pytest.mark.parametrize("shutdown", SHUTDOWNS, ids=["shut_down", "shut_down_with_drain"])
def test_add_while_processing(shutdown):
    # client-go: TestAddWhileProcessing (every worker re-adds each item once
    # while it holds it: the dirty-while-processing path)
    q = Queue()
    counts = {}
    lock = threading.Lock()

    def producer(i):
        return lambda: q.add(i)

    def consumer():
        seen = {}
        while True:
            item, quit_ = q.get(timeout=10)
            if quit_:
                return
            seen[item] = seen.get(item, 0) + 1
            with lock:
                counts[item] = counts.get(item, 0) + 1
            if seen[item] < 2:
                q.add(item)
            q.done(item)

    producers = _run_threads([producer(i) for i in range(50)])
    consumers = _run_threads([consumer for _ in range(10)])
    _join(producers)
    # Wait for the re-adds to settle: after shutdown they would be ignored.
    assert wait_for(lambda: q.len() == 0 and not q.processing() and not q.dirty(), timeout=10)
    shutdown(q)
    _join(consumers)
    assert q.len() == 0
    # Each item was processed at least twice: the re-add was never lost.
    assert set(counts) == set(range(50))
    assert all(c >= 2 for c in counts.values())


def test_len():
    # client-go: TestLen
    q = Queue()
    q.add("foo")
    assert q.len() == 1
    q.add("bar")
    assert q.len() == 2
    q.add("foo")  # a duplicate does not grow the queue
    assert q.len() == 2
    assert len(q) == 2


def test_empty_queue_is_truthy():
    # `queue or default` must not throw away an empty queue.
    assert bool(Queue()) is True


def test_reinsert():
    # client-go: TestReinsert
    q = Queue()
    q.add("foo")
    item, _ = q.get()
    assert item == "foo"
    q.add(item)  # back while processing: only marked dirty
    assert q.len() == 0
    assert q.dirty() == {"foo"} and q.processing() == {"foo"}
    q.done(item)
    item, _ = q.get()
    assert item == "foo"
    q.done(item)
    assert q.len() == 0
    assert q.dirty() == set() and q.processing() == set()


def test_queue_drainage_using_shut_down_with_drain():
    # client-go: TestQueueDrainageUsingShutDownWithDrain
    q = Queue()
    q.add("foo")
    q.add("bar")
    first, _ = q.get()
    second, _ = q.get()
    finished = threading.Event()

    def drain():
        q.shut_down_with_drain()
        finished.set()

    _run_threads([drain])
    shutting = False
    while not shutting:
        _, shutting = q.get(timeout=5)
    assert not finished.is_set(), "drain returned while items were processing"
    q.done(first)
    assert not finished.wait(0.02)
    q.done(second)
    assert finished.wait(5)


def test_no_queue_drainage_using_shut_down():
    # client-go: TestNoQueueDrainageUsingShutDown
    q = Queue()
    q.add("foo")
    q.add("bar")
    q.get()
    q.get()
    finished = threading.Event()
    _run_threads([lambda: (q.shut_down(), finished.set())])
    # shut_down returns without waiting for done.
    assert finished.wait(5)


def test_force_queue_shutdown_using_shut_down():
    # client-go: TestForceQueueShutdownUsingShutDown
    q = Queue()
    q.add("foo")
    q.add("bar")
    q.get()
    q.get()
    finished = threading.Event()
    _run_threads([lambda: (q.shut_down_with_drain(), finished.set())])
    shutting = False
    while not shutting:
        _, shutting = q.get(timeout=5)
    assert not finished.is_set()
    q.shut_down()  # a second Ctrl-C: stop waiting for the drain
    assert finished.wait(5)


def test_queue_drainage_using_shut_down_with_drain_with_dirty_item():
    # client-go: TestQueueDrainageUsingShutDownWithDrainWithDirtyItem
    q = Queue()
    q.add("foo")
    gotten, _ = q.get()
    q.add("foo")
    finished = threading.Event()
    _run_threads([lambda: (q.shut_down_with_drain(), finished.set())])
    shutting = False
    while not shutting:
        _, shutting = q.get(timeout=5)
    q.done(gotten)
    # done re-queued the dirty item even though the queue is shutting down.
    again, shutting = q.get(timeout=5)
    assert not shutting and again == "foo"
    q.done(again)
    _, shutting = q.get(timeout=5)
    assert shutting
    assert finished.wait(5)


def test_garbage_collection():
    # client-go: TestGarbageCollection (the queue keeps no reference to a
    # finished item)
    class Big:
        pass

    q = Queue()
    obj = Big()
    ref = weakref.ref(obj)
    q.add(obj)
    item, _ = q.get()
    q.done(item)
    del obj, item
    gc.collect()
    assert ref() is None


def test_get_timeout_raises_and_leaves_queue_usable():
    q = Queue()
    with pytest.raises(TimeoutError):
        q.get(timeout=0.01)
    q.add("a")
    assert q.get(timeout=0.01) == ("a", False)


def test_get_wakes_on_add_from_another_thread():
    q = Queue()
    got = []
    t = _run_threads([lambda: got.append(q.get(timeout=5))])
    q.add("x")
    _join(t)
    assert got == [("x", False)]


def test_get_wakes_on_shutdown():
    q = Queue()
    got = []
    t = _run_threads([lambda: got.append(q.get(timeout=5))])
    q.shut_down()
    _join(t)
    assert got == [(None, True)]


def test_items_queued_before_shutdown_are_still_handed_out():
    # client-go Get: shuttingDown only ends a Get when the queue is empty.
    q = Queue()
    q.add("a")
    q.shut_down()
    assert q.shutting_down()
    q.add("b")  # ignored
    assert q.get() == ("a", False)
    assert q.get() == (None, True)


def test_done_of_item_not_processing_is_ignored():
    q = Queue()
    q.add("a")
    q.done("a")  # never got: must not queue "a" twice
    assert q.queued() == ["a"]
    assert q.get() == ("a", False)
    q.done("a")
    assert q.len() == 0


def test_fifo_order_and_views():
    q = Queue()
    for k in ["c", "a", "b", "a"]:
        q.add(k)
    assert q.queued() == ["c", "a", "b"]
    assert q.dirty() == {"a", "b", "c"}
    item, _ = q.get()
    assert item == "c"
    assert q.processing() == {"c"}
    assert q.dirty() == {"a", "b"}


def test_shut_down_with_drain_timeout():
    q = Queue()
    q.add("a")
    q.get()
    with pytest.raises(TimeoutError):
        q.shut_down_with_drain(timeout=0.01)


def test_trace_events(clock, tracer, trace):
    q = Queue(clock=clock, tracer=tracer)
    q.add("a")
    q.add("a")
    clock.step(2)
    item, _ = q.get()
    q.add("a")
    clock.step(3)
    q.done(item)
    q.shut_down_with_drain()
    evs = [(e.kind, e.key, e.fields) for e in trace.drain()]
    assert evs == [
        ("queue.add", "a", {"outcome": "queued", "depth": 1}),
        ("queue.add", "a", {"outcome": "already_dirty", "depth": 1}),
        ("queue.get", "a", {"waited": 2.0, "depth": 0}),
        ("queue.add", "a", {"outcome": "dirty_while_processing", "depth": 0}),
        ("queue.done", "a", {"worked": 3.0, "requeued": True}),
        ("queue.shutdown", None, {"drain": True}),
    ]


def test_no_events_without_subscriber(clock, tracer):
    seen = []
    q = Queue(clock=clock, tracer=tracer)
    q.add("a")
    unsub = tracer.subscribe(seen.append)
    q.get()
    unsub()
    q.done("a")
    assert [e.kind for e in seen] == ["queue.get"]


def test_non_string_items_traced_with_str_key(tracer, trace):
    q = Queue(tracer=tracer)
    q.add(7)
    assert trace.drain()[0].key == "7"
