"""The Queue pane: QueueState rebuilds the real workqueue from its trace, and
the pane shows it (Pilot tests and snapshots)."""

from __future__ import annotations

import random

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as hs

from kubectl_informer.clock.testing import FakeClock, wait_for
from kubectl_informer.core.trace import TraceBuffer, TraceEvent, Tracer
from kubectl_informer.panes.queue import HISTORY, QueueState
from kubectl_informer.tui.queue import QueuePane, _cursor_line, render_queue
from kubectl_informer.tui.queue_history import history_line
from kubectl_informer.workqueue import Queue, RateLimitingQueue
from kubectl_informer.workqueue.rate_limiters import ItemExponentialFailureRateLimiter

from .pane_harness import OnePane, Trace, json_values, shown


def controller_trace(worker_events: bool = False) -> Trace:
    """Two workers; web-0 is re-added while processing; web-1 fails and is
    rate limited; web-7 waits for its back-off; the rest are queued.
    ``worker_events``: as recordings made before queue.get and queue.done
    carried the worker (worker.start / worker.done beside them)."""
    e = Trace()
    for i in range(30):
        e(i * 0.01, "queue.add", f"default/web-{i}", outcome="queued", depth=i + 1)
    if worker_events:
        e(0.5, "queue.get", "default/web-0", waited=0.5, depth=29)
        e(0.5, "worker.start", "default/web-0", worker=0)
        e(0.6, "queue.get", "default/web-1", waited=0.59, depth=28)
        e(0.6, "worker.start", "default/web-1", worker=1)
    else:
        e(0.5, "queue.get", "default/web-0", waited=0.5, depth=29, worker=0)
        e(0.6, "queue.get", "default/web-1", waited=0.59, depth=28, worker=1)
    e(0.7, "queue.add", "default/web-0", outcome="dirty_while_processing", depth=28)
    if worker_events:
        e(0.8, "worker.done", "default/web-1", worker=1, outcome="error", duration=0.2)
    e(0.8, "queue.rate_limited", "default/web-1", delay=0.4, requeues=1)
    e(0.8, "queue.add_after", "default/web-1", delay=0.4)
    if worker_events:
        e(0.8, "queue.done", "default/web-1", worked=0.2, requeued=False)
    else:
        e(0.8, "queue.done", "default/web-1", worked=0.2, requeued=False, worker=1, outcome="error")
    e(0.9, "queue.rate_limited", "default/web-7", delay=3.2, requeues=4)
    e(0.9, "queue.add_after", "default/web-7", delay=3.2)
    e(0.9, "queue.add", "default/web-3", outcome="already_dirty", depth=28)
    return e


# -- the state machine, scripted -------------------------------------------


@pytest.mark.parametrize("worker_events", [False, True], ids=["queue-events-carry-the-worker", "older-recording"])
def test_state_after_controller_trace(worker_events):
    st = QueueState()
    st.feed_all(controller_trace(worker_events).events)
    assert st.queued() == [f"default/web-{i}" for i in range(2, 30)]
    assert st.dirty == {f"default/web-{i}" for i in range(2, 30)} | {"default/web-0"}
    assert set(st.processing) == {"default/web-0"}
    assert st.dirty_while_processing() == ["default/web-0"]
    assert st.waiting == {"default/web-1": pytest.approx(1.2), "default/web-7": pytest.approx(4.1)}
    assert st.requeues == {"default/web-1": 1, "default/web-7": 4}
    assert st.workers == {0: ("default/web-0", 0.5), 1: None}
    # client-go's metrics: depth counts the dirty-while-processing add.
    assert (st.adds, st.gets, st.depth, st.retries) == (31, 2, 29, 2)
    assert list(st.latency) == [pytest.approx(0.5), pytest.approx(0.59)]
    assert list(st.work) == [pytest.approx(0.2)]
    assert st.unfinished_work(1.0) == (pytest.approx(0.5), pytest.approx(0.5))
    assert st.gaps == 0


def test_done_requeues_a_dirty_item_and_latency_runs_from_its_add():
    # client-go: TestAddWhileProcessing (queue_test.go): an add while the item
    # is processed is held back until done, then queued once.
    e = Trace()
    e(1.0, "queue.add", "a", outcome="queued")
    e(2.0, "queue.get", "a")
    e(2.5, "queue.add", "a", outcome="dirty_while_processing")
    e(2.6, "queue.add", "a", outcome="already_dirty")
    st = QueueState()
    st.feed_all(e.events)
    assert st.queued() == [] and st.dirty == {"a"} and set(st.processing) == {"a"}
    e(3.0, "queue.done", "a", requeued=True)
    e(4.0, "queue.get", "a")
    st.feed_all(e.events[4:])
    assert st.requeued_on_done == 1
    # latency of the second get runs from the add at 2.5 (metrics.go keeps the first add time)
    assert list(st.latency) == [1.0, 1.5]
    assert list(st.work) == [1.0]
    assert (st.adds, st.depth) == (2, 0)


