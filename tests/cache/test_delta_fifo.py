"""DeltaFIFO: ports of client-go's delta_fifo_test.go, plus the trace it emits.

Objects are client-go's testFifoObject as dicts: ``mk(name, val)``; the
default key func keys them by name.
"""

from __future__ import annotations

import threading

import pytest

from kubectl_informer.cache.delta_fifo import (
    ADDED,
    DELETED,
    REPLACED,
    SYNC,
    UPDATED,
    Delta,
    DeltaFIFO,
    DeltaType,
    FIFOClosedError,
)
from kubectl_informer.cache.keys import DeletedFinalStateUnknown as DFSU
from kubectl_informer.clock.testing import wait_for

from .helpers import known, mk, newest_val, pop, pop2, three_known

D = Delta

# ----- ported cases -----


def test_basic_two_producers_keep_order():
    # TestDeltaFIFO_basic
    f = DeltaFIFO()
    amount = 500

    def produce(prefix):
        for i in range(amount):
            f.add(mk(f"{prefix}{i}", (prefix, i + 1)))

    threads = [threading.Thread(target=produce, args=(p,)) for p in ("a", "b")]
    for t in threads:
        t.start()
    last = {"a": 0, "b": 0}
    for _ in range(amount * 2):
        prefix, n = newest_val(f)
        assert n > last[prefix], f"{prefix}{n} out of order after {last[prefix]}"
        last[prefix] = n
    for t in threads:
        t.join()
    assert last == {"a": amount, "b": amount}


def test_replace_with_delete_delta_in():
    # TestDeltaFIFO_replaceWithDeleteDeltaIn (kubernetes#83810)
    old, new = mk("foo", 1), mk("foo", 2)
    f = DeltaFIFO(known_objects=known(old))
    f.delete(old)
    f.replace([new], "")
    assert pop(f) == [D(DELETED, old), D(SYNC, new)]


REPLACE_ONLY_IN_QUEUE = {
    "added object should be deleted on replace": (
        lambda f, o, o2: (f.add(o), f.replace([], "0")),
        lambda o, o2: [D(ADDED, o), D(DELETED, DFSU("foo", o))],
    ),
    "replaced object should have only a single delete": (
        lambda f, o, o2: (f.add(o), f.replace([o], "0"), f.replace([], "0")),
        lambda o, o2: [D(ADDED, o), D(REPLACED, o), D(DELETED, DFSU("foo", o))],
    ),
    "deleted object should have only a single delete": (
        lambda f, o, o2: (f.add(o), f.delete(o), f.replace([], "0")),
        lambda o, o2: [D(ADDED, o), D(DELETED, o)],
    ),
    "synced objects should have a single delete": (
        lambda f, o, o2: (f.add(o), f.replace([o], "0"), f.replace([o], "0"), f.replace([], "0")),
        lambda o, o2: [D(ADDED, o), D(SYNC, o), D(SYNC, o), D(DELETED, DFSU("foo", o))],
    ),
    "added objects should have a single delete on multiple replaces": (
        lambda f, o, o2: (f.add(o), f.replace([], "0"), f.replace([], "1")),
        lambda o, o2: [D(ADDED, o), D(DELETED, DFSU("foo", o))],
    ),
    "added and deleted and added object should be deleted": (
        lambda f, o, o2: (f.add(o), f.delete(o), f.add(o2), f.replace([], "0")),
        lambda o, o2: [D(ADDED, o), D(DELETED, o), D(ADDED, o2), D(DELETED, DFSU("foo", o2))],
    ),
}


@pytest.mark.parametrize("with_known", [True, False])
@pytest.mark.parametrize("case", list(REPLACE_ONLY_IN_QUEUE))
def test_replace_makes_deletions_for_objects_only_in_queue(case, with_known):
    # TestDeltaFIFOW_ReplaceMakesDeletionsForObjectsOnlyInQueue
    ops, expected = REPLACE_ONLY_IN_QUEUE[case]
    o, o2 = mk("foo", 2), mk("foo", 3)
    # client-go flips emitDeltaTypeReplaced for this one case.
    f = DeltaFIFO(known_objects=known() if with_known else None, emit_delta_type_replaced=case.startswith("replaced"))
    ops(f, o, o2)
    assert pop(f) == expected(o, o2)
    assert len(f) == 0 and f.list_keys() == []


