"""The lines a widget hands Textual: cheap for the collector, and let go
without leaving cyclic garbage.

A ``Strip`` memoises what is derived from it (crops, styles, cuts) in caches
it holds, and an operation that changes nothing caches the strip itself: the
compositor cuts every line a widget renders (``Strip.divide``) and, for a
line drawn whole, stores ``[strip]`` in the strip's own cache. Every line a
pane redrew was then a reference cycle of about 18 objects (the strip, its
segments, its seven caches) that only a full collection frees: under a flood
about 5,000 objects a second, piling up in the oldest generation, where the
full collections that freed them paused the UI for 120-230 ms and the RSS
rose until one ran. ``RenderedLines`` empties the caches of a line the
widget replaced, so that dropping it frees it at once.

The caches also cost the young collections: Textual's ``Strip.__init__``
makes all seven (each a ``FIFOCache``, an object the collector tracks) for
every strip, though most strips use one or none, and the compositor makes
several strips for each row it redraws (the widget's line, its border, the
crops and cuts): about 260 a frame in bench/tui.py's flood, 11 tracked
objects each. ``lazy_strip_caches`` makes each cache when first used instead
(a descriptor over the slot): the same memos, made only where asked for; a
strip is 4 tracked objects. And ``whole_divide_uncached`` keeps the whole
cut out of the strip's own cache, so no line is a cycle, whichever widget
drew it. Both replace Textual internals, so they apply only to the Textual
release pyproject.toml pins (``PATCHED_TEXTUAL``), whose ``Strip`` they were
written against; under any other they change nothing.
"""

from __future__ import annotations

import functools
import os

import textual
from textual.cache import FIFOCache
from textual.geometry import Region
from textual.strip import Strip


@functools.cache
def textual_release() -> str:
    """The installed Textual's version, from its dist-info folder's name
    beside the package: ``textual.__version__`` asks importlib.metadata,
    whose import and scan cost every UI start about 20 ms of CPU; that is
    the fallback where the folder is not found."""
    site = os.path.dirname(os.path.dirname(textual.__file__))
    names = [n for n in os.listdir(site) if n.startswith("textual-") and n.endswith(".dist-info")]
    if len(names) == 1:
        return names[0][len("textual-") : -len(".dist-info")]
    return textual.__version__


# The memo caches a Strip holds (slots of Textual's Strip, each a FIFOCache).
STRIP_CACHES = tuple(
    name for name in getattr(Strip, "__slots__", ()) if name.endswith("_cache") and name != "_render_cache"
)

# The release whose Strip.__init__ ``lazy_strip_caches`` replaces, and each
# cache's size there.
PATCHED_TEXTUAL = "8.2.8"
CACHE_SIZES = {
    "_divide_cache": 4,
    "_crop_cache": 16,
    "_style_cache": 16,
    "_filter_cache": 4,
    "_line_length_cache": 4,
    "_crop_extend_cache": 4,
    "_offsets_cache": 4,
}

# The slots themselves (member descriptors), kept before they are wrapped:
# they read a cache without making one and unset it.
_SLOTS = {name: Strip.__dict__[name] for name in STRIP_CACHES if name in Strip.__dict__}


class _LazyCache:
    """A Strip's memo cache, made on first use (the slot stays unset till then)."""

    __slots__ = ("slot", "size")

    def __init__(self, slot, size: int) -> None:
        self.slot, self.size = slot, size

    def __get__(self, strip, owner=None):
        if strip is None:
            return self
        try:
            return self.slot.__get__(strip, owner)
        except AttributeError:
            cache: FIFOCache[object, object] = FIFOCache(self.size)
            self.slot.__set__(strip, cache)
            return cache

    def __set__(self, strip, value) -> None:
        self.slot.__set__(strip, value)

    def __delete__(self, strip) -> None:
        self.slot.__delete__(strip)


