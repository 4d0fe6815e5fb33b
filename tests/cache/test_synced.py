"""``informer.synced`` follows client-go's HasSynced for every profile: true as
soon as the first Replace is done with nothing left of it queued, including
an empty list, where no pop ever comes to notice it."""

from __future__ import annotations

import threading

import pytest

from kubectl_informer.cache.testing.fake_controller_source import FakeSource, make_object
from kubectl_informer.clock.testing import wait_for
from kubectl_informer.core.trace import TraceBuffer, Tracer
from kubectl_informer.run.pipeline import PROFILES, new_informer


@pytest.mark.parametrize("profile", sorted(PROFILES))
@pytest.mark.parametrize("size", [0, 1, 10_000])
def test_synced_emitted_once_at_has_synced(profile, size):
    src = FakeSource()
    src.bulk_add(make_object(f"pod{i}") for i in range(size))
    tracer = Tracer()
    trace = TraceBuffer(maxlen=200_000)
    tracer.subscribe(trace)
    inf = new_informer(src, PROFILES[profile], tracer=tracer)
    stop = threading.Event()
    t = threading.Thread(target=inf.run, args=(stop,), daemon=True)
    t.start()
    try:
        seen: list = []
        assert wait_for(lambda: seen.extend(e for e in trace.drain() if e.kind == "informer.synced") or seen, 20), (
            f"no informer.synced for {size} objects with client-go {profile}"
        )
        assert inf.has_synced()
        assert seen[0].fields["items"] == size == len(inf.get_indexer())
        # Later events (a change, a relist) never emit it again.
        src.add(make_object("late"))
        assert wait_for(lambda: len(inf.get_indexer()) == size + 1, 10)
        src.drop_watches()
        assert wait_for(lambda: src.open_watches() >= 1, 10)
        assert not [e for e in trace.drain() if e.kind == "informer.synced"]
    finally:
        stop.set()
        t.join(10)
    assert not t.is_alive()


@pytest.mark.parametrize("size", [0, 50])
def test_handler_synced_once_per_registration_after_its_initial_adds(size):
    """client-go's registration HasSynced: the informer synced *and* the handler
    handled every initial-list add (a slow handler syncs late); a handler added
    after start syncs once the cache replayed to it is handled, at once if empty."""
    from kubectl_informer.cache.shared_informer import ResourceEventHandlerFuncs

    src = FakeSource()
    src.bulk_add(make_object(f"pod{i}") for i in range(size))
    tracer = Tracer()
    trace = TraceBuffer(maxlen=10_000)
    tracer.subscribe(trace)
    inf = new_informer(src, PROFILES["1.32"], tracer=tracer)
    gate = threading.Event()
    slow = inf.add_event_handler(ResourceEventHandlerFuncs(add=lambda obj, initial: gate.wait(10)), name="slow")
    fast = inf.add_event_handler(ResourceEventHandlerFuncs(), name="fast")
    stop = threading.Event()
    t = threading.Thread(target=inf.run, args=(stop,), daemon=True)
    t.start()
    events: list = []

    def synced(name):
        events.extend(trace.drain())
        return [e for e in events if e.kind == "handler.synced" and e.fields["listener"] == name]

    try:
        assert wait_for(lambda: synced("fast"), 20)
        assert inf.has_synced() and fast.has_synced()
        assert synced("fast")[0].fields["initial"] == size
        kinds = [e.kind for e in events]
        assert kinds.index("informer.synced") < kinds.index("handler.synced")
        if size:
            assert not synced("slow") and not slow.has_synced()  # its adds wait on the gate
        gate.set()
        assert wait_for(lambda: synced("slow"), 20) and slow.has_synced()
        late = inf.add_event_handler(ResourceEventHandlerFuncs(), name="late")
        assert wait_for(lambda: synced("late"), 20) and late.has_synced()
        assert synced("late")[0].fields["initial"] == size
        assert all(len(synced(n)) == 1 for n in ("fast", "slow", "late"))
    finally:
        gate.set()
        stop.set()
        t.join(10)
