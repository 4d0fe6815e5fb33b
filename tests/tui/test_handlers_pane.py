"""The Handlers pane: HandlersState from recorded and real informer traces,
what it draws at 80x24 and in the 160x45 grid, and the `h` key (Pilot)."""

from __future__ import annotations

import threading

from hypothesis import given, settings
from hypothesis import strategies as hs

from kubectl_informer.cache.shared_informer import SharedIndexInformer
from kubectl_informer.cache.testing.fake_controller_source import (
    FakeSource,
    make_object,
)
from kubectl_informer.clock.testing import wait_for
from kubectl_informer.core.trace import TraceEvent
from kubectl_informer.panes.handlers import HandlersState
from kubectl_informer.run.handler_lanes import add_handler
from kubectl_informer.tui.handlers import render_handlers

from .helpers import TraceMaker, life_of_pod, make_app, run, screen_text
from .pane_harness import Trace, json_values

AFTER_START = "raised to the resync check period: the informer has already started"


def lanes_trace() -> Trace:
    """Three lanes: "fast" (3s), "slow" (no resync) whose buffer grows to 14
    and drains one call a second, "late" (asked 3s after start, got 4s)."""
    e = Trace()
    e(0.0, "handler.register", listener="fast", requested=3.0, effective=3.0, check_period=3.0, reason=None)
    e(0.0, "handler.register", listener="slow", requested=0.0, effective=0.0, check_period=3.0, reason=None)
    e(0.1, "informer.start", fifo="DeltaFIFO", watch_list=False, resync_check_period=3.0)
    for i in range(15):
        for name in ("fast", "slow"):
            e(
                0.2,
                "handler.add",
                f"default/p{i}",
                listener=name,
                is_sync=False,
                buffered=i + 1 if name == "slow" else 1,
            )
    e(0.3, "handler.lane", listener="fast", pending=0, handled=15, call=0.0001, slow=False)
    e(1.2, "handler.lane", listener="slow", pending=13, handled=1, call=1.0, slow=True)
    e(2.0, "handler.register", listener="late", requested=3.0, effective=4.0, check_period=3.0, reason=AFTER_START)
    for i in range(4):
        e(2.0, "handler.add", f"default/p{i}", listener="late", is_sync=False, buffered=i + 1, synthetic=True)
    e(3.1, "resync.tick", due=["fast"], check_period=3.0)
    for i in range(15):
        e(3.1, "handler.update", f"default/p{i}", listener="fast", is_sync=True, buffered=1)
    e(3.2, "handler.update", "default/p1", listener="slow", is_sync=False, buffered=13)
    e(3.3, "handler.delete", "default/p2", listener="fast", is_sync=False, buffered=1)
    e(3.4, "handler.error", listener="fast", error="ValueError: boom")
    return e


def test_state_counts_each_lane():
    st = HandlersState()
    st.feed_all(lanes_trace().events)
    fast, slow, late = (st.lanes[n] for n in ("fast", "slow", "late"))
    assert (fast.adds, fast.updates, fast.deletes, fast.syncs, fast.errors) == (15, 15, 1, 15, 1)
    assert (slow.adds, slow.updates, slow.syncs, slow.pending, slow.peak) == (15, 1, 0, 13, 15)
    assert (late.requested, late.effective, late.reason, late.synthetic) == (3.0, 4.0, AFTER_START, 4)
    assert st.check_period == 3.0
    # Reports lag the buffer: "done" is what the buffer's length proves at least.
    assert slow.handled == 1 and slow.done == 16 - 13
    assert fast.done == 31 - 1


def test_slow_is_the_engine_flag_or_a_backlog_behind_a_long_call():
    st = HandlersState()
    st.feed_all(lanes_trace().events)
    slow, fast = st.lanes["slow"], st.lanes["fast"]
    assert slow.is_slow(3.2)  # reported slow, still 13 pending
    assert not fast.is_slow(3.4)
    # A lane with a backlog and no report for 100 ms is in a long call.
    e = Trace()
    for i in range(12):
        e(10.0, "handler.add", f"k{i}", listener="stuck", is_sync=False, buffered=i + 1)
    e(10.0, "handler.lane", listener="stuck", pending=11, handled=1, call=0.01, slow=False)
    st2 = HandlersState()
    st2.feed_all(e.events)
    stuck = st2.lanes["stuck"]
    assert not stuck.is_slow(10.2) and stuck.is_slow(10.6)  # reports come at least every 0.25 s


def test_the_sparkline_keeps_the_buffer_history():
    st = HandlersState()
    st.feed_all(lanes_trace().events)
    spark = st.lanes["slow"].spark(3.4, 8)
    assert len(spark) == 8
    assert spark[0] == " " and "█" in spark  # empty before it filled up, full at its peak
    assert st.lanes["fast"].spark(3.4, 8).strip(" ") != ""


def test_render_at_80_columns_shows_every_lane_and_the_flag():
    st = HandlersState()
    st.feed_all(lanes_trace().events)
    text = render_handlers(st, 3.4, 76, 18).plain
    lines = text.splitlines()
    assert lines[0].startswith("Handlers  3 listeners · check 3s · slow: slow")
    assert "1 fast         resync 3s" in text and "1 errors" in text
    assert "2 slow         no resync" in text and "SLOW" in lines[3]
    assert "3 late         resync 3s→4s" in text
    assert "↳ raised to the resync check period: the informer has already started" in text
    assert "add 15  upd 0  del 1  sync 15" in text  # the 15 updates were syncs: counted once, as sync
    assert "pending 13 peak 15" in text
    assert all(len(ln) <= 76 for ln in lines)


