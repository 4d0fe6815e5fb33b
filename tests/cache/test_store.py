"""Indexer / Store: ports of client-go's store_test.go, index_test.go and
thread_safe_store_test.go, plus the informer-facing details."""

from __future__ import annotations

import threading

import pytest

from kubectl_informer.cache.keys import DeletedFinalStateUnknown, deletion_handling_meta_namespace_key_func
from kubectl_informer.cache.store import NAMESPACE_INDEX, Indexer, Store, meta_namespace_index_func


# testStoreObject{id, val} with testStoreKeyFunc / testStoreIndexFunc
def obj(id_, val):
    return {"id": id_, "val": val}


def store_key(o):
    return o["id"]


def by_val(o):
    return [o["val"]]


def pod(name, ns="", labels=None, annotations=None, rv="1"):
    meta = {"name": name, "resourceVersion": rv}
    if ns:
        meta["namespace"] = ns
    if labels is not None:
        meta["labels"] = labels
    if annotations is not None:
        meta["annotations"] = annotations
    return {"metadata": meta}


# ----- store_test.go -----


@pytest.mark.parametrize("make", [lambda: Store(store_key), lambda: Indexer(store_key, {"by_val": by_val})])
def test_store_public_interface(make):
    # doTestStore via TestCache (and the same on an Indexer)
    store = make()
    store.add(obj("foo", "bar"))
    item, ok = store.get(obj("foo", ""))
    assert ok and item["val"] == "bar"
    store.update(obj("foo", "baz"))
    item, ok = store.get(obj("foo", ""))
    assert ok and item["val"] == "baz"
    store.delete(obj("foo", ""))
    assert store.get(obj("foo", "")) == (None, False)

    store.add(obj("a", "b"))
    store.add(obj("c", "d"))
    store.add(obj("e", "e"))
    assert sorted(o["val"] for o in store.list()) == ["b", "d", "e"]

    store.replace([obj("foo", "foo"), obj("bar", "bar")], "0")
    assert sorted(o["val"] for o in store.list()) == ["bar", "foo"]
    assert sorted(store.list_keys()) == ["bar", "foo"]


def test_index():
    # doTestIndex via TestIndex
    ix = Indexer(store_key, {"by_val": by_val})
    ix.add(obj("a", "b"))
    ix.add(obj("c", "b"))
    ix.add(obj("e", "f"))
    ix.add(obj("g", "h"))
    expected = {"b": {"a", "c"}, "f": {"e"}, "h": {"g"}}
    for val, ids in expected.items():
        assert {o["id"] for o in ix.index("by_val", obj("", val))} == ids


# ----- index_test.go -----


def test_get_index_func_values():
    # TestGetIndexFuncValues
    ix = Indexer(indexers={"testmodes": lambda p: [p["metadata"]["labels"]["foo"]]})
    ix.add(pod("one", labels={"foo": "bar"}))
    ix.add(pod("two", labels={"foo": "bar"}))
    ix.add(pod("tre", labels={"foo": "biz"}))
    assert sorted(ix.list_index_func_values("testmodes")) == ["bar", "biz"]


def users(p):
    return p["metadata"]["annotations"]["users"].split(",")


def test_multi_index_keys():
    # TestMultiIndexKeys
    ix = Indexer(indexers={"byUser": users})
    one = pod("one", annotations={"users": "ernie,bert"})
    two = pod("two", annotations={"users": "bert,oscar"})
    tre = pod("tre", annotations={"users": "ernie,elmo"})
    for p in (one, two, tre):
        ix.add(p)

    def names(user):
        return {p["metadata"]["name"] for p in ix.by_index("byUser", user)}

    assert names("ernie") == {"one", "tre"}
    assert names("bert") == {"one", "two"}
    assert names("elmo") == {"tre"}
    assert names("oscar") == {"two"}
    assert names("nobody") == set()

    ix.delete(tre)
    assert names("ernie") == {"one"}
    assert names("elmo") == set()

    two_copy = pod("two", annotations={"users": "oscar"})
    ix.update(two_copy)
    assert names("bert") == {"one"}
    assert names("oscar") == {"two"}


def test_index_with_multiple_values_dedupes():
    # threadSafeMap.Index: several values of the probe object, one result per key
    ix = Indexer(indexers={"byUser": users})
    ix.add(pod("one", annotations={"users": "ernie,bert"}))
    ix.add(pod("two", annotations={"users": "bert"}))
    probe = pod("probe", annotations={"users": "ernie,bert"})
    assert sorted(p["metadata"]["name"] for p in ix.index("byUser", probe)) == ["one", "two"]


