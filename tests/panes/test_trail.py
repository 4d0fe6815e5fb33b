"""The Inspector's compact history of summarised stretches (panes/trail.py),
without Textual: what a key's rows expand to, the ring's bound, and that
it makes no object per event for the cyclic GC to walk."""

from __future__ import annotations

import gc

from hypothesis import given, settings
from hypothesis import strategies as st

from kubectl_informer.core.trace import TraceBuffer, TraceEvent
from kubectl_informer.panes.feed import FeedLoop
from kubectl_informer.panes.inspector import InspectorState
from kubectl_informer.panes.state import Stretch
from kubectl_informer.panes.trail import FROM_SUMMARY, SummaryTrail
from tests.panes.test_summaries import KEYS, Cluster


def _events(specs, start=1):
    """(kind, key, rv or None) -> events with seq from ``start``, 10 ms apart."""
    out = []
    for i, (kind, key, rv) in enumerate(specs, start):
        fields = {} if rv is None else {"resource_version": rv}
        out.append(TraceEvent(i, 100.0 + i / 100, kind, key, fields))
    return out


def test_a_keys_rows_come_back_in_order_with_kind_time_and_rv():
    trail = SummaryTrail(capacity=16)
    evs = _events(
        [
            ("watch.event", "ns/a", "7"),
            ("fifo.queue", "ns/a", None),
            ("list.done", None, "9"),
            ("watch.event", "ns/b", "8"),
            ("store.update", "ns/a", "7"),
        ]
    )
    assert trail.add(evs) == 4  # the keyless list.done is no key's history
    rows = trail.rows("ns/a")
    assert [(r.seq, r.time, r.kind, r.key) for r in rows] == [
        (1, 100.01, "watch.event", "ns/a"),
        (2, 100.02, "fifo.queue", "ns/a"),
        (5, 100.05, "store.update", "ns/a"),
    ]
    assert [r.raw_fields for r in rows] == [
        {FROM_SUMMARY: True, "resource_version": "7"},
        {FROM_SUMMARY: True},
        {FROM_SUMMARY: True, "resource_version": "7"},
    ]
    assert [r.seq for r in trail.rows("ns/b")] == [4]
    assert trail.rows("ns/c") == [] and not trail.has("ns/c") and trail.has("ns/b")
    assert [r.seq for r in trail.rows("ns/a", newest=2)] == [2, 5]


@settings(max_examples=60, deadline=None)
@given(
    capacity=st.integers(1, 12),
    batches=st.lists(
        st.lists(
            st.tuples(
                st.sampled_from(["ns/a", "ns/b", "ns/c", None]),
                st.sampled_from(["watch.event", "store.add", "queue.add"]),
            ),
            max_size=20,
        ),
        max_size=6,
    ),
)
def test_the_ring_holds_the_newest_keyed_events_however_the_stretches_wrap(capacity, batches):
    trail = SummaryTrail(capacity)
    everything: list[TraceEvent] = []
    for batch in batches:
        evs = _events(
            [(kind, key, str(len(everything) + i)) for i, (key, kind) in enumerate(batch)], start=len(everything) + 1
        )
        everything += evs
        trail.add(evs)
    kept = [ev for ev in everything if ev.key][-capacity:]
    assert len(trail) == len(kept)
    for key in ("ns/a", "ns/b", "ns/c"):
        want = [(ev.seq, ev.kind, ev.raw_fields["resource_version"]) for ev in kept if ev.key == key]
        got = [(r.seq, r.kind, r.raw_fields["resource_version"]) for r in trail.rows(key)]
        assert got == want


def test_memory_is_fixed_whatever_the_key_count_and_no_object_is_made_per_event():
    trail = SummaryTrail(capacity=1000)
    evs = _events([("store.update", f"ns/pod-{i}", str(i)) for i in range(50_000)])
    gc.collect()
    before = len(gc.get_objects())
    for i in range(0, len(evs), 2048):
        trail.add(evs[i : i + 2048])
    gc.collect()
    assert len(gc.get_objects()) - before < 50  # the stretches' temporary lists, not 50,000 events' worth
    assert len(trail) == 1000 and all(len(col) == 1000 for col in trail._cols)
    assert trail.rows("ns/pod-0") == [] and [r.seq for r in trail.rows("ns/pod-49999")] == [50_000]


