"""The lines a widget hands Textual, let go without leaving cyclic garbage.

A ``Strip`` memoises what is derived from it (crops, styles, cuts) in caches
it holds, and an operation that changes nothing caches the strip itself: the
compositor cuts every line a widget renders (``Strip.divide``) and, for a
line drawn whole, stores ``[strip]`` in the strip's own cache. Every line a
pane redraws was then a reference cycle of about 18 objects (the strip, its
segments, its seven caches) that only a full collection frees: under a flood
about 5,000 objects a second, piling up in the oldest generation, where the
full collections that freed them paused the UI for 120-230 ms and the RSS
rose until one ran. ``RenderedLines`` empties the caches of a line the
widget replaced, so that dropping it frees it at once.
"""

from __future__ import annotations

from textual.geometry import Region
from textual.strip import Strip

# The memo caches a Strip holds (slots of Textual's Strip, each a FIFOCache).
STRIP_CACHES = tuple(name for name in getattr(Strip, "__slots__", ())
                     if name.endswith("_cache") and name != "_render_cache")


def release_strip(strip: Strip) -> None:
    """Empty ``strip``'s memo caches and those of the strips derived from
    it (what the caches held). Only memos go: a strip still drawn computes
    one again if asked."""
    todo, seen = [strip], set()
    while todo:
        s = todo.pop()
        if id(s) in seen:
            continue
        seen.add(id(s))
        for name in STRIP_CACHES:
            cache = getattr(s, name, None)
            if not cache:
                continue
            for key in list(cache.keys()):
                value = cache.get(key)
                if isinstance(value, Strip):
                    todo.append(value)
                elif isinstance(value, list):
                    todo += [v for v in value if isinstance(v, Strip)]
            cache.clear()


class RenderedLines:
    """The line last rendered at each row of one widget: a row rendered
    anew lets the old line's caches go (``release_strip``). Holds at most
    one line per row of the widget."""

    __slots__ = ("_lines",)

    def __init__(self) -> None:
        self._lines: dict[int, Strip] = {}

    def swap(self, crop: Region, strips: list[Strip]) -> None:
        lines = self._lines
        for y, strip in zip(crop.line_range, strips):
            old = lines.get(y)
            if old is not strip:
                lines[y] = strip
                if old is not None:
                    release_strip(old)

    def __len__(self) -> int:
        return len(self._lines)