# ----- thread_safe_store_test.go -----
# threadSafeMap stores (key, obj); here an object is (key, value) keyed by its first element.


def kv_key(o):
    return o[0]


def test_delete_removes_empty_sets_from_index():
    # TestThreadSafeStoreDeleteRemovesEmptySetsFromIndex
    ix = Indexer(kv_key, {"testIndexer": lambda o: [o[1]]})
    ix.add(("testKey", "testKey"))
    assert ix.index_keys("testIndexer", "testKey") == ["testKey"]
    ix.delete(("testKey", None))
    assert ix.list_index_func_values("testIndexer") == []


def test_add_keeps_non_empty_set_post_delete_from_index():
    # TestThreadSafeStoreAddKeepsNonEmptySetPostDeleteFromIndex
    ix = Indexer(kv_key, {"testIndexer": lambda o: ["testIndex"]})
    ix.add(("retain", "retain"))
    ix.add(("delete", "delete"))
    assert len(ix.index_keys("testIndexer", "testIndex")) == 2
    ix.delete(("delete", None))
    assert ix.list_index_func_values("testIndexer") == ["testIndex"]
    assert ix.index_keys("testIndexer", "testIndex") == ["retain"]


def test_indexing_functions_with_multiple_values():
    # TestThreadSafeStoreIndexingFunctionsWithMultipleValues
    ix = Indexer(kv_key, {"testIndexer": lambda o: o[1].split(",")})

    def compare(value, expected):
        assert ix.index_keys("testIndexer", value) == expected, value

    ix.add(("key1", "foo"))
    ix.add(("key2", "bar"))
    compare("foo", ["key1"])
    compare("bar", ["key2"])

    ix.update(("key2", "foo,bar"))
    compare("foo", ["key1", "key2"])
    compare("bar", ["key2"])

    ix.update(("key1", "foo,bar"))
    compare("foo", ["key1", "key2"])
    compare("bar", ["key1", "key2"])

    ix.add(("key3", "foo,bar,baz"))
    compare("foo", ["key1", "key2", "key3"])
    compare("bar", ["key1", "key2", "key3"])
    compare("baz", ["key3"])

    ix.update(("key1", "foo"))
    compare("foo", ["key1", "key2", "key3"])
    compare("bar", ["key2", "key3"])
    compare("baz", ["key3"])

    ix.update(("key2", "bar"))
    compare("foo", ["key1", "key3"])
    compare("bar", ["key2", "key3"])
    compare("baz", ["key3"])

    ix.delete(("key1", None))
    compare("foo", ["key3"])
    compare("bar", ["key2", "key3"])
    compare("baz", ["key3"])

    ix.delete(("key3", None))
    compare("foo", [])
    compare("bar", ["key2"])
    compare("baz", [])
    assert ix.list_index_func_values("testIndexer") == ["bar"]


def test_add_indexers_to_a_populated_store_indexes_existing_items():
    # threadSafeMap.AddIndexers (client-go 1.30+): no longer refused once
    # items exist; the existing items are indexed.
    ix = Indexer()
    ix.add(pod("a", ns="ns1"))
    ix.add(pod("b", ns="ns2"))
    ix.add_indexers({NAMESPACE_INDEX: meta_namespace_index_func})
    assert ix.index_keys(NAMESPACE_INDEX, "ns1") == ["ns1/a"]
    assert sorted(ix.list_index_func_values(NAMESPACE_INDEX)) == ["ns1", "ns2"]
    assert set(ix.get_indexers()) == {NAMESPACE_INDEX}


def test_add_indexers_conflict():
    # storeIndex.addIndexers: "indexer conflict"
    ix = Indexer(indexers={"x": by_val})
    with pytest.raises(ValueError, match="indexer conflict"):
        ix.add_indexers({"x": by_val, "y": by_val})
    assert set(ix.get_indexers()) == {"x"}


# ----- unknown indices, replace, namespace index -----


def test_unknown_index_raises_key_error_except_list_index_func_values():
    ix = Indexer(indexers={NAMESPACE_INDEX: meta_namespace_index_func})
    ix.add(pod("a", ns="ns"))
    with pytest.raises(KeyError, match="Index with name nope does not exist"):
        ix.index("nope", pod("a", ns="ns"))
    with pytest.raises(KeyError):
        ix.index_keys("nope", "ns")
    with pytest.raises(KeyError):
        ix.by_index("nope", "ns")
    assert ix.list_index_func_values("nope") == []


