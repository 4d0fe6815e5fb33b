"""The Inspector's per-key history: stage events held compactly, read back as the events fed."""

from __future__ import annotations

import gc
import tracemalloc

from kubectl_informer.panes.inspector import InspectorState
from kubectl_informer.panes.objects import ObjectHistory
from kubectl_informer.panes.pressure import Pressure
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
    assert st.timeline("default/web-0") is st.timeline("default/web-0")  # unchanged: expanded once
    more = e("queue.add", "default/web-0", outcome="queued", depth=1)
    st.feed(more)
    assert st.timeline("default/web-0")[-1][0].seq == more.seq  # changed: expanded anew
    assert [k for k, _, _ in st.recent_keys(5)] == ["default/web-0", "default/web-2", "default/web-1"]
    assert st.recent_keys(1)[0][1] == "queue.add"  # the newest event's kind, read without expanding it


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


def _pod(rv: int, phase: str) -> dict:
    return {
        "metadata": {"name": "web", "namespace": "default", "resourceVersion": str(rv), "labels": {"app": "web"}},
        "status": {"phase": phase},
    }


def _updates(history: ObjectHistory, n: int) -> None:
    """``n`` updates of ``n`` keys, their objects shared (as the bench's)."""
    e = TraceMaker()
    old, new = _pod(1, "Pending"), _pod(2, "Running")
    for i in range(n):
        history.add(
            e(
                "store.update",
                f"ns-{i % 40}/pod-{i}",
                resource_version=str(2 * i + 2),
                delta="Updated",
                is_in_initial_list=False,
                old_resource_version=str(2 * i + 1),
                object=new,
                old=old,
            )
        )


def test_a_released_entry_reads_its_event_less_the_objects():
    e = TraceMaker()
    history = ObjectHistory(keep_objects=1)
    first = e(
        "store.update",
        "default/web",
        resource_version="2",
        delta="Updated",
        is_in_initial_list=False,
        old_resource_version="1",
        object=_pod(2, "Running"),
        old=_pod(1, "Pending"),
    )
    entry = history.add(first)
    history.add(
        e(
            "store.update",
            "default/web",
            resource_version="3",
            delta="Updated",
            is_in_initial_list=False,
            old_resource_version="2",
            object=_pod(3, "Pending"),
            old=_pod(2, "Running"),
        )
    )
    assert entry.obj is None and type(entry._event) is tuple  # released: its event compact
    ev = entry.event
    assert (ev.seq, ev.time, ev.kind, ev.key) == (first.seq, first.time, first.kind, first.key)
    assert ev.raw_fields == first.fields_without_locals()  # every field, derived ones included, no object
    assert entry.summary() == ["status.phase Pending→Running"]  # the diff kept as text
    assert (entry.seq, entry.kind, entry.is_update) == (first.seq, first.kind, True)


def test_entries_let_go_while_behind_take_a_compact_tuple_each():
    history = ObjectHistory(max_objects=16)
    history.pressure = Pressure()
    history.pressure.behind = True  # released underived: what the bench's flood does
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        _updates(history, 1500)
        gc.collect()
        per_entry = (tracemalloc.get_traced_memory()[0] - before) / history.entries_held()
    finally:
        tracemalloc.stop()
    assert history.entries_held() == 1500 and history.objects_held() <= 16
    # Everything an entry keeps (its key's ring, the event's strings): about
    # 1,500 bytes with a TraceEvent and its dict in a deque per key, 800 in a list.
    assert per_entry < 700, per_entry
