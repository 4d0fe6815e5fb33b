"""The feed loop without Textual: recorded traces drained into pane states."""

from __future__ import annotations

from kubectl_informer.clock.testing import FakeClock
from kubectl_informer.core.run_info import RunInfo
from kubectl_informer.core.trace import TraceBuffer, TraceEvent
from kubectl_informer.panes.cache import CacheState
from kubectl_informer.panes.deltas import DeltasState
from kubectl_informer.panes.feed import BEHIND_BACKLOG, CHUNK, SUMMARISE_OVER, SUMMARY_BLOCK, FeedLoop
from kubectl_informer.panes.fifo import FifoState
from kubectl_informer.panes.header import HeaderState
from kubectl_informer.panes.inspector import InspectorState
from kubectl_informer.panes.rv import RVState
from kubectl_informer.replay.recording import read_recording

from ..replay.helpers import T0, ndjson, story

STATES = {"deltas": DeltasState, "fifo": FifoState, "rv": RVState, "cache": CacheState, "inspector": InspectorState}


def recorded(tmp_path, events) -> list[TraceEvent]:
    """``events`` written as a recording and read back, as ``replay`` reads one."""
    path = tmp_path / "rec.ndjson"
    path.write_text(ndjson(events))
    return read_recording(str(path)).events


def _contents(state) -> str:
    return repr({k: v for k, v in vars(state).items() if k not in ("version", "_handlers") and not callable(v)})


def loop_on(events, **kw) -> FeedLoop:
    buf = TraceBuffer()
    buf.extend(events)
    return FeedLoop(buf, STATES, **kw)


def restart_at(t: float, seq: int, resource: str = "deployments.apps") -> TraceEvent:
    return TraceEvent.build(
        seq,
        T0 + t,
        "run.restart",
        None,
        resource=resource,
        namespace="kube-system",
        client_go="1.35",
        fifo="RealFIFO",
        watch_list=True,
        restarts=1,
        took=0.1,
    )


def test_a_drained_recording_leaves_every_state_as_feeding_it_event_by_event(tmp_path):
    events = recorded(tmp_path, story())
    loop = loop_on(events)
    assert loop.drain() == len(events) == loop.absorbed
    assert len(loop.buffer) == 0 and loop.last_trace_time == events[-1].time
    for name, make in STATES.items():
        slow = make()
        for ev in events:
            slow.feed(ev)
        fast = loop.states[name]
        assert fast.version > 0 and slow.version > 0, name  # a batch may count as one change
        assert _contents(fast) == _contents(slow), name
    # The header read the run from the recording's first events too.
    assert loop.header.fifo == "DeltaFIFO" and loop.states["deltas"].total == 6


def test_a_budget_or_a_waiting_key_stops_the_drain_between_chunks():
    events = [
        TraceEvent.build(i + 1, 100.0 + i, "store.add", f"ns/p-{i}", resource_version=str(i), delta="Added")
        for i in range(4 * CHUNK)
    ]
    loop = loop_on(events)
    assert loop.drain(budget=0.0) == CHUNK  # a spent budget: one chunk
    assert loop.drain(budget=60.0, interrupted=lambda: True) == CHUNK  # a key waits: one chunk
    assert loop.drain(max_events=10) == 10
    assert loop.drain(interrupted=lambda: True) == 2 * CHUNK - 10  # no budget: to the end
    assert loop.absorbed == 4 * CHUNK and loop.states["deltas"].total == 4 * CHUNK


def test_a_run_restart_starts_every_state_over_and_the_header_follows_the_new_run(tmp_path):
    before = story()
    after = [
        TraceEvent.build(
            len(before) + 2,
            T0 + 11.0,
            "store.add",
            "kube-system/coredns",
            resource_version="50",
            delta="Added",
            summary="",
            is_in_initial_list=False,
        )
    ]
    events = recorded(tmp_path, [*before, restart_at(10.5, len(before) + 1), *after])
    loop = loop_on(events, info=RunInfo(resource="pods", namespace="default"))
    old = loop.states["deltas"]
    resets = []
    loop.on_reset = lambda new_run: resets.append((new_run, loop.states["deltas"]))
    # One batch across the restart: what came before went to the old states.
    assert loop.drain() == len(events)
    assert resets == [(True, loop.states["deltas"])] and loop.restarts == 1
    assert old.total == 6 and loop.states["deltas"].total == 1
    info = loop.header.info
    assert (info.resource, info.namespace, info.profile) == ("deployments.apps", "kube-system", "1.35")
    assert loop.header.restarts == 1


