"""The Cache pane's ByIndex view, fed by the trace only: after any run of
adds, updates, deletes and atomic replaces, the view holds exactly what the
indexer's IndexKeys answers, whether the UI took the events one by one or
summarised them (feed.py's stretches); Explain's cache.index quotes it."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from kubectl_informer.cache.keys import meta_namespace_key_func
from kubectl_informer.cache.store import NAMESPACE_INDEX, Indexer, meta_namespace_index_func
from kubectl_informer.core.jsonpath import IndexSpec
from kubectl_informer.core.trace import Tracer
from kubectl_informer.core.trace_kinds import INFORMER_START, STORE_ADD, STORE_DELETE, STORE_UPDATE
from kubectl_informer.panes.cache import CacheState
from kubectl_informer.panes.explain.facts import Facts
from kubectl_informer.panes.explain.match import Subject, explain
from kubectl_informer.panes.state import Stretch

NAMES = ["a", "b", "c", "d"]
NODES = [None, "node-1", "node-2"]


def pod(name, node, rv):
    spec = {} if node is None else {"nodeName": node}
    return {"metadata": {"name": name, "namespace": "ns-" + name[0], "resourceVersion": str(rv)}, "spec": spec}


def run(ops):
    """Apply ``ops`` as the informer does (the indexer, then its store.*
    event); returns the indexer and the trace."""
    tracer, got = Tracer(), []
    tracer.subscribe(got.append)
    by_node = IndexSpec("byNode", "spec.nodeName").index_func()
    indexer = Indexer(meta_namespace_key_func, {NAMESPACE_INDEX: meta_namespace_index_func, "byNode": by_node})
    indexer.tracer = tracer
    tracer.emit(
        INFORMER_START,
        None,
        fifo="RealFIFO (atomic)",
        watch_list=True,
        resync_check_period=0.0,
        indexers={NAMESPACE_INDEX: "metadata.namespace", "byNode": "spec.nodeName"},
    )
    base = dict(resource_version="1", delta="Updated", is_in_initial_list=False)
    for rv, (op, name, node) in enumerate(ops, start=2):
        obj = pod(name, node, rv)
        key = meta_namespace_key_func(obj)
        if op == "replace":  # an atomic ReplacedAll of every other name: the rest leave
            keep = [pod(n, node, rv) for n in NAMES if n != name]
            held = set(indexer.list_keys())
            gone = [k for k in held if k not in {meta_namespace_key_func(o) for o in keep}]
            indexer.replace(keep, str(rv))
            for k in gone:  # as processReplacedAllInfo: deletions first, then the list in order
                tracer.emit_derived(STORE_DELETE, k, **base, tombstone=True)
            for o in keep:
                k = meta_namespace_key_func(o)
                if k in held:
                    tracer.emit_derived(STORE_UPDATE, k, **base, old_resource_version="1", object=o, old=o)
                else:
                    tracer.emit_derived(STORE_ADD, k, **base, object=o)
        elif op == "delete":
            held, exists = indexer.get_by_key(key)
            if exists:
                indexer.delete(held)
                tracer.emit_derived(STORE_DELETE, key, **base, tombstone=False)
        else:
            _, exists = indexer.get_by_key(key)
            indexer.add(obj)
            if exists:
                tracer.emit_derived(STORE_UPDATE, key, **base, old_resource_version="1", object=obj, old=obj)
            else:
                tracer.emit_derived(STORE_ADD, key, **base, object=obj)
    return indexer, got


ops = st.lists(
    st.tuples(st.sampled_from(["add", "update", "delete", "replace"]), st.sampled_from(NAMES), st.sampled_from(NODES)),
    max_size=30,
)


def assert_view_is_the_indexer(view, indexer):
    for name in ("byNode", NAMESPACE_INDEX):  # the namespace index derived from the keys (not traced)
        assert sorted(v for v, _ in view.rows(name)) == sorted(indexer.list_index_func_values(name)), name
        for value in indexer.list_index_func_values(name):
            assert view.by_index(name, value) == indexer.index_keys(name, value), (name, value)


@settings(max_examples=60, deadline=None)
@given(ops, st.integers(0, 30))
def test_the_view_is_the_indexers_byindex_fed_or_summarised(ops, cut):
    indexer, events = run(ops)
    fed = CacheState()
    for ev in events:
        fed.feed(ev)
    assert_view_is_the_indexer(fed.indexes, indexer)
    summarised = CacheState()
    cut = min(cut, len(events))
    for ev in events[:cut]:
        summarised.feed(ev)
    summarised.summarise(Stretch(events[cut:]))
    assert_view_is_the_indexer(summarised.indexes, indexer)
    assert summarised.indexes.names == [NAMESPACE_INDEX, "byNode"]


def test_explain_says_what_the_indexes_cost_with_this_runs_numbers():
    _, events = run(
        [
            ("add", "a", "node-1"),
            ("add", "b", "node-1"),
            ("add", "c", "node-2"),
            ("update", "c", "node-1"),
            ("update", "c", "node-1"),
        ]
    )
    facts = Facts()
    facts.feed_all(events)
    texts = dict(explain(Subject("cache", None, None), facts))
    said = texts["cache.index"]
    assert said["n"] == 2 and said["per_update"] == 4 and said["count"] == 3
    assert said["figures"] == (
        "namespace (metadata.namespace): 3 keys, each under its namespace; "
        "byNode (spec.nodeName): 1 value, 3 keys, 3.0 keys per value (most: 3 under 'node-1')"
    )
    assert said["changes"] == 4  # 3 adds, then c's one move (the namespace index is not traced)