def test_known_index_unknown_value_is_empty():
    ix = Indexer(indexers={NAMESPACE_INDEX: meta_namespace_index_func})
    assert ix.by_index(NAMESPACE_INDEX, "none") == []
    assert ix.index_keys(NAMESPACE_INDEX, "none") == []
    assert ix.index(NAMESPACE_INDEX, pod("x", ns="none")) == []


def test_update_moves_key_between_index_values():
    ix = Indexer(indexers={"phase": lambda p: [p["metadata"]["labels"]["phase"]]})
    ix.add(pod("a", ns="d", labels={"phase": "Pending"}))
    ix.update(pod("a", ns="d", labels={"phase": "Running"}))
    assert ix.index_keys("phase", "Running") == ["d/a"]
    assert ix.index_keys("phase", "Pending") == []
    assert ix.list_index_func_values("phase") == ["Running"]


def test_replace_rebuilds_indices():
    ix = Indexer(indexers={NAMESPACE_INDEX: meta_namespace_index_func})
    ix.add(pod("a", ns="old"))
    ix.add(pod("b", ns="old"))
    ix.replace([pod("c", ns="new"), pod("d", ns="new"), pod("e")], "42")
    assert ix.by_index(NAMESPACE_INDEX, "old") == []
    assert ix.index_keys(NAMESPACE_INDEX, "new") == ["new/c", "new/d"]
    assert ix.index_keys(NAMESPACE_INDEX, "") == ["e"]
    assert sorted(ix.list_index_func_values(NAMESPACE_INDEX)) == ["", "new"]
    assert ix.list_keys() == ["new/c", "new/d", "e"]
    assert len(ix) == 3


def test_meta_namespace_index_func():
    assert meta_namespace_index_func(pod("a", ns="kube-system")) == ["kube-system"]
    assert meta_namespace_index_func(pod("node-1")) == [""]
    with pytest.raises(KeyError):
        meta_namespace_index_func({"spec": {}})


def test_delete_of_absent_key_is_a_no_op():
    ix = Indexer(indexers={NAMESPACE_INDEX: meta_namespace_index_func})
    ix.delete(pod("ghost", ns="x"))
    assert ix.list() == [] and ix.list_index_func_values(NAMESPACE_INDEX) == []


def test_delete_with_tombstone_using_deletion_handling_key_func():
    # The informer's indexer keys tombstones by their key.
    ix = Indexer(deletion_handling_meta_namespace_key_func, {NAMESPACE_INDEX: meta_namespace_index_func})
    ix.add(pod("a", ns="ns"))
    ix.delete(DeletedFinalStateUnknown("ns/a", pod("a", ns="ns")))
    assert ix.get_by_key("ns/a") == (None, False)
    assert ix.by_index(NAMESPACE_INDEX, "ns") == []


def test_get_returns_the_stored_object():
    ix = Indexer()
    p = pod("a", ns="ns")
    ix.add(p)
    assert ix.get_by_key("ns/a")[0] is p
    assert ix.get(pod("a", ns="ns")) == (p, True)
    assert "ns/a" in ix


def test_resync_is_a_no_op():
    ix = Indexer()
    ix.add(pod("a"))
    ix.resync()
    assert ix.list_keys() == ["a"]


def test_key_func_error_propagates_and_store_unchanged():
    ix = Indexer()
    with pytest.raises(KeyError):
        ix.add({"no": "meta"})
    assert len(ix) == 0


def test_concurrent_writers_keep_indices_consistent():
    ix = Indexer(indexers={NAMESPACE_INDEX: meta_namespace_index_func})
    n = 300

    def writer(w):
        for i in range(n):
            ix.add(pod(f"p{i}", ns=f"ns{i % 3}", rv=str(w)))
            if i % 2:
                ix.delete(pod(f"p{i}", ns=f"ns{i % 3}"))

    threads = [threading.Thread(target=writer, args=(w,)) for w in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    keys = set(ix.list_keys())
    assert keys == {f"ns{i % 3}/p{i}" for i in range(0, n, 2)}
    indexed = set()
    for ns in ix.list_index_func_values(NAMESPACE_INDEX):
        indexed |= set(ix.index_keys(NAMESPACE_INDEX, ns))
    assert indexed == keys