def test_add_update():
    # TestDeltaFIFO_addUpdate
    f = DeltaFIFO()
    f.add(mk("foo", 10))
    f.update(mk("foo", 12))
    f.delete(mk("foo", 15))
    assert f.list() == [mk("foo", 15)]
    assert f.list_keys() == ["foo"]
    assert newest_val(f) == 15
    with pytest.raises(TimeoutError):
        f.pop(lambda d, i: None, timeout=0.05)
    assert f.get(mk("foo")) == ([], False)


def test_transformer():
    # TestDeltaFIFO_transformer: every object is transformed exactly once;
    # tombstones (and the objects inside them) are not transformed again.
    def xfrm(obj):
        if isinstance(obj, DFSU):
            raise AssertionError("tombstone passed to the transformer")
        obj["xfrm"] = obj.get("xfrm", 0) + 1
        return obj

    f = DeltaFIFO(transformer=xfrm)
    f.add(mk("foo", 10))
    f.add(mk("bar", 11))
    f.update(mk("foo", 12))
    f.delete(mk("foo", 15))
    f.replace([], "")
    f.add(mk("bar", 16))
    f.replace([], "")
    assert f.list_keys() == ["foo", "bar"]

    first = pop(f)[-1].object
    assert first["metadata"]["name"] == "foo" and first["val"] == 15 and first["xfrm"] == 1
    second = pop(f)[-1].object
    assert isinstance(second, DFSU) and second.key == "bar"
    assert second.obj["val"] == 16 and second.obj["xfrm"] == 1


def test_transformer_applies_to_replace_even_when_emitting_sync_but_not_to_resync():
    # queueActionInternalLocked: Replace transforms (its internal type is
    # Replaced) even when it emits Sync; Resync's objects come from the
    # indexer, already transformed.
    calls = []

    def xfrm(obj):
        calls.append(obj["metadata"]["name"])
        return obj

    f = DeltaFIFO(known_objects=known(mk("k", 1)), transformer=xfrm)
    f.replace([mk("k", 1)], "1")
    assert calls == ["k"]
    pop(f)
    f.resync()
    assert pop(f) == [D(SYNC, mk("k", 1))]
    assert calls == ["k"]


def test_enqueueing_no_lister():
    # TestDeltaFIFO_enqueueingNoLister
    f = DeltaFIFO()
    f.add(mk("foo", 10))
    f.update(mk("bar", 15))
    f.add(mk("qux", 17))
    f.delete(mk("qux", 18))
    # Not enqueued: baz was never seen.
    f.delete(mk("baz", 20))
    assert [newest_val(f) for _ in range(3)] == [10, 15, 18]
    assert len(f) == 0


def test_enqueueing_with_lister():
    # TestDeltaFIFO_enqueueingWithLister
    f = DeltaFIFO(known_objects=known(mk("foo", 5), mk("bar", 6), mk("baz", 7)))
    f.add(mk("foo", 10))
    f.update(mk("bar", 15))
    # Enqueued: baz is known.
    f.delete(mk("baz", 20))
    assert [newest_val(f) for _ in range(3)] == [10, 15, 20]
    assert len(f) == 0


def test_add_replace():
    # TestDeltaFIFO_addReplace
    f = DeltaFIFO()
    f.add(mk("foo", 10))
    f.replace([mk("foo", 15)], "0")
    assert newest_val(f) == 15
    assert len(f) == 0
    assert f.get(mk("foo")) == ([], False)


def test_resync_non_existing():
    # TestDeltaFIFO_ResyncNonExisting
    f = DeltaFIFO(known_objects=known(mk("foo", 5)))
    f.delete(mk("foo", 10))
    f.resync()
    deltas, exists = f.get_by_key("foo")
    assert exists and deltas == [D(DELETED, mk("foo", 10))]


def test_resync():
    # TestDeltaFIFO_Resync
    f = DeltaFIFO(known_objects=known(mk("foo", 5)))
    f.resync()
    assert f.get_by_key("foo") == ([D(SYNC, mk("foo", 5))], True)


