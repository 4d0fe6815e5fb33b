"""Go's ``strconv.ParseInt`` and ``strconv.ParseUint`` in base 10 and 64
bits, as the API server reads a number from text (a query parameter, a
resourceVersion, a label value under ``gt``/``lt``, a continue token's RV),
with the error texts Go gives."""

from __future__ import annotations

import re

from kubectl_informer.core.names import go_quote

_SIGNED = re.compile(r"[+-]?[0-9]+")  # ParseInt: a sign, then ASCII digits only
_UNSIGNED = re.compile(r"[0-9]+")  # ParseUint: ASCII digits only, no sign
_INT64 = range(-(2**63), 2**63)
_UINT64 = range(0, 2**64)


def parse_int64(text: str) -> int:
    """``strconv.ParseInt(text, 10, 64)``; ValueError with Go's message."""
    return _parse("ParseInt", text, _SIGNED, _INT64)


def parse_uint64(text: str) -> int:
    """``strconv.ParseUint(text, 10, 64)``; ValueError with Go's message."""
    return _parse("ParseUint", text, _UNSIGNED, _UINT64)


def int64_or_none(text: str) -> int | None:
    """``strconv.ParseInt(text, 10, 64)``'s number, or None where Go errs
    (the matching path: plain digits skip the pattern)."""
    if not (text.isascii() and text.isdigit()) and not _SIGNED.fullmatch(text):
        return None
    value = int(text)
    return value if value in _INT64 else None


def _parse(func: str, text: str, syntax: re.Pattern[str], bounds: range) -> int:
    if not syntax.fullmatch(text):
        raise ValueError(f"strconv.{func}: parsing {go_quote(text)}: invalid syntax")
    value = int(text)
    if value not in bounds:
        raise ValueError(f"strconv.{func}: parsing {go_quote(text)}: value out of range")
    return value
