"""``--index NAME=JSONPATH``: an IndexFunc read from a kubectl-style JSONPath.

The path is the subset of kubectl's JSONPath (``k8s.io/client-go/util/jsonpath``)
an index needs, in either spelling: ``{.spec.nodeName}`` as ``kubectl get -o
jsonpath`` takes it, or the short ``spec.nodeName`` (``.spec.nodeName`` too).
Steps are field names (``.name``, or ``['app.kubernetes.io/name']`` for a
name with dots or slashes), ``[N]`` for one element of a list and ``[*]`` for
every element.

What the IndexFunc returns for an object, as client-go IndexFuncs do:

- a string: that value; a number or a boolean: as kubectl prints it
  (``true``, ``3``); a map: its JSON, as kubectl prints a map;
- a list (at the end of the path, or through ``[*]``): one value per element,
  as an IndexFunc returning several values (client-go's
  ``TestMultiIndexKeys``): the object is under each;
- a missing field, or ``null``: no value at all, so the object is under no
  value of this index (an IndexFunc returning an empty list; kubectl's
  ``--allow-missing-keys`` prints nothing for it too). An empty string is a
  value like any other.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

# The index name: what --index NAME= and ByIndex name; a word kubectl-style
# (letters, digits, - _ .), starting with a letter.
_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_.-]{0,62}\Z")
_FIELD = re.compile(r"[A-Za-z0-9_$-]+")
_QUOTED = re.compile(r"""\[\s*(?:'([^']*)'|"([^"]*)")\s*\]""")
_ELEMENT = re.compile(r"\[\s*(\*|-?[0-9]+)\s*\]")

ALL = object()  # the [*] step

Step = Any  # a field name (str), a list index (int) or ALL


def parse_path(text: str) -> tuple[Step, ...]:
    """The steps of ``text``; ValueError saying what is wrong."""
    src = text.strip()
    if src.startswith("{") != src.endswith("}"):
        raise ValueError(f"unbalanced braces in {text!r}")
    if src.startswith("{"):
        src = src[1:-1].strip()
    if not src:
        raise ValueError("empty path")
    if src[0] not in ".[":
        src = "." + src  # the short form: spec.nodeName
    steps: list[Step] = []
    i = 0
    while i < len(src):
        c = src[i]
        if c == ".":
            m = _FIELD.match(src, i + 1)
            if m is None:
                raise ValueError(f"expected a field name at {src[i:]!r} in {text!r}")
            steps.append(m.group(0))
            i = m.end()
        elif c == "[":
            m = _QUOTED.match(src, i)
            if m is not None:
                steps.append(m.group(1) if m.group(1) is not None else m.group(2))
            else:
                m = _ELEMENT.match(src, i)
                if m is None:
                    raise ValueError(f"expected [N], [*] or ['name'] at {src[i:]!r} in {text!r}")
                steps.append(ALL if m.group(1) == "*" else int(m.group(1)))
            i = m.end()
        else:
            raise ValueError(f"unexpected {c!r} at {src[i:]!r} in {text!r} (filters and functions are not supported)")
    return tuple(steps)


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return json.dumps(value)
    return json.dumps(value, separators=(",", ":"), sort_keys=True)


def _walk(value: Any, steps: tuple[Step, ...], at: int, out: list[str]) -> None:
    n = len(steps)
    while at < n:
        step = steps[at]
        if type(step) is str:
            if type(value) is not dict:
                return
            value = value.get(step)
        elif step is ALL:
            if type(value) is not list:
                return
            for item in value:
                _walk(item, steps, at + 1, out)
            return
        else:
            if type(value) is not list or not -len(value) <= step < len(value):
                return
            value = value[step]
        at += 1
    if value is None:
        return
    if type(value) is list:
        out.extend(_text(v) for v in value if v is not None)
    else:
        out.append(_text(value))


def path_func(steps: tuple[Step, ...]) -> Callable[[Any], list[str]]:
    """The IndexFunc of ``steps`` (see the module's docstring)."""
    if len(steps) == 2 and all(type(s) is str for s in steps):
        # The common case (spec.nodeName), spelt out: it runs twice per
        # update per index, so it costs two subscripts.
        a, b = steps

        def two(obj: Any) -> list[str]:
            try:
                value = obj[a][b]
            except (KeyError, TypeError, IndexError):
                return []
            if type(value) is str:
                return [value]
            out: list[str] = []
            if value is not None:
                _walk(value, (), 0, out)
            return out

        return two
    if all(type(s) is str for s in steps):
        # Dict lookups only, no recursion.
        def fields(obj: Any) -> list[str]:
            value = obj
            for s in steps:
                if type(value) is not dict:
                    return []
                value = value.get(s)
            if value is None:
                return []
            if type(value) is str:
                return [value]
            out: list[str] = []
            _walk(value, (), 0, out)
            return out

        return fields

    def walk(obj: Any) -> list[str]:
        out: list[str] = []
        _walk(obj, steps, 0, out)
        return out

    return walk


@dataclass(frozen=True)
class IndexSpec:
    """One ``--index NAME=JSONPATH``: the name, the path as typed."""

    name: str
    path: str

    def index_func(self) -> Callable[[Any], list[str]]:
        fn = path_func(parse_path(self.path))
        fn.__dict__["index_source"] = self.path  # what the Cache pane and Explain show for it
        return fn


def parse_index(text: str, reserved: tuple[str, ...] = ("namespace",)) -> IndexSpec:
    """``NAME=JSONPATH`` checked whole; ValueError in one line."""
    name, sep, path = text.partition("=")
    name = name.strip()
    if not sep:
        raise ValueError(f"{text!r}: expected NAME=JSONPATH, e.g. byNode=spec.nodeName")
    if not _NAME.match(name):
        raise ValueError(f"{name!r}: an index name is a letter then letters, digits, '-', '_' or '.' (at most 63)")
    if name in reserved:
        raise ValueError(f"{name!r} is the built-in namespace index (client-go's NamespaceIndex); pick another name")
    parse_path(path)
    return IndexSpec(name, path.strip())
