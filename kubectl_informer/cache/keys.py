"""Key functions and the tombstone, as client-go's ``tools/cache`` has them.

Objects are plain dicts decoded from the API's JSON. A ``str`` passed where an
object is expected is an explicit key (client-go's ``ExplicitKey``).
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


def meta_namespace_key_func(obj: Any) -> str:
    # Three calls per delta: the common case (an object) first; a str (an
    # explicit key) is found in the except path.
    try:
        meta = obj["metadata"]
        name = meta["name"]
    except (KeyError, TypeError) as e:
        if isinstance(obj, str):
            return obj
        raise KeyError(f"object has no meta: {obj!r:.80}") from e
    ns = meta.get("namespace")
    return f"{ns}/{name}" if ns else name


def deletion_handling_meta_namespace_key_func(obj: Any) -> str:
    if isinstance(obj, DeletedFinalStateUnknown):
        return obj.key
    return meta_namespace_key_func(obj)


def split_meta_namespace_key(key: str) -> tuple[str, str]:
    parts = key.split("/")
    if len(parts) == 1:
        return "", parts[0]
    if len(parts) == 2:
        return parts[0], parts[1]
    raise ValueError(f"unexpected key format: {key!r}")


def resource_version(obj: Any) -> str:
    """The object's metadata.resourceVersion, or "" (tombstones, keys)."""
    if isinstance(obj, DeletedFinalStateUnknown):
        obj = obj.obj
    if isinstance(obj, dict):
        return (obj.get("metadata") or {}).get("resourceVersion") or ""
    return ""


def labels_of(obj: Any) -> dict | None:
    """The object's metadata.labels map itself (not a copy), or None."""
    if type(obj) is DeletedFinalStateUnknown:
        obj = obj.obj
    if type(obj) is dict:
        meta = obj.get("metadata")
        if meta:
            return meta.get("labels") or None
    return None
