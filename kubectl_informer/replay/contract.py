"""A recording's events checked against the trace contract as they are read.

A recording may come from anywhere (a bug report, another user's machine):
each event's kind, key and fields are checked against the same declarations
the engine emits by (``core.trace_kinds``: one table, no rule per kind),
stricter than the emitters' check: derived fields are JSON values and are
checked too, the local fields (objects) are never recorded, and a float
must be finite.
"""

from __future__ import annotations

import math
from typing import Any

from kubectl_informer.core.trace_kinds import KINDS


def shown(value: Any) -> str:
    """A value in a problem's words: its repr, cut short (a field may hold megabytes)."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def recorded_problem(kind: str, key: Any, fields: dict[str, Any]) -> str | None:
    """The first thing wrong with an event read from a recording (None:
    nothing), against the same declarations ``check_event`` reads. Stricter
    than it: derived fields are values in JSON and are checked too, local
    fields (objects) are never recorded, and a float must be finite. A
    field left out is no problem (older versions recorded fewer): the
    reader fills it in with ``with_defaults``."""
    k = KINDS.get(kind)
    if k is None:
        return f"unknown event kind {shown(kind)}"
    if k.keyed == "yes" and not isinstance(key, str):
        return f"{kind}: key {shown(key)} is not a string"
    if k.keyed == "no" and key is not None:
        return f"{kind}: key {shown(key)} should be null"
    if key is not None and not isinstance(key, str):
        return f"{kind}: key {shown(key)} is not a string or null"
    declared, local = k.fields, k.local
    for name, value in fields.items():
        f = declared.get(name)
        if f is None or name in local:
            return f"{kind}: unknown field {shown(name)}"
        if value is None:
            if not f.nullable and not f.optional:
                return f"{kind}: {name} is null, expected {f.type}"
            continue
        if not f.test(value) or (type(value) is float and not math.isfinite(value)):
            return f"{kind}: {name}={shown(value)} is not {f.base}"
        if f.choices is not None and value not in f.choices:
            return f"{kind}: {name}={shown(value)} is not one of {', '.join(f.choices)}"
    return None
