"""Full collections once the UI has caught up (panes/collector.py), and the
feed loop asking for one only then."""

from __future__ import annotations

import gc

from kubectl_informer.core.trace import TraceBuffer, TraceEvent
from kubectl_informer.panes.collector import IdleCollector
from kubectl_informer.panes.deltas import DeltasState
from kubectl_informer.panes.feed import FeedLoop


class Ticks:
    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


def _full() -> int:
    return gc.get_stats()[2]["collections"]


def test_a_full_collection_runs_when_due_and_not_before():
    clock = Ticks()
    collector = IdleCollector(every=30.0, clock=clock, calm=1)
    gc.collect(1)  # something reached the oldest generation
    clock.t = 29.0
    before = _full()
    assert not collector.frame(True) and _full() == before
    clock.t = 30.0
    assert not collector.frame(False)  # a busy frame: never then
    assert collector.frame(True) and _full() == before + 1 and collector.collections == 1
    gc.collect(1)
    clock.t = 45.0
    assert not collector.frame(True)  # 15 s since the last one
    clock.t = 60.0
    assert collector.frame(True) and collector.collections == 2


def test_only_after_enough_idle_frames_in_a_row():
    clock = Ticks()
    collector = IdleCollector(every=30.0, clock=clock, calm=3)
    clock.t = 100.0
    gc.collect(1)
    assert [collector.frame(idle) for idle in (True, True, False, True, True)] == [False] * 5
    assert collector.frame(True) and collector.collections == 1


def test_one_run_elsewhere_starts_the_wait_over():
    clock = Ticks()
    collector = IdleCollector(every=30.0, clock=clock, calm=1)
    clock.t = 31.0
    gc.collect()  # an automatic one, or anyone's
    gc.collect(1)
    assert not collector.frame(True)
    clock.t = 60.0
    assert not collector.frame(True)  # 29 s after the one seen at 31 s
    clock.t = 61.0
    assert collector.frame(True)


def test_the_feed_loop_tells_the_collector_which_frames_emptied_the_buffer_with_no_key_waiting():
    calls = []

    class Counting:
        def frame(self, idle):
            calls.append(idle)
            return False

    buf = TraceBuffer()
    loop = FeedLoop(buf, {"deltas": DeltasState})
    loop.collector = Counting()
    events = [
        TraceEvent.build(i + 1, 100.0 + i, "store.add", f"ns/p-{i}", resource_version=str(i), delta="Added")
        for i in range(600)
    ]
    buf.extend(events)
    loop.drain(budget=0.0)  # one chunk, the rest still waiting
    loop.drain(budget=60.0, interrupted=lambda: True)  # a key waits
    loop.drain(budget=60.0, interrupted=lambda: True)  # emptied, but a key waits
    assert not buf and calls == [False, False, False]
    loop.drain(budget=60.0)
    assert calls == [False, False, False, True]
    buf.extend(events[:3])
    loop.drain()  # no budget (a test's or a replay's pump): not a frame
    assert calls == [False, False, False, True]
