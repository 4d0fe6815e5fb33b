"""Every explain text is reached by at least one demo scenario, driven
through the real pipeline against the simulated API server."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from kubectl_informer.panes.explain import load_texts
from kubectl_informer.sim.scenarios import SCENARIOS

from .harness import Driven

pytestmark = pytest.mark.e2e


def steady():
    with Driven("steady") as d:
        d.step(24)
        d.wait("store.delete")
        d.wait("store.add", n=1, is_in_initial_list=False)
        d.wait("store.update")
    return d


def burst():
    # One slow worker behind a resync that queues every key: the burst's key
    # is added again and again while it waits, and while a worker holds it.
    with Driven("burst", mode="queue", workers=1, work_time=0.15, resync=1.0) as d:
        d.step()
        d.wait("queue.add", outcome="already_dirty")
        d.wait("resync.tick")
        d.step()
        d.wait("queue.done", n=12)
    return d


def disconnect():
    with Driven("disconnect") as d:
        d.settle()
        d.step()
        d.wait("relist")
        d.wait("store.delete", tombstone=True)
    return d


def relist_storm():
    with Driven("relist-storm") as d:
        d.settle()
        d.step()
        d.wait("relist")
        d.wait("store.update", delta="Replaced", n=9)
    return d


def mass_delete():
    # One worker, 100ms an item: the namespace's deletes pile up in the queue.
    with Driven("mass-delete", mode="queue", workers=1, work_time=0.1) as d:
        d.wait("queue.done", n=9)
        d.step()
        d.wait("store.delete", n=9)
        d.wait("queue.done", n=18)
        d.step()
        d.wait("store.add", n=9, is_in_initial_list=False)
    return d


def flaky():
    with Driven("flaky", mode="queue", work_time=0.01, fail_rate=0.3) as d:
        deadline = time.monotonic() + 25
        while d.runner.ctx.state.get("faults", 0) < 3 and time.monotonic() < deadline:
            d.step(pause=0.05)
        # client-go's back-off has grown to seconds by the third fault: let it pass on the run's clock.
        d.wait("relist", reason="error", advance=0.1)
        d.wait("list.done", n=2)
        d.wait("queue.forget")
    return d


def quiet():
    # client-go 1.35 (RealFIFO, WatchList), a 2s resync and a handler that asks 1s after the start.
    with Driven("quiet", client_go="1.35", resync=2.0, late_handler_resync=1.0) as d:
        d.wait("handler.register", n=2)
        d.step()
        d.wait("watch.bookmark", n=2)
        d.wait("resync.tick")
        d.wait("store.update", delta="Sync")
    return d


PLANS = {"steady": steady, "burst": burst, "disconnect": disconnect, "relist-storm": relist_storm,
         "mass-delete": mass_delete, "flaky": flaky, "quiet": quiet}


@pytest.fixture(scope="module")
def reached():
    # Each plan is its own run on its own simulated server and spends its
    # time waiting on it: all at once, the fixture takes the longest one's time.
    with ThreadPoolExecutor(len(PLANS)) as pool:
        return dict(zip(PLANS, pool.map(lambda plan: plan().reached(), PLANS.values())))


def test_every_scenario_is_driven():
    assert set(PLANS) == set(SCENARIOS)


def test_every_text_is_reached_by_a_scenario(reached):
    by_text: dict[str, list[str]] = {}
    for scenario, texts in reached.items():
        for text_id in texts:
            by_text.setdefault(text_id, []).append(scenario)
    missing = [t for t in load_texts() if t not in by_text]
    assert not missing, f"texts no scenario reaches: {missing}"
