"""The client-go tests that DeltaFIFO and RealFIFO share word for word
(TestDeltaFIFO_X and TestRealFIFO_X with the same steps and the same
expectation), parametrized over the two queues. Where their behaviours part
(coalescing, Replaced vs Sync, a key listed twice) the tests stay in
test_delta_fifo.py and test_real_fifo.py."""

from __future__ import annotations

import pytest

from kubectl_informer.cache.delta_fifo import UPDATED, Delta, DeltaFIFO
from kubectl_informer.cache.real_fifo import RealFIFO

from .helpers import assert_pop_unblocks_when_closed, empty_known, known, mk, pop

D = Delta

# Each queue as client-go's tests make it: RealFIFO (not atomic) needs its known objects.
FIFOS = {
    "DeltaFIFO": lambda known_objects=None: DeltaFIFO(known_objects=known_objects),
    "RealFIFO": lambda known_objects=None: RealFIFO(known_objects=known_objects or empty_known()),
}


@pytest.fixture(params=list(FIFOS))
def make_fifo(request):
    return FIFOS[request.param]


HAS_SYNCED_CASES = {
    "nothing": ([], False),
    "an add": ([lambda f: f.add(mk("a", 1))], True),
    "an empty replace": ([lambda f: f.replace([], "0")], True),
    "a replace of two": ([lambda f: f.replace([mk("a", 1), mk("b", 2)], "0")], False),
    "a replace of two, one popped": ([lambda f: f.replace([mk("a", 1), mk("b", 2)], "0"), pop], False),
    "a replace of two, both popped": ([lambda f: f.replace([mk("a", 1), mk("b", 2)], "0"), pop, pop], True),
}


@pytest.mark.parametrize("case", list(HAS_SYNCED_CASES))
def test_has_synced(make_fifo, case):
    # TestDeltaFIFO_HasSynced, TestRealFIFO_HasSynced (a key listed twice: in each file)
    actions, expected = HAS_SYNCED_CASES[case]
    f = make_fifo()
    for action in actions:
        action(f)
    assert f.has_synced() is expected


def test_update_resync_race(make_fifo):
    # TestDeltaFIFO_UpdateResyncRace, TestRealFIFO_UpdateResyncRace: a queued update wins over a resync
    f = make_fifo(known(mk("foo", 5)))
    f.update(mk("foo", 6))
    f.resync()
    assert pop(f) == [D(UPDATED, mk("foo", 6))]
    assert len(f) == 0


def test_pop_should_unblock_when_closed(make_fifo):
    # TestDeltaFIFO_PopShouldUnblockWhenClosed, TestRealFIFO_PopShouldUnblockWhenClosed
    assert_pop_unblocks_when_closed(make_fifo(known(mk("foo", 5))))
