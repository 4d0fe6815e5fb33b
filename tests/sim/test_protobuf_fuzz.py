"""Whatever bytes arrive as protobuf, the decoder answers an object or a 415
ApiError: never another exception (the server would answer 500)."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kubectl_informer.core.apierrors import ApiError
from kubectl_informer.sim import protobuf
from tests.sim.test_object_semantics import _envelope, _field

KINDS = sorted(protobuf.KINDS)


def _decodes_or_415(body: bytes) -> None:
    try:
        assert isinstance(protobuf.decode(body), dict)
    except ApiError as e:
        assert e.status == 415


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(KINDS), st.binary(max_size=200))
def test_random_object_bytes(kind, raw):
    _decodes_or_415(_envelope(kind, raw))


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(KINDS), st.lists(st.tuples(st.integers(1, 20), st.binary(max_size=40)), max_size=8))
def test_well_framed_fields_with_random_payloads(kind, fields):
    _decodes_or_415(_envelope(kind, b"".join(_field(n, v) for n, v in fields)))


@settings(max_examples=100, deadline=None)
@given(st.binary(max_size=100))
def test_random_bodies(raw):
    _decodes_or_415(b"k8s\x00" + raw)


_leaf = st.tuples(st.integers(1, 20), st.binary(max_size=20))


def _nested(depth: int):
    if depth == 0:
        return st.lists(_leaf, max_size=4).map(lambda fs: b"".join(_field(n, v) for n, v in fs))
    inner = _nested(depth - 1)
    return st.lists(st.one_of(_leaf, st.tuples(st.integers(1, 20), inner)), max_size=4).map(
        lambda fs: b"".join(_field(n, v) for n, v in fs)
    )


# 150 examples: each nested one costs hypothesis ~15 ms to draw (three levels
# of lists), 300 of them were 3-4 s of CPU, the most of any test in tests/sim.
@settings(max_examples=150, deadline=None)
@given(st.sampled_from(KINDS), _nested(3))
def test_nested_messages(kind, raw):
    _decodes_or_415(_envelope(kind, raw))


def _varint_field(num: int, value: int) -> bytes:
    return bytes([num << 3, value])  # num < 16, value < 128: one byte each


@given(st.sampled_from([b"", b"\x01", b"25%"]))
def test_a_nested_field_of_the_wrong_wire_type_is_refused(payload):
    """IntOrString's type and a Time's nanos are varints: a length-delimited one is refused as
    the generated Unmarshal refuses it ("proto: wrong wireType"), never read as a zero."""
    ios = _field(1, payload) + _field(3, b"25%")
    with pytest.raises(ApiError) as e:
        protobuf.decode_message("RollingUpdateDeployment", _field(2, ios))
    assert e.value.status == 415
    stamp = _varint_field(1, 100) + _field(2, payload)
    with pytest.raises(ApiError) as e:
        protobuf.decode_message("ObjectMeta", _field(1, b"n") + _field(8, stamp))
    assert e.value.status == 415
    # the same fields as varints decode
    ok = _varint_field(1, 1) + _field(3, b"25%")
    assert protobuf.decode_message("RollingUpdateDeployment", _field(2, ok)) == {"maxSurge": "25%"}
    meta = protobuf.decode_message(
        "ObjectMeta", _field(1, b"n") + _field(8, _varint_field(1, 100) + _varint_field(2, 5))
    )
    assert meta["creationTimestamp"] == "1970-01-01T00:01:40Z"
