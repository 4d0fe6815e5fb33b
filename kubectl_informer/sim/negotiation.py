"""Content negotiation: which representation a GET, LIST or WATCH answers in,
and how a request body is decoded.

Responses are JSON. The ``Accept`` header may ask for another *kind* of the
same data with ``as=<Kind>;g=<group>;v=<version>`` parameters (kubectl's
``get`` asks for ``as=Table``). Each such kind is one entry of ``TRANSFORMS``:
an object with ``list(rdef, objs, list_meta, query, store)`` for a LIST and
``object(rdef, obj, query, store)`` for a GET or one watch event. To serve another
kind, register it here; the server needs no change.

Accept entries are tried in order, as kube-apiserver does: the first one the
server can produce wins; nothing acceptable is 406.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

import orjson

from kubectl_informer.core.apierrors import ApiError

if TYPE_CHECKING:
    from kubectl_informer.sim.resources import ResourceDef
    from kubectl_informer.sim.store import Store

PROTOBUF = "application/vnd.kubernetes.protobuf"  # protobuf.py decodes it (loaded by the first such body)


class Transform(Protocol):
    def list(self, rdef: ResourceDef, objs: list[dict], list_meta: dict, query: dict, store: Store) -> dict: ...

    def object(self, rdef: ResourceDef, obj: dict, query: dict, store: Store) -> dict: ...


# (as, group, version) -> Transform. tables.py registers Table (v1 and v1beta1).
TRANSFORMS: dict[tuple[str, str, str], Transform] = {}


def register(as_kind: str, group: str, version: str, transform: Transform) -> None:
    TRANSFORMS[(as_kind, group, version)] = transform


@dataclass(frozen=True)
class Rendering:
    """What a response carries: the object itself (``transform`` None) or
    another kind of it."""

    transform: Transform | None = None
    as_kind: str = ""
    group: str = ""
    version: str = ""


PLAIN = Rendering()
_JSON_TYPES = ("application/json", "application/*", "*/*")


def _media_ranges(accept: str) -> Iterator[tuple[str, dict[str, str]]]:
    for part in accept.split(","):
        fields = [f.strip() for f in part.split(";")]
        if not fields[0]:
            continue
        params: dict[str, str] = {}
        for f in fields[1:]:
            k, _, v = f.partition("=")
            params[k.strip().lower()] = v.strip().strip('"')
        yield fields[0].lower(), params


def negotiate(accept: str | None, streaming: bool = False) -> Rendering:
    """The representation for an ``Accept`` header (None or empty: JSON)."""
    if not accept:
        return PLAIN
    for mtype, params in _media_ranges(accept):
        if mtype not in _JSON_TYPES:
            continue  # protobuf, yaml, cbor responses are not produced
        as_kind = params.get("as")
        if not as_kind:
            return PLAIN
        key = (as_kind, params.get("g", ""), params.get("v", ""))
        t = TRANSFORMS.get(key)
        if t is not None:
            return Rendering(t, *key)
    kinds = ", ".join(f"application/json;as={a};g={g};v={v}" for a, g, v in TRANSFORMS)
    raise ApiError(406, "NotAcceptable", f"only the following media types are accepted: application/json, {kinds}")


# What kube-apiserver answers /api and /apis with when the client's Accept
# asks for aggregated discovery; v1.36 serves only v2 (v2beta1 is gone).
AGGREGATED_DISCOVERY = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"


def wants_aggregated(accept: str) -> bool:
    """Whether the first entry of ``accept`` the server can produce is the
    aggregated discovery list (entries tried in order, as negotiate does)."""
    for mtype, params in _media_ranges(accept):
        if mtype not in _JSON_TYPES:
            continue
        if not params.get("as"):
            return False  # plain JSON comes first
        if (params.get("as"), params.get("g"), params.get("v")) == (
            "APIGroupDiscoveryList",
            "apidiscovery.k8s.io",
            "v2",
        ):
            return True
    return False


# ---------------------------------------------------------------- request bodies


def _parse_with(parse: Callable[[bytes], Any], errors: type[Exception], what: str) -> Callable[[bytes], Any]:
    def decode(raw: bytes) -> Any:
        try:
            return parse(raw)
        except errors:
            raise ApiError(
                400, "BadRequest", f"the body of the request was in an unknown format: it is not valid {what}"
            ) from None

    return decode


_json = _parse_with(orjson.loads, orjson.JSONDecodeError, "JSON")


@functools.cache
def _yaml_decoder() -> Callable[[bytes], Any]:
    import yaml

    return _parse_with(yaml.safe_load, yaml.YAMLError, "YAML")


def _yaml(raw: bytes) -> Any:
    # The YAML parser and the protobuf decoder are loaded by the first body in
    # their format (kubectl apply, a protobuf client), not by every server start.
    return _yaml_decoder()(raw)


def _protobuf(raw: bytes) -> Any:
    from kubectl_informer.sim import protobuf

    return protobuf.decode(raw)


# Content-Type -> decoder. JSON patch types are JSON; apply patches are YAML (JSON is YAML).
BODY_DECODERS = {
    "application/json": _json,
    "application/merge-patch+json": _json,
    "application/strategic-merge-patch+json": _json,
    "application/json-patch+json": _json,
    "application/yaml": _yaml,
    "application/apply-patch+yaml": _yaml,
    PROTOBUF: _protobuf,
}


def decode_body(content_type: str | None, raw: bytes) -> Any:
    """The request body as JSON data; 415 for a content type not understood
    (CBOR among them: client-go then retries in JSON, see docs/simulator.md)."""
    ctype = (content_type or "application/json").split(";")[0].strip().lower()
    dec = BODY_DECODERS.get(ctype)
    if dec is None:
        raise ApiError(
            415,
            "UnsupportedMediaType",
            f"the body of the request was in an unknown format - "
            f"accepted media types include: {', '.join(BODY_DECODERS)}",
        )
    return dec(raw)
