"""Lines a pane redraws are freed at once, not left as cyclic garbage
(tui/strips.py): Textual's compositor caches a line drawn whole inside the
line itself, and before ``RenderedLines`` every redrawn row of every pane
waited in the oldest generation for a full collection."""

from __future__ import annotations

import gc

from rich.segment import Segment
from textual.geometry import Region
from textual.strip import Strip

from kubectl_informer.tui.strips import RenderedLines, _textual_divide, release_strip
from tests.tui.helpers import TraceMaker, life_of_pod, make_app, run


def _alive(ident: int) -> bool:
    return any(id(o) == ident and type(o) is Strip for o in gc.get_objects())


def test_release_strip_breaks_the_cycle_a_whole_cut_makes():
    strip = Strip([Segment("hello "), Segment("world")])
    # Textual's own divide caches [strip] in strip: a cycle (another Textual than the pinned one).
    assert _textual_divide(strip, [strip.cell_length]) == [strip]
    derived = strip.crop_extend(0, 20, None)
    _textual_divide(derived, [derived.cell_length])
    gc.disable()
    try:
        ident, derived_id = id(strip), id(derived)
        release_strip(strip)
        del strip, derived
        assert not _alive(ident) and not _alive(derived_id)  # freed by refcount alone
    finally:
        gc.enable()


def test_a_whole_cut_is_a_cycle_through_textuals_divide_and_not_through_ours():
    # The case release_strip exists for: with the GC off a line cut whole by
    # Textual's divide stays; Strip.divide as patched (strips.py) keeps no cycle.
    gc.disable()
    try:
        textuals, ours = Strip([Segment("cyclic")]), Strip([Segment("freed")])
        _textual_divide(textuals, [textuals.cell_length])
        assert ours.divide([ours.cell_length, 99]) == [ours]  # a cut past the end is dropped, as Textual's
        assert ours.divide([2, ours.cell_length])[0].text == "fr"  # a real cut: Textual's, cached
        idents = id(textuals), id(ours)
        del textuals, ours
        assert _alive(idents[0]) and not _alive(idents[1])
    finally:
        gc.enable()
        gc.collect()


def test_rendered_lines_releases_a_row_only_when_it_is_replaced():
    lines = RenderedLines()
    first = [Strip([Segment(f"row {y}")]) for y in range(3)]
    for s in first:
        _textual_divide(s, [s.cell_length])
    lines.swap(Region(0, 0, 10, 3), first)
    lines.swap(Region(0, 1, 10, 1), [first[1]])  # the same line again: kept, its cache too
    assert _textual_divide(first[1], [first[1].cell_length]) == [first[1]] and first[1]._divide_cache.keys()
    newer = Strip([Segment("row 1 again")])
    lines.swap(Region(0, 1, 10, 1), [newer])
    assert not first[1]._divide_cache.keys()  # replaced: let go
    assert first[0]._divide_cache.keys() and first[2]._divide_cache.keys()
    assert len(lines) == 3


def test_a_pane_redrawn_many_times_leaves_no_strip_for_the_collector():
    e = TraceMaker()
    for i in range(40):
        life_of_pod(e, f"default/pod-{i}", 100 + i)
    app = make_app(e, size_panes=("deltas",), start_pane="deltas")

    async def redraw_often(pilot):
        pane = app.panes["deltas"]
        gc.collect()
        gc.set_debug(gc.DEBUG_SAVEALL)
        try:
            for i in range(30):
                more = TraceMaker(start=e.t + i)
                life_of_pod(more, f"default/new-{i}", 1000 + i)
                pane.state.feed_all(more.events)
                pane.refresh_view(e.t + i)
                await pilot.pause()
            gc.collect()
            garbage = [o for o in gc.garbage if type(o) is Strip and "default/" in o.text]
        finally:
            gc.set_debug(0)
            gc.garbage.clear()
        assert pane.state.version > 30
        return garbage

    assert run(redraw_often, app, size=(100, 20)) == []


def test_a_strip_makes_its_memo_caches_only_when_used():
    # Textual's own Strip.__init__ makes seven FIFOCaches per strip: most of
    # what the young collections walked under a flood.
    import textual

    from kubectl_informer.tui.strips import PATCHED_TEXTUAL, lazy_strip_caches

    assert textual.__version__ == PATCHED_TEXTUAL and lazy_strip_caches()  # a Textual bump: check _lean_init
    gc.collect()
    gc.disable()
    try:
        before = len(gc.get_objects())
        strips = [Strip([Segment(f"row {i}"), Segment("!")]) for i in range(500)]
        per_strip = (len(gc.get_objects()) - before) / len(strips)
    finally:
        gc.enable()
    assert per_strip < 5  # the strip, its segment list, two segments (eleven with the caches made at once)
    assert strips[0].cell_length == len("row 0!") and strips[0].crop(0, 3).text == "row"


def test_lazy_caches_memoise_as_textuals_and_release_unmakes_them():
    from kubectl_informer.tui.strips import _made_caches

    strip = Strip([Segment("hello "), Segment("world")])
    assert _made_caches(strip) == []
    assert strip.crop(0, 3) is strip.crop(0, 3)  # memoised once made
    assert strip.divide([strip.cell_length]) == [strip]  # whole: not cached (no cycle)
    assert [s.text for s in strip.divide([5, strip.cell_length])] == ["hello", " world"]
    assert {name for name, _ in _made_caches(strip)} == {"_crop_cache", "_divide_cache"}
    release_strip(strip)
    assert _made_caches(strip) == []
    assert strip.crop(0, 3).text == "hel"  # made again when used


def test_a_new_strip_sets_every_slot_but_the_caches():
    # _lean_init stands for Textual's Strip.__init__: a slot it forgot would
    # raise AttributeError on first use somewhere inside Textual.
    from kubectl_informer.tui.strips import STRIP_CACHES

    strip = Strip([Segment("x")], 1)
    for name in Strip.__slots__:
        if name not in STRIP_CACHES:
            getattr(strip, name)
    assert strip.link_ids == set() and strip.cell_length == 1 and strip.text == "x"
