"""Queue against a simple model (hypothesis RuleBasedStateMachine).

The model is client-go's queue.go rules written as plainly as possible; the
invariants are the guarantees workers rely on."""

import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from kubectl_informer.clock.testing import FakeClock
from kubectl_informer.workqueue import Queue

ITEMS = st.sampled_from(["a", "b", "c", "d"])


class QueueMachine(RuleBasedStateMachine):
    def __init__(self):
        super().__init__()
        self.clock = FakeClock()
        self.q = Queue(clock=self.clock)
        self.queue = []
        self.dirty = set()
        self.processing = set()
        self.shutting_down = False
        self.adds = 0

    @rule(item=ITEMS)
    def add(self, item):
        self.q.add(item)
        if self.shutting_down or item in self.dirty:
            return
        self.adds += 1
        self.dirty.add(item)
        if item not in self.processing:
            self.queue.append(item)

    @precondition(lambda self: self.queue or self.shutting_down)
    @rule()
    def get(self):
        item, shutdown = self.q.get(timeout=1)
        if self.queue:
            expected = self.queue.pop(0)
            assert (item, shutdown) == (expected, False)
            # Never handed to a second worker while one holds it.
            assert item not in self.processing
            self.processing.add(item)
            self.dirty.discard(item)
        else:
            assert (item, shutdown) == (None, True)

    @precondition(lambda self: not self.queue and not self.shutting_down)
    @rule()
    def get_times_out_when_empty(self):
        with pytest.raises(TimeoutError):
            self.q.get(timeout=0)

    @precondition(lambda self: self.processing)
    @rule(data=st.data())
    def done(self, data):
        item = data.draw(st.sampled_from(sorted(self.processing)))
        self.q.done(item)
        self.processing.discard(item)
        if item in self.dirty:
            self.queue.append(item)

    @rule(item=ITEMS)
    def done_without_get(self, item):
        if item in self.processing:
            return
        self.q.done(item)  # ignored

    @rule()
    def shut_down(self):
        self.q.shut_down()
        self.shutting_down = True

    @rule(seconds=st.floats(min_value=0, max_value=10))
    def step(self, seconds):
        self.clock.step(seconds)

    @invariant()
    def matches_model(self):
        assert self.q.queued() == self.queue
        assert self.q.dirty() == self.dirty
        assert self.q.processing() == self.processing
        assert self.q.len() == len(self.queue)
        assert self.q.shutting_down() == self.shutting_down

    @invariant()
    def structural_rules(self):
        queued = self.q.queued()
        dirty = self.q.dirty()
        processing = self.q.processing()
        assert len(queued) == len(set(queued)), "an item queued twice"
        assert set(queued) <= dirty, "queued item not dirty"
        assert not set(queued) & processing, "queued item also processing"
        # Every dirty item is either queued or waiting for its worker's done.
        assert dirty == set(queued) | (dirty & processing)

    @invariant()
    def metrics_follow(self):
        m = self.q.metrics()
        assert m.depth == len(self.dirty)
        assert m.adds == self.adds
        assert m.unfinished_work_seconds >= 0
        assert m.longest_running_processor_seconds <= m.unfinished_work_seconds + 1e-9


QueueMachine.TestCase.settings = settings(max_examples=100, stateful_step_count=40, deadline=None)
TestQueueStateMachine = QueueMachine.TestCase
