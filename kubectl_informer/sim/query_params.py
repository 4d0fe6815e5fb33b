"""Query parameters read as kube-apiserver reads them. apimachinery's query
conversion hands an integer's first value (``limit``, ``timeoutSeconds``) to
Go's ``strconv.ParseInt(s, 10, 64)``, and a value it refuses is a 400 whose
message is ParseInt's own error; a boolean (``watch``, ``allowWatchBookmarks``,
``sendInitialEvents``, ``force``) is false only when absent, ``0`` or
``false`` (``Convert_Slice_string_To_bool``).

``parse_query`` is Go's ``url.ParseQuery``, which kube-apiserver's handlers
read the query with: a pair holding a ``;`` or an escape that is not ``%``
and two hex digits is left out (the rest still count), ``+`` is a blank, and
the bytes are kept as they are: a value that is not UTF-8 holds its bytes
as ``surrogateescape`` does, so ``go_quote`` prints them as Go's ``%q`` does
(``"\\xff"``) and ``go_json`` as Go's encoder does."""

from __future__ import annotations

import re
from urllib.parse import unquote_to_bytes

from kubectl_informer.core.apierrors import ApiError, FieldError, new_invalid
from kubectl_informer.core.go_json import go_json
from kubectl_informer.core.go_strconv import parse_int64

_BAD_ESCAPE = re.compile(rb"%(?![0-9A-Fa-f]{2})")
_REPLACED = dict.fromkeys(range(0xDC80, 0xDD00), "\ufffd")


def _unescape(part: bytes) -> str | None:
    """``url.QueryUnescape``, or None for the escape error."""
    if _BAD_ESCAPE.search(part):
        return None
    return unquote_to_bytes(part.replace(b"+", b" ")).decode("utf-8", "surrogateescape")


def parse_query(raw: str) -> dict[str, list[str]]:
    """``url.ParseQuery`` of a request's raw query (its bytes as latin-1
    text, as ``http.server`` reads the request line): each name's values in
    order; the pairs Go refuses left out."""
    out: dict[str, list[str]] = {}
    for pair in raw.encode("latin-1", "replace").split(b"&"):
        if b";" in pair or not pair:
            continue  # "invalid semicolon separator in query"
        key, _, value = pair.partition(b"=")
        k, v = _unescape(key), _unescape(value)
        if k is not None and v is not None:
            out.setdefault(k, []).append(v)
    return out


def as_text(value: str) -> str:
    """A query value as a string the simulator may store or print: a byte
    that was not UTF-8 becomes U+FFFD (each byte one), as Go's JSON encoder writes it."""
    return value.translate(_REPLACED)


def query_int64(query: dict[str, str], name: str) -> int | None:
    """The parameter's value, or None when the query does not name it (an
    empty value is named, and refused as ParseInt refuses it)."""
    raw = query.get(name)
    if raw is None:
        return None
    try:
        return parse_int64(raw)
    except ValueError as e:
        raise ApiError(400, "BadRequest", str(e)) from None


def query_bool(query: dict[str, str], name: str) -> bool:
    """Absent, ``0`` or ``false`` (any case) is false; any other value, an
    empty one too, is true."""
    raw = query.get(name)
    return raw is not None and raw != "0" and raw.lower() != "false"


def validate_list_options(rv: str, match: str, continue_: str) -> None:
    """``ValidateListOptions`` for a list (internalversion/validation): the
    resourceVersionMatch rules, every one it breaks in one 422 naming
    ``ListOptions.meta.k8s.io``. (A list's sendInitialEvents is refused by the server.)"""
    field = "resourceVersionMatch"
    errs: list[FieldError] = []
    if match:
        if not rv:
            errs.append(
                (
                    "FieldValueForbidden",
                    field,
                    "Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided",
                )
            )
        if continue_:
            errs.append(
                ("FieldValueForbidden", field, "Forbidden: resourceVersionMatch is forbidden when continue is provided")
            )
        if match not in ("Exact", "NotOlderThan"):
            supported = 'supported values: "Exact", "NotOlderThan", ""'
            errs.append(("FieldValueNotSupported", field, f"Unsupported value: {go_json(match)}: {supported}"))
        if match == "Exact" and rv == "0":
            errs.append(
                (
                    "FieldValueForbidden",
                    field,
                    'Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"',
                )
            )
    if errs:
        raise new_invalid("meta.k8s.io", "ListOptions", "", errs)
