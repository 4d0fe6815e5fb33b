"""Field management: ``metadata.managedFields`` and server-side apply
(``PATCH`` with ``application/apply-patch+yaml``).

Enough of kube-apiserver's for ``kubectl apply --server-side`` and ``kubectl
diff --server-side``: every write through the API records its manager's
fields (operation Update: the fields it changed, taken from other managers;
operation Apply: the fields of the applied configuration). Apply merges the
configuration into the object (maps merge, lists are replaced as a whole),
removes a field the manager applied before and leaves out now unless
another manager owns it too, and answers 409 when another manager owns a
field it sets to another value, unless ``force=true``. A keyed list (the
containers) is owned as one field, not item by item.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import orjson

from kubectl_informer.core.apierrors import ApiError
from kubectl_informer.sim.strategy import now_rfc3339

if TYPE_CHECKING:
    from kubectl_informer.sim.resources import ResourceDef
    from kubectl_informer.sim.store import Store

_SERVER_FIELDS = (
    "uid",
    "resourceVersion",
    "generation",
    "creationTimestamp",
    "managedFields",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
    "selfLink",
)
# Nobody's fields: the object's identity and what the server keeps.
_UNOWNED = {("apiVersion",), ("kind",)} | {("metadata", f) for f in _SERVER_FIELDS + ("name", "namespace")}


def fieldset(obj: dict) -> dict:
    """The FieldsV1 set of the fields ``obj`` sets."""
    out: dict = {}
    for k, v in obj.items():
        if isinstance(v, dict) and v:
            out[f"f:{k}"] = fieldset(v)
        elif isinstance(v, list) and v and all(isinstance(i, dict) and "name" in i for i in v):
            out[f"f:{k}"] = {"k:" + orjson.dumps({"name": i["name"]}).decode(): {".": {}, **fieldset(i)} for i in v}
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


def _get(obj: Any, path: tuple) -> Any:
    for p in path:
        if not isinstance(obj, dict) or p not in obj:
            return None
        obj = obj[p]
    return obj


def _remove(obj: dict, path: tuple) -> None:
    parent = _get(obj, path[:-1]) if len(path) > 1 else obj
    if isinstance(parent, dict):
        parent.pop(path[-1], None)


def _merge(into: dict, config: dict) -> None:
    for k, v in config.items():
        if isinstance(v, dict) and isinstance(into.get(k), dict):
            _merge(into[k], v)
        else:
            into[k] = copy.deepcopy(v)


def _is_mine(e: dict, manager: str, operation: str, subresource: str = "") -> bool:
    return (e.get("manager"), e.get("operation"), e.get("subresource", "")) == (manager, operation, subresource)


def _conflicts(current: dict, config: dict, entries: list[dict], manager: str) -> list[tuple[int, set]]:
    """(index of the other manager's entry, the paths it owns that config sets otherwise)."""
    mine = leaves(fieldset(config))
    out = []
    for i, e in enumerate(entries):
        if _is_mine(e, manager, "Apply"):
            continue
        theirs = leaves(e.get("fieldsV1") or {}) & mine
        differ = {p for p in theirs if _get(current, p) != _get(config, p)}
        if differ:
            out.append((i, differ))
    return out


def _who(e: dict) -> str:
    """A manager as kube-apiserver names it in a conflict."""
    who = f'"{e.get("manager", "")}"'
    if e.get("subresource"):
        who += f' with subresource "{e["subresource"]}"'
    if e.get("operation") == "Update":
        who += f" using {e.get('apiVersion', '')}" + (f" at {e['time']}" if e.get("time") else "")
    return who


def _conflict_error(entries: list[dict], conflicts: list[tuple[int, set]]) -> ApiError:
    pairs = [(_who(entries[i]), "." + ".".join(p)) for i, ps in conflicts for p in sorted(ps)]
    causes = [
        {"reason": "FieldManagerConflict", "message": f"conflict with {who}", "field": path} for who, path in pairs
    ]
    if len(pairs) == 1:
        return ApiError(
            409, "Conflict", f"Apply failed with 1 conflict: conflict with {pairs[0][0]}: {pairs[0][1]}", causes
        )
    lines = []
    for who in sorted({w for w, _ in pairs}):
        lines.append(f"conflicts with {who}:")
        lines += [f"- {path}" for w, path in pairs if w == who]
    return ApiError(409, "Conflict", f"Apply failed with {len(pairs)} conflicts: " + "\n".join(lines), causes)


def _entry(manager: str, api_version: str, fields: dict, operation: str = "Apply", subresource: str = "") -> dict:
    e = {
        "manager": manager,
        "operation": operation,
        "apiVersion": api_version,
        "time": now_rfc3339(),
        "fieldsType": "FieldsV1",
        "fieldsV1": fields,
    }
    if subresource:
        e["subresource"] = subresource
    return e


def _from_leaves(paths: Iterable[tuple]) -> dict:
    out: dict = {}
    for p in paths:
        node = out
        for part in p:
            node = node.setdefault(part if part.startswith("k:") else f"f:{part}", {})
    return out


def _changed(old: dict | None, new: dict) -> set[tuple]:
    paths = leaves(fieldset(new)) | (leaves(fieldset(old)) if old else set())
    return {
        p
        for p in paths
        if p[:2] not in _UNOWNED and p[:1] not in _UNOWNED and (old is None or _get(old, p) != _get(new, p))
    }


def record_update(old: dict | None, new: dict, manager: str, api_version: str, subresource: str = "") -> None:
    """Set ``new``'s managedFields for a write by ``manager`` (operation
    Update): it now owns the fields it changed, and the others no longer do."""
    entries = list((old or new).get("metadata", {}).get("managedFields") or [])
    changed = _changed(old, new)
    if not changed:
        if old is not None:
            new["metadata"]["managedFields"] = entries
        return
    kept, mine = [], set()
    for e in entries:
        owned = leaves(e.get("fieldsV1") or {})
        if _is_mine(e, manager, "Update", subresource):
            mine = owned
            continue
        if owned & changed:
            e = {**e, "fieldsV1": _from_leaves(owned - changed)}
        if e["fieldsV1"]:
            kept.append(e)
    new["metadata"]["managedFields"] = kept + [
        _entry(manager, api_version, _from_leaves(mine | changed), "Update", subresource)
    ]


def _check_config(rdef: ResourceDef, name: str, config: Any) -> dict:
    if not isinstance(config, dict):
        raise ApiError(400, "BadRequest", "the body of an apply patch must be an object")
    if config.get("apiVersion") != rdef.api_version or config.get("kind") != rdef.kind:
        raise ApiError(
            400, "BadRequest", f"the apply patch must have apiVersion {rdef.api_version} and kind {rdef.kind}"
        )
    meta = config.setdefault("metadata", {})
    if not isinstance(meta, dict) or meta.get("name", name) != name:
        raise ApiError(400, "BadRequest", "the name of the object does not match the name on the URL")
    meta["name"] = name
    for f in _SERVER_FIELDS:
        if f != "resourceVersion":
            meta.pop(f, None)
    return config


def server_side_apply(
    store: Store,
    rdef: ResourceDef,
    namespace: str | None,
    name: str,
    config: Any,
    manager: str,
    force: bool,
    dry_run: bool = False,
) -> tuple[int, dict]:
    """Apply ``config`` as ``manager``: ``(HTTP status, object)``."""
    if not manager:
        raise ApiError(
            422,
            "Invalid",
            'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch',
        )
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
            raise _conflict_error(entries, conflicts)
        lost = dict(conflicts)
        prev = next((e for e in entries if _is_mine(e, manager, "Apply")), None)
        new = copy.deepcopy(current)
        _merge(new, config)
        others = set()
        kept = []
        for i, entry in enumerate(entries):
            if entry is prev:
                continue
            if i in lost:  # forced: the fields change owner
                entry = {**entry, "fieldsV1": _from_leaves(leaves(entry.get("fieldsV1") or {}) - lost[i])}
                if not entry["fieldsV1"]:
                    continue
            others |= leaves(entry.get("fieldsV1") or {})
            kept.append(entry)
        for path in leaves(prev.get("fieldsV1") or {}) - leaves(fs) - others if prev else ():
            _remove(new, path)
        new["metadata"]["managedFields"] = kept + [_entry(manager, rdef.api_version, fs)]
        return 200, store.update(rdef, new, subresource="", dry_run=dry_run)


def _applied_fields(config: dict) -> dict:
    # The object's identity (apiVersion, kind, name, namespace) is nobody's field.
    body = {k: v for k, v in config.items() if k not in ("apiVersion", "kind")}
    body["metadata"] = {
        k: v for k, v in config["metadata"].items() if k not in ("name", "namespace", "resourceVersion")
    }
    if not body["metadata"]:
        del body["metadata"]
    return fieldset(body)
