"""What every layer reads of an object: the tombstone and a few metadata fields.

Objects are plain dicts decoded from the API's JSON. ``DeletedFinalStateUnknown``
is client-go's tombstone (``tools/cache`` keeps it; ``cache.keys`` names it
too); it lives here because the trace, the panes and the engine all read it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class DeletedFinalStateUnknown:
    """Stands in for an object deleted while the watch was down: the informer
    saw it vanish from a relist, so its final state is unknown and ``obj`` may
    be stale."""

    key: str
    obj: Any = None


def resource_version(obj: Any) -> str:
    """The object's metadata.resourceVersion, or "" (tombstones, keys)."""
    if isinstance(obj, DeletedFinalStateUnknown):
        obj = obj.obj
    if isinstance(obj, dict):
        return (obj.get("metadata") or {}).get("resourceVersion") or ""
    return ""


def labels_of(obj: Any) -> dict[str, Any] | None:
    """The object's metadata.labels map itself (not a copy), or None."""
    if type(obj) is DeletedFinalStateUnknown:
        obj = obj.obj
    if type(obj) is dict:
        meta = obj.get("metadata")
        if meta:
            return meta.get("labels") or None
    return None
