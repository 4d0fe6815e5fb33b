"""RealFIFO: ports of client-go's the_real_fifo_test.go (known-objects mode),
tests of the atomic mode (ReplacedAll / SyncAll / Bookmark), and its trace."""

from __future__ import annotations

import threading

import pytest

from kubectl_informer.cache.delta_fifo import (
    ADDED,
    BOOKMARK,
    DELETED,
    REPLACED,
    REPLACED_ALL,
    SYNC,
    SYNC_ALL,
    UPDATED,
    Delta,
    FIFOClosedError,
    ReplacedAllInfo,
    SyncAllInfo,
)
from kubectl_informer.cache.keys import DeletedFinalStateUnknown as DFSU
from kubectl_informer.cache.real_fifo import RealFIFO
from kubectl_informer.cache.store import Indexer

from .helpers import assert_pop_unblocks_when_closed, empty_known, known, mk, pop, pop2, pop_n, pop_val, three_known

D = Delta


# ----- ported cases -----


def test_basic_two_producers_keep_order():
    # TestRealFIFO_basic
    f = RealFIFO(known_objects=empty_known())
    amount = 500

    def produce(prefix):
        for i in range(amount):
            f.add(mk(f"{prefix}{i}", (prefix, i + 1)))

    threads = [threading.Thread(target=produce, args=(p,)) for p in ("a", "b")]
    for t in threads:
        t.start()
    last = {"a": 0, "b": 0}
    for _ in range(amount * 2):
        prefix, n = pop_val(f)
        assert n > last[prefix]
        last[prefix] = n
    for t in threads:
        t.join()
    assert last == {"a": amount, "b": amount}


def test_replace_with_delete_delta_in():
    # TestRealFIFO_replaceWithDeleteDeltaIn
    old, new = mk("foo", 1), mk("foo", 2)
    f = RealFIFO(known_objects=known(old))
    f.delete(old)
    f.replace([new], "")
    assert f.pending() == [D(DELETED, old), D(REPLACED, new)]


