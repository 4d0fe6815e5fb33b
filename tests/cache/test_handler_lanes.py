"""Handler lanes on a real SharedIndexInformer with a FakeClock: each lane's
own resync (AddEventHandlerWithResyncPeriod), a slow lane's pending buffer,
the counts and the handler.lane reports the Handlers pane draws."""

from __future__ import annotations

import threading

import pytest

from kubectl_informer.cache.shared_informer import SLOW_CALL, SLOW_PENDING, SharedIndexInformer, is_slow
from kubectl_informer.cache.testing.fake_controller_source import FakeSource, make_object
from kubectl_informer.clock.testing import wait_for
from kubectl_informer.run.handler_lanes import MAX_HANDLERS, HandlerSpec, add_handler, plan_handlers


@pytest.fixture
def run():
    """Start an informer; its stop event also ends the lanes' work waits."""
    started = []

    def start(inf, stop):
        t = threading.Thread(target=inf.run, args=(stop,), daemon=True)
        t.start()
        started.append((t, stop))

    yield start
    for t, stop in started:
        stop.set()
        t.join(10)
        assert not t.is_alive()


def source(n):
    src = FakeSource()
    for i in range(1, n + 1):
        src.add(make_object(f"pod{i}"))
    return src


class Seen:
    """Everything the trace buffer has received so far (drained as it goes)."""

    def __init__(self, trace):
        self.trace, self.events = trace, []

    def __call__(self):
        self.events.extend(self.trace.drain())
        return self.events


def kinds(events, kind, **match):
    return [e for e in events if e.kind == kind and all(e.fields.get(k) == v for k, v in match.items())]


def test_each_lane_gets_its_own_resync_and_ticks_serve_only_the_due(clock, tracer, trace, run):
    seen = Seen(trace)
    # Before start a shorter period lowers the check period (10s -> 3s); a
    # 5s lane is then served on the first 3s tick at or after it is due: 6s.
    stop = threading.Event()
    inf = SharedIndexInformer(source(2), 10, clock=clock, tracer=tracer)
    a = add_handler(inf, "a", 3.0, stop_event=stop)
    b = add_handler(inf, "b", 5.0, stop_event=stop)
    c = add_handler(inf, "c", 0.0, stop_event=stop)
    default = add_handler(inf, "default", None, stop_event=stop)
    assert inf.resync_check_period == 3.0
    assert [(x.requested_resync_period, x.resync_period) for x in (a, b, c, default)] == [
        (3.0, 3.0),
        (5.0, 5.0),
        (0.0, 0.0),
        (10.0, 10.0),
    ]
    run(inf, stop)
    assert wait_for(lambda: all(x.stats()["handled"] == 2 for x in (a, b, c, default)))
    # Ticks at +3, +6, +9, +12. Each tick's Sync deltas are handled before
    # the next step: a resync skips keys that still hold deltas (as the
    # DeltaFIFO does), so stepping on early would fold two ticks' syncs.
    handled = {"a": 2, "b": 2, "c": 2, "default": 2}
    for due in (["a"], ["a", "b"], ["a"], ["a", "b", "default"]):
        assert wait_for(clock.has_waiters)
        clock.step(3)
        for name in due:
            handled[name] += 2
        assert wait_for(lambda: {x.name: x.stats()["handled"] for x in (a, b, c, default)} == handled)
    assert wait_for(lambda: len(kinds(seen(), "resync.tick")) == 4)
    events = seen()
    assert [t.fields["due"] for t in kinds(events, "resync.tick")] == [["a"], ["a", "b"], ["a"], ["a", "b", "default"]]
    syncs = {n: len(kinds(events, "handler.update", listener=n, is_sync=True)) for n in ("a", "b", "c", "default")}
    assert syncs == {"a": 8, "b": 4, "c": 0, "default": 2}


def test_a_late_lane_below_the_check_period_is_raised_to_it(clock, tracer, trace, run):
    seen = Seen(trace)
    stop = threading.Event()
    inf = SharedIndexInformer(source(3), 4, clock=clock, tracer=tracer)
    add_handler(inf, "first", None, stop_event=stop)
    run(inf, stop)
    assert wait_for(inf.has_synced)
    late = add_handler(inf, "late", 3.0, stop_event=stop)
    # As client-go, the listener keeps the raised period as its "requested"
    # one; the trace says what was asked.
    assert (late.requested_resync_period, late.resync_period, inf.resync_check_period) == (4.0, 4.0, 4.0)
    reg = kinds(seen(), "handler.register", listener="late")[0].fields
    assert (reg["requested"], reg["effective"]) == (3.0, 4.0)
    assert reg["reason"] == "raised to the resync check period: the informer has already started"
    # It joined late: the cache is replayed to it as adds.
    assert wait_for(lambda: late.stats()["handled"] == 3)