def test_resync_without_known_objects_does_nothing():
    f = DeltaFIFO()
    f.resync()
    assert len(f) == 0


def test_delete_existing_non_propagated():
    # TestDeltaFIFO_DeleteExistingNonPropagated
    f = DeltaFIFO(known_objects=known())
    f.add(mk("foo", 5))
    f.delete(mk("foo", 6))
    deltas, _ = f.get_by_key("foo")
    assert [d.type for d in deltas] == [ADDED, DELETED]


def test_replace_makes_deletions_after_delete():
    # TestDeltaFIFO_ReplaceMakesDeletions: a pre-existing Delete
    f = DeltaFIFO(known_objects=three_known())
    f.delete(mk("baz", 10))
    f.replace([mk("foo", 5)], "0")
    assert pop(f) == [D(DELETED, mk("baz", 10))]
    assert pop(f) == [D(SYNC, mk("foo", 5))]
    # bar had no delete and is missing from the list: a tombstone with the known object.
    assert pop(f) == [D(DELETED, DFSU("bar", mk("bar", 6)))]
    assert len(f) == 0


def test_replace_makes_deletions_after_add():
    # TestDeltaFIFO_ReplaceMakesDeletions: starting with an Add
    f = DeltaFIFO(known_objects=three_known())
    f.add(mk("baz", 10))
    f.replace([mk("foo", 5)], "0")
    assert pop(f) == [D(ADDED, mk("baz", 10)), D(DELETED, DFSU("baz", mk("baz", 10)))]
    assert pop(f) == [D(SYNC, mk("foo", 5))]
    assert pop(f) == [D(DELETED, DFSU("bar", mk("bar", 6)))]


def test_replace_makes_deletions_after_delete_and_recreate():
    # TestDeltaFIFO_ReplaceMakesDeletions: deleted and recreated in the queue
    f = DeltaFIFO(known_objects=three_known())
    f.delete(mk("bar", 6))
    f.add(mk("bar", 100))
    f.replace([mk("foo", 5)], "0")
    # The tombstone carries the newest object in the queue, not the known one.
    assert pop(f) == [D(DELETED, mk("bar", 6)), D(ADDED, mk("bar", 100)), D(DELETED, DFSU("bar", mk("bar", 100)))]
    assert pop(f) == [D(SYNC, mk("foo", 5))]
    assert pop(f) == [D(DELETED, DFSU("baz", mk("baz", 7)))]


def test_replace_makes_deletions_after_sync():
    # TestDeltaFIFO_ReplaceMakesDeletions: synced first, the delete uses the latest version
    f = DeltaFIFO(known_objects=three_known())
    f.replace([mk("bar", 100), mk("foo", 5)], "0")
    f.replace([mk("foo", 5)], "0")
    assert pop(f) == [D(SYNC, mk("bar", 100)), D(DELETED, DFSU("bar", mk("bar", 100)))]
    assert pop(f) == [D(SYNC, mk("foo", 5)), D(SYNC, mk("foo", 5))]
    assert pop(f) == [D(DELETED, DFSU("baz", mk("baz", 7)))]


def test_replace_makes_deletions_without_known_objects():
    # TestDeltaFIFO_ReplaceMakesDeletions: no KeyListerGetter
    f = DeltaFIFO()
    f.add(mk("baz", 10))
    f.replace([mk("foo", 5)], "0")
    assert pop(f) == [D(ADDED, mk("baz", 10)), D(DELETED, DFSU("baz", mk("baz", 10)))]
    assert pop(f) == [D(SYNC, mk("foo", 5))]
    assert len(f) == 0


def test_replace_makes_deletions_replaced():
    # TestDeltaFIFO_ReplaceMakesDeletionsReplaced
    f = DeltaFIFO(known_objects=three_known(), emit_delta_type_replaced=True)
    f.delete(mk("baz", 10))
    f.replace([mk("foo", 6)], "0")
    assert pop(f) == [D(DELETED, mk("baz", 10))]
    assert pop(f) == [D(REPLACED, mk("foo", 6))]
    assert pop(f) == [D(DELETED, DFSU("bar", mk("bar", 6)))]