def test_waiting_keeps_the_earlier_ready_time_and_leaves_when_added():
    # client-go: TestDeduping (delaying_queue_test.go)
    e = Trace()
    e(10.0, "queue.add_after", "a", delay=5.0)
    e(11.0, "queue.add_after", "a", delay=10.0)  # later: ignored
    e(11.0, "queue.add_after", "b", delay=1.0)
    e(11.5, "queue.add", "b", outcome="queued")  # a direct add before b is ready
    st = QueueState()
    st.feed_all(e.events)
    assert st.waiting == {"a": 15.0, "b": 12.0}
    assert st.retries == 3
    e(12.0, "queue.add", "b", outcome="already_dirty")  # the waiting loop's add
    e(15.0, "queue.add", "a", outcome="queued")
    st.feed_all(e.events[4:])
    assert st.waiting == {}
    assert st.queued() == ["b", "a"]


def test_forget_clears_requeues_and_shutdown_is_shown():
    e = Trace()
    e(1.0, "queue.rate_limited", "a", delay=0.1, requeues=3)
    e(1.0, "queue.add_after", "a", delay=0.1)
    e(2.0, "queue.forget", "a", requeues=3)
    e(3.0, "queue.shutdown", drain=True)
    st = QueueState()
    st.feed_all(e.events)
    assert st.requeues == {}
    assert st.shutting_down and st.drain
    text = render_queue(st, 3.0, 78, 12).plain
    assert "SHUTTING DOWN (drain)" in text


def test_the_rate_limiters_state_per_key_failures_and_back_off():
    e = Trace()
    e(1.0, "queue.rate_limited", "a", delay=0.08, requeues=5)
    e(1.0, "queue.add_after", "a", delay=0.08)
    e(1.0, "queue.rate_limited", "b", delay=0.01, requeues=2)
    e(1.0, "queue.add_after", "b", delay=0.01)
    e(1.01, "queue.add", "b", outcome="queued", depth=1)  # b's back-off is over: queued again
    st = QueueState()
    st.feed_all(e.events)
    assert st.backoff == {"a": 0.08, "b": 0.01}
    text = render_queue(st, 1.05, 78, 12).plain
    assert "a in 30ms of 80ms ×5" in text
    assert "a ×5 80ms" in text and "b ×2 10ms" in text
    assert _cursor_line(st, "a", ["a", "b"], 80).plain.startswith(
        "▸ a · waiting for its back-off · failure 5, back-off 80ms"
    )
    assert "queued · failure 2, back-off 10ms" in _cursor_line(st, "b", ["a", "b"], 80).plain
    e(1.1, "queue.forget", "b", requeues=2)
    st.feed_all(e.events[-1:])
    assert st.backoff == {"a": 0.08} and "b ×2" not in render_queue(st, 1.1, 78, 12).plain


def test_history_sparklines_of_depth_adds_and_latency_from_the_trace():
    e = Trace()
    for i in range(6):  # second 10: six adds, depth up to 6
        e(10.0 + i * 0.01, "queue.add", f"k{i}", outcome="queued", depth=i + 1)
    for i in range(4):  # second 12: four gets, each queued 2 s
        e(12.05 + i * 0.01, "queue.get", f"k{i}", waited=2.0, depth=5 - i)
    st = QueueState()
    st.feed_all(e.events)
    depth, adds, latency = st.history_series(13.5, 5)  # seconds 9..13
    assert depth == [0, 6, 6, 6, 2]  # 11 holds 10's end; 12 starts at 6 and ends at 2
    assert adds == [0, 6, 0, 0, 0]
    assert latency == [0.0, 0.0, 0.0, pytest.approx(2.05, abs=0.01), 0.0]
    line = history_line(st, 13.5, 120).plain
    assert "max 6 · adds/s" in line and "max 6 · latency" in line and line.endswith("max 2.1s")
    # A ring: a long run keeps HISTORY seconds of slots, whatever its length.
    for sec in range(14, 1000):
        e(float(sec), "queue.add", "again", outcome="queued", depth=3)
        e(sec + 0.5, "queue.get", "again", waited=0.5, depth=2)
    st.feed_all(e.events[10:])
    assert len(st.history) == HISTORY
    assert st.history_series(999.9, 3)[1] == [1, 1, 1]