def test_the_inspector_expands_a_summarised_stretch_between_the_rows_fed_in_full():
    events = Cluster().run(
        [("add", 0), ("pop", 0), ("update", 0), ("pop", 0), ("work", 0), ("done", 0), ("update", 0), ("pop", 0)]
    )
    key = KEYS[0]
    keyed = [i for i, ev in enumerate(events) if ev.key == key]
    a, b = keyed[3], keyed[-3]  # the middle of the key's life as a summary
    state = InspectorState()
    state.feed_all(events[:a])
    state.summarise(Stretch(events[a:b]))
    state.feed_all(events[b:])
    rows = state.timeline(key)
    assert [ev.seq for ev, _ in rows] == [ev.seq for ev in events if ev.key == key]  # every event, in order
    summarised = [ev for ev, entry in rows if ev.raw_fields.get(FROM_SUMMARY)]
    assert [ev.seq for ev in summarised] == [ev.seq for ev in events[a:b] if ev.key == key]
    assert all(entry is None for ev, entry in rows if ev.raw_fields.get(FROM_SUMMARY))  # no delta entry
    stores = [ev for ev in summarised if ev.kind.startswith("store.")]
    assert stores and all(ev.raw_fields.get("resource_version") for ev in stores)
    assert state.find(key) == key


def test_a_feed_loop_behind_fills_the_trail_and_a_restart_starts_it_over():
    events = Cluster().run([("add", i) for i in range(5)] + [("pop", i) for i in range(5)])
    loop = FeedLoop(TraceBuffer(), {"inspector": InspectorState})
    loop.feed(events, summarise=True)
    state = loop.states["inspector"]
    assert state.life(KEYS[2]) == [] and [ev.kind for ev in state.summarised(KEYS[2])] == [
        ev.kind for ev in events if ev.key == KEYS[2]
    ]
    loop.reset(new_run=True)
    assert loop.states["inspector"].summarised(KEYS[2]) == []


def test_a_key_shows_at_most_its_rings_length_from_summaries():
    state = InspectorState(per_key=5)
    state.summarise(Stretch(_events([("watch.event", "ns/busy", str(i)) for i in range(40)])))
    assert [ev.raw_fields["resource_version"] for ev in state.summarised("ns/busy")] == [str(i) for i in range(35, 40)]


@settings(max_examples=60, deadline=None)
@given(
    capacity=st.integers(1, 12),
    limit=st.integers(1, 4),
    keys=st.lists(st.sampled_from(["ns/a", "ns/b", "ns/c", "ns/d", None]), max_size=40),
)
def test_newest_keys_are_the_newest_distinct_keys_kept_with_their_last_event(capacity, limit, keys):
    trail = SummaryTrail(capacity)
    evs = _events([("watch.event" if i % 2 else "queue.add", key, None) for i, key in enumerate(keys)])
    for i in range(0, len(evs), 7):  # several stretches: the ring wraps between them
        trail.add(evs[i : i + 7])
    kept = [ev for ev in evs if ev.key][-capacity:]
    want: list[tuple[str, int, str]] = []
    for ev in reversed(kept):
        if ev.key not in [k for k, _, _ in want] and len(want) < limit:
            want.append((ev.key, ev.seq, ev.kind))
    assert trail.newest_keys(limit) == want


def test_the_inspectors_key_list_holds_keys_known_only_from_summaries_newest_first():
    st_ = InspectorState()
    st_.feed_all(_events([("watch.event", "ns/full", "1"), ("store.update", "ns/full", "1")]))
    st_.summarise(
        Stretch(
            _events(
                [("watch.event", "ns/old", "2"), ("watch.event", "ns/full", "3"), ("queue.add", "ns/new", None)],
                start=3,
            )
        )
    )
    # ns/full's newest event is the summarised watch event (seq 4): newer than ns/old's.
    assert st_.recent_keys(10) == [
        ("ns/new", "queue.add", True),
        ("ns/full", "watch.event", False),
        ("ns/old", "watch.event", True),
    ]
    assert st_.recent_keys(2) == [("ns/new", "queue.add", True), ("ns/full", "watch.event", False)]
    assert st_.recent_keys(10, accept=lambda key: key != "ns/full") == [
        ("ns/new", "queue.add", True),
        ("ns/old", "watch.event", True),
    ]
    assert [(ev.kind, entry) for ev, entry in st_.timeline("ns/new")] == [("queue.add", None)]
