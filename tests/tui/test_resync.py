"""The Resync pane: ResyncState from recorded and real informer traces, and
what the pane draws (Pilot tests and snapshots)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as hs

from kubectl_informer.cache.shared_informer import (
    ResourceEventHandler,
    SharedIndexInformer,
)
from kubectl_informer.cache.testing.fake_controller_source import (
    FakeSource,
    make_object,
)
from kubectl_informer.clock.testing import wait_for
from kubectl_informer.core.trace import TraceEvent
from kubectl_informer.panes.resync import ResyncState, cadence
from kubectl_informer.tui.resync import ResyncPane, render_resync

from .pane_harness import OnePane, Trace, json_values, running, shown

AFTER_START = "raised to the resync check period: the informer has already started"


def informer_trace() -> Trace:
    """Informer with resync 4s; handler-1 takes the default; slow-controller
    asks 10s; after start "late" asks 3s and gets 4s. Five ticks, each
    queueing 3 Syncs and skipping one key that still had deltas pending."""
    e = Trace()
    e(0.0, "handler.register", listener="handler-1", requested=4.0, effective=4.0, check_period=4.0, reason=None)
    e(
        0.0,
        "handler.register",
        listener="slow-controller",
        requested=10.0,
        effective=10.0,
        check_period=4.0,
        reason=None,
    )
    e(0.1, "informer.start", fifo="DeltaFIFO", watch_list=False, resync_check_period=4.0)
    e(1.0, "handler.register", listener="late", requested=3.0, effective=4.0, check_period=4.0, reason=AFTER_START)
    for k in range(1, 6):
        t = 0.1 + 4 * k
        due = ["handler-1"] + (["late"] if t >= 5 else []) + (["slow-controller"] if k == 3 else [])
        e(t, "resync.tick", due=due, check_period=4.0)
        for j in range(3):
            e(t, "fifo.queue", f"default/web-{j}", type="Sync", depth=j + 1, pending=1)
        e(t, "fifo.skip", "default/web-9", type="Sync", reason="resync_pending")
        for name in due:
            for j in range(3):
                e(t + 0.01, "handler.update", f"default/web-{j}", listener=name, is_sync=True)
    return e


# -- state --------------------------------------------------------------------


def test_cadence_rounds_the_period_up_to_ticks():
    assert cadence(4, 4) == 4
    assert cadence(10, 4) == 12
    assert cadence(3, 1) == 3
    assert cadence(5, 0) == 5
    assert cadence(0, 4) == 0


def test_state_from_an_informer_trace():
    st = ResyncState()
    st.feed_all(informer_trace().events)
    assert st.check_period == 4.0 and st.tick_count == 5
    assert [(tk.queued, tk.skipped) for tk in st.ticks] == [(3, 1)] * 5
    assert (st.syncs_queued, st.syncs_skipped) == (15, 5)
    h1, slow, late = (st.listeners[n] for n in ("handler-1", "slow-controller", "late"))
    assert (h1.resyncs, h1.syncs, h1.last_resync) == (5, 15, 20.1)
    assert (late.requested, late.effective, late.after_start) == (3.0, 4.0, True)
    assert (slow.resyncs, slow.syncs) == (1, 3)
    # Next due: one period after the last tick that resynced it; resynced at
    # the first tick at or after that.
    assert slow.next_due == 12.1 + 10
    assert st.next_tick(21.5) == 24.1
    assert st.resync_at(slow, 21.5) == 24.1
    assert st.resync_at(slow, 12.5) == 24.1  # due 22.1, ticks at 16.1, 20.1, 24.1


def test_why_explains_client_go_rules():
    e = Trace()
    e(0.0, "handler.register", listener="a", requested=4.0, effective=4.0, check_period=4.0, reason=None)
    # Before start, a shorter period lowers the check period.
    e(0.0, "handler.register", listener="b", requested=2.0, effective=2.0, check_period=2.0, reason=None)
    e(
        0.0,
        "handler.register",
        listener="c",
        requested=0.5,
        effective=1.0,
        check_period=1.0,
        reason="raised to the minimum of 1s",
    )
    e(0.1, "informer.start", resync_check_period=1.0)
    # No reason given by the trace: the pane works it out.
    e(1.0, "handler.register", listener="d", requested=0.25, effective=1.0, check_period=1.0, reason=None)
    st = ResyncState()
    st.feed_all(e.events)
    assert st.listeners["b"].why(1.0) == ["added before start: lowered the check period 4s → 2s"]
    assert st.listeners["c"].why(1.0) == ["raised to the minimum of 1s"]
    assert st.listeners["d"].why(1.0) == ["below client-go's 1s minimum"]
    assert st.listeners["a"].why(1.0) == []
    e2 = Trace()
    e2(0.0, "handler.register", listener="x", requested=3.0, effective=4.0, check_period=4.0, reason=None)
    e2(0.0, "handler.register", listener="y", requested=3.0, effective=0.0, check_period=0.0, reason=None)
    st2 = ResyncState()
    st2.feed_all(e2.events)
    assert st2.listeners["x"].why(4.0) == [
        "asked 3s with a larger check period; below the 4s check period, so raised to it"
    ]
    assert st2.listeners["y"].why(0.0) == ["the informer has no resync (check period 0), so no resync"]
    assert st2.listeners["x"].why(3.0)[-1].endswith("every 6s")  # 4s on 3s ticks


def test_syncs_before_any_tick_are_not_counted():
    e = Trace()
    e(0.0, "fifo.queue", "k", type="Sync", depth=1, pending=1)  # e.g. a Replace without Replaced deltas
    e(0.0, "fifo.queue", "k", type="Added", depth=1, pending=1)
    e(1.0, "resync.tick", due=[], check_period=1.0)
    e(1.0, "fifo.queue", "k", type="Updated", depth=1, pending=1)
    e(2.0, "resync.tick", due=["h"], check_period=1.0)
    e(2.0, "fifo.queue", "k", type="SyncAll", depth=1, pending=1)  # atomic RealFIFO: one entry
    st = ResyncState()
    st.feed_all(e.events)
    assert [(tk.due, tk.queued) for tk in st.ticks] == [((), 0), (("h",), 1)]
    assert st.syncs_queued == 1


def test_ticks_are_bounded():
    st = ResyncState()
    for i in range(5000):
        st.feed(TraceEvent.checked(i, float(i), "resync.tick", None, due=["h"], check_period=1.0))
    assert st.tick_count == 5000 and len(st.ticks) == 256


# -- against the real informer --------------------------------------------


class Quiet(ResourceEventHandler):
    def on_add(self, obj, is_in_initial_list):
        pass

    def on_update(self, old, new):
        pass

    def on_delete(self, obj):
        pass


def test_state_matches_a_real_informer(clock, tracer):
    # The 3s-asked/4s-got case on a real SharedIndexInformer: check period
    # 4s; "late" asks 3s after start; "slow" asks 10s and, on 4s ticks, is
    # resynced every 12s.
    events: list[TraceEvent] = []
    tracer.subscribe(events.append)
    src = FakeSource()
    for i in range(2):
        src.add(make_object(f"pod{i}"))
    inf = SharedIndexInformer(src, 4, clock=clock, tracer=tracer)
    inf.add_event_handler(Quiet())
    inf.add_event_handler(Quiet(), 10, name="slow")
    with running(inf.run, join=10):
        assert wait_for(inf.has_synced)
        inf.add_event_handler(Quiet(), 3, name="late")

        def resync_parked():
            return clock.next_deadline() == clock.now() + 4

        for k in range(1, 4):
            assert wait_for(resync_parked)
            clock.step(4)
            # This tick's Syncs reach every due listener before the next step.
            want = 2 * (2 if k < 3 else 3)
            assert wait_for(
                lambda want=want: (
                    sum(
                        1
                        for ev in list(events)
                        if ev.kind == "handler.update" and ev.fields.get("is_sync") and ev.time == clock.now()
                    )
                    == want
                )
            )
    st = ResyncState()
    st.feed_all(events)
    start = st.started_at
    assert st.check_period == 4.0 and st.tick_count == 3
    assert [tk.due for tk in st.ticks] == [("handler-1", "late")] * 2 + [("handler-1", "slow", "late")]
    assert [tk.queued for tk in st.ticks] == [2, 2, 2]
    late = st.listeners["late"]
    assert (late.requested, late.effective) == (3.0, 4.0)
    assert late.why(4.0) == [AFTER_START]
    slow = st.listeners["slow"]
    assert slow.next_due == start + 12 + 10
    assert st.resync_at(slow, start + 12) == start + 24
    assert (st.listeners["handler-1"].syncs, slow.syncs, late.syncs) == (6, 2, 6)
    text = render_resync(st, start + 12, 78, 22).plain
    assert "3 late           3s     4s     4s          in 4s      6" in text
    assert "2 slow          10s    10s    12s         in 12s      2" in text
    assert "0s ago      2       0  handler-1, slow, late" in text


# -- on screen ------------------------------------------------------------


def _pane_app(now=21.5):
    st = ResyncState()
    st.feed_all(informer_trace().events)
    return OnePane(ResyncPane(st, id="resync"), now)


def test_pane_at_80x24():
    text = shown(_pane_app(), (80, 24))
    lines = text.splitlines()
    assert "Resync  check 4s · 5 ticks · Syncs 15 queued, 5 skipped · next tick 2.6s" in lines[0]
    assert lines[1].lstrip().startswith("ticks")
    assert lines[1].count("┃") == 5  # five ticks, each with listeners due
    assert "▲now" in lines[2]
    assert "listener" in lines[3] and "asked" in lines[3] and "got" in lines[3] and "every" in lines[3]
    assert "3 late                 3s     4s     4s        in 2.6s     12" in text
    assert "↳ raised to the resync check period: the informer has already started" in text
    assert "2 slow-controller     10s    10s    12s        in 2.6s      3" in text
    assert "↳ ticks come every 4s; resynced on the first tick once due: every 12s" in text
    tick_rows = [line for line in lines if "ago" in line]
    assert tick_rows[0].split()[:4] == ["1.4s", "ago", "3", "1"]
    assert tick_rows[0].rstrip().endswith("handler-1, late")
    assert any(row.rstrip().endswith("handler-1, late, slow-controller") for row in tick_rows)


def test_pane_when_two_share_the_screen():
    # Side by side in 120x24 (the app's companion layout), inside borders.
    text = shown(_pane_app(), (56, 18))
    assert "Resync 4s · 5 ticks · Syncs 15/5 skipped · next 2.6s" in text.splitlines()[0]
    assert "3 late" in text
    assert "↳ raised to the resync check period: the informer" in text  # wrapped,
    assert "has already started" in text  # not cropped
    assert "every 12s" in text


def test_pane_in_a_grid_slot_drops_columns_not_listeners():
    # The app's grid gives a pane about 47x10.
    text = shown(_pane_app(), (47, 10))
    lines = text.splitlines()
    assert "Resync 4s · 5 ticks · Syncs 15/5 skipped" in lines[0]
    assert "every" not in lines[3] and "syncs" not in lines[3] and "next" in lines[3]
    assert "3 late             3s     4s        in 2.6s" in text
    assert "↳ raised to the resync check period: the" in text


def test_pane_in_a_short_slot_keeps_every_listener_and_a_tick():
    # Stacked or in the grid: 8 rows. The why lines give way first, and the
    # listener whose period client-go changed is kept before the others.
    text = shown(_pane_app(), (76, 8))
    assert "1 handler-1" in text and "2 slow-controller" in text and "3 late" in text
    assert "1.4s ago      3       1  handler-1, late" in text
    text = shown(_pane_app(), (76, 11))
    assert "↳ raised to the resync check period" in text
    assert "every 12s" not in text


def test_pane_uses_a_large_terminal():
    text = shown(_pane_app(), (160, 50))
    assert sum(1 for line in text.splitlines() if "ago" in line) == 5  # every tick listed
    assert "17.4s ago" in text


def test_countdown_follows_now():
    text = shown(_pane_app(now=23.0), (80, 24))
    assert "next tick 1.1s" in text
    assert "in 1.1s" in text


def test_snapshot_80x24(snap_compare):
    assert snap_compare(_pane_app(), terminal_size=(80, 24))


def test_snapshot_160x50(snap_compare):
    assert snap_compare(_pane_app(), terminal_size=(160, 50))


# -- malformed input ------------------------------------------------------


_values = json_values
_kinds = hs.sampled_from(
    [
        "informer.start",
        "handler.register",
        "resync.tick",
        "fifo.queue",
        "fifo.coalesce",
        "fifo.skip",
        "handler.update",
        "queue.add",
    ]
)
_fields = hs.dictionaries(
    hs.sampled_from(
        [
            "listener",
            "requested",
            "effective",
            "check_period",
            "reason",
            "due",
            "type",
            "is_sync",
            "resync_check_period",
        ]
    ),
    hs.one_of(_values, hs.sampled_from(["Sync", "resync_pending", "h"])),
)


@settings(max_examples=100, deadline=None)
@given(
    hs.lists(hs.tuples(_kinds, hs.floats(0, 1000, allow_nan=False), _fields), max_size=40),
    hs.integers(1, 200),
    hs.integers(1, 60),
)
def test_any_trace_feeds_and_renders_without_error(events, width, height):
    st = ResyncState()
    for i, (kind, t, fields) in enumerate(events):
        st.feed(TraceEvent(i + 1, t, kind, None, fields))
    render_resync(st, None, width, height)
    render_resync(st, 1000.0, width, height)


def test_bad_periods_are_dropped_not_drawn():
    e = Trace()
    e(0.0, "informer.start", resync_check_period=4.0)
    e.malformed(1.0, "resync.tick", due=[], check_period=-1)
    e.malformed(2.0, "resync.tick", due=[], check_period=1e-300)
    e.malformed(3.0, "handler.register", listener="x", requested="soon", effective=1.0, check_period=4.0)
    st = ResyncState()
    st.feed_all(e.events)
    assert st.bad_events == 3 and st.check_period == 4.0 and st.listeners == {}
    assert "check 4s" in render_resync(st, 3.0, 80, 20).plain


def test_the_tick_strip_spans_the_run_not_minutes_before_it_and_says_what_its_marks_are():
    """A 21.5 s run (five ticks of 4s) drawn at 160 columns: the strip began
    minutes before the run (-2m39s on a 13 s run); its digits were unexplained."""
    text = shown(_pane_app(), (160, 30))
    lines = text.splitlines()
    axis = lines[2].split()
    assert axis[0] == "-21.4s" and axis[-1].startswith("+")
    assert "┃ resynced │ none due ┆ next 1-9 listener" in lines[2]
