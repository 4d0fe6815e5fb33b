"""Short human summaries of objects and of what changed between two states.

The informer attaches them to ``store.*`` trace events (only while someone
is subscribed) so the UI can show "status.phase Pending→Running" without
keeping both objects. Both run per delta, so they compare whole subtrees
with ``==`` (C speed) and descend only where something differs.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from kubectl_informer.core.objects import DeletedFinalStateUnknown
from kubectl_informer.core.redaction import RedactedValue, changed_unseen

# Fields that change on every write and say nothing to a reader: left out
# of the summary, listed last in the full diff.
NOISE = frozenset(
    {
        "metadata.resourceVersion",
        "metadata.managedFields",
        "metadata.generation",
        "status.observedGeneration",
    }
)

# The same, by parent path, for the walk.
_IGNORED_UNDER: dict[str, frozenset[str]] = {}
for _p in NOISE:
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


def _plain(value: Any) -> Any:
    """A redacted value as the plain text it shows."""
    return str(value) if isinstance(value, RedactedValue) else value


def changed_text(new: str) -> str:
    """``<changed, redacted 12 bytes>``: a redacted value that changed but
    reads as before."""
    return f"<changed, {new[1:]}" if new.startswith("<") else f"<changed, {new}>"


def _short(value: Any) -> str:
    if type(value) is str and len(value) <= _MAX_VALUE:
        return value
    if isinstance(value, dict):
        text = "{…}"
    elif isinstance(value, list):
        text = f"[{len(value)}]"
    else:
        text = str(value)
    return text if len(text) <= _MAX_VALUE else text[: _MAX_VALUE - 1] + "…"


def _label(path: str) -> str:
    if path.startswith("metadata.l") or path.startswith("metadata.a"):
        for long, short in _SHORT_PREFIX.items():
            if path.startswith(long):
                return short + path[len(long) :]
    return path


_MISSING = object()
_SCALARS = frozenset({str, int, float, bool, type(None)})

# Sections in the order a reader wants them: what the object reports
# (status: restartCount 0→1), what was asked (spec), other top-level fields
# (data, rules...), metadata (labels, annotations), then the noise.
STATUS, SPEC, OTHER, METADATA, NOISE_RANK = range(5)


class Change(NamedTuple):
    """One changed path: ``op`` is "+" (added), "-" (removed) or "~"
    (changed); ``old``/``new`` are the values (``None`` on the missing side)."""

    path: str
    op: str
    old: Any
    new: Any
    rank: int

    @property
    def label(self) -> str:
        """The path as shown: metadata.labels.app reads labels.app."""
        return _label(self.path)

    def line(self) -> str:
        """The short form: "status.phase Pending→Running", "labels.app +"."""
        label = _label(self.path)
        if self.op != "~":
            return f"{label} {self.op}"
        old, new = self.old, self.new
        if isinstance(new, RedactedValue) or isinstance(old, RedactedValue):
            if changed_unseen(old, new):
                return f"{label} {changed_text(new)}"
            old, new = _plain(old), _plain(new)
        if type(old) in _SCALARS and type(new) in _SCALARS:
            return f"{label} {_short(old)}→{_short(new)}"
        return f"{label} changed"


# A path under a noise field (one str.startswith call, in C).
_UNDER_NOISE = tuple(n + sep for n in sorted(NOISE) for sep in ".[")
_SECTIONS = {"status": STATUS, "spec": SPEC, "metadata": METADATA}


def _rank(path: str) -> int:
    if path in NOISE or path.startswith(_UNDER_NOISE):
        return NOISE_RANK
    return _SECTIONS.get(path.split(".", 1)[0].split("[", 1)[0], OTHER)


def _add(out: list[Change], path: str, op: str, old: Any, new: Any) -> None:
    out.append(Change(path, op, old, new, _rank(path)))


def _walk(old: Any, new: Any, path: str, out: list[Change], noise: bool) -> None:
    """Append every difference under ``path``. Equal subtrees are skipped
    with one C-level comparison; without ``noise`` the NOISE fields are not
    looked at (usually they are all that changed: one probe compares the
    rest in C)."""
    if isinstance(old, dict) and isinstance(new, dict):
        get = old.get
        skip = None if noise else _IGNORED_UNDER.get(path)
        if skip is not None:
            probe = dict(new)
            for k in skip:
                v = get(k, _MISSING)
                if v is _MISSING:
                    probe.pop(k, None)
                else:
                    probe[k] = v
            if probe == old:
                return
        prefix = path + "." if path else ""
        for k, b in new.items():
            a = get(k, _MISSING)
            if a is b or a == b or (skip is not None and k in skip):
                continue
            if a is _MISSING:
                _add(out, f"{prefix}{k}", "+", None, b)
            else:
                _walk(a, b, f"{prefix}{k}", out, noise)
        if len(old) > len(new) or any(k not in new for k in old):
            for k in old:
                if k not in new and (skip is None or k not in skip):
                    _add(out, f"{prefix}{k}", "-", old[k], None)
        return
    if isinstance(old, list) and isinstance(new, list):
        # The common prefix; what one list has beyond the other follows.
        for i, (a, b) in enumerate(zip(old, new, strict=False)):
            if a is not b and a != b:
                _walk(a, b, f"{path}[{i}]", out, noise)
        for i in range(len(old), len(new)):
            _add(out, f"{path}[{i}]", "+", None, new[i])
        for i in range(len(new), len(old)):
            _add(out, f"{path}[{i}]", "-", old[i], None)
        return
    _add(out, path, "~", old, new)


def _order(c: Change) -> tuple[int, bool, str]:
    # Within a section, timestamps change with almost every write: the change
    # that caused the write (phase, restartCount, labels) comes first.
    leaf = c.path.rsplit(".", 1)[-1]
    return (c.rank, leaf.endswith(("Time", "Timestamp", "At")), c.path)


def _unwrap(obj: Any) -> Any:
    return obj.obj if isinstance(obj, DeletedFinalStateUnknown) else obj


def diff_changes(old: Any, new: Any, noise: bool = True) -> list[Change]:
    """Every changed path from ``old`` to ``new``, in reading order: status,
    spec, other fields, metadata, and (with ``noise``) resourceVersion,
    managedFields and generation last."""
    old, new = _unwrap(old), _unwrap(new)
    if old is new or not isinstance(old, dict) or not isinstance(new, dict):
        return []
    out: list[Change] = []
    _walk(old, new, "", out, noise)
    out.sort(key=_order)
    return out


def diff_summary(old: Any, new: Any, limit: int | None = None) -> list[str]:
    """The changed paths as short lines, in ``diff_changes`` order without
    the noise, e.g. "status.phase Pending→Running", "labels.app +",
    "labels.app -"; with ``limit``, at most that many and a last "…" line
    when there were more."""
    lines = [c.line() for c in diff_changes(old, new, noise=False)]
    if limit is not None and len(lines) > limit:
        return lines[:limit] + ["…"]
    return lines
