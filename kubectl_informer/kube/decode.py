"""Decoding large List bodies: fast, and without a second copy in memory.

Two things cost the most when a 10,000-pod list (about 28 MB) is decoded:

* Python's cyclic GC. Building ~600,000 dicts and lists triggers collections
  that walk the whole growing heap again and again (more than the decode
  itself). Decoded JSON holds no reference cycles, so collection is paused for
  the decode, and the result is frozen out of later collections (``gc.freeze``)
  as long-lived: the cache keeps it.
* orjson's document tree. orjson (yyjson) parses the whole text into its own
  tree before building Python objects, a transient of about 2.5x the body. A
  List's ``items`` are decoded one at a time instead, so the tree is never
  bigger than one object.

Items are found by the bytes that separate them: ``},{"<first key>":``, where
the first key is read from the first item (the API server writes every item
with the same leading key). The same bytes can occur *inside* an item (an
array of objects with that key first, e.g. two ownerReferences); a piece cut
there is never valid JSON, so a piece that fails to decode is extended to the
next separator. Anything unexpected falls back to decoding the whole body.
"""

from __future__ import annotations

import gc
import re
import threading

import orjson

# Below this, one plain decode is as fast and the GC pause does not matter.
SPLIT_THRESHOLD = 1 << 20
# Extensions of one item before giving up on splitting (pathological inputs).
MAX_EXTENSIONS = 64

_ITEMS_START = re.compile(rb'"items"\s*:\s*\[\s*\{\s*"((?:[^"\\]|\\.){1,64})"\s*:')


class _GCPause:
    """Pause the cyclic GC while any holder needs it paused (a list decode, a
    WatchList's initial events, possibly on several threads at once); the GC
    comes back on with the last release, if it was on before the first."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._depth = 0
        self._was_enabled = False

    def acquire(self) -> None:
        with self._lock:
            if self._depth == 0:
                self._was_enabled = gc.isenabled()
                gc.disable()
            self._depth += 1

    def release(self, freeze: bool = False) -> None:
        with self._lock:
            self._depth -= 1
            if self._depth == 0 and self._was_enabled:
                gc.enable()
        if freeze:
            # Long-lived (the cache holds them): keep them out of every later collection.
            gc.freeze()

    @property
    def depth(self) -> int:
        return self._depth


gc_pause = _GCPause()


def loads_list(body: bytes, loads=orjson.loads) -> dict:
    """Decode a List object's JSON; the result equals ``loads(body)``."""
    if len(body) < SPLIT_THRESHOLD:
        return loads(body)
    gc_pause.acquire()
    ok = False
    try:
        result = _split_decode(body, loads) if loads is orjson.loads else None
        if result is None:
            result = loads(body)
        ok = True
    finally:
        gc_pause.release(freeze=ok)
    return result


def _split_decode(body: bytes, loads) -> dict | None:
    m = _ITEMS_START.search(body)
    if m is None:
        return None
    tail = body.rstrip()
    # Items must be the List's last field: the body ends "...}]}".
    if not tail.endswith(b"]}"):
        return None
    first = body.index(b"{", m.start())  # the first item's opening brace
    close = len(tail) - 2  # the items array's closing bracket
    try:
        envelope = loads(body[:first] + body[close:len(tail)])
    except orjson.JSONDecodeError:
        return None
    if not isinstance(envelope, dict) or envelope.get("items") != []:
        return None
    sep = b'},{"' + m.group(1) + b'":'
    view = memoryview(body)
    find = body.find
    items = []
    append = items.append
    pos = first
    while True:
        cut = find(sep, pos, close)
        tries = 0
        while True:
            end = (cut + 1) if cut >= 0 else _last_item_end(body, pos, close)
            try:
                item = loads(view[pos:end])
                break
            except orjson.JSONDecodeError:
                if cut < 0 or tries >= MAX_EXTENSIONS:
                    return None
                tries += 1
                cut = find(sep, cut + 1, close)  # a separator inside the item: extend
        append(item)
        if cut < 0:
            break
        pos = cut + 2  # the next item's opening brace
    envelope["items"] = items
    return envelope


def _last_item_end(body: bytes, pos: int, close: int) -> int:
    end = close
    while end > pos and body[end - 1] in b" \t\r\n":
        end -= 1
    return end
