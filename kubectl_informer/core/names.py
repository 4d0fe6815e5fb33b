"""The rules for every user string that becomes part of a request's URL.

Each value is checked once, where the command line, the kubeconfig or the
UI's ``:`` line is read, so that nothing unchecked can reach a URL:

- a namespace, an object NAME, a RESOURCE: apimachinery's path-segment rule
  (``IsValidPathSegmentName``, which client-go's ``Request.Namespace``,
  ``Name`` and ``Resource`` apply): not ``.`` or ``..``, no ``/`` or ``%``.
  kubectl words a failure ``invalid namespace "a/b": [may not contain '/']``.
- a namespace, further: the RFC 1123 label every namespace name is
  (apimachinery's ``ValidateNamespaceName``). No namespace that fails it can
  exist, and it keeps non-ASCII and control characters out of the path.
- ``attach --path``: a URL path below the pod's port, so slashes are fine,
  but no ``.`` or ``..`` segment and no ``?``, ``#`` or ``%``.
- a field selector value built from NAME: escaped as client-go's
  ``fields.EscapeValue`` does (``\\``, ``,``, ``=``).

``InvalidName`` carries kubectl's wording; the CLI turns it into a usage error.
"""

from __future__ import annotations

import re

# apimachinery's NameMayNotBe and NameMayNotContain.
MAY_NOT_BE = (".", "..")
MAY_NOT_CONTAIN = ("/", "%")

DNS1123_LABEL_MAX = 63
_DNS1123_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
DNS1123_LABEL_MSG = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must "
    "start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for "
    "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
)


class InvalidName(ValueError):
    """A value that must not reach a URL; ``str()`` is kubectl's line
    (without ``error: ``)."""


_SHORT_ESCAPES = {"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\v": "\\v"}


def go_quote(s: str) -> str:
    """``s`` as Go's ``%q`` prints it: printable characters as they are,
    the rest escaped, so a control character never reaches a terminal raw;
    a byte that is not UTF-8 (held as ``surrogateescape`` holds it) as ``\\xNN``."""
    out = []
    for ch in s:
        if ch in ('"', "\\"):
            out.append("\\" + ch)
        elif "\udc80" <= ch <= "\udcff":  # a byte that was not UTF-8, kept by surrogateescape
            out.append(f"\\x{ord(ch) - 0xDC00:02x}")
        elif ch.isprintable():
            out.append(ch)
        elif ch in _SHORT_ESCAPES:
            out.append(_SHORT_ESCAPES[ch])
        elif ord(ch) < 0x80:
            out.append(f"\\x{ord(ch):02x}")
        elif ord(ch) <= 0xFFFF:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(f"\\U{ord(ch):08x}")
    return '"' + "".join(out) + '"'


def path_segment_problems(name: str) -> list[str]:
    """apimachinery's ``IsValidPathSegmentName``: what is wrong, or []."""
    if name in MAY_NOT_BE:
        return [f"may not be '{name}'"]
    return [f"may not contain '{bad}'" for bad in MAY_NOT_CONTAIN if bad in name]


def _fail(what: str, value: str, problems: list[str]) -> InvalidName:
    # Go prints a []string as [a b]: kubectl's "[may not contain '/' may not contain '%']".
    return InvalidName(f"invalid {what} {go_quote(value)}: [{' '.join(problems)}]")


def check_namespace(namespace: str) -> str:
    """``namespace`` if it can be a namespace's name, else InvalidName."""
    problems = path_segment_problems(namespace)
    if not problems:
        if len(namespace) > DNS1123_LABEL_MAX:
            problems = [f"must be no more than {DNS1123_LABEL_MAX} characters"]
        elif not _DNS1123_LABEL.match(namespace):
            problems = [DNS1123_LABEL_MSG]
    if problems:
        raise _fail("namespace", namespace, problems)
    return namespace


def check_name(name: str) -> str:
    """An object's NAME (client-go's ``Request.Name``)."""
    if not name:
        raise InvalidName("resource name may not be empty")
    problems = path_segment_problems(name) or _control_characters(name)
    if problems:
        raise _fail("resource name", name, problems)
    return name


def check_resource(resource: str) -> str:
    """A RESOURCE as typed (``pods``, ``deploy``, ``deployments.apps``;
    client-go's ``Request.Resource``)."""
    problems = path_segment_problems(resource) or _control_characters(resource)
    if problems:
        raise _fail("resource", resource, problems)
    return resource


def _control_characters(value: str) -> list[str]:
    # Not apimachinery's rule: a name with a control character cannot exist
    # (the API server refuses to create one), and would reach the terminal raw.
    return ["may not contain control characters"] if any(not c.isprintable() for c in value) else []


def check_url_path(path: str, what: str = "--path") -> str:
    """A URL path below a fixed prefix (``attach --path``): slashes are
    allowed, but no ``.``/``..`` segment (the server would resolve it out of
    the prefix), no ``?``/``#`` (a query or fragment), no ``%`` (an escape
    that could hide either)."""
    problems = [f"may not contain '{c}'" for c in ("?", "#", "%") if c in path]
    for seg in path.split("/"):
        if seg in MAY_NOT_BE:
            problems.append(f"may not contain a '{seg}' segment")
            break
    problems += _control_characters(path)
    if problems:
        raise _fail(what, path, problems)
    return path


def escape_field_value(value: str) -> str:
    """client-go's ``fields.EscapeValue``: a value that cannot end its term
    early (``,``) or start another operator (``=``)."""
    return value.replace("\\", "\\\\").replace(",", "\\,").replace("=", "\\=")


def unescape_field_value(value: str) -> str:
    """apimachinery's ``fields.UnescapeValue``; ValueError for a stray
    backslash or an unescaped ``,``/``=``."""
    out, i = [], 0
    while i < len(value):
        ch = value[i]
        if ch == "\\":
            if i + 1 == len(value) or value[i + 1] not in "\\,=":
                raise ValueError(f"invalid field selector: invalid escape sequence in {value!r}")
            out.append(value[i + 1])
            i += 2
            continue
        if ch in ",=":
            raise ValueError(f"invalid field selector: unescaped {ch!r} in {value!r}")
        out.append(ch)
        i += 1
    return "".join(out)


def split_terms(selector: str) -> list[str]:
    """A field selector's terms: split on the commas no backslash escapes
    (apimachinery's ``splitTerms``)."""
    terms, start, i = [], 0, 0
    while i < len(selector):
        if selector[i] == "\\":
            i += 2
            continue
        if selector[i] == ",":
            terms.append(selector[start:i])
            start = i + 1
        i += 1
    terms.append(selector[start:])
    return terms


def split_term(term: str) -> tuple[str, str, str] | None:
    """(field, operator, raw value) at the first unescaped ``!=``, ``==`` or
    ``=`` (apimachinery's ``splitTerm``), or None."""
    i = 0
    while i < len(term):
        if term[i] == "\\":
            i += 2
            continue
        for op in ("!=", "==", "="):
            if term.startswith(op, i):
                return term[:i], op, term[i + len(op) :]
        i += 1
    return None
