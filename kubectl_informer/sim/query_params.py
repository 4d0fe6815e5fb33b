"""Integer query parameters (``limit``, ``timeoutSeconds``) read as
kube-apiserver reads them: apimachinery's query conversion hands the first
value to Go's ``strconv.ParseInt(s, 10, 64)``, and a value it refuses is a
400 whose message is ParseInt's own error."""

from __future__ import annotations

import re

from kubectl_informer.sim.store import ApiError

_DECIMAL = re.compile(r"[+-]?[0-9]+")  # ParseInt base 10: a sign, then ASCII digits only
_INT64 = range(-(2**63), 2**63)


def query_int64(query: dict[str, str], name: str) -> int | None:
    """The parameter's value, or None when the query does not name it (an
    empty value is named, and refused as ParseInt refuses it)."""
    raw = query.get(name)
    if raw is None:
        return None
    if not _DECIMAL.fullmatch(raw):
        raise ApiError(400, "BadRequest", f"strconv.ParseInt: parsing {_quoted(raw)}: invalid syntax")
    value = int(raw)
    if value not in _INT64:
        raise ApiError(400, "BadRequest", f"strconv.ParseInt: parsing {_quoted(raw)}: value out of range")
    return value


_SHORT = {"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\v": "\\v"}


def _quoted(raw: str) -> str:
    """Go's strconv.Quote of the value, as ParseInt's error prints it: quotes
    and backslashes escaped, what is not printable written as an escape."""
    out = []
    for ch in raw:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch.isprintable():
            out.append(ch)
        elif ch in _SHORT:
            out.append(_SHORT[ch])
        elif ord(ch) < 0x80:
            out.append(f"\\x{ord(ch):02x}")
        elif ord(ch) < 0x10000:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(f"\\U{ord(ch):08x}")
    return '"' + "".join(out) + '"'