REPLACE_ONLY_IN_QUEUE = {
    "added object should be deleted on replace": (
        lambda f, o, o2: (f.add(o), f.replace([], "0")),
        lambda o, o2: [D(ADDED, o), D(DELETED, DFSU("foo", o))],
    ),
    "deleted object should have only a single delete": (
        lambda f, o, o2: (f.add(o), f.delete(o), f.replace([], "0")),
        lambda o, o2: [D(ADDED, o), D(DELETED, o)],
    ),
    "synced objects should have a single delete": (
        lambda f, o, o2: (f.add(o), f.replace([o], "0"), f.replace([o], "0"), f.replace([], "0")),
        lambda o, o2: [D(ADDED, o), D(REPLACED, o), D(REPLACED, o), D(DELETED, DFSU("foo", o))],
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


@pytest.mark.parametrize("case", list(REPLACE_ONLY_IN_QUEUE))
def test_replace_makes_deletions_for_objects_only_in_queue(case):
    # TestRealFIFOW_ReplaceMakesDeletionsForObjectsOnlyInQueue
    ops, expected = REPLACE_ONLY_IN_QUEUE[case]
    o, o2 = mk("foo", 2), mk("foo", 3)
    f = RealFIFO(known_objects=empty_known())
    ops(f, o, o2)
    assert pop_n(f, len(f)) == expected(o, o2)
    assert len(f) == 0


def test_add_update():
    # TestRealFIFO_addUpdate: every change is its own entry
    f = RealFIFO(known_objects=empty_known())
    f.add(mk("foo", 10))
    f.update(mk("foo", 12))
    f.delete(mk("foo", 15))
    assert f.pending() == [D(ADDED, mk("foo", 10)), D(UPDATED, mk("foo", 12)), D(DELETED, mk("foo", 15))]
    assert [pop_val(f) for _ in range(3)] == [10, 12, 15]
    with pytest.raises(TimeoutError):
        f.pop(lambda d, i: None, timeout=0.05)
    assert f.pending() == []


def test_transformer():
    # TestRealFIFO_transformer: no compression, bar deleted twice; each
    # object transformed once, tombstones never.
    def xfrm(obj):
        if isinstance(obj, DFSU):
            raise AssertionError("tombstone passed to the transformer")
        obj["xfrm"] = obj.get("xfrm", 0) + 1
        return obj

    f = RealFIFO(known_objects=empty_known(), transformer=xfrm)
    f.add(mk("foo", 10))
    f.add(mk("bar", 11))
    f.update(mk("foo", 12))
    f.delete(mk("foo", 15))
    f.replace([], "")
    f.add(mk("bar", 16))
    f.replace([], "")

    got = pop_n(f, 7)
    assert [(d.type, f.key_of(d)) for d in got] == [
        (ADDED, "foo"),
        (ADDED, "bar"),
        (UPDATED, "foo"),
        (DELETED, "foo"),
        (DELETED, "bar"),
        (ADDED, "bar"),
        (DELETED, "bar"),
    ]
    assert got[4].object.obj["val"] == 11 and got[4].object.obj["xfrm"] == 1
    assert got[6].object.obj["val"] == 16 and got[6].object.obj["xfrm"] == 1
    assert all(d.object["xfrm"] == 1 for d in got if not isinstance(d.object, DFSU))


def test_enqueueing_no_lister():
    # TestRealFIFO_enqueueingNoLister: RealFIFO queues every delete
    f = RealFIFO(known_objects=empty_known())
    f.add(mk("foo", 10))
    f.update(mk("bar", 15))
    f.add(mk("qux", 17))
    f.delete(mk("qux", 18))
    f.delete(mk("baz", 20))
    assert [pop_val(f) for _ in range(5)] == [10, 15, 17, 18, 20]
    assert len(f) == 0


def test_enqueueing_with_lister():
    # TestRealFIFO_enqueueingWithLister
    f = RealFIFO(known_objects=three_known())
    f.add(mk("foo", 10))
    f.update(mk("bar", 15))
    f.delete(mk("baz", 20))
    assert [pop_val(f) for _ in range(3)] == [10, 15, 20]
    assert len(f) == 0


def test_add_replace():
    # TestRealFIFO_addReplace
    f = RealFIFO(known_objects=empty_known())
    f.add(mk("foo", 10))
    f.replace([mk("foo", 15)], "0")
    assert [pop_val(f) for _ in range(2)] == [10, 15]
    assert f.pending() == []


def test_resync_non_existing():
    # TestRealFIFO_ResyncNonExisting
    f = RealFIFO(known_objects=known(mk("foo", 5)))
    f.delete(mk("foo", 10))
    f.resync()
    assert [d.type for d in f.pending()] == [DELETED]


def test_resync():
    # TestRealFIFO_Resync
    f = RealFIFO(known_objects=known(mk("foo", 5)))
    f.resync()
    assert f.pending() == [D(SYNC, mk("foo", 5))]


def test_delete_existing_non_propagated():
    # TestRealFIFO_DeleteExistingNonPropagated
    f = RealFIFO(known_objects=empty_known())
    f.add(mk("foo", 5))
    f.delete(mk("foo", 6))
    assert [d.type for d in f.pending()] == [ADDED, DELETED]


def test_replace_makes_deletions_after_delete():
    # TestRealFIFO_ReplaceMakesDeletions: known deletions come before the new items
    f = RealFIFO(known_objects=three_known())
    f.delete(mk("baz", 10))
    f.replace([mk("foo", 5)], "0")
    assert pop_n(f, 3) == [D(DELETED, mk("baz", 10)), D(DELETED, DFSU("bar", mk("bar", 6))), D(REPLACED, mk("foo", 5))]


def test_replace_makes_deletions_after_add():
    # TestRealFIFO_ReplaceMakesDeletions: starting with an Add
    f = RealFIFO(known_objects=three_known())
    f.add(mk("baz", 10))
    f.replace([mk("foo", 5)], "0")
    assert pop_n(f, 4) == [
        D(ADDED, mk("baz", 10)),
        D(DELETED, DFSU("baz", mk("baz", 10))),
        D(DELETED, DFSU("bar", mk("bar", 6))),
        D(REPLACED, mk("foo", 5)),
    ]


def test_replace_makes_deletions_after_delete_and_recreate():
    # TestRealFIFO_ReplaceMakesDeletions: deleted and recreated in the queue
    f = RealFIFO(known_objects=three_known())
    f.delete(mk("bar", 6))
    f.add(mk("bar", 100))
    f.replace([mk("foo", 5)], "0")
    assert pop_n(f, 5) == [
        D(DELETED, mk("bar", 6)),
        D(ADDED, mk("bar", 100)),
        D(DELETED, DFSU("bar", mk("bar", 100))),
        D(DELETED, DFSU("baz", mk("baz", 7))),
        D(REPLACED, mk("foo", 5)),
    ]


def test_replace_makes_deletions_after_sync():
    # TestRealFIFO_ReplaceMakesDeletions: replaced first, the delete uses the latest version
    f = RealFIFO(known_objects=three_known())
    f.replace([mk("bar", 100), mk("foo", 5)], "0")
    f.replace([mk("foo", 5)], "0")
    assert pop_n(f, 5) == [
        D(DELETED, DFSU("baz", mk("baz", 7))),
        D(REPLACED, mk("bar", 100)),
        D(REPLACED, mk("foo", 5)),
        D(DELETED, DFSU("bar", mk("bar", 100))),
        D(REPLACED, mk("foo", 5)),
    ]


def test_replace_makes_deletions_with_empty_known():
    # TestRealFIFO_ReplaceMakesDeletions: empty known objects
    f = RealFIFO(known_objects=empty_known())
    f.add(mk("baz", 10))
    f.replace([mk("foo", 5)], "0")
    assert pop_n(f, 3) == [D(ADDED, mk("baz", 10)), D(DELETED, DFSU("baz", mk("baz", 10))), D(REPLACED, mk("foo", 5))]


def test_replace_makes_deletions_replaced():
    # TestRealFIFO_ReplaceMakesDeletionsReplaced
    f = RealFIFO(known_objects=three_known())
    f.delete(mk("baz", 10))
    f.replace([mk("foo", 6)], "0")
    assert pop_n(f, 3) == [D(DELETED, mk("baz", 10)), D(DELETED, DFSU("bar", mk("bar", 6))), D(REPLACED, mk("foo", 6))]


def test_has_synced_correct_on_deletion():
    # TestRealFIFO_HasSyncedCorrectOnDeletion
    f = RealFIFO(known_objects=three_known())
    f.replace([mk("foo", 5)], "0")
    expected = [
        [D(DELETED, DFSU("bar", mk("bar", 6)))],
        [D(DELETED, DFSU("baz", mk("baz", 7)))],
        [D(REPLACED, mk("foo", 5))],
    ]
    for exp in expected:
        assert not f.has_synced()
        deltas, initial = pop2(f)
        assert deltas == exp and initial is True
    assert f.has_synced()


def test_detect_line_jumpers():
    # TestRealFIFO_detectLineJumpers: every event delivered in order
    f = RealFIFO(known_objects=empty_known())
    f.add(mk("foo", 10))
    f.add(mk("bar", 1))
    f.add(mk("foo", 11))
    f.add(mk("foo", 13))
    f.add(mk("zab", 30))
    assert pop_val(f) == 10
    f.add(mk("foo", 14))
    assert [pop_val(f) for _ in range(5)] == [1, 11, 13, 30, 14]


def test_key_of():
    # TestRealFIFO_KeyOf
    f = RealFIFO(known_objects=empty_known())
    assert f.key_of(mk("A")) == "A"
    assert f.key_of(DFSU("B", None)) == "B"
    assert f.key_of([Delta(ADDED, mk("C"))]) == "C"
    assert f.key_of([Delta(DELETED, DFSU("D", None))]) == "D"
    assert f.key_of(Delta(ADDED, mk("E"))) == "E"


@pytest.mark.parametrize("pops, expected", [(1, False), (2, True)])
def test_has_synced_when_a_key_is_listed_twice(pops, expected):
    # TestRealFIFO_HasSynced's case of a key listed twice: every event is
    # delivered, so both must be popped. (Its other cases: test_fifo_twins.py.)
    f = RealFIFO(known_objects=empty_known())
    f.replace([mk("a", 1), mk("a", 2)], "0")
    for _ in range(pops):
        pop(f)
    assert f.has_synced() is expected


def test_pop_should_unblock_when_closed_in_atomic_mode():
    # TestRealFIFO_PopShouldUnblockWhenClosed, atomic (known objects: test_fifo_twins.py)
    assert_pop_unblocks_when_closed(RealFIFO(atomic_events=True))


# ----- construction rules -----


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(),  # non-atomic needs known objects
        dict(atomic_events=True, known_objects=Indexer()),  # atomic must not have them
        dict(known_objects=Indexer(), emit_delta_type_bookmark=True),  # bookmarks need atomic
    ],
)
def test_invalid_mode_combinations_raise_value_error(kwargs):
    with pytest.raises(ValueError):
        RealFIFO(**kwargs)


