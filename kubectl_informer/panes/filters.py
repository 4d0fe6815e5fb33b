"""The `/` filter of the panes, parsed once and matched per row (no UI here).

- ``web-`` or ``^shop/.*-[0-9]$``: a regular expression searched in the key;
  plain text is a regex that matches itself. Text that is not a valid regex
  (``web(``) matches as plain text, and ``note`` says so.
- ``type:Deleted`` (``type:Added,Updated``): the row's delta types
  (case-insensitive).
- ``label:app=web``: a label selector, in kube-apiserver's grammar (``=``,
  ``==``, ``!=``, ``in (...)``, ``notin (...)``, ``key``, ``!key``, commas
  AND), on the object's labels.
- ``!`` first inverts any of them: ``!kube-system``, ``!type:Sync``.

A pane passes what a row has: its key, the delta types it shows, the labels
of its object (None when unknown: a selector then sees no labels).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from kubectl_informer.core.trace_kinds import DELTA_TYPES

_TYPES = {t.lower(): t for t in DELTA_TYPES}


@dataclass(frozen=True)
class KeyFilter:
    """A parsed filter; ``KeyFilter()`` (or ``parse_filter("")``) matches every row."""

    text: str = ""
    kind: str = "all"  # all | key | type | label
    invert: bool = False
    note: str = ""  # how the text was understood when it was not as typed (one line)
    _match: Callable[[str | None, Iterable[str] | None, dict | None], bool] | None = field(
        default=None, repr=False, compare=False
    )

    def __bool__(self) -> bool:
        return self.kind != "all"

    def matches(self, key: str | None, types: Iterable[str] | str | None = None, labels: dict | None = None) -> bool:
        """Whether a row with this key, these delta types and these labels is shown."""
        if self._match is None:
            return True
        if isinstance(types, str):
            types = (types,)
        return self._match(key, types, labels) != self.invert

    def matches_key(self, key: str | None) -> bool:
        return self.matches(key)

    @property
    def uses_labels(self) -> bool:
        return self.kind == "label"

    @property
    def uses_types(self) -> bool:
        return self.kind == "type"


def parse_filter(text: str | None) -> KeyFilter:
    """The filter the user typed (surrounding blanks ignored). Never raises:
    a text it cannot use as asked is matched another way, with a ``note``."""
    text = (text or "").strip()
    body, invert = text, False
    if body.startswith("!"):
        body, invert = body[1:].lstrip(), True
    if not body:
        return KeyFilter(text, note="! inverts a filter: type what to leave out after it" if invert else "")
    if body.startswith("type:"):
        return _type_filter(text, body[5:], invert)
    if body.startswith("label:"):
        return _label_filter(text, body[6:], invert)
    return _key_filter(text, body, invert)


def _key_filter(text: str, body: str, invert: bool) -> KeyFilter:
    try:
        search = re.compile(body).search
        note = ""
    except re.error as e:
        search = None
        note = f"not a regular expression ({e.msg}): matching {body!r} as plain text"
    if search is None:
        return KeyFilter(text, "key", invert, note, lambda key, types, labels: key is not None and body in key)
    return KeyFilter(text, "key", invert, note, lambda key, types, labels: key is not None and search(key) is not None)


def _type_filter(text: str, body: str, invert: bool) -> KeyFilter:
    names = [n.strip() for n in body.split(",") if n.strip()]
    wanted = frozenset(_TYPES.get(n.lower(), n) for n in names)
    unknown = sorted(n for n in names if n.lower() not in _TYPES)
    note = ""
    if not names:
        note = f"type: needs a delta type: {', '.join(DELTA_TYPES)}"
    elif unknown:
        note = f"unknown delta type {', '.join(unknown)} (known: {', '.join(DELTA_TYPES)})"

    def match(key, types, labels) -> bool:
        return types is not None and any(t in wanted for t in types)

    return KeyFilter(text, "type", invert, note, match)


def _label_filter(text: str, body: str, invert: bool) -> KeyFilter:
    from kubectl_informer.core.apierrors import ApiError
    from kubectl_informer.core.selectors import (
        parse_label_selector,  # kube-apiserver's grammar, no server needed
    )

    try:
        selector = parse_label_selector(body)
    except ApiError as e:
        # A half-typed selector (label:app=) matches nothing rather than everything.
        return KeyFilter(text, "label", invert, f"not a label selector: {e.message}", lambda key, types, labels: False)
    if selector is None:
        return KeyFilter(
            text, "label", invert, "label: needs a selector, e.g. label:app=web", lambda key, types, labels: False
        )
    return KeyFilter(text, "label", invert, "", lambda key, types, labels: selector(labels or {}))


MATCH_ALL = KeyFilter()
