"""Server-side apply (``PATCH`` with ``application/apply-patch+yaml``).

Enough of kube-apiserver's field management for ``kubectl apply
--server-side`` and ``kubectl diff --server-side``: the applied
configuration is merged into the object (maps merge, lists are replaced as
a whole), each field manager's applied fields are recorded in
``metadata.managedFields`` (operation Apply, FieldsV1), a field a manager
applied before and leaves out now is removed unless another manager applied
it too, and a field another Apply manager owns with a different value is a
409 conflict unless ``force=true``. Not modelled: ownership by Update
operations (PUT and other patches record no managedFields), and merging of
keyed lists (containers by name) item by item.
"""

from __future__ import annotations

import copy

import orjson

from kubectl_informer.cache.listwatch import ApiError
from kubectl_informer.sim.strategy import now_rfc3339

_SERVER_FIELDS = ("uid", "resourceVersion", "generation", "creationTimestamp", "managedFields",
                  "deletionTimestamp", "deletionGracePeriodSeconds", "selfLink")


def fieldset(obj) -> dict:
    """The FieldsV1 set of the fields ``obj`` sets."""
    out: dict = {}
    for k, v in obj.items():
        if isinstance(v, dict) and v:
            out[f"f:{k}"] = fieldset(v)
        elif isinstance(v, list) and v and all(isinstance(i, dict) and "name" in i for i in v):
            out[f"f:{k}"] = {"k:" + orjson.dumps({"name": i["name"]}).decode(): {".": {}, **fieldset(i)}
                             for i in v}
        else:
            out[f"f:{k}"] = {}
    return out


def leaves(fs: dict, prefix: tuple = ()) -> set[tuple]:
    """The owned leaf paths of a field set (a keyed list counts as one leaf)."""
    out = set()
    for k, v in fs.items():
        if k == ".":
            continue
        path = prefix + (k[2:],) if k.startswith("f:") else prefix + (k,)
        if v and k.startswith("f:") and not next(iter(v)).startswith("k:"):
            out |= leaves(v, path)
        else:
            out.add(path)
    return out


def _get(obj, path):
    for p in path:
        if not isinstance(obj, dict) or p not in obj:
            return None
        obj = obj[p]
    return obj


def _remove(obj, path) -> None:
    parent = _get(obj, path[:-1]) if len(path) > 1 else obj
    if isinstance(parent, dict):
        parent.pop(path[-1], None)


def _merge(into: dict, config: dict) -> None:
    for k, v in config.items():
        if isinstance(v, dict) and isinstance(into.get(k), dict):
            _merge(into[k], v)
        else:
            into[k] = copy.deepcopy(v)


def _conflicts(current: dict, config: dict, entries: list[dict], manager: str) -> dict[str, set]:
    mine = leaves(fieldset(config))
    out: dict[str, set] = {}
    for e in entries:
        if e.get("manager") == manager or e.get("operation") != "Apply":
            continue
        theirs = leaves(e.get("fieldsV1") or {}) & mine
        differ = {p for p in theirs if _get(current, p) != _get(config, p)}
        if differ:
            out[e["manager"]] = differ
    return out


def _conflict_error(rdef, name: str, conflicts: dict[str, set]) -> ApiError:
    lines = [f'conflict with "{m}": .{".".join(p)}' for m, ps in conflicts.items() for p in sorted(ps)]
    causes = [{"reason": "FieldManagerConflict", "message": f'conflict with "{m}"', "field": "." + ".".join(p)}
              for m, ps in conflicts.items() for p in sorted(ps)]
    return ApiError(409, "Conflict", f"Apply failed with {len(lines)} conflict{'s' if len(lines) > 1 else ''}: "
                                     + "\n".join(lines), causes)


def _entry(manager: str, api_version: str, fields: dict) -> dict:
    return {"manager": manager, "operation": "Apply", "apiVersion": api_version, "time": now_rfc3339(),
            "fieldsType": "FieldsV1", "fieldsV1": fields}


def _check_config(rdef, name: str, config) -> dict:
    if not isinstance(config, dict):
        raise ApiError(400, "BadRequest", "the body of an apply patch must be an object")
    if config.get("apiVersion") != rdef.api_version or config.get("kind") != rdef.kind:
        raise ApiError(400, "BadRequest", f"the apply patch must have apiVersion {rdef.api_version} and kind "
                                          f"{rdef.kind}")
    meta = config.setdefault("metadata", {})
    if not isinstance(meta, dict) or meta.get("name", name) != name:
        raise ApiError(400, "BadRequest", "the name of the object does not match the name on the URL")
    meta["name"] = name
    for f in _SERVER_FIELDS:
        if f != "resourceVersion":
            meta.pop(f, None)
    return config


def server_side_apply(store, rdef, namespace: str | None, name: str, config, manager: str, force: bool,
                      dry_run: bool = False) -> tuple[int, dict]:
    """Apply ``config`` as ``manager``: ``(HTTP status, object)``."""
    if not manager:
        raise ApiError(422, "Invalid", "PatchOptions.meta.k8s.io \"\" is invalid: fieldManager: Required value: "
                                       "is required for apply patch")
    config = _check_config(rdef, name, config)
    fs = _applied_fields(config)
    with store.lock:
        try:
            current = store.get(rdef, namespace, name)
        except ApiError as e:
            if e.status != 404:
                raise
            obj = copy.deepcopy(config)
            obj["metadata"]["managedFields"] = [_entry(manager, rdef.api_version, fs)]
            return 201, store.create(rdef, obj, namespace, dry_run=dry_run)
        entries = current["metadata"].get("managedFields") or []
        conflicts = _conflicts(current, config, entries, manager)
        if conflicts and not force:
            raise _conflict_error(rdef, name, conflicts)
        prev = next((e for e in entries if e.get("manager") == manager and e.get("operation") == "Apply"), None)
        new = copy.deepcopy(current)
        _merge(new, config)
        others = set()
        kept = []
        for e in entries:
            if e is prev:
                continue
            if e.get("manager") in conflicts:  # forced: the fields change owner
                lost = conflicts[e["manager"]]
                e = {**e, "fieldsV1": _without(e.get("fieldsV1") or {}, lost)}
            others |= leaves(e.get("fieldsV1") or {})
            kept.append(e)
        for path in leaves(prev.get("fieldsV1") or {}) - leaves(fs) - others if prev else ():
            _remove(new, path)
        new["metadata"]["managedFields"] = kept + [_entry(manager, rdef.api_version, fs)]
        return 200, store.update(rdef, new, subresource="", dry_run=dry_run)


def _applied_fields(config: dict) -> dict:
    # The object's identity (apiVersion, kind, name, namespace) is nobody's field.
    body = {k: v for k, v in config.items() if k not in ("apiVersion", "kind")}
    body["metadata"] = {k: v for k, v in config["metadata"].items() if k not in ("name", "namespace",
                                                                                 "resourceVersion")}
    if not body["metadata"]:
        del body["metadata"]
    return fieldset(body)


def _without(fs: dict, paths: set) -> dict:
    out = copy.deepcopy(fs)
    for p in paths:
        node = out
        for part in p[:-1]:
            node = node.get(f"f:{part}", {})
        node.pop(f"f:{p[-1]}", None)
    return out
