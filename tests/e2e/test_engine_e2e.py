"""The whole engine under churn and faults, in memory.

Informer (each client-go profile) + RateLimitingQueue + SimulatedController
workers over a FakeSource that keeps changing objects while it expires
watches (410), drops them, sends ERROR events and refuses or throttles the
next list/watch. At the end the indexer must equal the source, and no key
may ever have been held by two workers at once.

Time is a FakeClock moved by a driver thread to the next deadline whenever
some thread waits on it (back-offs, resync ticks, work, rate-limited
requeues), so the test never sleeps to let time pass.
"""

from __future__ import annotations

import random
import threading
import time

import pytest

from kubectl_informer.cache.testing.fake_controller_source import FakeSource, make_object, too_many_requests_error
from kubectl_informer.clock.testing import FakeClock, wait_for
from kubectl_informer.core.apierrors import ApiError
from kubectl_informer.core.trace import TraceBuffer, Tracer
from kubectl_informer.run.pipeline import PROFILES, new_informer
from kubectl_informer.run.sample_controller import SimulatedController


class ClockDriver:
    """Moves a FakeClock to the next deadline whenever something waits."""

    def __init__(self, clock: FakeClock):
        self.clock = clock
        self.stop = threading.Event()
        self.t = threading.Thread(target=self._run, daemon=True)
        self.t.start()

    def _run(self):
        while not self.stop.is_set():
            d = self.clock.next_deadline()
            if d is not None:
                self.clock.set_time(max(d, self.clock.now()))
            # Polling for other threads to reach their waits (not time passing).
            time.sleep(0.0005)

    def close(self):
        self.stop.set()
        self.t.join(5)


def _rv_map(objs):
    return {k: o["metadata"]["resourceVersion"] for k, o in objs}


@pytest.mark.parametrize("client_go", ["1.32", "1.35", "1.36"])
def test_engine_converges_under_churn_and_faults(client_go):
    clock = FakeClock(1000.0)
    tracer = Tracer(clock)
    buf = TraceBuffer(maxlen=2_000_000)
    tracer.subscribe(buf)
    seen_kinds: set[str] = set()
    watching = [False]

    def see(e):
        seen_kinds.add(e.kind)
        if e.kind in ("watch.start", "watch.end"):
            watching[0] = e.kind == "watch.start"

    tracer.subscribe(see)
    rng = random.Random(42)
    src = FakeSource(history=200)
    for i in range(30):
        src.add(make_object(f"obj-{i}", phase="Pending"))

    informer = new_informer(src, PROFILES[client_go], resync_period=5.0, clock=clock, tracer=tracer, page_size=7)
    ctrl = SimulatedController(informer, workers=4, work_time=0.005, fail_rate=0.1, clock=clock, tracer=tracer, seed=1)
    stop = threading.Event()
    driver = ClockDriver(clock)
    threads = [
        threading.Thread(target=informer.run, args=(stop,), daemon=True),
        threading.Thread(target=ctrl.run, args=(stop,), daemon=True),
    ]
    for t in threads:
        t.start()
    try:
        assert wait_for(informer.has_synced, 10)
        faults = [
            src.expire_watches,
            src.drop_watches,
            lambda: src.send_error(ApiError(500, "InternalError", "etcd leader changed")),
            lambda: src.fail_next(too_many_requests_error(), "watch"),
            lambda: src.fail_next(ConnectionRefusedError("connection refused"), None),
            src.compact,
        ]
        for round_ in range(24):
            src.churn(40, rng, prefix="obj", max_objects=60)
            faults[round_ % len(faults)]()
            time.sleep(0.002)  # let the pipeline interleave with the churn (real threads, not clock time)

        assert wait_for(lambda: "resync.tick" in seen_kinds, 10)

        # On a loaded machine every change above may have come through a
        # relist; more changes, while a watch is open, come through it.
        def a_watch_event():
            if "watch.event" in seen_kinds:
                return True
            if watching[0]:
                src.churn(2, rng, prefix="obj", max_objects=60)
            return False

        assert wait_for(a_watch_event, 20)
        want = _rv_map(src.objects().items())
        store = informer.get_store()

        def cached():
            return {
                k: o["metadata"]["resourceVersion"]
                for k, o in ((k, store.get_by_key(k)[0]) for k in store.list_keys())
                if o
            }

        assert wait_for(lambda: cached() == want, 20), "indexer never converged to the source"
        assert sorted(store.list_keys()) == sorted(want)
        # The reflector hands an event to the FIFO before it records the event's
        # RV, and the indexer is filled from the FIFO on another thread: the
        # cache can equal the source a moment before the reflector's RV does.
        assert wait_for(lambda: informer.last_sync_resource_version() == src.resource_version, 10), (
            informer.last_sync_resource_version(),
            src.resource_version,
        )
        # Every key of the source reaches a worker after the last change.
        done_after = len(buf)
        assert wait_for(lambda: ctrl.stats()["processed"] > 0 and len(buf) > done_after, 10)
    finally:
        driver.close()
        stop.set()
        for t in threads:
            t.join(10)
    assert not any(t.is_alive() for t in threads)

    stats = ctrl.stats()
    assert stats["overlaps"] == 0 and stats["processed"] > 0 and stats["failures"] > 0

    # Independent of the controller's own count: by trace order, a key's
    # queue.get and queue.done alternate, never two gets in a row, and the
    # worker that got it is the one that is done with it.
    events = sorted(buf.drain(), key=lambda e: e.seq)
    holder: dict[str, int] = {}
    kinds = set()
    for e in events:
        kinds.add(e.kind)
        if e.kind == "queue.get":
            assert e.key not in holder, f"{e.key} held by workers {holder[e.key]} and {e.fields['worker']}"
            holder[e.key] = e.fields["worker"]
        elif e.kind == "queue.done":
            assert holder.pop(e.key) == e.fields["worker"]
    # The faults really happened and were recovered from.
    relists = [e.fields["reason"] for e in events if e.kind == "relist"]
    assert "expired" in relists
    assert any(e.kind == "watch.end" and "429" in e.fields.get("error", "") for e in events)
    assert {
        "list.done",
        "watch.event",
        "rv.advance",
        "store.update",
        "handler.update",
        "resync.tick",
        "queue.add",
    } <= kinds
