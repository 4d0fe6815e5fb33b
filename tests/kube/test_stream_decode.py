"""ListStream: a List decoded from its chunks equals one plain decode, however
the body is cut; interning shares strings without changing values."""

import gc
import json
import sys

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kubectl_informer.kube import stream_decode
from kubectl_informer.kube.stream_decode import ListStream, StringInterner, decode_list_chunks


def pod(i, owners=1):
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": f"p-{i}",
            "namespace": "default",
            "resourceVersion": str(i),
            "ownerReferences": [
                {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": f"rs-{k}"} for k in range(owners)
            ],
        },
        "status": {"phase": "Running", "note": '},{"apiVersion": inside a string'},
    }


def body(items, **envelope):
    doc = {"kind": "PodList", "apiVersion": "v1", "metadata": {"resourceVersion": "99"}, **envelope, "items": items}
    return orjson.dumps(doc)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | st.text(max_size=8),
    lambda kids: st.lists(kids, max_size=3) | st.dictionaries(st.text(max_size=5), kids, max_size=3),
    max_leaves=10,
)
list_items = st.lists(
    st.fixed_dictionaries(
        {"apiVersion": st.sampled_from(["v1", "x"])},
        optional={
            "spec": json_values,
            "list": st.lists(st.fixed_dictionaries({"apiVersion": st.text(max_size=3)}), max_size=3),
        },
    ),
    max_size=8,
)


@pytest.fixture(autouse=True)
def small_buffers(monkeypatch):
    # Compact and give up early so that small bodies take every path.
    monkeypatch.setattr(stream_decode, "COMPACT_AT", 64)
    # No gc.unfreeze() after: it put everything tests/conftest.py froze after
    # collection back into every later full collection of the worker (2-3x
    # their cost for the rest of its run). A decode here that froze its
    # result (none reaches FREEZE_MIN_ITEMS) would only keep objects the
    # collector never needs: they are freed by their reference counts.


def chunked(b: bytes, cuts) -> list[bytes]:
    points = sorted({c % (len(b) + 1) for c in cuts})
    out, prev = [], 0
    for p in points + [len(b)]:
        out.append(b[prev:p])
        prev = p
    return out


def decode(b: bytes, cuts=(), interner=None) -> dict:
    return decode_list_chunks(chunked(b, cuts), interner)


@settings(max_examples=120, deadline=None)
@given(list_items, st.lists(st.integers(min_value=0), max_size=12), st.booleans())
def test_any_list_cut_anywhere_decodes_the_same(its, cuts, intern):
    b = body(its)
    assert decode(b, cuts, StringInterner() if intern else None) == orjson.loads(b)


