"""controller-runtime's update predicates, as pure functions on two objects.

A controller built on controller-runtime filters the update notifications
its informer hands it with predicates from ``pkg/predicate``. For every
update this tool shows which of the common ones would let it through, and
whether it is a resync (old and new resourceVersion equal: nothing changed).

Their rules, as controller-runtime writes them for an ``UpdateEvent``:

- an update with no old or no new object passes none of them (each logs an
  error and returns false);
- ``GenerationChangedPredicate``: ``metadata.generation`` differs (absent
  reads as 0, as ``GetGeneration`` does);
- ``ResourceVersionChangedPredicate``: ``metadata.resourceVersion`` differs
  (absent reads as ""), so it drops every resync;
- ``LabelChangedPredicate`` / ``AnnotationChangedPredicate``: the maps are
  not deeply equal. As with an unstructured object's ``GetLabels``, an
  absent map and an empty ``{}`` are not equal (Go's ``reflect.DeepEqual``
  of a nil and an empty map is false).
"""

from __future__ import annotations

from typing import Any

GENERATION_CHANGED = "GenerationChanged"
RESOURCE_VERSION_CHANGED = "ResourceVersionChanged"
LABEL_CHANGED = "LabelChanged"
ANNOTATION_CHANGED = "AnnotationChanged"
# In the order the UI shows them (one letter each: G R L A).
PREDICATES = (GENERATION_CHANGED, RESOURCE_VERSION_CHANGED, LABEL_CHANGED, ANNOTATION_CHANGED)


def _meta(obj: Any) -> dict[str, Any] | None:
    """The object's metadata, or None for no object (Go's nil)."""
    if not isinstance(obj, dict):
        return None
    m = obj.get("metadata")
    return m if isinstance(m, dict) else {}


def _generation(meta: dict[str, Any]) -> int:
    g = meta.get("generation")
    return g if isinstance(g, int) and not isinstance(g, bool) else 0


def _string_map(meta: dict[str, Any], name: str) -> dict[str, Any] | None:
    """labels/annotations as GetLabels returns them: None when absent."""
    m = meta.get(name)
    return m if isinstance(m, dict) else None


def generation_changed(old: Any, new: Any) -> bool:
    o, n = _meta(old), _meta(new)
    if o is None or n is None:
        return False
    return _generation(n) != _generation(o)


def resource_version_changed(old: Any, new: Any) -> bool:
    o, n = _meta(old), _meta(new)
    if o is None or n is None:
        return False
    return (n.get("resourceVersion") or "") != (o.get("resourceVersion") or "")


def label_changed(old: Any, new: Any) -> bool:
    o, n = _meta(old), _meta(new)
    if o is None or n is None:
        return False
    return _string_map(n, "labels") != _string_map(o, "labels")


def annotation_changed(old: Any, new: Any) -> bool:
    o, n = _meta(old), _meta(new)
    if o is None or n is None:
        return False
    return _string_map(n, "annotations") != _string_map(o, "annotations")


def is_resync(old: Any, new: Any) -> bool:
    """old.RV == new.RV: the informer's own resync (or a Replaced of an
    unchanged object), not a change; client-go's isSync."""
    o, n = _meta(old), _meta(new)
    if o is None or n is None:
        return False
    return (n.get("resourceVersion") or "") == (o.get("resourceVersion") or "")


_CHECKS = (
    (GENERATION_CHANGED, generation_changed),
    (RESOURCE_VERSION_CHANGED, resource_version_changed),
    (LABEL_CHANGED, label_changed),
    (ANNOTATION_CHANGED, annotation_changed),
)


def update_predicates(old: Any, new: Any) -> list[str]:
    """The names of the predicates (in ``PREDICATES`` order) that would let
    this update through."""
    return [name for name, passes in _CHECKS if passes(old, new)]
