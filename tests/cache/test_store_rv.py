"""client-go 1.36's store resource version: ports of thread_safe_store_test.go's
TestThreadSafeStoreRV and controller_test.go's TestStoreResourceVersion and
TestStoreResourceVersionWithNonMetaTransform, the informer's bookmarks, and
the OnUpdate sync rule for objects without metadata."""

from __future__ import annotations

import pytest

from kubectl_informer.cache.keys import DeletedFinalStateUnknown, deletion_handling_meta_namespace_key_func
from kubectl_informer.cache.shared_informer import SharedIndexInformer
from kubectl_informer.cache.store import Indexer, Store
from kubectl_informer.cache.testing.fake_controller_source import FakeSource, make_object
from kubectl_informer.clock.testing import wait_for
from kubectl_informer.core.profiles import PROFILES
from tests.cache.test_shared_informer import Recorder


def meta(rv: str) -> dict:
    return {"metadata": {"resourceVersion": rv}}


def key_of(o):
    return o if isinstance(o, str) else o.get("k", "k")


def test_initial_state_is_empty():
    assert Store().last_store_sync_resource_version() == ""


def test_add_update_and_delete():
    store = Indexer(key_of)
    store.add_with_key("key1", meta("10"))
    assert store.last_store_sync_resource_version() == "10"
    store.add_with_key("key3", meta("10"))
    assert store.last_store_sync_resource_version() == "10"
    store.add_with_key("key4", meta("20"))
    assert store.last_store_sync_resource_version() == "20"
    # Delete an earlier object with a newer RV (DeleteWithObject).
    store.delete({"k": "key4", **meta("30")})
    assert store.last_store_sync_resource_version() == "30"
    store.add_with_key("key5", "just a string")  # no meta: the RV stays
    assert store.last_store_sync_resource_version() == "30"
    store.add_with_key("key6", meta("40"))
    store.delete_key("key6")  # no object: the RV stays
    assert store.last_store_sync_resource_version() == "40"
    assert store.get_by_key("key6") == (None, False)


def test_replace_sets_the_lists_rv():
    store = Indexer(key_of)
    store.add_with_key("key1", meta("10"))
    store.replace([{"k": "key3", **meta("40")}, {"k": "key2", **meta("30")}], "50")
    assert store.last_store_sync_resource_version() == "50"


def test_delete_with_object():
    store = Indexer(key_of)
    store.add_with_key("key1", meta("10"))
    store.delete({"k": "key1", **meta("20")})
    assert store.last_store_sync_resource_version() == "20"


def test_tombstone_delete_and_no_metadata_keep_the_rv():
    store = Store(deletion_handling_meta_namespace_key_func)
    store.add({"metadata": {"name": "a", "namespace": "ns", "resourceVersion": "7"}})
    store.delete(DeletedFinalStateUnknown("ns/a", None))
    assert store.last_store_sync_resource_version() == "7"
    assert len(store) == 0


def test_bookmark_sets_the_rv_even_backwards():
    store = Store()
    store.bookmark("5")
    assert store.last_store_sync_resource_version() == "5"
    store.bookmark("3")  # upstream takes what it is told
    assert store.last_store_sync_resource_version() == "3"


def test_empty_while_atomic_fifo_is_off():
    store = Store(atomic_fifo=False)
    store.add({"metadata": {"name": "a", "resourceVersion": "7"}})
    store.bookmark("9")
    assert store.last_store_sync_resource_version() == ""


def _to_key(o):
    """A transform whose objects have no metadata: the object's key (an
    explicit key, so every key function agrees)."""
    return f"{o['metadata']['namespace']}/{o['metadata']['name']}" if isinstance(o, dict) else o


def _informer(src, clock, profile="1.36", **kw):
    return SharedIndexInformer(src, 0, clock=clock, profile=PROFILES[profile], **kw)