def test_a_restart_as_the_first_event_of_a_batch_resets_before_it():
    loop = loop_on([restart_at(0.0, 1, "configmaps")], info=RunInfo(resource="pods"))
    first = loop.header
    assert loop.feed(loop.buffer.drain()) == 1
    assert loop.header is not first and loop.header.info.resource == "configmaps"


def test_a_reset_keeps_the_run_or_takes_the_one_given():
    loop = loop_on([], info=RunInfo(resource="pods"))
    seen = []
    loop.on_reset = seen.append
    loop.states["deltas"].total = 3
    loop.reset()
    assert loop.states["deltas"].total == 0 and loop.header.info.resource == "pods"
    loop.reset(RunInfo(resource="secrets"))
    assert isinstance(loop.header, HeaderState) and loop.header.info.resource == "secrets"
    assert seen == [False, False] and loop.restarts == 0


def test_frames_count_the_rate_and_the_stats_say_the_buffer(tmp_path):
    clock = FakeClock(50.0)
    events = recorded(tmp_path, story())
    buf = TraceBuffer(maxlen=4)
    buf.extend(events)  # 11 events into 4 places: 7 dropped
    loop = FeedLoop(buf, STATES, clock=clock)
    assert (loop.stats().buffered, loop.stats().dropped) == (4, len(events) - 4)
    loop.drain()
    loop.count_frame()
    assert loop.frames == 1 and loop.per_s == 0.0  # less than a second: no rate yet
    clock.step(2.0)
    assert loop.count_frame() == 52.0
    assert loop.per_s == 2.0 and loop.stats(paused=True).paused
    assert loop.stats().absorbed == 4 and loop.stats().buffered == 0


def test_now_is_the_clock_or_the_last_event_moved_on():
    loop = loop_on([TraceEvent.build(1, 123.0, "relist", None, reason="expired")])
    assert loop.now() is None  # nothing fed yet
    loop.drain()
    assert loop.now(paused=True) == 123.0
    assert 123.0 <= loop.now() < 123.0 + 60
    clocked = loop_on([], clock=FakeClock(7.0))
    assert clocked.now() == 7.0 and clocked.mono() == 7.0


def _churned(n: int) -> TraceBuffer:
    """``n`` pods added, updated three times and deleted, as the informer
    emits them (objects in-process), into a buffer."""
    from tests.tui.test_churn_bounds import churn, traced

    tracer, buf, clock = traced()
    churn(tracer, clock, 0, n)
    return buf


def test_a_drain_out_of_time_with_a_backlog_is_behind_and_lets_rows_go_summarised():
    buf = _churned(400)  # 2,800 events: 2,000 deltas, 1,200 of them updates; fewer than a summary needs
    total = len(buf)
    assert total <= SUMMARISE_OVER
    loop = FeedLoop(buf, {"deltas": DeltasState, "inspector": InspectorState, "cache": CacheState})
    deltas = loop.states["deltas"]
    assert deltas.pressure is loop.pressure and loop.states["inspector"].objects.pressure is loop.pressure
    assert loop.drain(budget=0.0) == CHUNK and loop.pressure.behind  # out of time, thousands waiting
    while len(loop.buffer) > BEHIND_BACKLOG + CHUNK:
        loop.drain(budget=0.0)
    assert loop.pressure.behind and loop.pressure.summarised > 0 and loop.pressure.events_summarised == 0
    assert loop.stats().behind and loop.stats().summarised == loop.pressure.summarised
    while len(loop.buffer) > CHUNK:
        loop.drain(budget=0.0)
    assert not loop.pressure.behind  # a few chunks waiting: keeping up again
    loop.drain()  # to the end: caught up
    assert not loop.pressure.behind and loop.absorbed == total
    # Counts stay exact; only rows let go unread lost what they would have shown.
    assert deltas.total == 2000 and deltas.counts["Updated"] == 1200 and loop.states["cache"].count == 0
    summarised = [r for r in deltas.rows if r.summarised]
    assert summarised and all("object" not in r.event.raw_fields for r in summarised)
    assert deltas.objects_held() == deltas.keep_objects  # the newest rows still hold theirs
    newest = deltas.rows[-2]  # the last update: its objects held, its diff derived when drawn
    assert newest.delta == "Updated" and not newest.summarised and newest.diff


