"""The Inspector's per-key history: stage events held compactly, read back as the events fed."""

from __future__ import annotations

import gc
import tracemalloc

from kubectl_informer.panes.inspector import InspectorState
from tests.tui.helpers import TraceMaker, life_of_pod


def test_a_keys_life_reads_back_every_event_as_fed():
    e = TraceMaker()
    for i in range(3):
        life_of_pod(e, f"default/web-{i}", rv=10 + i)
    st = InspectorState()
    st.feed_all(e.events)
    for i in range(3):
        key = f"default/web-{i}"
        fed = [ev for ev in e.events if ev.key == key]
        got = st.life(key)
        assert [tuple(ev) for ev in got] == [tuple(ev) for ev in fed]  # seq, time, kind, key, fields
        assert [ev.raw_fields for ev in got] == [ev.raw_fields for ev in fed]
        assert [ev.seq for ev, _ in st.timeline(key)] == [ev.seq for ev in fed]
    assert [k for k, _, _ in st.recent_keys(5)] == ["default/web-2", "default/web-1", "default/web-0"]
    assert st.recent_keys(1)[0][1] == "queue.done"  # the newest event's kind, read without expanding it


def _fill(st: InspectorState) -> None:
    """1,500 keys' lives (8 events each, within every bound), fed; nothing
    else keeps the events, as in a run (the tracer's buffer lets them go)."""
    e = TraceMaker()
    for i in range(1500):
        life_of_pod(e, f"ns-{i % 40}/pod-{i}", rv=10 + i)
    st.feed_all(e.events)


def test_a_full_history_takes_a_compact_tuple_an_event():
    st = InspectorState()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        _fill(st)
        gc.collect()
        per_event = (tracemalloc.get_traced_memory()[0] - before) / st.history.items
    finally:
        tracemalloc.stop()
    assert st.history.items == 1500 * 8
    # Everything the state keeps, over its events (a delta's entry, each
    # key's ring, its story included): about 640 bytes when the history
    # held the events themselves in a deque per key, 470 in a list per key.
    assert per_event < 400, per_event