def test_valid_mode_combinations():
    RealFIFO(known_objects=Indexer())
    RealFIFO(atomic_events=True)
    RealFIFO(atomic_events=True, emit_delta_type_bookmark=True)


# ----- atomic mode (client-go 1.36 AtomicFIFO) -----


def test_atomic_replace_is_one_replaced_all_entry_with_transformed_objects():
    def xfrm(obj):
        obj["xfrm"] = True
        return obj

    f = RealFIFO(atomic_events=True, transformer=xfrm)
    f.add(mk("old", 1))
    f.replace([mk("a", 1), mk("b", 2)], "42")
    entries = f.pending()
    assert [d.type for d in entries] == [ADDED, REPLACED_ALL]
    info = entries[1].object
    assert isinstance(info, ReplacedAllInfo)
    assert info.resource_version == "42"
    assert [o["metadata"]["name"] for o in info.objects] == ["a", "b"]
    assert all(o["xfrm"] for o in info.objects)


def test_atomic_empty_replace_still_queues_and_gates_has_synced():
    f = RealFIFO(atomic_events=True)
    f.replace([], "7")
    assert not f.has_synced()
    deltas, initial = pop2(f)
    assert deltas == [D(REPLACED_ALL, ReplacedAllInfo("7", []))]
    assert initial is True
    assert f.has_synced()