def test_render_in_a_short_slot_puts_a_lane_on_one_line():
    st = HandlersState()
    st.feed_all(lanes_trace().events)
    lines = render_handlers(st, 3.4, 100, 5).plain.splitlines()
    assert len(lines) == 5 and [ln.split()[1] for ln in lines[1:4]] == ["fast", "slow", "late"]
    assert "handled 30/31" in lines[1] and "SLOW" in lines[2]
    assert lines[4].startswith("SLOW: >10 pending and a call ≥ 100ms")
    assert render_handlers(HandlersState(), None, 60, 5).plain.splitlines()[1] == "no handlers registered yet"


@settings(max_examples=60, deadline=None)
@given(
    hs.lists(
        hs.tuples(
            hs.sampled_from(
                ["handler.register", "handler.add", "handler.lane", "handler.error", "resync.tick", "informer.start"]
            ),
            hs.dictionaries(
                hs.sampled_from(
                    [
                        "listener",
                        "requested",
                        "effective",
                        "pending",
                        "handled",
                        "call",
                        "slow",
                        "buffered",
                        "check_period",
                        "resync_check_period",
                        "reason",
                    ]
                ),
                json_values,
            ),
        ),
        max_size=20,
    )
)
def test_malformed_events_are_counted_not_raised(events):
    e = Trace()
    for kind, fields in events:
        e.malformed(1.0, kind, None, **fields)
    st = HandlersState()
    st.feed_all(e.events)
    render_handlers(st, 2.0, 60, 10)
    assert st.bad_events + st.version == len(events)


def test_state_matches_a_real_informer(clock, tracer):
    events: list[TraceEvent] = []
    tracer.subscribe(events.append)
    src = FakeSource()
    for i in range(12):
        src.add(make_object(f"pod{i}"))
    stop = threading.Event()
    inf = SharedIndexInformer(src, 5, clock=clock, tracer=tracer)
    fast = add_handler(inf, "fast", 5.0, stop_event=stop)
    slow = add_handler(inf, "slow", 0.0, handler_time=1.0, stop_event=stop)
    t = threading.Thread(target=inf.run, args=(stop,), daemon=True)
    t.start()
    try:
        assert wait_for(lambda: fast.stats()["handled"] == 12 and slow.buffered() == 11)
        clock.step(1.0)  # the slow lane's first call ends: 11 pending, reported slow
        assert wait_for(
            lambda: any(ev.kind == "handler.lane" and ev.fields["listener"] == "slow" for ev in list(events))
        )
        # The fast lane went idle: its last report says so.
        assert wait_for(
            lambda: (
                [
                    ev.fields["handled"]
                    for ev in list(events)
                    if ev.kind == "handler.lane" and ev.fields["listener"] == "fast"
                ][-1:]
                == [12]
            )
        )
    finally:
        stop.set()
        t.join(10)
    st = HandlersState()
    st.feed_all(list(events))
    f, s = st.lanes["fast"], st.lanes["slow"]
    assert (f.requested, f.effective, f.adds) == (5.0, 5.0, 12)
    assert (s.requested, s.effective, s.adds, s.handled, s.pending, s.peak) == (0.0, 0.0, 12, 1, 11, 12)
    assert s.is_slow(clock.now()) and not f.is_slow(clock.now())
    assert "SLOW" in render_handlers(st, clock.now(), 76, 12).plain


def handlers_app_trace() -> TraceMaker:
    e = TraceMaker()
    e("handler.register", listener="handler-1", requested=3.0, effective=3.0, check_period=3.0, reason=None)
    e("handler.register", listener="handler-2", requested=0.0, effective=0.0, check_period=3.0, reason=None)
    e("informer.start", fifo="DeltaFIFO", watch_list=False, resync_check_period=3.0)
    for i in range(14):
        life_of_pod(e, f"default/web-{i}", 100 + i)
        e("handler.add", f"default/web-{i}", listener="handler-2", is_sync=False, buffered=i + 1)
    e("handler.lane", listener="handler-2", pending=13, handled=1, call=0.5, slow=True)
    return e


def test_h_jumps_to_the_handlers_pane_at_80x24():
    app = make_app(handlers_app_trace())

    async def check(pilot):
        await pilot.press("h")
        await pilot.pause()
        assert app.active == "handlers"
        text = screen_text(app)
        assert " Handlers " in text.splitlines()[2]  # its tab, highlighted
        assert "slow: handler-2" in text
        assert "1 handler-1    resync 3s" in text and "2 handler-2    no resync" in text
        assert "SLOW" in text and "pending 13 peak 14" in text

    run(check, app, (80, 24))


def test_the_grid_at_160x45_shows_the_lanes():
    app = make_app(handlers_app_trace())

    async def check(pilot):
        assert app.layout_mode == "grid"
        text = screen_text(app)
        assert "─ Handlers " in text
        assert "2 handler-2" in text and "SLOW" in text

    run(check, app, (160, 45))


def test_each_lane_says_whether_its_registration_has_synced():
    """client-go's per-handler HasSynced: a handler still working through its
    initial adds is not synced though the informer is."""
    from tests.tui.helpers import TraceMaker, make_app, pane_text, run

    e = TraceMaker()
    e("informer.start", fifo="DeltaFIFO", watch_list=False, resync_check_period=0.0)
    for name in ("fast", "slow"):
        e("handler.register", listener=name, requested=0.0, effective=0.0, check_period=0.0, reason=None)
    e("informer.synced", items=3, duration=0.1)
    e("handler.synced", listener="fast", initial=3)
    app = make_app(e, start_pane="handlers")

    async def check(pilot):
        lines = pane_text(app.panes["handlers"]).splitlines()
        fast = next(ln for ln in lines if " fast " in ln)
        slow = next(ln for ln in lines if " slow " in ln)
        assert "✓ synced" in fast and "◌ syncing" in slow

    run(check, app, (160, 40))
