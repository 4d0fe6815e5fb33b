"""The Explain panel's delta records: read as the event's fields less its objects, held compactly."""

from __future__ import annotations

import tracemalloc

from kubectl_informer.panes.explain import Facts
from kubectl_informer.panes.explain.records import StoreRec
from tests.tui.helpers import TraceMaker

POD = {"metadata": {"name": "web-0", "namespace": "default", "resourceVersion": "7"}, "status": {"phase": "Running"}}


def test_a_record_reads_as_its_events_fields_less_the_objects_with_the_listeners_and_popped_types():
    e = TraceMaker()
    e("fifo.pop", "default/web-0", types=["Updated", "Updated"], is_in_initial_list=False, waited=0.001, depth=0)
    upd = e(
        "store.update",
        "default/web-0",
        resource_version="7",
        delta="Updated",
        is_in_initial_list=False,
        old_resource_version="6",
        object=POD,
        old=dict(POD),
    )
    e("handler.update", "default/web-0", listener="handler-1", is_sync=False, buffered=0)
    e("handler.update", "default/web-0", listener="metrics", is_sync=False, buffered=0)
    gone = e(
        "store.delete",
        "default/web-1",
        resource_version="8",
        delta="Deleted",
        is_in_initial_list=False,
        tombstone=True,
        object=POD,
    )
    facts = Facts()
    facts.feed_all(e.events)
    rec = facts.store_rec("default/web-0")
    assert (rec.seq, rec.time, rec.kind, rec.key) == (upd.seq, upd.time, upd.kind, upd.key)
    assert rec.fields == upd.fields_without_locals(derived=False)
    assert "object" not in rec.fields and "old" not in rec.fields
    assert rec.extra == {"listeners": ["handler-1", "metrics"], "count": 0, "popped": ["Updated", "Updated"]}
    deleted = facts.store_rec("default/web-1")
    assert deleted.fields == gone.fields_without_locals(derived=False)
    assert deleted.fields["tombstone"] is True and "object" not in deleted.fields  # beyond the slotted fields
    assert deleted.extra["popped"] is None  # its pop was another key's


def test_records_share_their_listener_and_popped_tuples():
    a = StoreRec(1, 0.0, "store.update", "a/x", {"delta": "Updated"}, frozenset(), 0, ["Updated", "Updated"])
    b = StoreRec(2, 0.0, "store.update", "a/y", {"delta": "Updated"}, frozenset(), 0, ["Updated", "Updated"])
    for r in (a, b):
        r.add_listener("handler-1")
    assert a.listeners is b.listeners and a.popped is b.popped
    assert a.rest is None  # no field beyond the slotted ones: no tuple


def test_thousands_of_records_take_a_few_hundred_bytes_each():
    # The flood's shape: 4,000 keys, one update each, as the informer emits them (objects attached).
    e = TraceMaker()
    for i in range(4000):
        key = f"ns-{i % 40}/pod-{i}"
        e("fifo.pop", key, types=["Updated"], is_in_initial_list=False, waited=0.001, depth=0)
        e(
            "store.update",
            key,
            resource_version=str(2 * i + 2),
            delta="Updated",
            is_in_initial_list=False,
            old_resource_version=str(2 * i + 1),
            object=POD,
            old=POD,
        )
        e("handler.update", key, listener="handler-1", is_sync=False, buffered=0)
    facts = Facts()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        facts.feed_all(e.events)  # the events' strings exist already: only what the records add counts
        per_record = (tracemalloc.get_traced_memory()[0] - before) / facts.store.items
    finally:
        tracemalloc.stop()
    assert facts.store.items == 4000
    # A Rec with its two dicts, a listeners list and a deque per key took about 1,150 bytes.
    assert per_record < 500, per_record
