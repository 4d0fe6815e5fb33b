"""Paged lists in the simulated API server: continue tokens and one page.

A token carries the list's resourceVersion and the last key served, as
kube-apiserver's etcd3 store encodes it; a token older than the history
answers 410 with kube-apiserver's wording and a fresh token to go on with.
"""

from __future__ import annotations

import base64
import json
import posixpath

import orjson

from kubectl_informer.core.apierrors import ApiError
from kubectl_informer.core.go_strconv import int64_or_none
from kubectl_informer.core.selectors import Matcher
from kubectl_informer.sim.go_decode import GoError, check_json, raw_url_b64decode
from kubectl_informer.sim.watchcache import (
    Entry,
)

INVALID_KEY = "continue key is not valid"
INCONSISTENT_CONTINUE = (
    "The provided continue parameter is too old to display a consistent list result. "
    "You can start a new list without the continue parameter, or use the continue token in this response "
    "to retrieve the remainder of the results. Continuing with the provided token results in an "
    "inconsistent list - objects that were created, modified, or deleted between the time the first chunk "
    "was returned and now may show up in the list."
)


def encode_continue(rv: int, start_key: str) -> str:
    # The shape of apiserver's continueToken: {"v","rv","start"}, base64 (URL-safe).
    raw = orjson.dumps({"v": "meta.k8s.io/v1", "rv": rv, "start": start_key + "\x00"})
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


_VERSION = "meta.k8s.io/v1"
_FIELDS = {"v": "string", "rv": "int64", "start": "string"}


class _Number(str):
    """A JSON number's literal, as Go's decoder keeps it for its messages."""


def decode_continue(token: str) -> tuple[int, str]:
    """``storage.DecodeContinue``: the token's resourceVersion and the key to
    start from; a refused token is 400 "invalid continue token: ..." as
    ``ValidateListOptions`` words it, with Go's base64 and JSON errors inside."""
    try:
        return _decode(token)
    except GoError as e:
        raise ApiError(400, "BadRequest", f"invalid continue token: {e}") from None


def _decode(token: str) -> tuple[int, str]:
    try:
        data = raw_url_b64decode(token.encode("utf-8", "surrogateescape"))
        check_json(data)
    except GoError as e:
        raise GoError(f"{INVALID_KEY}: {e}") from None
    fields = _unmarshal(data)
    version, rv, start = str(fields.get("v", "")), _int(fields.get("rv", 0)), str(fields.get("start", ""))
    if version != _VERSION:
        raise GoError(f"{INVALID_KEY}: server does not recognize this encoded version {version}")
    if rv == 0:
        raise GoError(f"{INVALID_KEY}: incorrect encoded start resourceVersion (version {_VERSION})")
    if not start:
        raise GoError(f"{INVALID_KEY}: encoded start key empty (version {_VERSION})")
    key = start if start.startswith("/") else "/" + start
    cleaned = posixpath.normpath(key)
    if cleaned.startswith("//"):
        cleaned = "/" + cleaned.lstrip("/")  # path.Clean keeps one leading slash, normpath two
    if cleaned != key:
        raise GoError(f"{INVALID_KEY}: {start}")  # path traversal refused
    return rv, cleaned[1:]


class _Object(list[tuple[str, object]]):
    """A JSON object's (key, value) pairs in order, duplicates kept."""


def _unmarshal(data: bytes) -> dict[str, object]:
    """``json.Unmarshal`` of valid JSON into ``storage.continueToken``: keys
    matched exactly or else without regard to case, the last one winning,
    null leaving a field alone; the first value of the wrong type is the error."""
    value = json.loads(
        data.decode("utf-8", "replace"), parse_int=_Number, parse_float=_Number, object_pairs_hook=_Object
    )
    if value is None:
        return {}
    if not isinstance(value, _Object):
        raise GoError(
            f"{INVALID_KEY}: json: cannot unmarshal {_kind(value)} into Go value of type storage.continueToken"
        )
    fields: dict[str, object] = {}
    errors: list[str] = []
    for key, v in value:
        name = key if key in _FIELDS else key.casefold()
        if name not in _FIELDS or v is None:
            continue
        got, error = _field_value(name, v)
        if error:
            errors.append(error)
        else:
            fields[name] = got
    if errors:
        raise GoError(f"{INVALID_KEY}: json: {errors[0]}")
    return fields


def _field_value(name: str, v: object) -> tuple[object, str]:
    """The field's value, or Go's ``UnmarshalTypeError`` text."""
    wrong = f"cannot unmarshal {_kind(v)} into Go struct field continueToken.{name} of type {_FIELDS[name]}"
    if _FIELDS[name] == "string":
        if type(v) is not str:
            return None, wrong
        return v.encode("utf-16", "surrogatepass").decode("utf-16", "replace"), ""  # a lone surrogate is U+FFFD
    if not isinstance(v, _Number):
        return None, wrong
    number = int64_or_none(v)
    if number is None:
        return None, f"cannot unmarshal number {v} into Go struct field continueToken.rv of type int64"
    return number, ""


def _int(v: object) -> int:
    return v if isinstance(v, int) else 0


def _kind(v: object) -> str:
    if isinstance(v, _Number):
        return "number"
    if isinstance(v, _Object):
        return "object"
    return {str: "string", bool: "bool", list: "array"}[type(v)]


def page_of(
    keys: list[str],
    objects: dict[str, Entry],
    label_match: Matcher | None,
    field_match: Matcher | None,
    limit: int,
    at: int,
) -> tuple[list[Entry], int, str, int | None]:
    """The selected entries of ``keys``, at most ``limit`` (0: all), with the
    continue token and remainingItemCount of a paged list."""
    if label_match is None and field_match is None and not limit:
        return [objects[k] for k in keys], at, "", None
    entries: list[Entry] = []
    cont = ""
    remaining = None
    for i, k in enumerate(keys):
        e = objects[k]
        if label_match is not None and not label_match(e.labels):
            continue
        if field_match is not None and not field_match(e.fields):
            continue
        if limit and len(entries) == limit:
            cont = encode_continue(at, entries[-1].key)
            if label_match is None and field_match is None:
                remaining = len(keys) - i
            break
        entries.append(e)
    return entries, at, cont, remaining


class ExpiredContinue(ApiError):
    """410 for a compacted continue token; the Status carries a fresh token."""

    def __init__(self, token: str):
        super().__init__(410, "Expired", INCONSISTENT_CONTINUE)
        self.continue_token = token

    def to_status(self) -> dict:
        st = super().to_status()
        st["metadata"] = {"continue": self.continue_token}
        return st
