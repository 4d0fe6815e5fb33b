"""Label and field selectors, parsed as kube-apiserver parses them.

Label selectors: ``a=b``, ``a==b``, ``a!=b``, ``a in (x,y)``, ``a notin (x)``,
``a``, ``!a``, ``a>1``, ``a<1``, comma-separated (AND). Field selectors:
``f=v``, ``f==v``, ``f!=v`` over the fields a type supports. Parse errors raise
``ApiError(400, "BadRequest", ...)`` with the apiserver's wording.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from kubectl_informer.core.apierrors import ApiError
from kubectl_informer.core.names import split_term, split_terms, unescape_field_value

Matcher = Callable[[dict[str, Any]], bool]

_KEY = r"[A-Za-z0-9]([-A-Za-z0-9_./]*[A-Za-z0-9])?"
_VALUE = r"([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?"
_SET_RE = re.compile(rf"^\s*({_KEY})\s+(in|notin)\s*\(([^)]*)\)\s*$")
_OP_RE = re.compile(rf"^\s*({_KEY})\s*(==|!=|=|>|<)\s*({_VALUE})\s*$")
_EXISTS_RE = re.compile(rf"^\s*(!?)\s*({_KEY})\s*$")


def _bad(msg: str) -> ApiError:
    return ApiError(400, "BadRequest", msg)


def _split_top(selector: str) -> list[str]:
    """Split on commas outside parentheses."""
    parts: list[str] = []
    cur: list[str] = []
    depth = 0
    for ch in selector:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    parts.append("".join(cur))
    return parts


def parse_label_selector(selector: str | None) -> Matcher | None:
    """A predicate over a labels dict, or None for "everything"."""
    if not selector or not selector.strip():
        return None
    reqs: list[Matcher] = []
    for part in _split_top(selector):
        if not part.strip():
            raise _bad(f"unable to parse requirement: found '', expected: identifier in selector {selector!r}")
        m = _SET_RE.match(part)
        if m:
            key, op = m.group(1), m.group(3)
            values = frozenset(v.strip() for v in m.group(4).split(",") if v.strip())
            reqs.append(_in_set(key, values, op == "in"))
            continue
        m = _OP_RE.match(part)
        if m:
            key, op, value = m.group(1), m.group(3), m.group(4)
            if op in ("=", "==", "!="):
                reqs.append(_equals(key, value, op != "!="))
            else:
                try:
                    num = int(value)
                except ValueError:
                    raise _bad(
                        f"unable to parse requirement: for 'Gt', 'Lt' operators, the value must be an "
                        f"integer: {value!r}"
                    ) from None
                reqs.append(_numeric(key, op, num))
            continue
        m = _EXISTS_RE.match(part)
        if m:
            neg, key = m.group(1), m.group(2)
            reqs.append(_exists(key, not neg))
            continue
        raise _bad(f"unable to parse requirement: invalid label selector {part.strip()!r}")
    if len(reqs) == 1:
        return reqs[0]
    return _all(reqs)


def _all(reqs: list[Matcher]) -> Matcher:
    def match(values: dict[str, Any]) -> bool:
        return all(r(values) for r in reqs)

    return match


def _in_set(key: str, values: frozenset[str], want_in: bool) -> Matcher:
    """``key in (...)`` (``want_in``) or ``key notin (...)``; an absent label is in no set."""
    if want_in:
        return lambda labels: labels.get(key) in values
    return lambda labels: labels.get(key) not in values


def _equals(key: str, value: str, want_equal: bool) -> Matcher:
    """``key=value`` / ``key==value`` (``want_equal``) or ``key!=value``."""
    if want_equal:
        return lambda labels: labels.get(key) == value
    return lambda labels: labels.get(key) != value


def _exists(key: str, want_present: bool) -> Matcher:
    """``key`` (``want_present``) or ``!key``."""
    if want_present:
        return lambda labels: key in labels
    return lambda labels: key not in labels


def _field_equals(name: str, value: str, want_equal: bool) -> Matcher:
    """``name=value`` / ``name==value`` (``want_equal``) or ``name!=value``; an absent field reads as ""."""
    if want_equal:
        return lambda fields: fields.get(name, "") == value
    return lambda fields: fields.get(name, "") != value


def _numeric(key: str, op: str, num: int) -> Matcher:
    def match(labels: dict[str, Any]) -> bool:
        try:
            v = int(labels[key])
        except (KeyError, ValueError, TypeError):
            return False
        return v > num if op == ">" else v < num

    return match


def parse_field_selector(selector: str | None, supported: tuple[str, ...], kind: str) -> Matcher | None:
    """A predicate over a dict of field values (``ResourceDef.field_values``)."""
    if not selector or not selector.strip():
        return None
    reqs: list[Matcher] = []
    # Terms split and values unescaped as apimachinery's fields.ParseSelector
    # does: a value may hold an escaped ',' or '=' (client-go's EscapeValue).
    for part in split_terms(selector):
        part = part.strip()
        if not part:
            continue
        split = split_term(part)
        if split is None:
            raise _bad(f"invalid selector: '{selector}'; can't understand '{part}'")
        name, op, raw = split
        try:
            name, value = name.strip(), unescape_field_value(raw.strip())
        except ValueError as e:
            raise _bad(str(e)) from None
        if name not in supported:
            raise _bad(f"field label not supported: {name}")
        reqs.append(_field_equals(name, value, op != "!="))
    if not reqs:
        return None
    if len(reqs) == 1:
        return reqs[0]
    return _all(reqs)
