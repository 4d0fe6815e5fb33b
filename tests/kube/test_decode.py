"""loads_list: item-by-item decoding of big Lists equals one plain decode."""

import gc
import json

import orjson
import pytest
from hypothesis import given, settings, strategies as st

from kubectl_informer.kube import decode
from kubectl_informer.kube.decode import loads_list


@pytest.fixture(autouse=True)
def split_everything(monkeypatch):
    monkeypatch.setattr(decode, "SPLIT_THRESHOLD", 0)
    yield
    gc.unfreeze()  # loads_list freezes what it decoded; leave the process as we found it


def pod(i, owners=1):
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": f"p-{i}", "namespace": "default", "resourceVersion": str(i),
                         "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": f"rs-{k}"}
                                             for k in range(owners)]},
            "status": {"phase": "Running", "note": '},{"apiVersion": inside a string'}}


def body(items, **envelope):
    doc = {"kind": "PodList", "apiVersion": "v1", "metadata": {"resourceVersion": "99"}, **envelope, "items": items}
    return orjson.dumps(doc)


def test_split_decode_equals_plain_decode():
    b = body([pod(i) for i in range(50)])
    assert decode._split_decode(b, orjson.loads) == orjson.loads(b)  # really took the split path
    assert loads_list(b) == orjson.loads(b)


def test_separator_inside_an_item_extends_the_piece():
    # Two ownerReferences: '},{"apiVersion":' occurs inside each item too.
    b = body([pod(i, owners=3) for i in range(20)])
    assert decode._split_decode(b, orjson.loads) == orjson.loads(b)


@pytest.mark.parametrize("doc", [
    b'{"kind":"PodList","metadata":{},"items":[]}',
    b'{"kind":"PodList","items":[{"a":1},{"a":2}],"metadata":{"resourceVersion":"3"}}',  # items not last
    json.dumps({"kind": "PodList", "items": [{"a": 1}, {"a": 2}]}, indent=2).encode(),  # pretty-printed
    b'{"kind":"Status","code":500}',
])
def test_other_shapes_fall_back_to_a_plain_decode(doc):
    assert loads_list(doc) == orjson.loads(doc)


def test_invalid_json_still_raises():
    with pytest.raises(orjson.JSONDecodeError):
        loads_list(b'{"kind":"PodList","items":[{"a":1},{"a":]}')


def test_gc_is_restored_and_another_decoder_works():
    assert gc.isenabled()
    b = body([pod(i) for i in range(5)])
    assert loads_list(b, json.loads) == json.loads(b)
    assert gc.isenabled()
    gc.disable()
    try:
        loads_list(b)
        assert not gc.isenabled()  # a caller's choice is kept
    finally:
        gc.enable()
        gc.unfreeze()


json_values = st.recursive(st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | st.text(max_size=8),
                           lambda kids: st.lists(kids, max_size=3) | st.dictionaries(st.text(max_size=5), kids,
                                                                                    max_size=3), max_leaves=10)
items = st.lists(st.fixed_dictionaries({"apiVersion": st.sampled_from(["v1", "x"])},
                                       optional={"spec": json_values,
                                                 "list": st.lists(st.fixed_dictionaries(
                                                     {"apiVersion": st.text(max_size=3)}), max_size=3)}),
                 max_size=8)


@settings(max_examples=150, deadline=None)
@given(items)
def test_any_list_decodes_the_same(its):
    b = body(its)
    assert loads_list(b) == orjson.loads(b)