def test_atomic_has_synced_turns_true_only_after_processing():
    f = RealFIFO(atomic_events=True)
    f.replace([mk("a", 1)], "1")
    during = []
    f.pop(lambda d, i: during.append(f.has_synced()), timeout=5)
    assert during == [False]
    assert f.has_synced()


def test_atomic_has_synced_after_failed_processing():
    # The count goes down even if process raises (client-go's defer).
    f = RealFIFO(atomic_events=True)
    f.replace([mk("a", 1)], "1")

    def boom(d, i):
        raise RuntimeError("x")

    with pytest.raises(RuntimeError):
        f.pop(boom, timeout=5)
    assert f.has_synced()
    assert len(f) == 0


def test_atomic_resync_is_one_sync_all_entry():
    f = RealFIFO(atomic_events=True)
    f.resync()
    assert f.pending() == [D(SYNC_ALL, SyncAllInfo())]


def test_atomic_bookmarks_when_enabled():
    f = RealFIFO(atomic_events=True, emit_delta_type_bookmark=True)
    f.add(mk("a", 1))
    f.bookmark("17")
    assert f.pending() == [D(ADDED, mk("a", 1)), D(BOOKMARK, "17")]
    assert pop(f) == [D(ADDED, mk("a", 1))]
    assert pop(f) == [D(BOOKMARK, "17")]


def test_bookmark_is_a_no_op_when_not_enabled():
    for f in (RealFIFO(atomic_events=True), RealFIFO(known_objects=Indexer())):
        f.bookmark("5")
        assert f.pending() == []


