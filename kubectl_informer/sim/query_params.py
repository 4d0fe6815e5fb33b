"""Query parameters read as kube-apiserver reads them. apimachinery's query
conversion hands an integer's first value (``limit``, ``timeoutSeconds``) to
Go's ``strconv.ParseInt(s, 10, 64)``, and a value it refuses is a 400 whose
message is ParseInt's own error; a boolean (``watch``, ``allowWatchBookmarks``,
``sendInitialEvents``, ``force``) is false only when absent, ``0`` or
``false`` (``Convert_Slice_string_To_bool``)."""

from __future__ import annotations

from kubectl_informer.core.apierrors import ApiError
from kubectl_informer.core.go_strconv import parse_int64


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
