"""Query parameters read as kube-apiserver reads them. apimachinery's query
conversion hands an integer's first value (``limit``, ``timeoutSeconds``) to
Go's ``strconv.ParseInt(s, 10, 64)``, and a value it refuses is a 400 whose
message is ParseInt's own error; a boolean (``watch``, ``allowWatchBookmarks``,
``sendInitialEvents``, ``force``) is false only when absent, ``0`` or
``false`` (``Convert_Slice_string_To_bool``). A resourceVersion is read by
``strconv.ParseUint``."""

from __future__ import annotations

import re

from kubectl_informer.core import names
from kubectl_informer.core.apierrors import ApiError

_DECIMAL = re.compile(r"[+-]?[0-9]+")  # ParseInt base 10: a sign, then ASCII digits only
_UNSIGNED = re.compile(r"[0-9]+")  # ParseUint base 10: ASCII digits only, no sign
_INT64 = range(-(2**63), 2**63)
_UINT64 = range(0, 2**64)


def query_int64(query: dict[str, str], name: str) -> int | None:
    """The parameter's value, or None when the query does not name it (an
    empty value is named, and refused as ParseInt refuses it)."""
    raw = query.get(name)
    if raw is None:
        return None
    try:
        return _parse("ParseInt", raw, _DECIMAL, _INT64)
    except ValueError as e:
        raise ApiError(400, "BadRequest", str(e)) from None


def query_bool(query: dict[str, str], name: str) -> bool:
    """Absent, ``0`` or ``false`` (any case) is false; any other value, an
    empty one too, is true."""
    raw = query.get(name)
    return raw is not None and raw != "0" and raw.lower() != "false"


def parse_uint64(raw: str) -> int:
    """Go's ``strconv.ParseUint(raw, 10, 64)``: ValueError with its message."""
    return _parse("ParseUint", raw, _UNSIGNED, _UINT64)


def go_quote(raw: str) -> str:
    """The value as Go's ``%q`` prints it (strconv.Quote)."""
    return _quoted(raw)


def _parse(func: str, raw: str, syntax: re.Pattern[str], bounds: range) -> int:
    if not syntax.fullmatch(raw):
        raise ValueError(f"strconv.{func}: parsing {_quoted(raw)}: invalid syntax")
    value = int(raw)
    if value not in bounds:
        raise ValueError(f"strconv.{func}: parsing {_quoted(raw)}: value out of range")
    return value


def _quoted(raw: str) -> str:
    """Go's strconv.Quote of the value, as ParseInt's error prints it."""
    return names.go_quote(raw)