def _lean_init(self, segments, cell_length=None) -> None:
    # Textual 8.2.8's Strip.__init__ without the seven caches (made lazily).
    self._segments = list(segments)
    self._cell_length = cell_length
    self._render_cache = None
    self._link_ids = None
    self._cell_count = None


def lazy_strip_caches() -> bool:
    """Make Strip's memo caches lazily from now on (idempotent); whether
    they are (False under a Textual release other than the pinned one)."""
    if Strip.__init__ is _lean_init:
        return True
    if textual_release() != PATCHED_TEXTUAL or set(_SLOTS) != set(CACHE_SIZES):
        return False
    for name, slot in _SLOTS.items():
        setattr(Strip, name, _LazyCache(slot, CACHE_SIZES[name]))
    Strip.__init__ = _lean_init  # type: ignore[method-assign]  # Textual's Strip patched on purpose (docstring)
    return True


_textual_divide = Strip.divide


def _divide(self, cuts):
    # A cut list that keeps the strip whole gives [self], as Textual's does,
    # but not cached in the strip itself: that cache entry was the cycle.
    cell_length = self.cell_length
    cuts = [cut for cut in cuts if cut <= cell_length]
    if cuts == [cell_length]:
        return [self]
    return _textual_divide(self, cuts)


def whole_divide_uncached() -> bool:
    """``Strip.divide`` without the self-cycle (idempotent): a line the
    compositor cuts whole no longer holds itself, so it is freed by
    reference counting wherever it is dropped, the lines of widgets that
    are not panes (the tab bar, blank rows) too: those were about ten
    strips a second of cyclic garbage in bench/tui.py's flood, the RSS's
    slow rise over its second half. Same guard as ``lazy_strip_caches``."""
    if Strip.divide is _divide:
        return True
    if textual_release() != PATCHED_TEXTUAL:
        return False
    Strip.divide = _divide  # type: ignore[method-assign]  # Textual's Strip patched on purpose (docstring)
    return True


def _made_caches(strip: Strip) -> list:
    """The caches ``strip`` has made, (slot name, cache) each; none made yet: none."""
    caches = []
    for name in STRIP_CACHES:
        slot = _SLOTS.get(name)
        try:
            cache = slot.__get__(strip, Strip) if slot is not None else getattr(strip, name, None)
        except AttributeError:
            continue
        if cache is not None:
            caches.append((name, cache))
    return caches


def release_strip(strip: Strip) -> None:
    """Empty ``strip``'s memo caches and those of the strips derived from
    it (what the caches held). Only memos go: a strip still drawn computes
    one again if asked. With the caches made lazily, they go too (the slot
    is unset: a later use makes one again)."""
    lazy = Strip.__init__ is _lean_init
    todo, seen = [strip], set()
    while todo:
        s = todo.pop()
        if id(s) in seen:
            continue
        seen.add(id(s))
        for name, cache in _made_caches(s):
            for key in list(cache.keys()):
                value = cache.get(key)
                if isinstance(value, Strip):
                    todo.append(value)
                elif isinstance(value, list):
                    todo += [v for v in value if isinstance(v, Strip)]
            cache.clear()
            if lazy:
                _SLOTS[name].__delete__(s)


class RenderedLines:
    """The line last rendered at each row of one widget: a row rendered
    anew lets the old line's caches go (``release_strip``). Holds at most
    one line per row of the widget."""

    __slots__ = ("_lines",)

    def __init__(self) -> None:
        self._lines: dict[int, Strip] = {}

    def swap(self, crop: Region, strips: list[Strip]) -> None:
        lines = self._lines
        for y, strip in zip(crop.line_range, strips, strict=True):
            old = lines.get(y)
            if old is not strip:
                lines[y] = strip
                if old is not None:
                    release_strip(old)

    def __len__(self) -> int:
        return len(self._lines)


# Before any pane renders: every module drawing a pane imports this one.
lazy_strip_caches()
whole_divide_uncached()
