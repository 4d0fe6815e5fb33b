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
    collector = IdleCollector(every=30.0, clock=clock)
    gc.collect(1)  # something reached the oldest generation
    clock.t = 29.0
    before = _full()
    assert not collector.idle() and _full() == before
    clock.t = 30.0
    assert collector.idle() and _full() == before + 1 and collector.collections == 1
    gc.collect(1)
    clock.t = 45.0
    assert not collector.idle()  # 15 s since the last one
    clock.t = 60.0
    assert collector.idle() and collector.collections == 2


def test_one_run_elsewhere_starts_the_wait_over():
    clock = Ticks()
    collector = IdleCollector(every=30.0, clock=clock)
    clock.t = 31.0
    gc.collect()  # an automatic one, or anyone's
    gc.collect(1)
    assert not collector.idle()
    clock.t = 60.0
    assert not collector.idle()  # 29 s after the one seen at 31 s
    clock.t = 61.0
    assert collector.idle()


def test_the_feed_loop_collects_only_after_a_drain_that_emptied_the_buffer_with_no_key_waiting():
    calls = []

    class Counting:
        def idle(self):
            calls.append(1)
            return True

    buf = TraceBuffer()
    loop = FeedLoop(buf, {"deltas": DeltasState})
    loop.collector = Counting()
    events = [TraceEvent.build(i + 1, 100.0 + i, "store.add", f"ns/p-{i}", resource_version=str(i), delta="Added")
              for i in range(600)]
    buf.extend(events)
    loop.drain(budget=0.0)  # one chunk, the rest still waiting
    assert calls == []
    loop.drain(budget=60.0, interrupted=lambda: True)  # a key waits
    loop.drain(budget=60.0, interrupted=lambda: True)
    assert calls == [] and len(buf) < 600
    loop.drain(budget=60.0)
    assert not buf and calls == [1]
    buf.extend(events[:3])
    loop.drain()  # no budget (a test's or a replay's pump): not a frame
    assert calls == [1]