def test_replace_delta_type():
    # TestDeltaFIFO_ReplaceDeltaType
    f = DeltaFIFO(known_objects=known(mk("foo", 5)), emit_delta_type_replaced=True)
    f.replace([mk("foo", 5)], "0")
    assert pop(f) == [D(REPLACED, mk("foo", 5))]


def test_has_synced_correct_on_deletion():
    # TestDeltaFIFO_HasSyncedCorrectOnDeletion
    f = DeltaFIFO(known_objects=three_known())
    f.replace([mk("foo", 5)], "0")
    expected = [
        [D(SYNC, mk("foo", 5))],
        [D(DELETED, DFSU("bar", mk("bar", 6)))],
        [D(DELETED, DFSU("baz", mk("baz", 7)))],
    ]
    for exp in expected:
        assert not f.has_synced()
        deltas, initial = pop2(f)
        assert deltas == exp
        assert initial is True
    assert f.has_synced()


def test_detect_line_jumpers():
    # TestDeltaFIFO_detectLineJumpers
    f = DeltaFIFO()
    f.add(mk("foo", 10))
    f.add(mk("bar", 1))
    f.add(mk("foo", 11))
    f.add(mk("foo", 13))
    f.add(mk("zab", 30))
    assert newest_val(f) == 13
    f.add(mk("foo", 14))  # foo must not jump back in line
    assert [newest_val(f) for _ in range(3)] == [1, 30, 14]


def test_key_of():
    # TestDeltaFIFO_KeyOf
    f = DeltaFIFO()
    assert f.key_of(mk("A")) == "A"
    assert f.key_of(DFSU("B", None)) == "B"
    assert f.key_of([Delta(ADDED, mk("C"))]) == "C"
    assert f.key_of([Delta(DELETED, DFSU("D", None))]) == "D"
    with pytest.raises(KeyError):
        f.key_of([])


def test_has_synced_when_a_key_is_listed_twice():
    # TestDeltaFIFO_HasSynced's case of duplicate keys in a list (a broken
    # server): one queue slot, one pop. (Its other cases: test_fifo_twins.py.)
    f = DeltaFIFO()
    f.replace([mk("a", 1), mk("a", 2)], "0")
    pop(f)
    assert f.has_synced() is True


# ----- behaviour the Go tests cover only indirectly -----


def test_closed_fifo_still_drains_then_raises():
    f = DeltaFIFO()
    f.add(mk("a", 1))
    f.close()
    assert newest_val(f) == 1
    with pytest.raises(FIFOClosedError):
        pop(f)


def test_pop_timeout_raises_timeout_error():
    f = DeltaFIFO()
    with pytest.raises(TimeoutError):
        f.pop(lambda d, i: None, timeout=0.01)


def test_pop_wakes_a_waiting_consumer():
    f = DeltaFIFO()
    got = []
    t = threading.Thread(target=lambda: got.append(pop(f)))
    t.start()
    assert wait_for(lambda: f._waiting == 1)
    f.add(mk("a", 1))
    t.join(5)
    assert got == [[D(ADDED, mk("a", 1))]]


def test_process_runs_under_the_lock_and_may_read_the_fifo():
    f = DeltaFIFO()
    f.add(mk("a", 1))
    f.add(mk("b", 2))
    seen = []

    def process(deltas, initial):
        # Reentrant reads from the consumer thread do not deadlock, and
        # the popped key is already gone.
        seen.append((f.list_keys(), f.has_synced(), initial))

    f.pop(process, timeout=5)
    assert seen == [(["b"], True, False)]


def test_process_exception_propagates_and_item_is_not_requeued():
    # client-go dropped ErrRequeue: an error from process is returned and
    # the deltas stay popped.
    f = DeltaFIFO()
    f.add(mk("foo", 10))

    def boom(deltas, initial):
        raise RuntimeError("handler failed")

    with pytest.raises(RuntimeError, match="handler failed"):
        f.pop(boom, timeout=5)
    assert f.get_by_key("foo") == ([], False)
    assert len(f) == 0