def test_store_resource_version_follows_every_event(clock, start):
    # TestStoreResourceVersion
    src = FakeSource()
    src.add(make_object("pod-1"))
    inf = _informer(src, clock)
    rec = Recorder()
    inf.add_event_handler(rec)
    start(inf)
    assert wait_for(lambda: len(rec.events) == 1)
    assert rec.events[0][:2] == ("add", "default/pod-1") and rec.events[0][3] is True
    modified = src.modify(make_object("pod-1", labels={"foo": "bar"}))
    assert wait_for(lambda: len(rec.events) == 2)
    assert inf.get_store().last_store_sync_resource_version() == modified["metadata"]["resourceVersion"]
    gone = src.delete("default/pod-1")
    assert wait_for(lambda: len(rec.events) == 3)
    assert inf.get_store().last_store_sync_resource_version() == gone["metadata"]["resourceVersion"]


def test_bookmarks_reach_the_store(clock, start):
    src = FakeSource()
    src.add(make_object("pod-1"))
    inf = _informer(src, clock)
    start(inf)
    assert wait_for(inf.has_synced)
    src._rv += 5
    src.bookmark()
    assert wait_for(lambda: inf.get_store().last_store_sync_resource_version() == "6")


def test_store_rv_is_empty_before_1_36(clock, start):
    src = FakeSource()
    src.add(make_object("pod-1"))
    inf = _informer(src, clock, "1.35")
    start(inf)
    assert wait_for(inf.has_synced)
    assert inf.get_store().last_store_sync_resource_version() == ""


def test_non_meta_transform_keeps_the_replace_rv(clock, start):
    # TestStoreResourceVersionWithNonMetaTransform: objects become their name.
    src = FakeSource()
    src.add(make_object("pod-1"))
    inf = _informer(src, clock)
    inf.set_transform(_to_key)
    rec = []
    from kubectl_informer.cache.shared_informer import ResourceEventHandlerFuncs

    inf.add_event_handler(
        ResourceEventHandlerFuncs(
            add=lambda o, i: rec.append(("add", o)), update=lambda a, b: rec.append(("update", b))
        )
    )
    start(inf)
    assert wait_for(lambda: len(rec) == 1)
    replace_rv = inf.get_store().last_store_sync_resource_version()
    assert replace_rv == "1"
    src.modify(make_object("pod-1", labels={"foo": "bar"}))
    assert wait_for(lambda: len(rec) == 2)
    assert inf.get_store().last_store_sync_resource_version() == replace_rv


@pytest.mark.parametrize("profile", ["1.32", "1.35", "1.36"])
def test_update_without_metadata_is_not_a_sync(clock, start, profile):
    """processDeltas/OnUpdate: only old and new both with metadata and equal
    RVs make a resync. A transform yielding objects without metadata made
    every update a sync ("" == ""): once a resync tick has chosen the due
    listeners, one not due (period 0) never heard of real changes."""
    src = FakeSource()
    src.add(make_object("pod-1"))
    inf = SharedIndexInformer(src, 1, clock=clock, profile=PROFILES[profile])
    inf.set_transform(_to_key)
    idle, due = [], []
    from kubectl_informer.cache.shared_informer import ResourceEventHandlerFuncs

    inf.add_event_handler(ResourceEventHandlerFuncs(update=lambda a, b: idle.append(b)), 0, name="idle")
    inf.add_event_handler(ResourceEventHandlerFuncs(update=lambda a, b: due.append(b)), 1, name="due")
    start(inf)
    assert wait_for(inf.has_synced)
    assert wait_for(clock.has_waiters)
    clock.step(1)  # a resync tick: only "due" is due
    assert wait_for(lambda: len(due) == 1)
    src.modify(make_object("pod-1", labels={"foo": "bar"}))
    assert wait_for(lambda: len(due) == 2)
    # Both reach "idle": the tick's SyncAll/Sync cannot be told from an update
    # either (OnUpdate(obj, obj) without metadata), as upstream; the bug
    # delivered neither.
    assert wait_for(lambda: idle == ["default/pod-1", "default/pod-1"])