def test_history_takes_a_line_each_only_with_rows_to_spare():
    st = QueueState()
    st.feed_all(controller_trace().events)
    roomy = render_queue(st, 1.0, 78, 24).plain.splitlines()
    assert [ln.split()[0] for ln in roomy[3:6]] == ["depth", "adds/s", "latency"]
    assert roomy[3].endswith("max 30  (56s)")  # as wide as the slot: 56 seconds
    assert "…+" not in "\n".join(roomy)  # and the whole queue still drawn
    for height in range(3, 9):  # no room: no history, and no error
        assert "adds/s ▁" not in render_queue(st, 1.0, 78, height).plain
    tight = render_queue(st, 1.0, 78, 18).plain.splitlines()
    assert tight[3].startswith("depth ") and " · adds/s " in tight[3] and tight[4].startswith("queued 28")


def test_keys_given_up_at_max_retries_are_counted():
    e = Trace()
    e(0.9, "queue.add", "a", outcome="queued", depth=1)
    e(1.0, "queue.get", "a", waited=0.1, depth=0, worker=1)
    e(1.1, "queue.forget", "a", requeues=3)
    e(1.1, "queue.dropped", "a", requeues=3, max_retries=3, worker=1)
    e(1.1, "queue.done", "a", worked=0.1, requeued=False, worker=1, outcome="error")
    st = QueueState()
    st.feed_all(e.events)
    assert (st.dropped, st.max_retries, st.requeues) == (1, 3, {})
    assert "gave up 1" in render_queue(st, 2.0, 78, 12).plain.splitlines()[0]
    assert "gave up 1" in render_queue(st, 2.0, 47, 12).plain.splitlines()[0]  # the grid slot's header too
    assert "work ok 0 / errors 1 · gave up 1 (max 3)" in render_queue(st, 2.0, 160, 20).plain


def test_a_lost_event_is_counted_and_the_queue_follows_the_trace():
    # The UI attached late (or the buffer dropped events): trust the outcome.
    e = Trace()
    e(1.0, "queue.get", "a")  # never saw its add
    e(2.0, "queue.add", "b", outcome="queued")
    e(3.0, "queue.add", "b", outcome="queued")  # model says already dirty
    st = QueueState()
    st.feed_all(e.events)
    assert st.gaps == 2
    assert st.queued() == ["b"]
    # the lost add of "a" would have counted in client-go's depth: its get takes nothing off
    assert st.depth == 1


def test_gets_whose_adds_were_lost_never_take_the_depth_below_zero_nor_break_the_history():
    e = Trace()
    e(0.0, "queue.add", "a", outcome="queued")
    for t in (0.0, 0.0, 0.0):  # three gets of "a": the last two with no add seen
        e(t, "queue.get", "a")
    st = QueueState()
    st.feed_all(e.events)
    assert st.gaps == 2 and st.depth == 0
    depth, _, _ = st.history_series(50.0, 60)
    assert min(depth) == 0
    assert "depth" in render_queue(st, 50.0, 73, 10).plain  # raised IndexError in the sparkline before


def test_malformed_events_are_counted_and_skipped():
    e = Trace()
    e.malformed(1.0, "queue.add", None, outcome="queued")  # no item
    e.malformed(2.0, "queue.add_after", "a", delay="soon")  # not a duration
    e.malformed(3.0, "worker.start", "a", worker="w-one")  # not a slot number
    e.malformed(4.0, "queue.add", 7, outcome="queued")  # a non-string item is named by str()
    st = QueueState()
    st.feed_all(e.events)
    assert st.bad_events == 3
    assert st.queued() == ["7"] and st.waiting == {} and st.workers == {} and st.retries == 0


def test_adds_per_second_over_the_last_five_seconds():
    e = Trace()
    for i in range(100):
        e(100.0 + i * 0.1, "queue.add", f"k{i}", outcome="queued")  # 10/s for 10 s
    st = QueueState()
    st.feed_all(e.events)
    assert st.adds_per_second(110.0) == pytest.approx(10.0, rel=0.2)
    assert st.adds_per_second(200.0) == 0.0


# -- against the real workqueue -------------------------------------------


