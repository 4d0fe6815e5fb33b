"""DelayingQueue against a model (hypothesis RuleBasedStateMachine): the heap
keeps the earliest ready time per item, due items enter the queue in
ready-time order through add's rules, and nothing is due early or late.

Delays and steps are multiples of 0.25 s so clock arithmetic is exact."""

from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from kubectl_informer.clock.testing import FakeClock, wait_for
from kubectl_informer.workqueue import DelayingQueue

ITEMS = st.sampled_from(["a", "b", "c", "d", "e"])
QUARTERS = st.integers(min_value=-1, max_value=8).map(lambda n: n * 0.25)


class DelayingMachine(RuleBasedStateMachine):
    def __init__(self):
        super().__init__()
        self.clock = FakeClock(0.0)
        self.q = DelayingQueue(clock=self.clock)
        self.queue = []
        self.dirty = set()
        self.processing = set()
        self.parked = {}  # item -> (ready_at, seq of the live entry)
        self.seq = 0

    def teardown(self):
        self.q.shut_down()

    def _model_add(self, item):
        if item in self.dirty:
            return
        self.dirty.add(item)
        if item not in self.processing:
            self.queue.append(item)

    @rule(item=ITEMS)
    def add(self, item):
        self.q.add(item)
        self._model_add(item)

    @rule(item=ITEMS, delay=QUARTERS)
    def add_after(self, item, delay):
        self.q.add_after(item, delay)
        if delay <= 0:
            self._model_add(item)
            return
        ready = self.clock.now() + delay
        old = self.parked.get(item)
        if old is None or ready < old[0]:
            self.seq += 1
            self.parked[item] = (ready, self.seq)

    @rule(quarters=st.integers(min_value=1, max_value=6))
    def step(self, quarters):
        self.clock.step(quarters * 0.25)
        now = self.clock.now()
        due = sorted((v, k) for k, v in self.parked.items() if v[0] <= now)
        for _, item in due:
            del self.parked[item]
            self._model_add(item)
        # waiting() takes the heap lock the loop holds while it moves items,
        # so once nothing due is listed, every due add has happened.
        assert wait_for(lambda: all(r > now for _, r in self.q.waiting()), timeout=5)

    @precondition(lambda self: self.queue)
    @rule()
    def get(self):
        item, shutdown = self.q.get(timeout=1)
        assert (item, shutdown) == (self.queue.pop(0), False)
        self.processing.add(item)
        self.dirty.discard(item)

    @precondition(lambda self: self.processing)
    @rule(data=st.data())
    def done(self, data):
        item = data.draw(st.sampled_from(sorted(self.processing)))
        self.q.done(item)
        self.processing.discard(item)
        if item in self.dirty:
            self.queue.append(item)

    @invariant()
    def matches_model(self):
        assert self.q.waiting() == sorted(((k, v[0]) for k, v in self.parked.items()), key=lambda p: p[1])
        assert self.q.queued() == self.queue
        assert self.q.dirty() == self.dirty
        assert self.q.processing() == self.processing
        assert self.q.metrics().waiting == len(self.parked)


DelayingMachine.TestCase.settings = settings(max_examples=60, stateful_step_count=30, deadline=None)
TestDelayingStateMachine = DelayingMachine.TestCase
