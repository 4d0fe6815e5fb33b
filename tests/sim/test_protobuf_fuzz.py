"""Whatever bytes arrive as protobuf, the decoder answers an object or a 415
ApiError: never another exception (the server would answer 500)."""

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
