"""A ReplicaSet's or Deployment's ``spec.selector`` checked as kube-apiserver
checks it on every write (pkg/apis/apps/validation ``ValidateReplicaSetSpec``
and ``ValidateDeploymentSpec``, their selector part): required; valid as
``metav1validation.ValidateLabelSelector`` wants it (label keys and values,
``In``/``NotIn`` with values, ``Exists``/``DoesNotExist`` without, a known
operator); not empty ("empty selector is invalid for deployment", the
ReplicaSet's words too); accepted by ``LabelSelectorAsSelector`` ("invalid
label selector"); and, when it converts, matching the template's labels
(``ValidatePodTemplateSpecForReplicaSet``); on an update, unchanged
(``ValidateImmutableField``, compared as ``Semantic.DeepEqual`` does). A refusal is a 422 Invalid whose
message and causes are the server's. The rest of the spec is not validated.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kubectl_informer.core.apierrors import FieldError, new_invalid
from kubectl_informer.core.go_json import go_json
from kubectl_informer.core.label_selector import SelectorError
from kubectl_informer.core.label_selector_object import OPERATORS, as_selector
from kubectl_informer.core.label_validation import label_key_problems, label_value_problems
from kubectl_informer.core.names import go_quote

if TYPE_CHECKING:
    from kubectl_informer.sim.resources import ResourceDef

KINDS = ("Deployment", "ReplicaSet")


def _invalid(path: str, rendered: str, detail: str) -> FieldError:
    return ("FieldValueInvalid", path, f"Invalid value: {rendered}: {detail}")


def _label_name(key: str, path: str) -> list[FieldError]:
    """``ValidateLabelName``: one error per problem of the key."""
    return [_invalid(path, go_quote(key), p) for p in label_key_problems(key)]


def _label_values(values: list[str], path: str) -> list[FieldError]:
    return [_invalid(path, go_quote(v), p) for v in values for p in label_value_problems(v)]


def _requirement(expr: dict, path: str) -> list[FieldError]:
    """``ValidateLabelSelectorRequirement`` (invalid label values refused)."""
    errs: list[FieldError] = []
    op, values = expr.get("operator") or "", expr.get("values") or []
    if op in ("In", "NotIn") and not values:
        errs.append(
            (
                "FieldValueRequired",
                f"{path}.values",
                "Required value: must be specified when `operator` is 'In' or 'NotIn'",
            )
        )
    elif op in ("Exists", "DoesNotExist") and values:
        detail = "Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'"
        errs.append(("FieldValueForbidden", f"{path}.values", detail))
    elif op not in OPERATORS:
        errs.append(_invalid(f"{path}.operator", go_quote(op), "not a valid selector operator"))
    errs += _label_name(expr.get("key") or "", f"{path}.key")
    for i, v in enumerate(values):
        errs += [_invalid(f"{path}.values[{i}]", go_quote(v), p) for p in label_value_problems(v)]
    return errs


def _selector_json(sel: dict) -> str:
    """``json.Marshal`` of a ``metav1.LabelSelector`` (every field omitempty)."""
    out: dict[str, Any] = {}
    if sel.get("matchLabels"):
        out["matchLabels"] = dict(sorted(sel["matchLabels"].items()))
    exprs = []
    for e in sel.get("matchExpressions") or []:
        one = {"key": e.get("key") or "", "operator": e.get("operator") or ""}
        if e.get("values"):
            one["values"] = list(e["values"])
        exprs.append(one)
    if exprs:
        out["matchExpressions"] = exprs
    return go_json(out)


def selector_errors(spec: dict) -> list[FieldError]:
    """The selector part of ``ValidateReplicaSetSpec``/``ValidateDeploymentSpec``."""
    sel, errs = spec.get("selector"), []
    if not isinstance(sel, dict):
        sel = None
        errs.append(("FieldValueRequired", "spec.selector", "Required value"))
    else:
        labels = sel.get("matchLabels") or {}
        for k, v in sorted(labels.items()):
            errs += _label_name(k, "spec.selector.matchLabels") + _label_values([v], "spec.selector.matchLabels")
        for i, expr in enumerate(sel.get("matchExpressions") or []):
            errs += _requirement(expr, f"spec.selector.matchExpressions[{i}]")
        if not labels and not sel.get("matchExpressions"):
            errs.append(_invalid("spec.selector", _selector_json(sel), "empty selector is invalid for deployment"))
    try:
        selector = as_selector(sel)
    except SelectorError:
        return [*errs, _invalid("spec.selector", _selector_json(sel or {}), "invalid label selector")]
    template = spec.get("template") or {}
    labels = (template.get("metadata") or {}).get("labels")
    if not selector.empty() and not selector.matches(labels):
        shown = go_json(dict(sorted(labels.items())) if labels else labels)
        errs.append(_invalid("spec.template.metadata.labels", shown, "`selector` does not match template `labels`"))
    return errs


def _semantic(sel: Any) -> Any:
    """A selector as ``apiequality.Semantic.DeepEqual`` compares it: a nil
    pointer apart, an empty map or list is the same as none."""
    if not isinstance(sel, dict):
        return None
    exprs = [
        (e.get("key") or "", e.get("operator") or "", tuple(e.get("values") or ()))
        for e in sel.get("matchExpressions") or []
    ]
    return (tuple(sorted((sel.get("matchLabels") or {}).items())), tuple(exprs))


def immutable_errors(spec: dict, old_spec: dict) -> list[FieldError]:
    """``ValidateImmutableField`` of ``spec.selector`` on an update (after the spec's own errors)."""
    sel = spec.get("selector")
    if _semantic(sel) == _semantic(old_spec.get("selector")):
        return []
    shown = _selector_json(sel) if isinstance(sel, dict) else "null"
    return [_invalid("spec.selector", shown, "field is immutable")]


def validate(rdef: ResourceDef, obj: dict, old: dict | None = None) -> None:
    """Raise the 422 kube-apiserver answers a ReplicaSet or Deployment whose selector it refuses
    (``ValidateReplicaSetSpec``/``ValidateDeploymentSpec``; on an update from ``old``, the
    ``...Update`` validations: the selector is immutable)."""
    errs = selector_errors(obj.get("spec") or {})
    if old is not None:
        errs += immutable_errors(obj.get("spec") or {}, old.get("spec") or {})
    if not errs:
        return
    raise new_invalid(rdef.group, rdef.kind, (obj.get("metadata") or {}).get("name") or "", errs)