def test_pop_returns_the_deltas_passed_to_process():
    f = DeltaFIFO()
    f.add(mk("a", 1))
    f.update(mk("a", 2))
    seen = []
    out = f.pop(lambda d, i: seen.append(d), timeout=5)
    assert out is seen[0]
    assert out == [D(ADDED, mk("a", 1)), D(UPDATED, mk("a", 2))]


def test_get_returns_a_copy():
    f = DeltaFIFO()
    f.add(mk("a", 1))
    deltas, exists = f.get(mk("a"))
    deltas.append("junk")
    assert f.get_by_key("a") == ([D(ADDED, mk("a", 1))], True)


def test_dedup_two_trailing_deletes_keeps_the_real_one():
    # dedupDeltas / isDeletionDup: real deletion then tombstone -> keep the real one.
    f = DeltaFIFO(known_objects=known(mk("a", 1)))
    f.delete(mk("a", 2))
    f.replace([], "1")
    assert f.get_by_key("a") == ([D(DELETED, mk("a", 2))], True)


def test_dedup_tombstone_then_real_delete_keeps_the_real_one():
    f = DeltaFIFO(known_objects=known(mk("a", 1)))
    f.replace([], "1")
    assert f.get_by_key("a") == ([D(DELETED, DFSU("a", mk("a", 1)))], True)
    f.delete(mk("a", 3))
    assert f.get_by_key("a") == ([D(DELETED, mk("a", 3))], True)


def test_dedup_two_real_deletes_keeps_the_older():
    f = DeltaFIFO(known_objects=known(mk("a", 1)))
    f.delete(mk("a", 2))
    f.delete(mk("a", 3))
    assert f.get_by_key("a") == ([D(DELETED, mk("a", 2))], True)


def test_delete_with_failing_known_lookup_is_queued():
    class Broken:
        def list_keys(self):
            return []

        def get_by_key(self, key):
            raise RuntimeError("lookup failed")

    f = DeltaFIFO(known_objects=Broken())
    f.delete(mk("a", 1))
    assert f.get_by_key("a") == ([D(DELETED, mk("a", 1))], True)


def test_replace_known_key_missing_from_known_store_gets_empty_tombstone():
    class Stale:
        def list_keys(self):
            return ["ghost"]

        def get_by_key(self, key):
            return None, False

    f = DeltaFIFO(known_objects=Stale())
    f.replace([], "1")
    assert pop(f) == [D(DELETED, DFSU("ghost", None))]


def test_delete_unknown_still_marks_populated():
    # Delete sets populated even when it drops the object.
    f = DeltaFIFO()
    f.delete(mk("nobody", 1))
    assert f.has_synced()
    assert len(f) == 0


def test_in_initial_list_only_for_first_replace():
    f = DeltaFIFO()
    f.replace([mk("a", 1)], "1")
    f.add(mk("b", 2))
    assert pop2(f)[1] is True
    assert pop2(f)[1] is False
    f.replace([mk("a", 3)], "2")
    assert pop2(f)[1] is False


def test_delta_type_values():
    assert [t.value for t in DeltaType] == [
        "Added",
        "Updated",
        "Deleted",
        "Replaced",
        "Sync",
        "ReplacedAll",
        "SyncAll",
        "Bookmark",
    ]
    assert DeltaType.ADDED == "Added"


def test_key_func_error_propagates():
    f = DeltaFIFO()
    with pytest.raises(KeyError):
        f.add({"no": "meta"})
    assert len(f) == 0


# ----- trace -----


def _kinds(trace):
    return [(e.kind, e.key, e.fields) for e in trace.drain()]


def test_trace_queue_coalesce_pop_with_waited(clock, tracer, trace):
    f = DeltaFIFO(tracer=tracer, clock=clock)
    f.add(mk("a", 1))
    clock.step(2.5)
    f.update(mk("a", 2))
    f.add(mk("b", 1))
    clock.step(1.0)
    pop(f)
    events = _kinds(trace)
    assert events == [
        ("fifo.queue", "a", {"type": "Added", "depth": 1, "pending": 1, "labels": None}),
        ("fifo.coalesce", "a", {"type": "Updated", "pending": 2, "depth": 1, "labels": None}),
        ("fifo.queue", "b", {"type": "Added", "depth": 2, "pending": 1, "labels": None}),
        ("fifo.pop", "a", {"types": ["Added", "Updated"], "is_in_initial_list": False, "waited": 3.5, "depth": 1}),
    ]


