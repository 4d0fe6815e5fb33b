"""The ResourceVersion pane: RVState from recorded and real reflector traces,
and what the pane draws (Pilot tests and snapshots)."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as hs

from kubectl_informer.cache.reflector import Reflector
from kubectl_informer.cache.store import Indexer
from kubectl_informer.cache.testing.fake_controller_source import (
    FakeSource,
    make_object,
)
from kubectl_informer.clock.testing import wait_for
from kubectl_informer.core.trace import TraceEvent
from kubectl_informer.panes.rv import MAX_MARKS, MAX_POINTS, RVState
from kubectl_informer.tui.rv import RVPane, render_rv

from .pane_harness import OnePane, Trace, json_values, running, shown


def expiry_trace() -> Trace:
    """List at 1000, a watch advancing 7 per event, a bookmark, then a 410,
    the relist it causes, a new list at 1500 and a new watch."""
    e = Trace()
    e(0.0, "list.start", resource_version="0", watch_list=False)
    e(0.8, "list.done", resource_version="1000", items=500, duration=0.8, watch_list=False)
    e(0.8, "rv.advance", old="", new="1000", source="list")
    e(0.9, "watch.start", resource_version="1000")
    rv = 1000
    for i in range(40):
        t = 1 + i * 0.5
        rv += 7
        e(t, "watch.event", "default/web-0", type="MODIFIED", resource_version=str(rv))
        e(t, "rv.advance", old=str(rv - 7), new=str(rv), source="event")
        if i == 28:
            e(t + 0.1, "watch.bookmark", resource_version=str(rv))
    e(21.5, "watch.end", resource_version=str(rv), error="410 Expired: too old resource version", expired=True)
    e(21.5, "relist", reason="expired")
    e(21.6, "list.start", resource_version=str(rv), watch_list=False)
    e(22.0, "list.done", resource_version="1500", items=510, duration=0.4, watch_list=False)
    e(22.0, "rv.advance", old=str(rv), new="1500", source="list")
    e(22.1, "watch.start", resource_version="1500")
    return e


# -- state --------------------------------------------------------------------


def test_state_tracks_list_watch_and_synced_rv_and_marks():
    st = RVState()
    st.feed_all(expiry_trace().events)
    assert (st.list_rv, st.watch_rv, st.synced_rv) == ("1500", "1500", "1500")
    assert st.watch_open
    assert st.counts == {"list": 2, "watch": 2, "bookmark": 1, "relist": 1, "gone": 1}
    assert st.relist_reasons == {"expired": 1}
    kinds = [what for _, what, _ in st.marks]
    assert kinds == ["list", "watch", "bookmark", "gone", "relist", "list", "watch"]


def test_watch_end_without_410_is_no_gone_mark_and_closes_the_watch():
    e = Trace()
    e(1.0, "watch.start", resource_version="5")
    e(2.0, "watch.event", "default/web-0", type="ADDED", resource_version="6")
    e(3.0, "watch.end", resource_version="6", reason="closed")
    st = RVState()
    st.feed_all(e.events)
    assert st.counts["gone"] == 0 and not st.watch_open
    assert st.watch_rv == "6"
    assert "watch 6 (closed: closed)" in render_rv(st, 3.0, 80, 20).plain


def test_watch_list_initial_events_do_not_move_the_rv():
    # WatchList (client-go 1.35+): the initial events carry each object's own
    # RV in any order; the list RV is the initial-events-end bookmark's.
    e = Trace()
    e(0.0, "list.start", resource_version="", watch_list=True)
    for rv in ("17", "3", "12"):
        e(0.1, "watch.event", "default/web-0", type="ADDED", resource_version=rv)
    e(0.2, "watch.bookmark", resource_version="20")
    e(0.2, "rv.advance", old="", new="20", source="list")
    e(0.2, "list.done", resource_version="20", items=3, duration=0.2, watch_list=True)
    e(0.2, "watch.start", resource_version="20")
    e(1.0, "watch.event", "default/web-0", type="MODIFIED", resource_version="21")
    st = RVState()
    st.feed_all(e.events)
    assert [rv for _, rv in st.points] == ["20", "21"]  # 17, 3 and 12 are not drawn
    # The watch event after the stream moved the last synced RV to its own.
    assert (st.list_rv, st.watch_rv, st.synced_rv) == ("20", "21", "21")
    assert [text for _, what, text in st.marks if what == "bookmark"] == ["bookmark at rv 20: initial events end"]
    assert "watch-list done at rv 20 items=3 in 200ms" in [text for _, _, text in st.marks]


def test_expired_list_without_a_watch_end_still_counts_one_410():
    e = Trace()
    e(1.0, "relist", reason="expired")  # e.g. the LIST itself got 410
    e(2.0, "relist", reason="too_large")
    st = RVState()
    st.feed_all(e.events)
    assert st.counts["gone"] == 1 and st.counts["relist"] == 2
    assert st.relist_reasons == {"expired": 1, "too_large": 1}


def test_history_is_bounded_and_bursts_share_a_slot():
    st = RVState()
    # Sized to the bounds: 100 RV advances a second, ten to a 0.1 s slot,
    # for a few hundred slots more than the points kept (45,000 over 450 s),
    # and a bookmark every 50, 900 marks for the 512 kept.
    events = (MAX_POINTS + 404) * 10
    assert events // 50 > MAX_MARKS
    for n, i in enumerate(range(events), start=1):
        st.feed(TraceEvent.checked(n, i * 0.01, "rv.advance", None, old=str(i), new=str(i + 1), source="event"))
        if i % 50 == 0:
            st.feed(TraceEvent.checked(n, i * 0.01, "watch.bookmark", None, resource_version=str(i + 1)))
    assert len(st.points) == MAX_POINTS
    assert len(st.marks) == MAX_MARKS
    # One slot per 0.1 s, holding the latest RV of that slot.
    assert st.points[-1] == ((events - 1) * 0.01, str(events))
    assert st.points[-2][1] == str(events - 10)


def test_non_numeric_rvs_fall_back_to_step_marks():
    e = Trace()
    e(0.0, "list.done", resource_version="a1b", items=1, duration=0.1)
    e(1.0, "watch.start", resource_version="a1b")
    e(2.0, "watch.event", "default/web-0", type="MODIFIED", resource_version="c9f")
    e(3.0, "watch.event", "default/web-0", type="MODIFIED", resource_version="x00")
    st = RVState()
    st.feed_all(e.events)
    text = render_rv(st, 10.0, 78, 16).plain
    assert "RVs are not numbers here: each • is a change" in text
    assert text.count("•") == 3  # two changes + the legend-free note's bullet
    assert "watch x00" in text


# -- against the real reflector -------------------------------------------


def test_state_matches_a_real_reflector_through_a_410(clock, tracer, trace):
    # The reflector lists, watches, gets a bookmark, then the server expires
    # the watch (410): it relists at its last RV and watches again.
    src = FakeSource()
    for i in range(3):
        src.add(make_object(f"p{i}"))
    r = Reflector(src, Indexer(), clock=clock, tracer=tracer, rng=random.Random(1))
    with running(r.run):
        assert wait_for(lambda: src.open_watches() == 1)
        src.add(make_object("p7"))
        src.bookmark()
        assert wait_for(lambda: r.last_sync_resource_version() == src.resource_version)
        src.expire_watches()
        assert wait_for(clock.has_waiters)  # the back-off before the relist
        clock.step(2.0)
        assert wait_for(lambda: src.open_watches() == 1)
        src.add(make_object("p8"))
        assert wait_for(lambda: r.last_sync_resource_version() == src.resource_version)
    st = RVState()
    st.feed_all(trace.drain())
    assert st.synced_rv == r.last_sync_resource_version() == "5"
    assert st.list_rv == "4"  # the relist, at the last synced RV
    assert st.counts["list"] == 2 and st.counts["gone"] == 1
    assert st.relist_reasons == {"expired": 1}
    assert st.counts["bookmark"] >= 1
    text = render_rv(st, clock.now(), 78, 22).plain
    assert "✗" in text and "R" in text
    assert "relist: expired" in text


def test_state_matches_a_real_watch_list_reflector(clock, tracer, trace):
    src = FakeSource()
    for i in range(4):
        src.add(make_object(f"p{i}"))
    src.modify(make_object("p0"))  # p0's RV (5) is now above p1..p3's
    r = Reflector(src, Indexer(), use_watch_list=True, clock=clock, tracer=tracer, rng=random.Random(1))
    with running(r.run):
        assert wait_for(lambda: r.last_sync_resource_version() == "5")
        clock.step(1.0)  # a later chart slot
        src.add(make_object("p9"))
        assert wait_for(lambda: r.last_sync_resource_version() == "6")
    st = RVState()
    st.feed_all(trace.drain())
    assert (st.list_rv, st.synced_rv) == ("5", "6")
    # The chart never dips to the initial events' own RVs.
    assert [rv for _, rv in st.points] == ["5", "6"]
    assert [what for _, what, _ in st.marks][:2] == ["bookmark", "list"]


# -- on screen ------------------------------------------------------------


def _pane_app(now=25.0):
    st = RVState()
    st.feed_all(expiry_trace().events)
    return OnePane(RVPane(st, id="rv"), now)


def test_pane_at_80x24():
    text = shown(_pane_app(), (80, 24))
    lines = text.splitlines()
    assert "ResourceVersion  list 1500 · watch 1500 · synced 1500" in lines[0]
    assert "lists 2  watches 2  bookmarks 1  relists 1 (expired 1)  410s 1" in lines[1]
    # The y axis runs from the lowest to the highest RV shown.
    assert lines[2].lstrip().startswith("1500 ┤")
    axis = next(i for i, line in enumerate(lines) if "└" in line)
    assert lines[axis - 1].lstrip().startswith("1000 ┤")
    # Marks strip under the axis: list+watch at the start, the bookmark, then
    # 410, relist, list, watch in that order.
    marks = lines[axis + 1].strip()
    assert marks.replace(" ", "") == "LWB✗RLW"
    assert "-24.2s" in lines[axis + 2] and lines[axis + 2].rstrip().endswith("now")
    assert "L list  W watch  B bookmark  R relist  ✗ 410 Gone  X experiment" in text
    # The most recent marks, newest first.
    assert "2.9s ago W watch from rv 1500" in text
    assert "3.5s ago R relist: expired" in text


def test_a_grid_cells_legend_shortens_its_words_and_keeps_the_experiment_mark():
    text = shown(_pane_app(), (52, 14))
    legend = next(line for line in text.splitlines() if "L list" in line)
    assert "✗ 410" in legend and "X exp" in legend and "…" not in legend


def test_pane_when_two_share_the_screen():
    # One of two stacked panes in 80x24, inside borders: 76x8.
    text = shown(_pane_app(), (76, 8))
    lines = text.splitlines()
    assert "list 1500" in lines[0]
    assert any("┤" in line for line in lines)
    assert any("✗" in line for line in lines)


def test_pane_uses_a_large_terminal():
    text = shown(_pane_app(), (160, 50))
    lines = text.splitlines()
    chart_rows = [line for line in lines if "┤" in line or line.strip().startswith("│")]
    assert len(chart_rows) >= 20
    # Room for the whole history of marks.
    assert "list done at rv 1000 items=500 in 800ms" in text
    assert "410 Gone: watch at rv 1280 expired" in text


def test_snapshot_80x24(snap_compare):
    assert snap_compare(_pane_app(), terminal_size=(80, 24))


def test_snapshot_160x50(snap_compare):
    assert snap_compare(_pane_app(), terminal_size=(160, 50))


# -- malformed input ------------------------------------------------------


_values = hs.one_of(json_values, hs.sampled_from(["1", "99", "1e3"]))  # numeric RV strings too
_kinds = hs.sampled_from(
    [
        "list.start",
        "list.done",
        "watch.start",
        "watch.event",
        "watch.bookmark",
        "watch.end",
        "rv.advance",
        "relist",
        "fifo.pop",
    ]
)
_fields = hs.dictionaries(
    hs.sampled_from(["resource_version", "new", "old", "reason", "error", "items", "duration", "watch_list"]), _values
)


@settings(max_examples=100, deadline=None)
@given(
    hs.lists(hs.tuples(_kinds, hs.floats(0, 1000, allow_nan=False), _fields), max_size=40),
    hs.integers(1, 200),
    hs.integers(1, 60),
)
def test_any_trace_feeds_and_renders_without_error(events, width, height):
    st = RVState()
    for i, (kind, t, fields) in enumerate(events):
        st.feed(TraceEvent(i + 1, t, kind, None, fields))
    render_rv(st, None, width, height)
    render_rv(st, 1000.0, width, height)


def test_header_and_rv_pane_say_the_same_rv_and_relists_after_every_frame():
    """One source: the header reads the RV pane's own bookkeeping, so at
    every frame (any batch boundary) both say one RV and one relist count,
    on screen too; a WatchList stream's initial events move neither."""
    import asyncio
    import re

    from .helpers import TraceMaker, make_app, screen_text

    events = list(expiry_trace().events)
    t = events[-1].time
    more = Trace()
    more(t + 1, "relist", reason="forgotten")
    more(t + 1.1, "list.start", resource_version="", watch_list=True)
    more(t + 1.2, "watch.event", "default/web-9", type="ADDED", resource_version="1200")  # initial event, old RV
    more(t + 1.3, "watch.bookmark", resource_version="1600")
    more(t + 1.3, "list.done", resource_version="1600", items=1, duration=0.2, watch_list=True)
    more(t + 1.3, "rv.advance", old="1500", new="1600", source="list")
    more(t + 1.5, "watch.event", "default/web-9", type="MODIFIED", resource_version="1601")
    tm = TraceMaker()
    from kubectl_informer.core.trace import TraceEvent

    tm.events = events + [
        TraceEvent.build(len(events) + i + 1, ev.time, ev.kind, ev.key, **ev.fields) for i, ev in enumerate(more.events)
    ]
    tm.t = tm.events[-1].time
    app = make_app(TraceMaker())

    async def main():
        async with app.run_test(size=(160, 45)) as pilot:
            for i in range(0, len(tm.events), 5):
                app.buffer.extend(tm.events[i : i + 5])
                app.pump()
                await pilot.pause()
                head, rv = app.header_state, app.states["rv"]
                assert (head.rv, head.relists) == (rv.synced_rv or "", rv.counts["relist"])
                shown = re.search(r"rv (\S+) │ relists (\d+)", screen_text(app))
                drawn = render_rv(rv, None, 200, 20).plain  # the pane's words, uncut
                pane = re.search(r"synced (\S+)", drawn)
                counts = re.search(r"lists \d+  watches \d+  bookmarks \d+  relists (\d+)", drawn)
                assert shown and pane and counts, drawn
                assert shown.group(1) == pane.group(1) and shown.group(2) == counts.group(1)
            return head.rv, head.relists

    assert asyncio.run(main()) == ("1601", 2)
