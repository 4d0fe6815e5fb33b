"""Helpers shared by the DeltaFIFO and RealFIFO tests: client-go's
testFifoObject, literalListerGetter, Pop and pop2, and the check that a
close unblocks waiting consumers (both FIFOs share it via FIFOBase).

Objects are testFifoObject as dicts: ``mk(name, val)``; the default key func
keys them by name.
"""

from __future__ import annotations

import threading

from kubectl_informer.cache.delta_fifo import Delta, FIFOClosedError
from kubectl_informer.clock.testing import wait_for


def mk(name: str, val=None) -> dict:
    return {"metadata": {"name": name}, "val": val}


class LiteralListerGetter:
    """Known objects from a function that lists the same objects every time."""

    def __init__(self, fn):
        self._fn = fn

    def list_keys(self) -> list[str]:
        return [o["metadata"]["name"] for o in self._fn()]

    def get_by_key(self, key: str):
        for o in self._fn():
            if o["metadata"]["name"] == key:
                return o, True
        return None, False


def known(*objs) -> LiteralListerGetter:
    return LiteralListerGetter(lambda: list(objs))


def empty_known() -> LiteralListerGetter:
    return known()


def three_known() -> LiteralListerGetter:
    return known(mk("foo", 5), mk("bar", 6), mk("baz", 7))


def pop(f) -> list[Delta]:
    return f.pop(lambda deltas, initial: None, timeout=5)


def pop2(f) -> tuple[list[Delta], bool]:
    seen = {}

    def process(deltas, initial):
        seen["deltas"], seen["initial"] = deltas, initial

    f.pop(process, timeout=5)
    return seen["deltas"], seen["initial"]


def newest_val(f):
    """The ``val`` of the newest delta of the next pop (DeltaFIFO coalesces)."""
    return pop(f)[-1].object["val"]


def pop_val(f):
    """The ``val`` of the next pop's one delta (RealFIFO)."""
    return pop(f)[0].object["val"]


def pop_n(f, n) -> list[Delta]:
    out = []
    for _ in range(n):
        out.extend(pop(f))
    return out


def assert_pop_unblocks_when_closed(f) -> None:
    """PopShouldUnblockWhenClosed: ten consumers blocked in ``pop`` on an
    empty FIFO all get FIFOClosedError when it is closed."""
    results = []

    def consumer():
        try:
            f.pop(lambda d, i: None, timeout=5)
        except FIFOClosedError as e:
            results.append(e)

    threads = [threading.Thread(target=consumer) for _ in range(10)]
    for t in threads:
        t.start()
    assert wait_for(lambda: f._waiting == 10)
    f.close()
    for t in threads:
        t.join(2)
    assert len(results) == 10 and f.is_closed()
