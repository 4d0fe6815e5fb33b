"""``informer.synced`` follows client-go's HasSynced for every profile: true as
soon as the first Replace is done with nothing left of it queued, including
an empty list, where no pop ever comes to notice it."""

from __future__ import annotations

import threading

import pytest

from kubectl_informer.cache.testing.fake_controller_source import FakeSource, make_object
from kubectl_informer.clock.testing import wait_for
from kubectl_informer.run.pipeline import PROFILES, new_informer
from kubectl_informer.core.trace import TraceBuffer, Tracer


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
        assert wait_for(lambda: seen.extend(e for e in trace.drain() if e.kind == "informer.synced") or seen, 20), \
            f"no informer.synced for {size} objects with client-go {profile}"
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