def _compare(st: QueueState, q: RateLimitingQueue, clock: FakeClock) -> None:
    assert st.queued() == q.queued()
    assert st.dirty == q.dirty()
    assert set(st.processing) == q.processing()
    assert st.waiting == dict(q.waiting())
    assert st.requeues == {k: q.num_requeues(k) for k in "abcdefgh" if q.num_requeues(k)}
    m = q.metrics()
    assert (st.depth, st.adds, st.retries) == (m.depth, m.adds, m.retries)
    lp50, lp99 = st.percentiles("latency")
    wp50, wp99 = st.percentiles("work")
    assert (lp50 or 0.0, lp99 or 0.0) == (m.queue_latency.p50, m.queue_latency.p99)
    assert (wp50 or 0.0, wp99 or 0.0) == (m.work_duration.p50, m.work_duration.p99)
    assert st.unfinished_work(clock.now()) == (
        pytest.approx(m.unfinished_work_seconds),
        pytest.approx(m.longest_running_processor_seconds),
    )


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_reconstruction_matches_the_real_rate_limiting_queue(seed):
    """Random controller-like operations on the real RateLimitingQueue (FakeClock):
    after every step the state rebuilt from the trace equals the queue's own
    queued()/dirty()/processing()/waiting() views and metrics()."""
    clock = FakeClock(start=1000.0)
    tracer = Tracer(clock)
    buf = TraceBuffer()
    tracer.subscribe(buf)
    q = RateLimitingQueue(ItemExponentialFailureRateLimiter(0.05, 2.0), name="t", clock=clock, tracer=tracer)
    st = QueueState()
    rng = random.Random(seed)
    keys = "abcdefgh"
    try:
        for _ in range(300):
            op = rng.random()
            if op < 0.30:
                q.add(rng.choice(keys))
            elif op < 0.45 and q.len():
                q.get(timeout=5)
            elif op < 0.60 and q.processing():
                item = rng.choice(sorted(q.processing()))
                if rng.random() < 0.4:
                    q.add_rate_limited(item)
                else:
                    q.forget(item)
                q.done(item)
            elif op < 0.68:
                q.add_after(rng.choice(keys), rng.choice([0.0, 0.1, 0.3, 1.0]))
            else:
                # Let time pass; wait for the waiting loop to add what came due.
                step = rng.choice([0.01, 0.05, 0.2, 0.5])
                due = [k for k, r in q.waiting() if r <= clock.now() + step]
                mark = buf.received
                clock.step(step)

                def moved(due=due, mark=mark):
                    evs = list(buf._events)[-(buf.received - mark) :] if buf.received > mark else []
                    got = {ev.key for ev in evs if ev.kind == "queue.add"}
                    return set(due) <= got

                assert wait_for(moved, timeout=5)
            st.feed_all(buf.drain())
            _compare(st, q, clock)
    finally:
        q.shut_down()
    assert st.gaps == 0
    # the script exercised every path
    assert st.adds > 30 and st.retries > 5 and st.requeued_on_done > 0 and len(st.latency) > 20, (
        st.adds,
        st.retries,
        st.requeued_on_done,
        len(st.latency),
    )


def test_reinsert_and_collapse_through_the_plain_queue(clock, tracer, trace):
    # client-go: TestReinsert and TestCollapseWhileProcessing (queue_test.go)
    q = Queue(clock=clock, tracer=tracer)
    st = QueueState()
    q.add("foo")
    item, _ = q.get()
    q.add(item)  # re-added while processing
    q.add(item)  # collapsed
    st.feed_all(trace.drain())
    assert st.queued() == q.queued() == []
    assert st.dirty == q.dirty() == {"foo"}
    clock.step(0.25)
    q.done(item)
    st.feed_all(trace.drain())
    assert st.queued() == q.queued() == ["foo"]
    assert set(st.processing) == q.processing() == set()
    assert list(st.work) == [0.25]


# -- on screen ------------------------------------------------------------


def _pane_app(now=1.0):
    st = QueueState()
    st.feed_all(controller_trace().events)
    return OnePane(QueuePane(st, id="queue"), now)


def test_pane_at_80x24_shows_every_part():
    text = shown(_pane_app(), (80, 24))
    lines = text.splitlines()
    assert len(lines) == 24 and all(len(line) <= 80 for line in lines)
    assert "Workqueue  depth 29" in lines[0]
    assert "adds 31/s (31)" in lines[0] and "retries 2" in lines[0] and "workers 1/2 busy" in lines[0]
    assert "queue latency p50 500ms p99 590ms" in text
    assert "work duration p50 200ms p99 200ms" in text
    assert "unfinished work 500ms" in text and "longest running 500ms" in text
    queued = next(line for line in lines if line.startswith(" queued 28"))
    # In order: the head first.
    assert queued.split()[2:5] == ["default/web-2", "default/web-3", "default/web-4"]
    assert "w0 ▶ default/web-0" in text and "↻ dirty: requeued on done" in text
    assert "w1 · idle" in text
    assert "default/web-1 in 200ms of 400ms ×1" in text and "default/web-7 in 3.1s of 3.2s ×4" in text
    assert "requeues 2" in text and "default/web-7 ×4 3.2s   default/web-1 ×1 400ms" in text
    assert "dirty 29" in text and "28 queued + 1 processing" in text


