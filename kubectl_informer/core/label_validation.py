"""Label keys and values checked as apimachinery checks them, in its words.

``label_key_problems`` is ``content.IsLabelKey`` (the former
``validation.IsQualifiedName``), ``label_value_problems`` is
``validation.IsValidLabelValue`` (``content.IsLabelValue``); ``invalid`` is
``field.Invalid(path, value, detail).Error()`` and ``aggregate`` the text of
``field.ErrorList.ToAggregate()`` (k8s.io/apimachinery/pkg/util/validation).
"""

from __future__ import annotations

import re

from kubectl_informer.core.names import go_quote

_KEY_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
_KEY_RE = re.compile(_KEY_FMT)
_KEY_MSG = (
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"
)
_VALUE_FMT = f"({_KEY_FMT})?"
_VALUE_RE = re.compile(_VALUE_FMT)
_VALUE_MSG = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must "
    "start and end with an alphanumeric character"
)
_SUBDOMAIN_FMT = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*"
_SUBDOMAIN_RE = re.compile(_SUBDOMAIN_FMT)
_SUBDOMAIN_MSG = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must "
    "start and end with an alphanumeric character"
)
MAX_NAME = 63
MAX_SUBDOMAIN = 253


def regex_error(msg: str, fmt: str, *examples: str) -> str:
    """``content.RegexError``: the message, its examples and the regex (the
    doubled space before each "or" is apimachinery's)."""
    if not examples:
        return f"{msg} (regex used for validation is '{fmt}')"
    shown = " or ".join(f"'{e}', " for e in examples)
    return f"{msg} (e.g. {shown}regex used for validation is '{fmt}')"


def _max_len(n: int) -> str:
    return f"must be no more than {n} bytes"


def _nbytes(s: str) -> int:
    """Bytes in ``s`` as Go counts them: a byte kept by ``surrogateescape`` is one."""
    try:
        return len(s.encode("utf-8", "surrogateescape"))
    except UnicodeEncodeError:
        return len(s.encode("utf-8", "surrogatepass"))


def _subdomain_problems(value: str) -> list[str]:
    """``content.IsDNS1123Subdomain``."""
    errs = [_max_len(MAX_SUBDOMAIN)] if _nbytes(value) > MAX_SUBDOMAIN else []
    if not _SUBDOMAIN_RE.fullmatch(value):
        errs.append(regex_error(_SUBDOMAIN_MSG, _SUBDOMAIN_FMT, "example.com"))
    return errs


def label_key_problems(key: str) -> list[str]:
    """What is wrong with ``key`` as a label key, or []."""
    parts = key.split("/")
    if len(parts) > 2:
        return [
            "a valid label key "
            + regex_error(_KEY_MSG, _KEY_FMT, "MyName", "my.name", "123-abc")
            + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
        ]
    errs: list[str] = []
    name = parts[-1]
    if len(parts) == 2:
        prefix = parts[0]
        if not prefix:
            errs.append("prefix part must be non-empty")
        else:
            errs.extend("prefix part " + m for m in _subdomain_problems(prefix))
    if not name:
        errs.append("name part must be non-empty")
    elif _nbytes(name) > MAX_NAME:
        errs.append("name part " + _max_len(MAX_NAME))
    if not _KEY_RE.fullmatch(name):
        errs.append("name part " + regex_error(_KEY_MSG, _KEY_FMT, "MyName", "my.name", "123-abc"))
    return errs


def label_value_problems(value: str) -> list[str]:
    """What is wrong with ``value`` as a label value, or []."""
    errs = [_max_len(MAX_NAME)] if _nbytes(value) > MAX_NAME else []
    if not _VALUE_RE.fullmatch(value):
        errs.append(regex_error(_VALUE_MSG, _VALUE_FMT, "MyValue", "my_value", "12345"))
    return errs


def invalid(path: str, value: str, detail: str) -> str:
    """``field.Invalid(path, value, detail).Error()`` for a string value
    (a nil path prints as ``<nil>``)."""
    return f"{path}: Invalid value: {go_quote(value)}: {detail}"


def invalid_rendered(path: str, rendered: str, detail: str) -> str:
    """``field.Invalid(...).Error()`` for a value ``rendered`` already (as
    ``ErrorBody`` renders a non-scalar: its JSON)."""
    return f"{path}: Invalid value: {rendered}: {detail}"


def aggregate(messages: list[str]) -> str:
    """``ErrorList.ToAggregate().Error()``: duplicates dropped, one message
    as it is, several in brackets joined by ", "."""
    seen = list(dict.fromkeys(messages))
    return seen[0] if len(seen) == 1 else "[" + ", ".join(seen) + "]"
