"""apimachinery's ``pkg/util/resourceversion``: comparing resource versions.

``compare_resource_version(a, b)`` is ``CompareResourceVersion``: -1, 0 or 1
for two well-formed RVs (decimal digits, no leading zero, not empty, so not
"0", which list and watch use as "any"); a shorter one is older, equal lengths
compare as text. An RV that is not well formed raises ``InvalidResourceVersion``.
The comparison means something only between RVs of one resource.
"""

from __future__ import annotations

__all__ = ["InvalidResourceVersion", "compare_resource_version", "is_well_formed"]


class InvalidResourceVersion(ValueError):
    def __init__(self, rv: str) -> None:
        super().__init__(f"resource version is not well formed: {rv}")
        self.rv = rv


def is_well_formed(rv: str) -> bool:
    return isinstance(rv, str) and rv != "" and rv[0] != "0" and rv.isascii() and rv.isdigit()


def compare_resource_version(a: str, b: str) -> int:
    if not is_well_formed(a):
        raise InvalidResourceVersion(a)
    if not is_well_formed(b):
        raise InvalidResourceVersion(b)
    if len(a) != len(b):
        return -1 if len(a) < len(b) else 1
    return (a > b) - (a < b)