def test_pane_in_a_small_slot_keeps_the_summary_and_crops_the_queue():
    # Half of 80x24 (two panes stacked), inside the app's borders.
    text = shown(_pane_app(), (76, 9))
    lines = text.splitlines()
    assert "depth 29" in lines[0]
    assert "p50/p99 latency 500ms/590ms work 200ms/200ms · longest 500ms" in lines[1]
    assert lines[2].startswith(" queued 28     default/web-2")
    assert "…+23" in lines[3]  # the rest of the queue, counted (aligned columns)
    assert "w0 ▶ default/web-0" in text and "waiting 2" in text and "dirty 29" in text


def test_pane_in_a_grid_slot_keeps_the_facts_in_fewer_words():
    text = shown(_pane_app(), (47, 10))
    lines = text.splitlines()
    assert "depth 29 · 31 adds/s · retries 2 · busy 1/2" in lines[0]
    assert "p50/p99 lat 500ms/590ms work 200ms/200ms" in lines[1]
    assert "queued 28" in lines[2] and "…+25" in lines[3]


def test_pane_uses_a_large_terminal():
    text = shown(_pane_app(), (160, 50))
    assert "queue latency p50 500ms p99 590ms · work duration p50 200ms p99 200ms · unfinished work" in text
    assert "default/web-29" in text  # the whole queue fits
    assert "…+" not in text
    assert "gets 2 · requeued on done 0 · work ok 0 / errors 1" in text


def test_countdowns_move_with_now():
    app = _pane_app(now=2.0)
    text = shown(app, (80, 24))
    assert "default/web-1 ready ×1" in text and "default/web-7 in 2.1s of 3.2s ×4" in text


def test_snapshot_80x24(snap_compare):
    assert snap_compare(_pane_app(), terminal_size=(80, 24))


def test_snapshot_160x50(snap_compare):
    assert snap_compare(_pane_app(), terminal_size=(160, 50))


# -- malformed input ------------------------------------------------------


_values = json_values
_kinds = hs.sampled_from(
    [
        "queue.add",
        "queue.get",
        "queue.done",
        "queue.add_after",
        "queue.rate_limited",
        "queue.forget",
        "queue.shutdown",
        "worker.start",
        "worker.done",
        "fifo.pop",
    ]
)
_fields = hs.dictionaries(hs.sampled_from(["outcome", "delay", "requeues", "worker", "drain", "depth"]), _values)


@settings(max_examples=100, deadline=None)
@given(
    hs.lists(
        hs.tuples(
            _kinds,
            hs.one_of(hs.none(), hs.sampled_from(["a", "b"]), hs.integers(0, 2)),
            hs.floats(0, 100, allow_nan=False),
            _fields,
        ),
        max_size=40,
    ),
    hs.integers(1, 200),
    hs.integers(1, 60),
)
@example([("queue.add", "a", 0.0, {}), *[("queue.get", "a", 0.0, {})] * 3], 73, 10)  # found once: depth below 0
def test_any_trace_feeds_and_renders_without_error(events, width, height):
    st = QueueState()
    for i, (kind, key, t, fields) in enumerate(events):
        st.feed(TraceEvent(i + 1, t, kind, key, fields))
    render_queue(st, None, width, height)
    render_queue(st, 50.0, width, height)


def test_queued_keys_stand_in_aligned_columns_not_a_stray_second_key_on_some_rows():
    """`queue pods --demo -A`: mostly long keys, a few short ones. Flowed, two
    short ones shared a row and read as a stale second key; in columns every
    row holds the same number of keys, each starting at the same cell."""
    from rich.text import Text

    from kubectl_informer.tui.queue_sections import flow

    keys = [
        "shop/payments-cf9eca81b1-9581d",
        "shop/web-ea9f30cc6a-1d40e",
        "batch/worker-80db594232-12fb9",
        "default/api-7b267deed9-b14b5",
        "shop/web-ea9f30cc6a-d8f7f",
        "batch/worker-80db594232-7d3f8",
    ]
    lines = [ln.plain for ln in flow((Text(k) for k in keys), len(keys), 61, 10)]
    assert len(lines) == 6  # two of the widest (30) and a gap need 62 cells
    lines = [ln.plain for ln in flow((Text(k) for k in keys), len(keys), 64, 10)]
    assert len(lines) == 3 and all(ln.index(ln.split()[1]) == 32 for ln in lines)
