"""Values written as Go's ``encoding/json`` writes them (``json.Marshal``,
``json.Encoder``): no blanks between tokens; ``<``, ``>``, ``&``, U+2028 and
U+2029 escaped (``\\u003c``...), as its HTML-safe default does; each byte that
is not UTF-8 written ``\\ufffd``. A string that came from bytes (a query
parameter) holds such a byte as Python's ``surrogateescape`` does (U+DC80 to
U+DCFF), so it is written as Go writes the byte. kube-apiserver's Status
bodies and the values its field errors render (``field.Invalid`` of a list,
a map or a named string type) are written this way.
"""

from __future__ import annotations

import json
from typing import Any

_ESCAPES: dict[int, str] = {ord(c): f"\\u{ord(c):04x}" for c in "<>&\u2028\u2029"}
_ESCAPES.update({b: "\\ufffd" for b in range(0xDC80, 0xDD00)})


def go_json(value: Any) -> str:
    """``json.Marshal(value)`` as text (None is Go's nil slice or map:
    ``null``). A dict's keys are written in its order: sort them first
    where Go would (a map's)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).translate(_ESCAPES)


def go_json_line(value: Any) -> bytes:
    """What ``json.NewEncoder(w).Encode(value)`` writes: the text and a newline."""
    return go_json(value).encode("utf-8", "surrogatepass") + b"\n"
