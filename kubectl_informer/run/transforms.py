"""Transforms (client-go's ``SharedIndexInformer.SetTransform``) and what objects cost.

A transform runs on every object before it enters the FIFO, so what it drops
never reaches the cache: controller authors strip ``managedFields`` (often a
third of an object) or whole subtrees they never read. ``--strip-managed-fields``
and ``--transform drop=PATH,...`` build one here; a Secret's values are always
redacted the same way.

``MeasuredTransform`` wraps the chain so the saving is visible: every
``SAMPLE_EVERY``-th object is measured before and after (``object_bytes``) and
traced (``transform`` with a transform, ``object.size`` without), which lets
the Cache pane show bytes per object and in total without walking the cache.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from kubectl_informer.cache.keys import deletion_handling_meta_namespace_key_func
from kubectl_informer.core.redaction import redacted_value
from kubectl_informer.core.trace import NULL_TRACER, Tracer
from kubectl_informer.core.trace_kinds import OBJECT_SIZE, TRANSFORM

SECRET_ANNOTATION_WITH_DATA = "kubectl.kubernetes.io/last-applied-configuration"
# One object in this many is measured: a 100k-object list costs ~3,000 walks.
SAMPLE_EVERY = 32

Step = tuple[str, Callable[[Any], bool]]  # (name, fn(obj) -> changed it)


def strip_managed_fields(obj: Any) -> bool:
    md = obj.get("metadata") if isinstance(obj, dict) else None
    return isinstance(md, dict) and md.pop("managedFields", None) is not None


def drop_path(path: str) -> Callable[[Any], bool]:
    """Remove the field at dotted ``path`` (``status.conditions``) if present."""
    *parents, last = path.split(".")

    def drop(obj: Any) -> bool:
        for p in parents:
            if not isinstance(obj, dict):
                return False
            obj = obj.get(p)
        return isinstance(obj, dict) and obj.pop(last, _MISSING) is not _MISSING

    return drop


_MISSING = object()


def parse_transform(spec: str) -> list[str]:
    """``drop=PATH,PATH`` -> the paths; ValueError (one line) otherwise."""
    kind, sep, rest = spec.partition("=")
    if kind.strip() != "drop" or not sep:
        raise ValueError(f'invalid --transform "{spec}": expected drop=PATH[,PATH...], e.g. drop=status.conditions')
    paths = [p.strip() for p in rest.split(",")]
    for p in paths:
        if not p or any(not part for part in p.split(".")):
            raise ValueError(
                f'invalid --transform "{spec}": "{p}" is not a dotted field path like metadata.annotations'
            )
        if p in ("metadata", "metadata.name", "metadata.namespace", "metadata.resourceVersion"):
            raise ValueError(f'invalid --transform "{spec}": {p} is needed to key and track the object')
    return paths


def _redacted(value: Any, encoded: bool) -> str:
    if not isinstance(value, str):
        return "<redacted>"
    if value.startswith("<redacted"):
        return value  # redacted already (the YAML view redacts again, to be sure)
    n = len(value) * 3 // 4 - value[-2:].count("=") if encoded else len(value.encode())
    # Like `kubectl describe secret`: the size is shown, never the bytes; a
    # digest kept beside it tells a changed value of the same size.
    return redacted_value(f"<redacted {n} bytes>", value)


def redact_secret(obj: Any) -> bool:
    """Keep a Secret's keys (so a diff still says ``data.password ~``) but
    never its values, nor the last-applied annotation that repeats them."""
    if not isinstance(obj, dict):
        return False
    changed = False
    for name, encoded in (("data", True), ("stringData", False)):
        d = obj.get(name)
        if isinstance(d, dict):
            obj[name] = {k: _redacted(v, encoded) for k, v in d.items()}
            changed = True
    meta = obj.get("metadata") or {}
    ann = meta.get("annotations")
    if isinstance(ann, dict) and SECRET_ANNOTATION_WITH_DATA in ann:
        # A new map: the decoded one may be shared with other objects (stream_decode).
        meta["annotations"] = {**ann, SECRET_ANNOTATION_WITH_DATA: "<redacted>"}
        changed = True
    return changed


def build_steps(
    strip_managed: bool = False,
    drop_paths: list[str] | None = None,
    is_secret: bool = False,
    show_secret_data: bool = False,
) -> list[Step]:
    steps: list[Step] = []
    if strip_managed:
        steps.append(("strip-managed-fields", strip_managed_fields))
    for p in drop_paths or ():
        steps.append((f"drop={p}", drop_path(p)))
    if is_secret and not show_secret_data:
        steps.append(("redact-secret-data", redact_secret))
    return steps


def object_bytes(obj: Any) -> int:
    """Memory an object holds of its own: its dicts, lists and values.
    Values shared with other objects (interned strings, shared maps and managedFields
    trees; dict keys, which orjson shares, are never counted) are left out:
    they are not the object's to free."""
    size = sys.getsizeof(obj)
    t = type(obj)
    if t is dict:
        for v in obj.values():
            size += _value_bytes(v)
    elif t is list:
        for v in obj:
            size += _value_bytes(v)
    return size


def _value_bytes(v: Any) -> int:
    # References of an unshared value: the container, the caller's loop
    # name, our argument, getrefcount's argument. More: shared, not counted.
    # A scalar may have one holder more and still be the object's own: the
    # Reflector keeps the newest resourceVersion it saw, which on a watch
    # (a WatchList's initial events too) is the object's own string, on a
    # LIST the list's. Counting it on one path only made the same pods
    # measure differently by path. An interned string has at least two
    # holders more (the interner's table keys and values it).
    refs = sys.getrefcount(v)
    t = type(v)
    if t is dict or t is list:
        return object_bytes(v) if refs <= 4 else 0
    if t is str or t is int or t is float:
        return sys.getsizeof(v) if refs <= 5 else 0
    return 0  # None, True, False: singletons


class MeasuredTransform:
    """The transform the FIFO calls: applies ``steps`` and, on a sample of
    objects, traces their size before and after."""

    def __init__(self, steps: list[Step], tracer: Tracer | None = None, sample_every: int = SAMPLE_EVERY):
        self.steps = steps
        self.names = [n for n, _ in steps]
        self.tracer = tracer or NULL_TRACER
        self.sample_every = max(1, int(sample_every))
        self.count = 0

    def __call__(self, obj: Any) -> Any:
        n = self.count
        self.count = n + 1
        if n % self.sample_every or not self.tracer.enabled or not isinstance(obj, dict):
            for _, fn in self.steps:
                fn(obj)
            return obj
        return self._measured(obj)

    def _measured(self, obj: dict) -> dict:
        before = object_bytes(obj)
        applied = [name for name, fn in self.steps if fn(obj)]
        after = object_bytes(obj) if self.steps else before
        key = deletion_handling_meta_namespace_key_func(obj)
        fields: dict[str, Any] = {"bytes": after, "objects": self.count, "every": self.sample_every}
        if self.steps:
            fields.update(bytes_before=before, transforms=self.names, applied=applied)
            self.tracer.emit(TRANSFORM, key, **fields)
        else:
            self.tracer.emit(OBJECT_SIZE, key, **fields)
        return obj
