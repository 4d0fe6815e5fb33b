"""Patch semantics: RFC 7386 JSON merge patch (also used for strategic merge,
whose list merging the simulator does not model: lists are replaced) and
RFC 6902 JSON patch."""

from __future__ import annotations

import copy
from typing import Any

from kubectl_informer.cache.listwatch import ApiError


def merge_patch(target: Any, patch: Any) -> Any:
    """RFC 7386 JSON merge patch (also used for strategic merge: lists replace)."""
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

    def walk(path: str):
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


def json_patch_apply_add(walk, path, value) -> None:
    parent, last = walk(path)
    if isinstance(parent, list):
        parent.insert(len(parent) if last == "-" else int(last), value)
    else:
        parent[last] = value