def test_a_slow_lane_builds_a_backlog_the_others_do_not(clock, tracer, trace, run):
    seen = Seen(trace)
    stop = threading.Event()
    inf = SharedIndexInformer(source(15), 0, clock=clock, tracer=tracer)
    fast = add_handler(inf, "fast", stop_event=stop)
    slow = add_handler(inf, "slow", handler_time=1.0, stop_event=stop)
    run(inf, stop)
    assert wait_for(lambda: fast.stats()["handled"] == 15)
    # The slow lane is in its first call (waiting on the clock); the rest wait in its buffer.
    assert wait_for(lambda: slow.buffered() == 14)
    assert fast.buffered() == 0 and slow.stats()["handled"] == 0
    assert max(e.fields["buffered"] for e in kinds(seen(), "handler.add", listener="slow")) >= 14
    clock.step(1.0)
    assert wait_for(lambda: kinds(seen(), "handler.lane", listener="slow"))
    report = kinds(seen(), "handler.lane", listener="slow")[0].fields
    # Reported as the call ends, before the next is taken from the buffer.
    assert report["handled"] == 1 and report["pending"] == 14 and report["call"] == 1.0
    assert report["slow"] is True  # 14 > 10 pending and a 1s call
    assert slow.stats()["slow"] is True and fast.stats()["slow"] is False
    for _ in range(4):  # four more calls: 10 left, no longer "more than 10"
        assert wait_for(lambda: clock.has_waiters())
        clock.step(1.0)
    assert wait_for(lambda: len(kinds(seen(), "handler.lane", listener="slow")) == 5)
    last = kinds(seen(), "handler.lane", listener="slow")[-1].fields
    assert (last["handled"], last["pending"], last["slow"]) == (5, 10, False)

    # The fast lane's calls were quick and it went idle: reported as empty.
    def fast_last():
        reports = kinds(seen(), "handler.lane", listener="fast")
        return reports[-1].fields if reports else {}

    assert wait_for(lambda: fast_last().get("handled") == 15)
    fast_last = fast_last()
    assert (fast_last["pending"], fast_last["handled"], fast_last["slow"]) == (0, 15, False)


def test_counts_per_lane_by_kind(clock, tracer, trace, run):
    seen = Seen(trace)
    stop = threading.Event()
    src = source(2)
    inf = SharedIndexInformer(src, 0, clock=clock, tracer=tracer)
    lanes = [add_handler(inf, n, stop_event=stop) for n in ("x", "y")]
    run(inf, stop)
    assert wait_for(inf.has_synced)
    obj = src.get("default/pod1")
    src.modify(obj)
    src.delete("default/pod2")
    assert wait_for(lambda: all(x.stats()["handled"] == 4 for x in lanes))
    events = seen()
    for n in ("x", "y"):
        assert [len(kinds(events, k, listener=n)) for k in ("handler.add", "handler.update", "handler.delete")] == [
            2,
            1,
            1,
        ]


def test_no_lane_report_without_a_reader(clock, run):
    stop = threading.Event()
    inf = SharedIndexInformer(source(3), 0, clock=clock)
    lane = add_handler(inf, "quiet", stop_event=stop)
    run(inf, stop)
    assert wait_for(lambda: lane.stats()["handled"] == 3)
    assert lane.stats()["call"] == 0.0  # not measured: nobody reads the trace


def test_the_slow_flag_needs_both_a_backlog_and_a_long_call():
    assert is_slow(SLOW_PENDING + 1, SLOW_CALL)
    assert not is_slow(SLOW_PENDING, 10.0)
    assert not is_slow(1000, SLOW_CALL / 2)


def test_plan_handlers_spreads_values_over_lanes():
    assert plan_handlers(None, [], []) == [HandlerSpec("handler-1")]
    assert plan_handlers(None, [3.0, 5.0], []) == [HandlerSpec("handler-1", 3.0), HandlerSpec("handler-2", 5.0)]
    assert plan_handlers(3, [2.0], [0.0, 0.5, 0.0], first_name="controller") == [
        HandlerSpec("controller", 2.0, 0.0),
        HandlerSpec("handler-2", 2.0, 0.5),
        HandlerSpec("handler-3", 2.0, 0.0),
    ]
    with pytest.raises(ValueError, match="--handler-resync has 2 values for 3 handlers"):
        plan_handlers(3, [1.0, 2.0], [])
    with pytest.raises(ValueError, match="--handler-time has 3 values for 2 handlers"):
        plan_handlers(2, [1.0, 2.0], [0.0, 0.1, 0.2])
    # With no count the longest list sets it; the shorter one must then fit.
    with pytest.raises(ValueError, match="--handler-resync has 2 values for 3 handlers"):
        plan_handlers(None, [1.0, 2.0], [0.0, 0.1, 0.2])
    with pytest.raises(ValueError):
        plan_handlers(MAX_HANDLERS + 1, [], [])


def test_add_handler_refuses_negative_values(clock):
    inf = SharedIndexInformer(FakeSource(), 0, clock=clock)
    with pytest.raises(ValueError):
        add_handler(inf, "neg", -1.0)
    with pytest.raises(ValueError):
        add_handler(inf, "neg", 1.0, handler_time=-0.5)
