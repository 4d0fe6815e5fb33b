"""``--demo stale`` in process: the controller's own writes outrun its Pod
cache; with the read-your-own-writes check its syncs are skipped until the
cache has caught up, without it the same traffic makes duplicate pods.
Switched live on one run."""

from __future__ import annotations

import pytest

from kubectl_informer.clock.testing import wait_for
from kubectl_informer.run.config import RunConfig
from kubectl_informer.run.errors import RunError
from kubectl_informer.run.runner import Run
from tests.explain.harness import Driven

pytestmark = pytest.mark.e2e


def stale_run() -> Driven:
    return Driven("stale", mode="queue", resource="replicasets", owns=("pods",), client_go="1.36", work_time=0.01)


def test_skips_until_caught_up_then_duplicates_once_switched_off():
    with stale_run() as d:
        store = d.run.demo.server.store
        d.step()  # ReplicaSet web (3 replicas); pod watch events now 2 s late
        d.wait("controller.write", verb="create", n=3)
        d.wait("queue.stale_skip", resource="pods")
        skip = next(e for e in list(d.events) if e.kind == "queue.stale_skip")
        assert int(skip.fields["expected"]) > int(skip.fields["actual"])
        # Caught up: the pods are cached and a sync after the skips went through.
        pods = d.run.factory.informers["pods"].get_store()
        assert wait_for(lambda: int(pods.last_store_sync_resource_version() or 0) >= int(skip.fields["expected"]), 10)
        d.wait("controller.write", verb="update_status", n=2)
        assert d.seen("controller.write", duplicate=True) == 0
        assert d.run.controller.stats()["stale_sync_skips"] >= 1
        ours = [p for p in store.list("pods", "default") if p["metadata"]["ownerReferences"][0]["name"] == "web"]
        assert len(ours) == 3

        assert d.run.set_consistency(False)
        d.step()  # scaled to 5: the status write's event comes back before the new pods
        d.wait("controller.write", verb="create", duplicate=True)
        d.wait("controller.consistency", enabled=False)
        skips = d.seen("queue.stale_skip")
        d.wait("controller.write", verb="delete")  # the surplus, once the cache shows it
        assert d.seen("queue.stale_skip") == skips


def test_the_demo_controller_needs_replicasets_and_pods():
    run = Run(RunConfig.from_flags(mode="queue", demo="stale", resource="pods"))
    try:
        with pytest.raises(RunError, match="replicasets --owns pods"):
            run.prepare()
            run.start()
    finally:
        run.stop()