def test_trace_skip_and_dedup(clock, tracer, trace):
    f = DeltaFIFO(known_objects=known(mk("k", 1)), tracer=tracer, clock=clock)
    f.delete(mk("unknown", 1))
    f.update(mk("k", 2))
    f.resync()
    f.delete(mk("k", 3))
    f.replace([], "9")
    events = _kinds(trace)
    assert events[0] == ("fifo.skip", "unknown", {"type": "Deleted", "reason": "unknown_delete"})
    assert events[1][0] == "fifo.queue"
    assert events[2] == ("fifo.skip", "k", {"type": "Sync", "reason": "resync_pending"})
    assert events[3] == ("fifo.coalesce", "k", {"type": "Deleted", "pending": 2, "depth": 1, "labels": None})
    assert events[4] == (
        "fifo.dedup",
        "k",
        {"type": "Deleted", "dropped": "tombstone", "kept": "object", "pending": 2, "depth": 1},
    )
    assert len(events) == 5


def test_trace_pop_marks_initial_list(clock, tracer, trace):
    f = DeltaFIFO(emit_delta_type_replaced=True, tracer=tracer, clock=clock)
    f.replace([mk("a", 1)], "1")
    pop(f)
    evs = trace.drain()
    assert evs[0].kind == "fifo.queue" and evs[0].fields["type"] == "Replaced"
    assert evs[1].kind == "fifo.pop" and evs[1].fields["is_in_initial_list"] is True
    assert evs[1].fields["waited"] == 0.0


def test_no_trace_without_subscriber_and_no_bookkeeping(clock, tracer):
    f = DeltaFIFO(tracer=tracer, clock=clock)
    f.add(mk("a", 1))
    assert f._queued_at == {}
    pop(f)


def test_tracing_turned_off_between_queue_and_pop_leaves_nothing_behind(clock, tracer):
    from kubectl_informer.core.trace import TraceBuffer

    buf = TraceBuffer()
    unsubscribe = tracer.subscribe(buf)
    f = DeltaFIFO(tracer=tracer, clock=clock)
    f.add(mk("a", 1))
    unsubscribe()
    pop(f)
    assert f._queued_at == {}
    assert [e.kind for e in buf.drain()] == ["fifo.queue"]


@pytest.mark.parametrize("with_known", [False, True])
def test_first_replace_counts_distinct_keys_once(with_known):
    # The first list (nothing queued, nothing known) takes a shorter path:
    # a key listed twice still counts once towards the initial population.
    f = DeltaFIFO(known_objects=known()) if with_known else DeltaFIFO()
    f.replace([mk("a", 1), mk("b", 1), mk("a", 2)], "1")
    assert not f.has_synced()
    first = pop(f)
    assert [d.object["val"] for d in first] == [1, 2]
    assert not f.has_synced()
    pop(f)
    assert f.has_synced()


def test_a_big_replace_drains_in_order_and_its_map_shrinks_as_it_drains():
    # A dict keeps its table as keys leave: the FIFO rebuilds its map at each
    # halving so a drained 100k-object list does not hold it while the indexer grows.
    import sys

    from kubectl_informer.cache.delta_fifo import COMPACT_MIN_KEYS

    n = 4 * COMPACT_MIN_KEYS
    f = DeltaFIFO()
    f.replace([mk(f"o{i}", i) for i in range(n)], "1")
    f.update(mk("o5", "new"))  # a delta added after the list still comes out with its key
    full = sys.getsizeof(f._items)
    sizes = {}
    for i in range(n):
        deltas = pop(f)
        assert deltas[0].object["val"] == i and deltas[0].type is SYNC
        if i == 5:
            assert [d.object["val"] for d in deltas] == [5, "new"]
        sizes[len(f)] = sys.getsizeof(f._items)
    assert sizes[n // 2 - 1] < full * 0.6 and sizes[n // 4 - 1] < full * 0.3
    assert len(f) == 0
