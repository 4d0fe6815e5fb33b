"""``--index NAME=JSONPATH``: client-go's index tests (index_test.go,
thread_safe_store_test.go, store_test.go's index cases) ported onto the
JSONPath IndexFuncs, the ``index.update`` events the indexer emits for the
Cache pane, the JSONPath parser, and the namespace index every factory-built
informer has."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kubectl_informer.cache.factory import SharedInformerFactory
from kubectl_informer.cache.keys import meta_namespace_key_func
from kubectl_informer.cache.store import NAMESPACE_INDEX, Indexer, meta_namespace_index_func
from kubectl_informer.core.jsonpath import ALL, IndexSpec, parse_index, parse_path, path_func
from kubectl_informer.core.profiles import DEFAULT_PROFILE
from kubectl_informer.core.trace import Tracer
from kubectl_informer.core.trace_kinds import INDEX_UPDATE, check_event


def pod(name, ns="", labels=None, node=None, users=None, rv="1"):
    meta = {"name": name, "resourceVersion": rv}
    if ns:
        meta["namespace"] = ns
    if labels is not None:
        meta["labels"] = labels
    spec = {}
    if node is not None:
        spec["nodeName"] = node
    if users is not None:
        spec["users"] = users
    return {"metadata": meta, "spec": spec}


def index_of(**paths) -> Indexer:
    return Indexer(meta_namespace_key_func, {name: IndexSpec(name, p).index_func() for name, p in paths.items()})


# ----- index_test.go -----


def test_get_index_func_values():
    """TestGetIndexFuncValues: two distinct values of three pods."""
    index = index_of(testmodes="{.metadata.labels.foo}")
    index.add(pod("one", labels={"foo": "bar"}))
    index.add(pod("two", labels={"foo": "bar"}))
    index.add(pod("tre", labels={"foo": "biz"}))
    assert sorted(index.list_index_func_values("testmodes")) == ["bar", "biz"]


def test_multi_index_keys():
    """TestMultiIndexKeys: a list value puts the key under each element;
    an update moves it off the values it lost; ByIndex reads a value's set."""
    index = index_of(byUser="spec.users")
    index.add(pod("one", users=["ernie", "bert"]))
    index.add(pod("two", users=["bert", "oscar"]))
    index.add(pod("tre", users=["ernie", "elmo"]))
    expected = {"ernie": ["one", "tre"], "bert": ["one", "two"], "elmo": ["tre"], "oscar": ["two"], "elmo1": []}
    for value, keys in expected.items():
        assert index.index_keys("byUser", value) == keys
    assert sorted(o["metadata"]["name"] for o in index.by_index("byUser", "ernie")) == ["one", "tre"]

    index.delete(pod("one", users=["ernie", "bert"]))
    assert index.index_keys("byUser", "ernie") == ["tre"]
    assert index.index_keys("byUser", "bert") == ["two"]

    index.update(pod("two", users=["oscar"]))  # bert dropped
    assert index.index_keys("byUser", "bert") == []
    assert "bert" not in index.list_index_func_values("byUser")  # an emptied set is dropped
    assert index.index_keys("byUser", "oscar") == ["two"]

    index.update(pod("tre", users=["ernie", "elmo", "kermit"]))
    assert index.index_keys("byUser", "kermit") == ["tre"]
    assert sorted(index.list_index_func_values("byUser")) == ["elmo", "ernie", "kermit", "oscar"]


# ----- thread_safe_store_test.go -----


def test_update_moves_a_key_between_values_and_delete_removes_it():
    """TestThreadSafeStoreDeleteRemovesEmptySetsFromIndex /
    AddKeepsNonEmptySetPostDeleteFromIndex, on spec.nodeName."""
    index = index_of(byNode="spec.nodeName")
    index.add(pod("a", "default", node="node-1"))
    index.add(pod("b", "default", node="node-1"))
    index.update(pod("a", "default", node="node-2", rv="2"))
    assert index.index_keys("byNode", "node-1") == ["default/b"]
    assert index.index_keys("byNode", "node-2") == ["default/a"]
    index.delete(pod("b", "default", node="node-1"))
    assert index.list_index_func_values("byNode") == ["node-2"]
    index.delete(pod("a", "default", node="node-2"))
    assert index.list_index_func_values("byNode") == []


def test_a_missing_field_gives_no_value_and_an_empty_string_is_a_value():
    index = index_of(byNode="spec.nodeName")
    index.add(pod("pending", "default"))  # not scheduled: no nodeName at all
    index.add(pod("blank", "default", node=""))
    assert index.list_index_func_values("byNode") == [""]
    assert index.index_keys("byNode", "") == ["default/blank"]
    index.update(pod("pending", "default", node="node-1", rv="2"))  # the scheduler's binding
    assert index.index_keys("byNode", "node-1") == ["default/pending"]


def test_by_index_on_an_unknown_index_errors():
    """store_test.go's index cases: ByIndex/IndexKeys on an index that does
    not exist return an error; ListIndexFuncValues returns nothing."""
    index = index_of(byNode="spec.nodeName")
    index.add(pod("a", "default", node="node-1"))
    with pytest.raises(KeyError, match="Index with name byZone does not exist"):
        index.by_index("byZone", "z")
    with pytest.raises(KeyError):
        index.index_keys("byZone", "z")
    assert index.list_index_func_values("byZone") == []


# ----- the trace: index.update, emitted only when values change -----


