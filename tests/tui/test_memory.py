"""Memory stays bounded however long the run: events past every ring's bound through the app."""

import tracemalloc

from kubectl_informer.core.trace import TraceEvent

from .helpers import TraceMaker, make_app

KINDS = [
    ("watch.event", {"type": "MODIFIED", "resource_version": "1"}),
    ("fifo.queue", {"type": "Updated", "depth": 1, "pending": 1}),
    ("fifo.coalesce", {"type": "Updated", "depth": 1, "pending": 2}),
    ("fifo.skip", {"type": "Sync", "reason": "resync_pending"}),
    ("fifo.pop", {"types": ["Updated", "Updated"], "is_in_initial_list": False, "waited": 0.001, "depth": 0}),
    ("store.update", {"resource_version": "2", "delta": "Updated", "summary": "Running", "diff": ["labels.a +"],
                      "is_in_initial_list": False, "old_resource_version": "1"}),
    ("handler.update", {"listener": "handler-1", "is_sync": False, "buffered": 0}),
    ("queue.add", {"outcome": "queued", "depth": 1}),
    ("queue.get", {"waited": 0.001, "depth": 0}),
    ("queue.done", {"worked": 0.01, "requeued": False}),
]


def events(start_seq: int, n: int, keys: int):
    """``n`` events over ``keys`` distinct keys, each key's events in pipeline order."""
    out = []
    per = len(KINDS)
    for i in range(n):
        kind, fields = KINDS[i % per]
        j = (start_seq + i) // per % keys
        key = f"ns-{j % 50}/pod-{j}"
        if kind == "store.update":
            # A new version of the object each time, as the informer hands it over in-process.
            fields = dict(fields, object={"metadata": {"name": key, "resourceVersion": str(start_seq + i)},
                                          "status": {"n": start_seq + i, "pad": "x" * 200}})
        out.append(TraceEvent.build(start_seq + i, 100.0 + (start_seq + i) * 1e-4, kind, key, **fields))
    return out


def test_events_past_every_bound_keep_every_ring_within_it():
    app = make_app(trace=TraceMaker())
    # Sized to the bounds: the ring that fills last is the Explain panel's
    # keys (one store record per key per pass of the KINDS), so a bit over
    # that many keys' worth of events fills every ring; a second batch as big,
    # on new keys, must then cost next to nothing.
    facts = app.states["explain"].facts.store
    keys = int(1.2 * facts.max_keys)
    half = keys * len(KINDS)  # each key once; the second batch revisits the same keys, as a cluster churns
    tracemalloc.start()
    try:
        app.buffer.extend(events(1, half, keys=keys))
        assert app.drain() == half
        half_mem, _ = tracemalloc.get_traced_memory()
        assert len(facts) == facts.max_keys  # the sizing above filled the last ring
        # As many again: the same cluster's objects churning on.
        app.buffer.extend(events(half + 1, half, keys=keys))
        assert app.drain() == half
        full, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    st = app.states
    assert len(st["deltas"].rows) == st["deltas"].rows.maxlen
    insp = st["inspector"].history
    assert len(insp) <= insp.max_keys and insp.evicted > 0
    assert insp.items == insp.total_items() <= insp.max_items
    assert all(len(insp.ring(k)) <= insp.per_key for k in list(insp.keys_newest_first())[:100])
    objs = st["inspector"].objects
    assert len(objs) <= objs.max_keys and objs.entries_held() <= objs.max_entries
    assert 0 < objs.objects_held() <= objs.max_objects
    assert len(st["fifo"].recent) == st["fifo"].recent.maxlen
    assert len(st["fifo"].queued) <= st["fifo"].max_keys
    assert len(app.buffer) == 0
    # The second batch costs next to nothing: every ring was already full.
    assert full - half_mem < 0.05 * half_mem, (half_mem, full)


def test_unread_buffer_drops_oldest_instead_of_growing():
    from kubectl_informer.core.trace import TraceBuffer

    buf = TraceBuffer(maxlen=1000)
    buf.extend(events(1, 5000, keys=10))
    assert len(buf) == 1000 and buf.dropped == 4000
