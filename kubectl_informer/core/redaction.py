"""A redacted Secret value that still says whether it changed.

``kubectl describe secret`` shows a value's size, never its bytes; so does
the Secret redaction (run/transforms.py): ``<redacted 12 bytes>``. Two
versions of the same length would then compare equal and their update show
no change at all. A ``RedactedValue`` is that text plus a digest of the
value: an HMAC-SHA256 under a key drawn once per process, so equal values
are equal and different ones differ, while the digest, never shown nor
written, cannot be checked against a guessed value outside this process.
The diff (core/diff.py) shows such a change as ``<changed, redacted 12 bytes>``.
"""

from __future__ import annotations

import hashlib
import hmac
import os
from typing import Any

_KEY = os.urandom(32)


class RedactedValue(str):
    """The text shown (``<redacted N bytes>``), equal to another only when
    the values behind both are equal."""

    digest: bytes

    def __new__(cls, text: str, digest: bytes) -> RedactedValue:
        s = super().__new__(cls, text)
        s.digest = digest
        return s

    def __eq__(self, other: Any) -> bool:
        if isinstance(other, RedactedValue):
            return str.__eq__(self, other) and hmac.compare_digest(self.digest, other.digest)
        return str.__eq__(self, other)

    def __ne__(self, other: Any) -> bool:
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    __hash__ = str.__hash__

    def __reduce__(self) -> tuple[type[RedactedValue], tuple[str, bytes]]:
        return RedactedValue, (str(self), self.digest)

    def __deepcopy__(self, memo: dict[int, Any]) -> RedactedValue:
        return self  # immutable, as a str is


def redacted_value(text: str, value: str | bytes) -> RedactedValue:
    """``text`` standing for ``value``."""
    raw = value.encode() if isinstance(value, str) else value
    return RedactedValue(text, hmac.new(_KEY, raw, hashlib.sha256).digest())


def changed_unseen(old: Any, new: Any) -> bool:
    """Two redacted values shown alike whose values differ."""
    return isinstance(old, RedactedValue) and isinstance(new, RedactedValue) and str.__eq__(old, new) and old != new
