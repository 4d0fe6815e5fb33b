"""Every explain text is reached by at least one demo scenario, driven
through the real pipeline against the simulated API server."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from kubectl_informer.clock.testing import wait_for
from kubectl_informer.panes.explain import load_texts
from kubectl_informer.sim.scenarios import SCENARIOS, rollout_complete

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
    # With and without the DeltaFIFO's known objects (--no-fifo-known-objects), one after the other.
    return Both(disconnect_known(), disconnect_unknown())


def disconnect_known():
    with Driven("disconnect") as d:
        d.settle()
        d.step()
        d.wait("relist")
        d.wait("store.delete", tombstone=True)
    return d


def disconnect_unknown():
    # The same relist finds the pod gone, and no tombstone can come of it.
    with Driven("disconnect", fifo_known_objects=False) as d:
        d.settle()
        d.step()
        d.wait("relist")
        d.wait("list.done", n=2)
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


class Both:
    """Two runs of one scenario: their texts together."""

    def __init__(self, *runs) -> None:
        self.runs = runs

    def reached(self) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for r in self.runs:
            for text_id, said in r.reached().items():
                out.setdefault(text_id, []).extend(said)
        return out


def rollout():
    # The simulated controllers roll Deployment web, in both controller shapes, at once.
    # One slow worker: ReplicaSet events keep coming while it holds web, and collapse into its next reconcile.
    with ThreadPoolExecutor(2) as pool:
        return Both(*pool.map(lambda plan: plan(), (rollout_deployment_controller, rollout_owns)))


def rollout_deployment_controller():
    # kube-controller-manager's Deployment controller: its handlers enqueue web for its ReplicaSets'
    # events, drop the scenario's strays (web-stale, gone-legacy), skip the ReplicaSets' resyncs,
    # and drop every pod deletion of this RollingUpdate Deployment.
    with Driven("rollout", mode="queue", controller="deployment", workers=1, work_time=0.3, resync=1.0) as d:
        store = d.run.demo.server.store
        assert wait_for(lambda: rollout_complete(store.get("deployments", "default", "web")), 15)
        d.step()
        d.wait("store.add", is_in_initial_list=False)
        d.wait("store.delete")
        for reason in ("uid_mismatch", "owner_not_cached", "not_recreate", "resync"):
            d.wait("owner.drop", reason=reason)
        d.wait("queue.add", via="updateReplicaSet")
        d.wait("queue.get", n=3)
    return d


def rollout_owns():
    # controller-runtime's For/Owns: ReplicaSets enqueue web by their controller reference; every pod
    # event is dropped (its controller is a ReplicaSet), the bare pod as an orphan.
    with Driven(
        "rollout", mode="queue", resource="deployments", owns=("replicasets", "pods"), workers=1, work_time=0.3
    ) as d:
        d.step()  # the first step leaves the strays and starts a rollout
        for reason in ("no_controller", "not_queue_kind"):
            d.wait("owner.drop", reason=reason)
        d.wait("queue.add", via="EnqueueRequestForOwner", outcome="already_dirty")
        d.wait("queue.get", n=3)
    return d


def small_window():
    # A watch cache of 8 events; the streams stall at tick 20 while pods change, and at tick 32 the
    # server ends the watcher that fell behind: its re-watch is older than the window.
    with Driven("small-window") as d:
        d.settle()
        d.wait("server.window")
        d.step(21)

        # While the streams stall, pods change in real time, so the server reports ours behind.
        def behind() -> bool:
            return any(
                e.kind == "server.window"
                and e.fields["ours_rv"]
                and int(e.fields["ours_rv"]) < int(e.fields["newest_rv"])
                for e in list(d.events)
            )

        while not behind():
            d.step(pause=0.3)
            assert d.runner.ctx.tick < 32, "no window with ours behind during the stall"
        d.step(32 - d.runner.ctx.tick + 1)
        d.wait("watch.end", expired=True)
        d.wait("relist", reason="expired")
        d.wait("list.done", n=2)
        n = d.seen("server.window")
        d.step(2)
        d.wait("server.window", n=n + 1)  # the window after the relist, ours behind its newest
    return d


def etcd_restore():
    # Tick 44 snapshots the RV, tick 60 restores it (the re-watch ahead is accepted), tick 120 restores it
    # again and fails the re-watch: the relist at our RV is answered "Too large resource version", then
    # the reflector lists again with RV "".
    with Driven("etcd-restore") as d:
        d.settle()
        d.run.demo.server.store.too_large_wait = 0.05  # kube-apiserver's 3 s, in real time
        d.step(119)
        # The informer caught up before the restore, as on a live run: an informer still
        # behind the restored revision relists below it, and no 504 comes.
        store, informer = d.run.demo.server.store, d.run.informer
        assert wait_for(lambda: int(informer.last_sync_resource_version() or 0) >= store.current_rv(), 15)
        d.step(2)
        d.wait("server.too_large", timeout=60, advance=0.1)  # a loaded machine: the retries take longer
        d.wait("list.start", resource_version="", timeout=60, advance=0.1)
        n = d.seen("server.window")
        d.step(40)  # the client caught up: churn again, so the window changes and is reported
        d.wait("server.window", n=n + 1)
    return d


def cache_reinit():
    # Ticks 32-40: the cache re-initialises (watches end, 429), then restarts its window at tick 40.
    with Driven("cache-reinit") as d:
        d.settle()
        d.wait("server.window")
        d.step(41)
        d.wait("server.reinit")
        d.wait("relist", reason="expired", timeout=20)
    return d


def stale():
    # Pod watch events 2 s late: skips with the check, the catch-up; off, a duplicate create.
    with Driven("stale", mode="queue", resource="replicasets", owns=("pods",), client_go="1.36", work_time=0.01) as d:
        d.step()
        d.wait("queue.stale_skip")
        d.wait("controller.write", verb="update_status", n=2)  # the sync after the catch-up
        d.run.set_consistency(False)
        d.step()
        d.wait("controller.write", duplicate=True)
    return d


PLANS = {
    "rollout": rollout,
    "stale": stale,
    "steady": steady,
    "burst": burst,
    "disconnect": disconnect,
    "relist-storm": relist_storm,
    "mass-delete": mass_delete,
    "flaky": flaky,
    "quiet": quiet,
    "small-window": small_window,
    "etcd-restore": etcd_restore,
    "cache-reinit": cache_reinit,
}


@pytest.fixture(scope="module")
def reached():
    # Each plan is its own run on its own simulated server and spends its
    # time waiting on it: all at once, the fixture takes the longest one's time.
    with ThreadPoolExecutor(len(PLANS)) as pool:
        return dict(zip(PLANS, pool.map(lambda plan: plan().reached(), PLANS.values()), strict=True))


def test_every_scenario_is_driven():
    assert set(PLANS) == set(SCENARIOS)


def test_every_text_is_reached_by_a_scenario(reached):
    by_text: dict[str, list[str]] = {}
    for scenario, texts in reached.items():
        for text_id in texts:
            by_text.setdefault(text_id, []).append(scenario)
    missing = [t for t in load_texts() if t not in by_text]
    assert not missing, f"texts no scenario reaches: {missing}"
