"""Key functions and the tombstone, as client-go's ``tools/cache`` has them.

Objects are plain dicts decoded from the API's JSON. A ``str`` passed where an
object is expected is an explicit key (client-go's ``ExplicitKey``).
"""

from __future__ import annotations

from typing import Any

# client-go's names, importable from here too (``X as X``: an explicit re-export).
from kubectl_informer.core.objects import DeletedFinalStateUnknown as DeletedFinalStateUnknown
from kubectl_informer.core.objects import labels_of as labels_of
from kubectl_informer.core.objects import resource_version as resource_version


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
