"""PartialObjectMetadata: what a metadata-only client (client-go's
``metadatainformer``) asks the API server for.

A GET, LIST or WATCH asked with ``Accept: application/json;as=
PartialObjectMetadata[List];g=meta.k8s.io;v=v1`` gets each object as
``{"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1",
"metadata": {...}}``, a list as a ``PartialObjectMetadataList``. Registered
with ``negotiation`` like Table; lists and the initial events of a watch
are built from each object's stored bytes, converted once and kept, so a
100,000-object list costs a join, not a decode.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import orjson

from kubectl_informer.sim import negotiation

if TYPE_CHECKING:
    from kubectl_informer.sim.resources import ResourceDef
    from kubectl_informer.sim.store import Store

GROUP_VERSION = "meta.k8s.io/v1"
LIST_KIND = "PartialObjectMetadataList"
KIND = "PartialObjectMetadata"

# Converted objects by the raw bytes they came from (the server's entries are
# immutable bytes): a 100k-object list converts once, not on every request.
_CACHE_MAX = 400_000
_cache: dict[int, tuple[bytes, bytes]] = {}


def partial_object(obj: dict) -> dict:
    return {"kind": KIND, "apiVersion": GROUP_VERSION, "metadata": obj.get("metadata") or {}}


class _PartialMetadata:
    """The negotiation transform (for a GET, and a watch's live events)."""

    def list(self, rdef: ResourceDef, objs: list[dict], list_meta: dict, query: dict, store: Store) -> dict:
        return {
            "kind": LIST_KIND,
            "apiVersion": GROUP_VERSION,
            "metadata": list_meta,
            "items": [partial_object(o) for o in objs],
        }

    def object(self, rdef: ResourceDef, obj: dict, query: dict, store: Store) -> dict:
        return partial_object(obj)


_TRANSFORM = _PartialMetadata()
for _kind in (KIND, LIST_KIND):
    for _version in ("v1", "v1beta1"):
        negotiation.register(_kind, "meta.k8s.io", _version, _TRANSFORM)


def is_partial(rendering: negotiation.Rendering) -> bool:
    return rendering.transform is _TRANSFORM


def partial(raw: bytes) -> bytes:
    """The PartialObjectMetadata JSON of one object's JSON."""
    hit = _cache.get(id(raw))
    if hit is not None and hit[0] is raw:
        return hit[1]
    out = orjson.dumps(partial_object(orjson.loads(raw)))
    if len(_cache) >= _CACHE_MAX:
        _cache.clear()
    _cache[id(raw)] = (raw, out)
    return out


def list_head(meta: str) -> bytes:
    return f'{{"kind":"{LIST_KIND}","apiVersion":"{GROUP_VERSION}","metadata":{{{meta}}},"items":['.encode()


def watch_line(line: bytes) -> bytes:
    """A watch event line with its object made partial (bookmarks and
    errors pass unchanged)."""
    if not line.startswith((b'{"type":"ADDED"', b'{"type":"MODIFIED"', b'{"type":"DELETED"')):
        return line
    ev = orjson.loads(line)
    ev["object"] = partial_object(ev["object"])
    return orjson.dumps(ev) + b"\n"