def test_a_backlog_more_than_a_frame_feeds_is_summarised_but_its_newest_chunk_and_the_counts_stay_exact():
    buf = _churned(1000)  # 7,000 events: 5,000 deltas, 3,000 of them updates
    total = len(buf)
    loop = FeedLoop(buf, {"deltas": DeltasState, "inspector": InspectorState, "cache": CacheState})
    deltas = loop.states["deltas"]
    # More waiting than the budget feeds one by one: a block as a summary, then a chunk in full.
    assert loop.drain(budget=0.0) == SUMMARY_BLOCK + CHUNK
    assert loop.pressure.behind and loop.pressure.events_summarised == SUMMARY_BLOCK
    assert loop.stats().events_summarised == SUMMARY_BLOCK
    assert len(deltas.rows) < deltas.total  # the summarised deltas counted, with no row
    while len(loop.buffer) > SUMMARISE_OVER:
        loop.drain(budget=0.0)
    loop.drain()
    assert not loop.pressure.behind and loop.absorbed == total
    assert deltas.total == 5000 and deltas.counts["Updated"] == 3000 and deltas.counts["Deleted"] == 1000
    assert loop.states["cache"].count == 0 and not loop.states["cache"].per_ns
    assert deltas.rows[-1].seq == buf.received  # the newest delta has its row


def test_a_summary_is_cut_in_blocks_and_a_waiting_key_stops_it_between_them():
    buf = _churned(2000)  # 14,000 events
    loop = FeedLoop(buf, {"deltas": DeltasState})
    loop.full_cost = 1e-3  # as if measured: 14,000 events would take 14 s in full, more than the budget
    assert loop.drain(budget=5.0, interrupted=lambda: True) == SUMMARY_BLOCK  # a key waits: one block
    assert loop.pressure.behind and loop.pressure.events_summarised == SUMMARY_BLOCK
    assert loop.drain(budget=None) == len(_churned(2000)) - SUMMARY_BLOCK  # no budget: never summarised
    assert loop.pressure.events_summarised == SUMMARY_BLOCK


def test_a_restart_inside_a_summary_starts_the_states_over_as_a_full_feed_does(tmp_path):
    events = [
        TraceEvent.build(i + 1, 100.0 + i, "store.add", f"ns/p-{i}", resource_version=str(i), delta="Added")
        for i in range(3 * CHUNK)
    ]
    events.append(restart_at(500.0, 10_000))
    events += [
        TraceEvent.build(10_001 + i, 501.0 + i, "store.add", f"ns/q-{i}", resource_version=str(i), delta="Added")
        for i in range(5)
    ]
    summarised, full = loop_on(events), loop_on(events)
    summarised.feed(summarised.buffer.drain(), summarise=True)
    full.drain()
    assert summarised.restarts == full.restarts == 1
    assert summarised.states["deltas"].total == full.states["deltas"].total == 5
    assert summarised.states["cache"].count == full.states["cache"].count == 5
    assert summarised.header.info.resource == full.header.info.resource == "deployments.apps"


def test_a_ui_keeping_up_derives_what_every_row_shows():
    loop = FeedLoop(_churned(1000), {"deltas": DeltasState})
    loop.drain(max_events=len(loop.buffer))  # no budget: never behind
    assert not loop.pressure.behind and loop.pressure.summarised == 0
    assert not any(r.summarised for r in loop.states["deltas"].rows)


def test_the_header_reads_the_reflector_from_the_rv_panes_state(tmp_path):
    loop = loop_on(recorded(tmp_path, story()))
    loop.drain()
    rv = loop.states["rv"]
    assert loop.header.reflector is rv and rv.version > 0
    assert loop.header.rv == (rv.synced_rv or "") and loop.header.relists == rv.counts["relist"]
    alone = FeedLoop(TraceBuffer(), {"deltas": DeltasState})  # no RV pane: the header keeps its own
    assert isinstance(alone.header.reflector, RVState)


def test_behind_during_a_sync_the_header_reads_the_informers_sync_among_the_newest_events():
    from kubectl_informer.core.trace import Tracer
    from tests.tui.test_churn_bounds import pod

    clock = FakeClock(start=1000.0)
    tracer, buf = Tracer(clock), TraceBuffer()
    tracer.subscribe(buf)
    tracer.emit("informer.start", None, fifo="DeltaFIFO", watch_list=False, resync_check_period=0.0)
    tracer.emit("list.start", None, resource_version="0", watch_list=False)
    tracer.emit("list.done", None, resource_version="100", items=3000, duration=0.5, watch_list=False)
    for i in range(3000):
        tracer.emit_derived(
            "store.add",
            f"default/web-{i}",
            resource_version="100",
            delta="Added",
            is_in_initial_list=True,
            object=pod(f"web-{i}", 1),
        )
    tracer.emit("informer.synced", None, items=3000, duration=0.9)
    loop = FeedLoop(buf, STATES)
    loop.drain(budget=0.0)
    assert loop.pressure.behind and not loop.header.synced
    assert loop.header.synced_ahead is not None and loop.header.synced_ahead.fields["items"] == 3000
    loop.drain()
    assert loop.header.synced and loop.header.synced_ahead is None
