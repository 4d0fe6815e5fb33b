"""Patch semantics: RFC 7386 JSON merge patch, strategic merge patch (lists of
the kinds we serve merged by their Kubernetes merge keys) and RFC 6902 JSON
patch."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from kubectl_informer.core.apierrors import ApiError

# Lists Kubernetes merges by a key in a strategic merge patch (the
# patchMergeKey of the fields of the kinds the simulator serves); other lists
# are replaced. finalizers is a merged list of strings.
MERGE_KEYS = {
    "containers": "name",
    "initContainers": "name",
    "ephemeralContainers": "name",
    "env": "name",
    "volumes": "name",
    "volumeMounts": "mountPath",
    "volumeDevices": "devicePath",
    "ports": "containerPort",
    "conditions": "type",
    "imagePullSecrets": "name",
    "ownerReferences": "uid",
    "hostAliases": "ip",
    "topologySpreadConstraints": "topologyKey",
    "resourceClaims": "name",
}
_PRIMITIVE_MERGE = ("finalizers",)


def strategic_merge_patch(target: Any, patch: Any) -> Any:
    """Kubernetes' strategic merge patch for the fields above: keyed lists
    merge item by item (``$patch: delete`` removes one), ``finalizers``
    merge as a set, ``$patch: replace`` replaces a map; ``$setElementOrder``
    and ``$retainKeys`` directives are accepted and ignored."""
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    if patch.get("$patch") == "replace":
        return {k: copy.deepcopy(v) for k, v in patch.items() if k != "$patch"}
    if patch.get("$patch") == "delete":
        return None
    out = dict(target) if isinstance(target, dict) else {}
    for k, v in patch.items():
        if k.startswith("$"):
            continue
        if v is None:
            out.pop(k, None)
        elif isinstance(v, list) and k in MERGE_KEYS and isinstance(out.get(k), list):
            out[k] = _merge_keyed(out[k], v, MERGE_KEYS[k])
        elif isinstance(v, list) and k in _PRIMITIVE_MERGE and isinstance(out.get(k), list):
            out[k] = out[k] + [x for x in v if x not in out[k]]
        else:
            out[k] = strategic_merge_patch(out.get(k), v)
    return out


def _merge_keyed(current: list, patch: list, key: str) -> list:
    out = [copy.deepcopy(i) for i in current]
    for item in patch:
        if not isinstance(item, dict) or key not in item:
            return copy.deepcopy(patch)  # not a keyed list after all: replace, as merge patch would
        at = next((i for i, cur in enumerate(out) if isinstance(cur, dict) and cur.get(key) == item[key]), None)
        if item.get("$patch") == "delete":
            if at is not None:
                out.pop(at)
        elif at is None:
            out.append(strategic_merge_patch({}, item))
        else:
            out[at] = strategic_merge_patch(out[at], item)
    return out


def merge_patch(target: Any, patch: Any) -> Any:
    """RFC 7386 JSON merge patch."""
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    out = dict(target) if isinstance(target, dict) else {}
    for k, v in patch.items():
        if k.startswith("$"):
            continue  # strategic-merge directives ($patch, $retainKeys, ...): ignored
        if v is None:
            out.pop(k, None)
        else:
            out[k] = merge_patch(out.get(k), v)
    return out


def json_patch(target: Any, ops: list) -> Any:
    """RFC 6902 JSON patch: add, remove, replace, test, copy, move."""
    doc = copy.deepcopy(target)

    def walk(path: str) -> tuple[Any, str]:
        parts = [p.replace("~1", "/").replace("~0", "~") for p in path.split("/")[1:]]
        if not parts:
            raise ApiError(422, "Invalid", "json patch: empty path")
        cur = doc
        for p in parts[:-1]:
            cur = cur[int(p)] if isinstance(cur, list) else cur[p]
        return cur, parts[-1]

    try:
        for op in ops:
            kind, path = op["op"], op["path"]
            if kind in ("add", "replace"):
                parent, last = walk(path)
                if isinstance(parent, list):
                    idx = len(parent) if last == "-" else int(last)
                    if kind == "add":
                        parent.insert(idx, op["value"])
                    else:
                        parent[idx] = op["value"]
                else:
                    if kind == "replace" and last not in parent:
                        raise KeyError(last)
                    parent[last] = op["value"]
            elif kind == "remove":
                parent, last = walk(path)
                if isinstance(parent, list):
                    parent.pop(int(last))
                else:
                    del parent[last]
            elif kind == "test":
                parent, last = walk(path)
                val = parent[int(last)] if isinstance(parent, list) else parent[last]
                if val != op["value"]:
                    raise ApiError(422, "Invalid", f"json patch: test failed at {path}")
            elif kind in ("copy", "move"):
                src_parent, src_last = walk(op["from"])
                val = src_parent[int(src_last)] if isinstance(src_parent, list) else src_parent[src_last]
                if kind == "move":
                    if isinstance(src_parent, list):
                        src_parent.pop(int(src_last))
                    else:
                        del src_parent[src_last]
                json_patch_apply_add(walk, path, copy.deepcopy(val))
            else:
                raise ApiError(422, "Invalid", f"json patch: unknown op {kind!r}")
    except ApiError:
        raise
    except (KeyError, IndexError, ValueError, TypeError) as e:
        raise ApiError(422, "Invalid", f"json patch could not be applied: {e}") from None
    return doc


def json_patch_apply_add(walk: Callable[[str], tuple[Any, str]], path: str, value: Any) -> None:
    parent, last = walk(path)
    if isinstance(parent, list):
        parent.insert(len(parent) if last == "-" else int(last), value)
    else:
        parent[last] = value