def test_items_are_decoded_as_the_chunks_arrive_and_consumed_bytes_dropped():
    b = body([pod(i, owners=2) for i in range(40)])
    s = ListStream()
    seen = []
    for chunk in chunked(b, range(0, len(b), 100)):
        s.feed(chunk)
        seen.append(len(s.items))
        assert len(s._buf) < 64 + 100 + len(orjson.dumps(pod(0, owners=2))) * 3
    assert seen[len(seen) // 2] > 10  # half the body in, a good part of the items out
    assert s.finish() == orjson.loads(b)


@pytest.mark.parametrize(
    "doc",
    [
        b'{"kind":"PodList","metadata":{},"items":[]}',
        b'{"kind":"PodList","items":[{"a":1},{"a":2}],"metadata":{"resourceVersion":"3"}}',  # items not last
        json.dumps({"kind": "PodList", "items": [{"a": 1}, {"a": 2}]}, indent=2).encode(),  # pretty-printed
        b'{"kind":"Status","code":500}',
        b'{"kind":"PodList","metadata":{"continue":"abc"},"items":[{"a":[{"a":1},{"a":2}]}, {"a":3} ] }',
    ],
)
@pytest.mark.parametrize("cuts", [(), (1, 7, 20, 33)])
def test_other_shapes_decode_the_same(doc, cuts):
    assert decode(doc, cuts) == orjson.loads(doc)


def test_an_item_that_never_decodes_leaves_the_rest_to_the_end(monkeypatch):
    monkeypatch.setattr(stream_decode, "MAX_EXTENSIONS", 1)
    b = body([pod(i, owners=4) for i in range(10)])
    assert decode(b, range(0, len(b), 50)) == orjson.loads(b)


@pytest.mark.parametrize("doc", [b'{"kind":"PodList","items":[{"a":1},{"a":]}', b'{"kind":"PodList","items":[{"a":1}'])
def test_invalid_json_raises_value_error(doc):
    with pytest.raises(ValueError):
        decode(doc, (9, 30))


def test_gc_is_paused_while_decoding_and_restored():
    assert gc.isenabled()
    states = []

    def chunks():
        b = body([pod(i) for i in range(5)])
        for c in chunked(b, (10, 200)):
            states.append(gc.isenabled())
            yield c

    decode_list_chunks(chunks())
    assert states and not any(states)
    assert gc.isenabled()


def test_interner_shares_repeated_values_but_not_unique_ones():
    its = orjson.loads(body([pod(i) for i in range(3)]))["items"]
    interner = StringInterner()
    for it in its:
        interner.intern(it)
    assert its[0]["status"]["phase"] is its[2]["status"]["phase"]
    assert "p-1" not in interner.table  # a name: unique per object, never kept
    small = StringInterner(max_entries=2)
    small.intern(its[0])
    assert len(small.table) == 2  # bounded


def test_managed_fields_trees_are_shared_between_objects():
    def obj(i, manager):
        return {
            "metadata": {
                "name": f"p{i}",
                "managedFields": [
                    {"manager": manager, "time": f"t{i}", "fieldsV1": {"f:spec": {"f:containers": {".": {}}}}}
                ],
            }
        }

    its = orjson.loads(body([obj(0, "a"), obj(1, "a"), obj(2, "b")]))["items"]
    interner = StringInterner()
    for it in its:
        interner.intern(it)
    trees = [it["metadata"]["managedFields"][0]["fieldsV1"] for it in its]
    assert trees[0] is trees[1] and trees[0] == trees[2]  # equal trees: one object
    assert its[0]["metadata"]["managedFields"][0]["time"] == "t0"  # the rest untouched
    entries = [it["metadata"]["managedFields"][0] for it in its]
    assert entries[0]["manager"] is entries[1]["manager"]  # a manager's name: one string
    assert "t1" not in interner.table  # a time: unique per object, never kept


def test_small_metadata_maps_of_one_owner_are_shared_but_big_ones_are_not():
    def obj(i, rs):
        return {
            "metadata": {
                "name": f"p{i}",
                "uid": f"u{i}",
                "labels": {"app": "a", "pod-template-hash": rs},
                "annotations": {"big": "x" * 600},
                "ownerReferences": [{"kind": "ReplicaSet", "name": f"a-{rs}", "uid": f"uid-{rs}"}],
            }
        }

    its = orjson.loads(body([obj(0, "h1"), obj(1, "h1"), obj(2, "h2")]))["items"]
    want = orjson.loads(body([obj(0, "h1"), obj(1, "h1"), obj(2, "h2")]))["items"]
    interner = StringInterner()
    for it in its:
        interner.intern(it)
    assert its == want  # values unchanged
    m = [it["metadata"] for it in its]
    assert m[0]["labels"] is m[1]["labels"] and m[0]["labels"] is not m[2]["labels"]
    assert m[0]["ownerReferences"] is m[1]["ownerReferences"]
    assert m[0]["annotations"] is not m[1]["annotations"]  # over SMALL_TREE_BYTES: never a table key


def test_pod_template_parts_are_shared_where_they_repeat():
    def obj(i, image):
        return {
            "kind": "Pod",
            "apiVersion": "v1",
            "metadata": {"name": f"p{i}", "namespace": "ns", "generateName": "web-"},
            "spec": {
                "nodeName": f"node-{i % 2}",
                "tolerations": [{"key": "k", "operator": "Exists"}],
                "containers": [
                    {
                        "name": "c",
                        "image": image,
                        "resources": {"requests": {"cpu": "1"}},
                        "volumeMounts": [{"name": f"kube-api-access-{i}", "mountPath": "/x"}],
                    }
                ],
            },
            "status": {"phase": "Running", "podIP": f"10.0.0.{i}"},
        }

    objs = [obj(0, "nginx:1"), obj(1, "nginx:1"), obj(2, "redis:7")]
    its = orjson.loads(body(objs))["items"]
    interner = StringInterner()
    for it in its:
        interner.intern(it)
    assert its == objs  # values unchanged
    a, b, c = its
    assert a["spec"]["tolerations"] is c["spec"]["tolerations"]
    ca, cb, cc = (x["spec"]["containers"][0] for x in its)
    assert ca["resources"] is cc["resources"] and ca["image"] is cb["image"]
    assert ca["volumeMounts"] is not cb["volumeMounts"]  # one per pod: never merged
    assert a["spec"]["nodeName"] is c["spec"]["nodeName"] and a["status"]["phase"] is b["status"]["phase"]
    assert a["metadata"]["namespace"] is b["metadata"]["namespace"] and a["kind"] is c["kind"]
    assert "10.0.0.1" not in interner.table and "p1" not in interner.table  # unique per object


def test_a_listed_objects_metadata_map_is_rebuilt_no_bigger_than_its_keys_need():
    # orjson allocates a map of 9-10 keys as it would one of 21: 8 MiB over 100k objects.
    meta = {k: f"v-{k}" for k in ("name", "namespace", "uid", "resourceVersion", "creationTimestamp", "generateName")}
    objs = [
        {
            "kind": "PartialObjectMetadata",
            "apiVersion": "meta.k8s.io/v1",
            "metadata": {
                **meta,
                "name": f"p{i}",
                "labels": {"app": "a"},
                "annotations": {"a": "b"},
                "ownerReferences": [{"kind": "ReplicaSet", "name": "rs"}],
            },
        }
        for i in range(3)
    ]
    plain = orjson.loads(body(objs))["items"]
    its = decode(body(objs), interner=StringInterner())["items"]
    assert its == objs  # values and key order unchanged
    for it, p in zip(its, plain, strict=True):
        assert list(it["metadata"]) == list(p["metadata"])
        assert sys.getsizeof(it["metadata"]) < sys.getsizeof(p["metadata"])
        assert sys.getsizeof(it["metadata"]) == sys.getsizeof(dict(p["metadata"].items()))
    assert its[0]["metadata"]["labels"] is its[1]["metadata"]["labels"]  # still shared after the rebuild
