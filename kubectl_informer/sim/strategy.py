"""Per-kind rules applied on every write, as kube-apiserver's strategies do:
validation of metadata shapes and of a ReplicaSet's or Deployment's
selector (``selector_validation``), defaults, ``stringData`` folded into
``data``, and condition ``lastTransitionTime`` kept unless the status moved.
(Generation and status-subresource rules live in the store's replace.)
"""

from __future__ import annotations

import base64
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from kubectl_informer.core.apierrors import ApiError
from kubectl_informer.sim import selector_validation

if TYPE_CHECKING:
    from kubectl_informer.sim.resources import ResourceDef


def now_rfc3339() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _invalid(kind: str, name: str, field: str, detail: str) -> ApiError:
    return ApiError(
        422,
        "Invalid",
        f'{kind} "{name}" is invalid: {field}: {detail}',
        [{"reason": "FieldValueInvalid", "message": detail, "field": field}],
    )


def validate(rdef: ResourceDef, obj: dict) -> None:
    """Reject what would not decode into the Go type (a 422, never a crash later)."""
    meta = obj.get("metadata")
    if not isinstance(meta, dict):
        raise ApiError(400, "BadRequest", "the body of the request must be an object with a metadata object")
    given = meta.get("name")
    name = given if isinstance(given, str) else ""
    for f in ("name", "generateName", "namespace", "resourceVersion", "uid"):
        if meta.get(f) is not None and not isinstance(meta[f], str):
            raise _invalid(rdef.kind, name, f"metadata.{f}", "Invalid value: must be a string")
    for f in ("labels", "annotations"):
        m = meta.get(f)
        if m is not None and (
            not isinstance(m, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in m.items())
        ):
            raise _invalid(rdef.kind, name, f"metadata.{f}", "Invalid value: must be a map of strings to strings")
    fin = meta.get("finalizers")
    if fin is not None and (not isinstance(fin, list) or not all(isinstance(x, str) for x in fin)):
        raise _invalid(rdef.kind, name, "metadata.finalizers", "Invalid value: must be a list of strings")
    if rdef.kind == "Secret":
        for f in ("data", "stringData"):
            m = obj.get(f)
            if m is not None and (not isinstance(m, dict) or not all(isinstance(v, str) for v in m.values())):
                raise _invalid(rdef.kind, name, f, "Invalid value: must be a map of strings")


def _fold_string_data(obj: dict) -> None:
    # A Secret's stringData is write-only: merged into data, never stored.
    sd = obj.pop("stringData", None)
    if sd:
        data = obj.setdefault("data", {})
        for k, v in sd.items():
            data[k] = base64.b64encode(v.encode()).decode()


def _conditions(obj: dict) -> list | None:
    st = obj.get("status")
    conds = st.get("conditions") if isinstance(st, dict) else None
    return conds if isinstance(conds, list) else None


def keep_transition_times(new: dict, old: dict | None) -> None:
    """A condition's lastTransitionTime moves only when its status changes."""
    conds = _conditions(new)
    if not conds:
        return
    before = {c.get("type"): c for c in _conditions(old or {}) or [] if isinstance(c, dict)}
    now = now_rfc3339()
    for c in conds:
        if not isinstance(c, dict):
            continue
        prev = before.get(c.get("type"))
        if prev is not None and prev.get("status") == c.get("status") and prev.get("lastTransitionTime"):
            c["lastTransitionTime"] = prev["lastTransitionTime"]
        elif prev is not None and prev.get("lastTransitionTime") == c.get("lastTransitionTime"):
            c["lastTransitionTime"] = now  # the status moved but the writer kept the old time
        elif not c.get("lastTransitionTime"):
            c["lastTransitionTime"] = now


def _validate_spec(rdef: ResourceDef, obj: dict, old: dict | None = None) -> None:
    """The spec rules ported so far: a ReplicaSet's or Deployment's selector
    (on an update from ``old``, held immutable too)."""
    if rdef.group == "apps" and rdef.kind in selector_validation.KINDS:
        selector_validation.validate(rdef, obj, old)


def on_create(rdef: ResourceDef, obj: dict) -> None:
    validate(rdef, obj)
    _validate_spec(rdef, obj)
    if rdef.kind == "Secret":
        _fold_string_data(obj)
        obj.setdefault("type", "Opaque")
    elif rdef.kind == "Pod" and rdef.group == "":
        obj.setdefault("spec", {})
        obj.setdefault("status", {}).setdefault("phase", "Pending")
    elif rdef.kind == "Namespace" and rdef.group == "":
        obj["spec"] = {**(obj.get("spec") or {}), "finalizers": ["kubernetes"]}  # set by kube on every create
        obj.setdefault("status", {}).setdefault("phase", "Active")
        labels = obj["metadata"].setdefault("labels", {})
        labels.setdefault("kubernetes.io/metadata.name", obj["metadata"]["name"])
    elif rdef.kind == "Event" and rdef.group == "":
        obj.setdefault("count", 1)
    keep_transition_times(obj, None)


def on_update(rdef: ResourceDef, new: dict, old: dict) -> None:
    validate(rdef, new)
    _validate_spec(rdef, new, old)
    if rdef.kind == "Secret":
        _fold_string_data(new)
    keep_transition_times(new, old)