def test_the_indexer_says_each_keys_new_values_only_when_they_change():
    tracer, got = Tracer(), []
    tracer.subscribe(got.append)
    index = index_of(byNode="spec.nodeName")
    index.tracer = tracer
    index.add(pod("a", "default", node="node-1"))
    index.update(pod("a", "default", node="node-1", rv="2"))  # unchanged: nothing said
    index.update(pod("a", "default", node="node-2", rv="3"))
    index.add(pod("p", "default"))  # an add says its values, none here
    index.update(pod("p", "default", rv="2"))  # none before or after: nothing said
    index.delete(pod("a", "default", node="node-2"))
    said = [(ev.key, ev.fields["values"]) for ev in got if ev.kind == INDEX_UPDATE]
    assert said == [("default/a", ["node-1"]), ("default/a", ["node-2"]), ("default/p", []), ("default/a", [])]
    assert all(check_event(ev.kind, ev.key, ev.fields) == [] for ev in got)


def test_the_namespace_index_is_not_traced_its_value_is_the_keys_namespace():
    tracer, got = Tracer(), []
    tracer.subscribe(got.append)
    index = Indexer(
        meta_namespace_key_func,
        {NAMESPACE_INDEX: meta_namespace_index_func, "byNode": IndexSpec("byNode", "spec.nodeName").index_func()},
    )
    index.tracer = tracer
    index.add(pod("a", "shop", node="node-1"))
    assert [ev.fields["index"] for ev in got] == ["byNode"]
    assert index.index_keys(NAMESPACE_INDEX, "shop") == ["shop/a"]


def test_replace_rebuilds_and_says_every_keys_values():
    tracer, got = Tracer(), []
    tracer.subscribe(got.append)
    index = index_of(byNode="spec.nodeName")
    index.tracer = tracer
    index.add(pod("a", "default", node="node-1"))
    got.clear()
    index.replace([pod("a", "default", node="node-9", rv="5"), pod("b", "default", node="node-9")], "5")
    assert [(ev.key, ev.fields["values"]) for ev in got] == [("default/a", ["node-9"]), ("default/b", ["node-9"])]
    assert index.index_keys("byNode", "node-1") == []


# ----- the factory: client-go's NamespaceIndex on every informer -----


def test_every_informer_a_factory_builds_has_the_namespace_index():
    factory = SharedInformerFactory(DEFAULT_PROFILE)
    informer = factory.informer_for("pods", lw=None)
    indexers = informer.get_indexer().get_indexers()
    assert indexers[NAMESPACE_INDEX] is meta_namespace_index_func
    informer.indexer.add(pod("a", "shop"))
    assert informer.indexer.index_keys(NAMESPACE_INDEX, "shop") == ["shop/a"]


# ----- the JSONPath -----


def test_both_spellings_and_brackets_parse_alike():
    assert (
        parse_path("{.spec.nodeName}")
        == parse_path("spec.nodeName")
        == parse_path(".spec.nodeName")
        == ("spec", "nodeName")
    )
    assert parse_path("{.metadata.labels['app.kubernetes.io/name']}") == (
        "metadata",
        "labels",
        "app.kubernetes.io/name",
    )
    assert parse_path("spec.containers[*].image") == ("spec", "containers", ALL, "image")
    assert parse_path("spec.containers[0].image") == ("spec", "containers", 0, "image")


@pytest.mark.parametrize(
    "bad",
    ["", "{}", "{.spec", "spec..x", "spec[x]", "spec.containers[?(@.name=='a')]", "spec.nodeName}", "spec nodeName"],
)
def test_a_bad_path_is_refused(bad):
    with pytest.raises(ValueError):
        parse_path(bad)


@pytest.mark.parametrize(
    "bad", ["byNode", "=spec.x", "1x=spec.x", "by node=spec.x", "namespace=spec.x", "byNode=spec["]
)
def test_a_bad_index_flag_is_refused(bad):
    with pytest.raises(ValueError):
        parse_index(bad)


def test_values_as_kubectl_prints_them():
    obj = {
        "spec": {
            "containers": [{"image": "a"}, {"image": "b"}, {"name": "no-image"}],
            "replicas": 3,
            "paused": True,
            "sel": {"b": "2", "a": "1"},
            "none": None,
        }
    }
    assert path_func(parse_path("spec.containers[*].image"))(obj) == ["a", "b"]
    assert path_func(parse_path("spec.containers[1].image"))(obj) == ["b"]
    assert path_func(parse_path("spec.containers[-1].image"))(obj) == []
    assert path_func(parse_path("spec.containers[7].image"))(obj) == []
    assert path_func(parse_path("spec.replicas"))(obj) == ["3"]
    assert path_func(parse_path("spec.paused"))(obj) == ["true"]
    assert path_func(parse_path("spec.sel"))(obj) == ['{"a":"1","b":"2"}']
    assert path_func(parse_path("spec.none"))(obj) == []
    assert path_func(parse_path("spec.replicas.deeper"))(obj) == []


_names = st.text(alphabet="abcdefghijklmnopqrstuvwxyzABCXYZ0123456789_-", min_size=1, max_size=8)


@given(st.lists(_names, min_size=1, max_size=5), st.booleans(), st.booleans())
def test_a_dotted_path_reads_the_field_it_names(names, braces, leading_dot):
    """Any field path, in either spelling, reads exactly the nested field."""

    def spelt(fields):
        text = ".".join(fields)
        if leading_dot or braces:
            text = "." + text
        return "{" + text + "}" if braces else text

    assert parse_path(spelt(names)) == tuple(names)
    obj: dict = {"leaf": "v"}
    for n in reversed(names):
        obj = {n: obj}
    assert path_func(parse_path(spelt([*names, "leaf"])))(obj) == ["v"]
    assert path_func(parse_path(spelt([*names, "other"])))(obj) == []
