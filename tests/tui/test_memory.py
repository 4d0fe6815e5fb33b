"""Memory stays bounded however long the run: events past every ring's bound through the app."""

import tracemalloc
from functools import partial

from kubectl_informer.core.trace import TraceEvent
from kubectl_informer.panes.deltas import DeltasState
from kubectl_informer.panes.explain.facts import PerKey
from kubectl_informer.panes.explain_state import ExplainState
from kubectl_informer.panes.feed import FeedLoop
from kubectl_informer.panes.fifo import FifoState
from kubectl_informer.panes.inspector import InspectorState
from kubectl_informer.panes.objects import ObjectHistory

from .helpers import TraceMaker, make_app

# Every keyed ring here remembers this many keys (the product's remember
# thousands): the same code bounds them, and passing a few hundred keys'
# worth of events past them costs a fraction of a second instead of ten
# (the rings' own sizes are tested in tests/tui/test_ring.py and beside each state).
SMALL = 200

KINDS = [
    ("watch.event", {"type": "MODIFIED", "resource_version": "1"}),
    ("fifo.queue", {"type": "Updated", "depth": 1, "pending": 1}),
    ("fifo.coalesce", {"type": "Updated", "depth": 1, "pending": 2}),
    ("fifo.skip", {"type": "Sync", "reason": "resync_pending"}),
    ("fifo.pop", {"types": ["Updated", "Updated"], "is_in_initial_list": False, "waited": 0.001, "depth": 0}),
    (
        "store.update",
        {
            "resource_version": "2",
            "delta": "Updated",
            "summary": "Running",
            "diff": ["labels.a +"],
            "is_in_initial_list": False,
            "old_resource_version": "1",
        },
    ),
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
            fields = dict(
                fields,
                object={
                    "metadata": {"name": key, "resourceVersion": str(start_seq + i)},
                    "status": {"n": start_seq + i, "pad": "x" * 200},
                },
            )
        out.append(TraceEvent.build(start_seq + i, 100.0 + (start_seq + i) * 1e-4, kind, key, **fields))
    return out


def queue_traffic(start_seq: int, rounds: int, keys: int):
    """``rounds`` of add, get and done over ``keys`` keys: the workqueue's
    own rings are filled by its events alone."""
    out = []
    for r in range(rounds):
        key = f"ns-{r % 50}/pod-{r % keys}"
        for kind, fields in KINDS[-3:]:
            seq = start_seq + len(out)
            out.append(TraceEvent.build(seq, 100.0 + seq * 1e-4, kind, key, **fields))
    return out


def batch(start_seq: int, keys: int, queue_rounds: int):
    """Each of ``keys`` keys once through every kind, then the queue's traffic."""
    keyed = events(start_seq, keys * len(KINDS), keys)
    return keyed + queue_traffic(start_seq + len(keyed), queue_rounds, keys)


class SmallInspector(InspectorState):
    """The Inspector's state with its objects' bounds cut too (its
    constructor passes only ``max_keys`` on to them)."""

    def __init__(self) -> None:
        super().__init__(max_keys=SMALL, max_events=5 * SMALL)
        self.objects = ObjectHistory(SMALL, max_entries=2 * SMALL, max_objects=SMALL // 2)


class SmallExplain(ExplainState):
    """The Explain panel's state with its per-key store cut to ``SMALL`` keys."""

    def __init__(self) -> None:
        super().__init__()
        self.facts.store = PerKey(max_keys=SMALL, max_records=4 * SMALL)


def small_bounds_app():
    """An app whose feed loop makes its ring-keeping states with small bounds."""
    app = make_app(trace=TraceMaker())
    small = {
        "deltas": partial(DeltasState, maxlen=SMALL, keep_objects=SMALL // 2),
        "fifo": partial(FifoState, max_keys=SMALL // 2, recent=SMALL // 4),
        "inspector": SmallInspector,
        "explain": SmallExplain,
    }
    makers = {s.name: small.get(s.name, s.state_cls) for s in app.specs}
    assert set(small) <= set(makers)
    app.feed_loop = FeedLoop(app.buffer, makers, info=app.info, clock=app.feed_loop.clock)
    return app


def test_events_past_every_bound_keep_every_ring_within_it():
    app = small_bounds_app()
    # Sized to the bounds: the keyed ring that fills last is the Explain
    # panel's keys (one store record per key per pass of the KINDS), so a bit
    # over that many keys' worth of events fills every keyed ring; the
    # longest ring of the workqueue's alone (Explain's queue adds and gets)
    # takes one more round of add, get and done. A second batch as big,
    # revisiting the same keys as a cluster churns, must then cost next to nothing.
    facts = app.states["explain"].facts
    keys = int(1.2 * facts.store.max_keys)
    rounds = max(facts.queue_adds.maxlen, facts.queue_gets.maxlen, app.states["queue"].latency.maxlen) + 1
    tracemalloc.start()
    try:
        first = batch(1, keys, rounds)
        app.buffer.extend(first)
        assert app.drain() == len(first)
        del first
        half_mem, _ = tracemalloc.get_traced_memory()
        assert len(facts.store) == facts.store.max_keys  # the sizing above filled the last keyed ring
        assert len(facts.queue_adds) == facts.queue_adds.maxlen  # and the last fixed one
        # As many again: the same cluster's objects churning on.
        second = batch(app.feed_loop.absorbed + 1, keys, rounds)
        app.buffer.extend(second)
        assert app.drain() == len(second)
        del second
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
