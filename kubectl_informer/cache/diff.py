"""Short human summaries of objects and of what changed between two states.

The informer attaches them to ``store.*`` trace events (only while someone
is subscribed) so the UI can show "status.phase Pending→Running" without
keeping both objects. Both run per delta, so they compare whole subtrees
with ``==`` (C speed) and descend only where something differs.
"""

from __future__ import annotations

from typing import Any

from .keys import DeletedFinalStateUnknown

# Fields that change on every write and say nothing to a reader.
_IGNORED = frozenset({
    "metadata.resourceVersion",
    "metadata.managedFields",
    "metadata.generation",
    "status.observedGeneration",
})

# The same, by parent path, for the walk.
_IGNORED_UNDER: dict[str, frozenset] = {}
for _p in _IGNORED:
    _parent, _, _leaf = _p.rpartition(".")
    _IGNORED_UNDER[_parent] = _IGNORED_UNDER.get(_parent, frozenset()) | {_leaf}

# metadata.labels.app reads better as labels.app.
_SHORT_PREFIX = {"metadata.labels": "labels", "metadata.annotations": "annotations"}

_MAX_VALUE = 24


def summarize(obj: Any) -> str:
    """A few words of status: a pod's phase ("Terminating" once deleting),
    "ready 2/3" for workloads with replicas, "" otherwise."""
    if isinstance(obj, DeletedFinalStateUnknown):
        obj = obj.obj
    if not isinstance(obj, dict):
        return ""
    meta = obj.get("metadata") or {}
    status = obj.get("status")
    if not isinstance(status, dict):
        status = {}
    kind = obj.get("kind") or ""
    if kind == "Pod" or ("phase" in status and "replicas" not in status):
        if meta.get("deletionTimestamp"):
            return "Terminating"
        return str(status.get("phase") or "")
    spec = obj.get("spec")
    if isinstance(spec, dict) and "replicas" in spec:
        ready = status.get("readyReplicas") or 0
        return f"ready {ready}/{spec.get('replicas') or 0}"
    if "replicas" in status:
        return f"ready {status.get('readyReplicas') or 0}/{status.get('replicas') or 0}"
    return ""


def _short(value: Any) -> str:
    if type(value) is str and len(value) <= _MAX_VALUE:
        return value
    if isinstance(value, (dict, list)):
        text = "{…}" if isinstance(value, dict) else f"[{len(value)}]"
    else:
        text = str(value)
    return text if len(text) <= _MAX_VALUE else text[: _MAX_VALUE - 1] + "…"


def _label(path: str) -> str:
    if path.startswith("metadata.l") or path.startswith("metadata.a"):
        for long, short in _SHORT_PREFIX.items():
            if path.startswith(long):
                return short + path[len(long):]
    return path


_MISSING = object()
_SCALARS = frozenset({str, int, float, bool, type(None)})


def _walk(old: Any, new: Any, path: str, out: list[str], cap: int) -> None:
    """Append differences to ``out`` (dict order); stop once it holds
    ``cap``. Equal subtrees are skipped with one C-level comparison."""
    if isinstance(old, dict) and isinstance(new, dict):
        get = old.get
        skip = _IGNORED_UNDER.get(path)
        if skip is not None:
            # Usually only ignored fields changed (metadata.resourceVersion):
            # compare once with them taken from ``old``, in C.
            probe = dict(new)
            for k in skip:
                v = get(k, _MISSING)
                if v is _MISSING:
                    probe.pop(k, None)
                else:
                    probe[k] = v
            if probe == old:
                return
        prefix = None
        added = 0
        for k, b in new.items():
            a = get(k, _MISSING)
            if a is b or a == b or (skip is not None and k in skip):
                continue
            if len(out) >= cap:
                return
            if prefix is None:
                prefix = _label(path) + "." if path else ""
            if a is _MISSING:
                added += 1
                out.append(f"{prefix}{k} +")
            elif type(a) in _SCALARS and type(b) in _SCALARS:
                out.append(f"{prefix}{k} {_short(a)}→{_short(b)}")
            else:
                _walk(a, b, f"{path}.{k}" if path else str(k), out, cap)
        # Some key of old is missing from new iff old has more keys than
        # new has old ones.
        if len(old) > len(new) - added:
            if prefix is None:
                prefix = _label(path) + "." if path else ""
            for k in old:
                if k not in new and (skip is None or k not in skip):
                    if len(out) >= cap:
                        return
                    out.append(f"{prefix}{k} -")
        return
    if isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        for i, (a, b) in enumerate(zip(old, new)):
            if len(out) >= cap:
                return
            if a != b:
                _walk(a, b, f"{path}[{i}]", out, cap)
        return
    if isinstance(old, (dict, list)) or isinstance(new, (dict, list)):
        out.append(f"{_label(path)} changed")
        return
    out.append(f"{_label(path)} {_short(old)}→{_short(new)}")


def _order(line: str) -> tuple[bool, str]:
    # Timestamps change with almost every status write; what a reader wants
    # first is the change that caused the write (phase, restartCount, labels).
    head = line.split(" ", 1)[0]
    return (head.endswith(("Time", "Timestamp", "At")), line)


def diff_summary(old: Any, new: Any, limit: int = 4) -> list[str]:
    """Up to ``limit`` short lines naming what changed from ``old`` to
    ``new`` (sorted, timestamps last), e.g. "status.phase Pending→Running",
    "labels.app +", "labels.app -"; a last "…" line says there was more.
    Ignores resourceVersion, managedFields and generation noise."""
    if isinstance(old, DeletedFinalStateUnknown):
        old = old.obj
    if isinstance(new, DeletedFinalStateUnknown):
        new = new.obj
    if old is new or not isinstance(old, dict) or not isinstance(new, dict):
        return []
    out: list[str] = []
    _walk(old, new, "", out, limit + 1)
    if len(out) > limit:
        out = out[:limit]
        out.sort(key=_order)
        out.append("…")
        return out
    out.sort(key=_order)
    return out
