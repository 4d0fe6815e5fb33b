"""What ``kubectl rollout status`` reads from the simulator, through real HTTP:
a LIST then a WATCH of the Deployment's namespace with the field selector
``metadata.name=web`` (UntilWithSync), while a rollout restart runs. Its
informer reports Deleted — and kubectl fails with "object has been deleted" —
on a DELETED event or on a relist whose list lacks the object; the
simulator must give it neither while the Deployment lives, and one DELETED
once it is deleted. A Deployment of the same name in another namespace rolls
and is deleted alongside, so namespace scoping is tested too.

The controllers run on a FakeClock and pods stop at once when deleted, so the
rollout is driven in steps, with no sleeps."""

from __future__ import annotations

import pytest

from kubectl_informer.clock.testing import FakeClock, wait_for
from kubectl_informer.sim.controllers.manager import ControllerManager
from kubectl_informer.sim.scenarios import rollout_complete, web_deployment
from kubectl_informer.sim.server import SimServer
from tests.sim._http import RawClient

NS, OTHER = "rollout-demo", "default"
SELECTOR = "metadata.name=web"
RESTART = {
    "spec": {"template": {"metadata": {"annotations": {"kubectl.kubernetes.io/restartedAt": "2026-01-01T00:00:00Z"}}}}
}


def deploys(ns: str) -> str:
    return f"/apis/apps/v1/namespaces/{ns}/deployments"


@pytest.fixture
def cluster():
    sim = SimServer(watch_cache_size=10_000).start()  # the whole rollout stays in the window (the replay below)
    sim.store.pod_stop_seconds = 0.0  # a deleted running pod stops at once: no real-time wait
    for ns in (NS, OTHER):
        sim.store.create("namespaces", {"metadata": {"name": ns}})
    clock = FakeClock()
    manager = ControllerManager(sim.store, clock, pod_start_seconds=1.0).start()
    yield sim, clock, manager
    manager.stop()
    sim.stop()


def roll_until_complete(sim, clock, manager) -> None:
    """Step the controllers' clock until both Deployments have rolled out."""

    def done() -> bool:
        return all(rollout_complete(sim.store.get("deployments", ns, "web")) for ns in (NS, OTHER))

    for _ in range(30):
        assert manager.wait_idle(10)
        if done():
            return
        clock.step(1.0)
        assert wait_for(manager.settled, 10)
    pytest.fail("the rollout did not complete in 30 steps")


def test_a_rollout_restart_reaches_a_name_selected_watch_as_modified_events_only(cluster):
    sim, clock, manager = cluster
    client = RawClient(sim.url, token=sim.token)
    for ns in (NS, OTHER):
        assert client.request("POST", deploys(ns), web_deployment(ns, "web", 5))[0] == 201
    roll_until_complete(sim, clock, manager)

    # The reflector's first list (RV "0", a page size of 500), then its watch from the list's RV.
    status, lst = client.get(deploys(NS), fieldSelector=SELECTOR, resourceVersion="0", limit="500")
    assert status == 200 and [d["metadata"]["name"] for d in lst["items"]] == ["web"]
    list_rv = lst["metadata"]["resourceVersion"]
    live = client.watch(deploys(NS), fieldSelector=SELECTOR, resourceVersion=list_rv, allowWatchBookmarks="true")
    try:
        for ns in (NS, OTHER):  # what kubectl rollout restart sends
            status, _, _ = client.request(
                "PATCH", f"{deploys(ns)}/web", RESTART, ctype="application/strategic-merge-patch+json"
            )
            assert status == 200
        roll_until_complete(sim, clock, manager)

        # A relist from the last RV, as the reflector makes it after an expired watch: paged (Exact) or not.
        for limit in ("500", None):
            status, relist = client.get(deploys(NS), fieldSelector=SELECTOR, resourceVersion=list_rv, limit=limit)
            assert status == 200 and [d["metadata"]["name"] for d in relist["items"]] == ["web"]
        # A re-watch from the list's RV replays the same events from the window.
        replay = client.watch(deploys(NS), fieldSelector=SELECTOR, resourceVersion=list_rv, timeoutSeconds="1")
        replayed = [(e["type"], e["object"]["metadata"]["resourceVersion"]) for e in replay.rest()]
        replay.close()

        other_gone = client.request("DELETE", f"{deploys(OTHER)}/web")[1]["metadata"]["resourceVersion"]
        mine_gone = client.request("DELETE", f"{deploys(NS)}/web")[1]["metadata"]["resourceVersion"]
        events = []
        while not events or events[-1]["type"] != "DELETED":
            ev = live.next()
            assert ev is not None, "the watch ended before the Deployment's DELETED"
            if ev["type"] != "BOOKMARK":
                events.append(ev)
    finally:
        live.close()

    seen = [(e["type"], e["object"]["metadata"]["resourceVersion"]) for e in events]
    assert int(other_gone) < int(mine_gone)
    assert seen[-1] == ("DELETED", mine_gone)  # the one DELETED is the real delete, of this namespace's web
    assert {t for t, _ in seen[:-1]} == {"MODIFIED"} and len(seen) > 5
    assert {(e["object"]["metadata"]["namespace"], e["object"]["metadata"]["name"]) for e in events} == {(NS, "web")}
    rvs = [int(rv) for _, rv in seen]
    assert rvs == sorted(rvs) and len(set(rvs)) == len(rvs)
    statuses = [e["object"].get("status") or {} for e in events[:-1]]
    # On the way: the state kubectl prints as "1 old replicas are pending termination".
    assert any(st.get("updatedReplicas") == 5 and st.get("replicas", 0) > 5 for st in statuses)
    assert rollout_complete(events[-2]["object"])  # what kubectl rollout status ends on
    assert replayed == seen[:-1]
