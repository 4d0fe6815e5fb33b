"""Label and field selectors, parsed as kube-apiserver parses them.

Label selectors go through ``label_selector`` (apimachinery's
``labels.Parse``: ``a=b``, ``a==b``, ``a!=b``, ``a in (x,y)``, ``a notin (x)``,
``a``, ``!a``, ``a>1``, ``a<1``, comma-joined). Field selectors: ``f=v``,
``f==v``, ``f!=v`` over the fields a type supports. A selector the server
refuses raises ``ApiError(400, "BadRequest", ...)`` with the message
kube-apiserver puts in its Status (kubectl adds its own "Unable to find ...
that match label selector ..." in front when it prints one; the server does not).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kubectl_informer.core import label_selector
from kubectl_informer.core.apierrors import ApiError
from kubectl_informer.core.names import split_term, split_terms, unescape_field_value

Matcher = Callable[[dict[str, Any]], bool]


def _bad(msg: str) -> ApiError:
    return ApiError(400, "BadRequest", msg)


def parse_label_selector(selector: str | None) -> Matcher | None:
    """A predicate over a labels dict, or None for "everything" (a selector
    with no requirement, as ``labels.Parse`` gives for "" or blanks)."""
    if not selector:
        return None
    try:
        reqs = label_selector.parse(selector)
    except label_selector.SelectorError as e:
        raise _bad(str(e)) from None
    if not reqs:
        return None
    if len(reqs) == 1:
        return reqs[0].matcher()
    return _all([r.matcher() for r in reqs])


def _all(reqs: list[Matcher]) -> Matcher:
    def match(values: dict[str, Any]) -> bool:
        return all(r(values) for r in reqs)

    return match


def _field_equals(name: str, value: str, want_equal: bool) -> Matcher:
    """``name=value`` / ``name==value`` (``want_equal``) or ``name!=value``; an absent field reads as ""."""
    if want_equal:
        return lambda fields: fields.get(name, "") == value
    return lambda fields: fields.get(name, "") != value


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