def test_atomic_everything_in_arrival_order():
    f = RealFIFO(atomic_events=True, emit_delta_type_bookmark=True)
    f.replace([mk("a", 1)], "1")
    f.update(mk("a", 2))
    f.bookmark("3")
    f.resync()
    f.delete(mk("a", 2))
    types = [pop(f)[0].type for _ in range(5)]
    assert types == [REPLACED_ALL, UPDATED, BOOKMARK, SYNC_ALL, DELETED]


def test_atomic_initial_population_counts_entries_queued_before_first_replace():
    f = RealFIFO(atomic_events=True)
    f.resync()
    f.replace([mk("a", 1)], "1")
    assert pop2(f)[1] is True
    assert not f.has_synced()
    assert pop2(f)[1] is True
    assert f.has_synced()


# ----- other behaviour -----


def test_resync_skips_keys_with_anything_queued():
    ix = Indexer()
    ix.add(mk("a", 1))
    ix.add(mk("b", 1))
    f = RealFIFO(known_objects=ix)
    f.update(mk("a", 2))
    pop(f)  # a no longer queued
    f.update(mk("b", 2))
    f.resync()
    assert f.pending() == [D(UPDATED, mk("b", 2)), D(SYNC, mk("a", 1))]


def test_process_exception_propagates_and_entry_is_not_requeued():
    f = RealFIFO(known_objects=empty_known())
    f.add(mk("a", 1))

    def boom(d, i):
        raise ValueError("bad")

    with pytest.raises(ValueError):
        f.pop(boom, timeout=5)
    assert f.pending() == []


def test_closed_fifo_drains_then_raises():
    f = RealFIFO(known_objects=empty_known())
    f.add(mk("a", 1))
    f.close()
    assert pop_val(f) == 1
    with pytest.raises(FIFOClosedError):
        pop(f)


def test_pop_returns_a_one_element_list():
    f = RealFIFO(known_objects=empty_known())
    f.add(mk("a", 1))
    seen = []
    out = f.pop(lambda d, i: seen.append(d), timeout=5)
    assert out == [D(ADDED, mk("a", 1))] and seen == [out]


# ----- trace -----


def test_trace_queue_skip_and_pop(clock, tracer, trace):
    ix = Indexer()
    ix.add(mk("k", 1))
    f = RealFIFO(known_objects=ix, tracer=tracer, clock=clock)
    f.add(mk("a", 1))
    f.update(mk("a", 2))
    f.update(mk("k", 2))
    f.resync()
    clock.step(1.5)
    pop(f)
    evs = [(e.kind, e.key, e.fields) for e in trace.drain()]
    assert evs == [
        ("fifo.queue", "a", {"type": "Added", "depth": 1, "pending": 1, "labels": None}),
        ("fifo.queue", "a", {"type": "Updated", "depth": 2, "pending": 2, "labels": None}),
        ("fifo.queue", "k", {"type": "Updated", "depth": 3, "pending": 1, "labels": None}),
        ("fifo.skip", "k", {"type": "Sync", "reason": "resync_pending"}),
        ("fifo.pop", "a", {"types": ["Added"], "is_in_initial_list": False, "waited": 1.5, "depth": 2}),
    ]


def test_trace_atomic_entries_have_no_key(clock, tracer, trace):
    f = RealFIFO(atomic_events=True, emit_delta_type_bookmark=True, tracer=tracer, clock=clock)
    f.replace([mk("a", 1), mk("b", 1)], "9")
    f.bookmark("10")
    pop(f)
    evs = [(e.kind, e.key, e.fields) for e in trace.drain()]
    assert evs[0] == (
        "fifo.queue",
        None,
        {"type": "ReplacedAll", "depth": 1, "pending": 1, "objects": 2, "resource_version": "9"},
    )
    assert evs[1] == ("fifo.queue", None, {"type": "Bookmark", "depth": 2, "pending": 1, "resource_version": "10"})
    assert evs[2] == (
        "fifo.pop",
        None,
        {"types": ["ReplacedAll"], "is_in_initial_list": True, "waited": 0.0, "depth": 1},
    )
