"""The ``scale`` subresource: a Deployment seen as an ``autoscaling/v1`` Scale."""

from __future__ import annotations

from kubectl_informer.core.apierrors import ApiError
from kubectl_informer.core.label_selector import SelectorError
from kubectl_informer.core.label_selector_object import as_selector


def to_scale(obj: dict) -> dict:
    """``scaleFromDeployment``: status.selector is ``LabelSelectorAsSelector``'s
    text; a selector it refuses is the request's error (a 500, as kube-apiserver
    answers an error that is not an API status)."""
    meta = obj.get("metadata") or {}
    spec, status = obj.get("spec") or {}, obj.get("status") or {}
    try:
        sel = str(as_selector(spec.get("selector")))
    except SelectorError as e:
        raise ApiError(500, "", str(e)) from None
    return {
        "kind": "Scale",
        "apiVersion": "autoscaling/v1",
        "metadata": {
            k: meta[k] for k in ("name", "namespace", "uid", "resourceVersion", "creationTimestamp") if k in meta
        },
        "spec": {"replicas": spec.get("replicas", 1)},
        "status": {"replicas": status.get("replicas", 0), "selector": sel},
    }


def replicas_of(scale: dict, kind: str, name: str) -> int:
    """``spec.replicas`` of a Scale sent by a client (422 if not a count)."""
    n = ((scale or {}).get("spec") or {}).get("replicas")
    if not isinstance(n, int) or isinstance(n, bool) or n < 0:
        raise ApiError(
            422,
            "Invalid",
            f'Scale.autoscaling "{name}" is invalid: spec.replicas: Invalid value: '
            f"{n!r}: must be greater than or equal to 0",
            [
                {
                    "reason": "FieldValueInvalid",
                    "field": "spec.replicas",
                    "message": "must be greater than or equal to 0",
                }
            ],
        )
    return n
