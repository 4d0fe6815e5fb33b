"""The simulated controllers on the store: pods start on the controllers'
clock (a FakeClock here), a rollout's ReplicaSets and events, garbage
collection's propagation policies, and what they leave alone."""

from __future__ import annotations

import orjson
import pytest

from kubectl_informer.clock.testing import FakeClock, wait_for
from kubectl_informer.sim.controllers.manager import ControllerManager
from kubectl_informer.sim.controllers.pods import pod_ready
from kubectl_informer.sim.objects import make_pod
from kubectl_informer.sim.scenarios import ScenarioRunner, rollout_complete, web_deployment
from kubectl_informer.sim.server import SimServer
from kubectl_informer.sim.store import Store
from tests.sim._http import RawClient


@pytest.fixture
def cluster():
    store = Store()
    store.create("namespaces", {"metadata": {"name": "default"}})
    clock = FakeClock()
    manager = ControllerManager(store, clock, pod_start_seconds=2.0).start()
    yield store, clock, manager
    manager.stop()
    store.close_all()


def settle(manager) -> None:
    assert manager.wait_idle(10)


def start_pods(clock, manager, seconds: float = 2.0) -> None:
    """Step the clock past the pods' start and let the controllers catch up."""
    settle(manager)
    clock.step(seconds)
    assert wait_for(manager.settled, 10)


def deployment(store, name="web"):
    return store.get("deployments", "default", name)


def test_pods_start_after_the_delay_on_the_controllers_clock(cluster):
    store, clock, manager = cluster
    store.create("deployments", web_deployment("default", "web", 3))
    settle(manager)
    pods = store.list("pods", "default")
    assert len(pods) == 3
    assert all(p["spec"]["nodeName"] and p["status"]["phase"] == "Pending" and not pod_ready(p) for p in pods)
    assert deployment(store)["status"].get("availableReplicas", 0) == 0
    clock.step(1.9)
    settle(manager)
    assert all(p["status"]["phase"] == "Pending" for p in store.list("pods", "default"))
    start_pods(clock, manager, 0.1)
    assert all(p["status"]["phase"] == "Running" and pod_ready(p) for p in store.list("pods", "default"))
    d = deployment(store)
    assert rollout_complete(d) and d["status"]["availableReplicas"] == 3
    assert [c["reason"] for c in d["status"]["conditions"]] == ["MinimumReplicasAvailable", "NewReplicaSetAvailable"]


def test_a_rolling_update_keeps_within_surge_and_unavailability(cluster):
    store, clock, manager = cluster
    store.create("deployments", web_deployment("default", "web", 5))
    start_pods(clock, manager)
    d = deployment(store)
    d["spec"]["template"]["metadata"]["annotations"] = {"kubectl.kubernetes.io/restartedAt": "2026-01-01T00:00:00Z"}
    store.update("deployments", d)
    steps = 0
    while not rollout_complete(deployment(store)):
        settle(manager)
        live = [p for p in store.list("pods", "default") if not p["metadata"].get("deletionTimestamp")]
        ready = [p for p in live if pod_ready(p)]
        assert len(live) <= 5 + 2 and len(ready) >= 5 - 1  # maxSurge 2, maxUnavailable 1 (25% of 5)
        start_pods(clock, manager)
        steps += 1
        assert steps < 10
    rss = sorted(
        store.list("replicasets", "default"),
        key=lambda rs: rs["metadata"]["annotations"]["deployment.kubernetes.io/revision"],
    )
    assert [rs["spec"]["replicas"] for rs in rss] == [0, 5]
    assert deployment(store)["metadata"]["annotations"]["deployment.kubernetes.io/revision"] == "2"


def test_the_history_limit_prunes_old_replica_sets(cluster):
    store, clock, manager = cluster
    d = web_deployment("default", "web", 1)
    d["spec"]["revisionHistoryLimit"] = 1
    store.create("deployments", d)
    start_pods(clock, manager)
    for i in range(3):
        d = deployment(store)
        d["spec"]["template"]["metadata"]["annotations"] = {"rev": str(i)}
        store.update("deployments", d)
        while not rollout_complete(deployment(store)):
            start_pods(clock, manager)
    revisions = sorted(
        rs["metadata"]["annotations"]["deployment.kubernetes.io/revision"]
        for rs in store.list("replicasets", "default")
    )
    assert revisions == ["3", "4"]  # the new one and one old one


def pod_finalizers_seen(store) -> set:
    """Every finalizer a pod carried in any event from now on (a watch's view)."""
    seen: set = set()

    def note(rdef, ev):
        if rdef.qualified == "pods":
            seen.update(orjson.loads(ev.entry.raw)["metadata"].get("finalizers") or [])

    store.listeners.append(note)
    return seen


def test_foreground_deletion_waits_for_the_dependents(cluster):
    store, clock, manager = cluster
    store.pod_stop_seconds = None  # pods stop only after their whole grace period: we look in between
    store.create("deployments", web_deployment("default", "web", 2))
    start_pods(clock, manager)
    seen = pod_finalizers_seen(store)
    store.delete("deployments", "default", "web", propagation="Foreground")
    settle(manager)
    d = deployment(store)
    assert d["metadata"]["finalizers"] == ["foregroundDeletion"] and d["metadata"]["deletionTimestamp"]
    [rs] = store.list("replicasets", "default")
    assert rs["metadata"]["finalizers"] == ["foregroundDeletion"]  # blockOwnerDeletion: deleted in the foreground
    pods = store.list("pods", "default")
    assert len(pods) == 2 and all(p["metadata"]["deletionTimestamp"] for p in pods)  # terminating
    # A pod has no dependents: the collector deletes it in the background, never with the finalizer.
    assert all(not p["metadata"].get("finalizers") for p in pods) and not seen
    for p in pods:  # the kubelet's end of the grace period
        store.delete("pods", "default", p["metadata"]["name"], grace_period=0)
    assert wait_for(lambda: store.count("deployments") == 0 and store.count("replicasets") == 0, 10)


def test_background_and_orphan_deletion(cluster):
    store, clock, manager = cluster
    store.create("deployments", web_deployment("default", "web", 2))
    start_pods(clock, manager)
    store.delete("deployments", "default", "web", propagation="Orphan")
    assert wait_for(lambda: store.count("deployments") == 0, 10)
    settle(manager)
    [rs] = store.list("replicasets", "default")
    assert "ownerReferences" not in rs["metadata"] and store.count("pods") == 2
    store.delete("replicasets", "default", rs["metadata"]["name"])  # Background
    assert wait_for(lambda: all(p["metadata"].get("deletionTimestamp") for p in store.list("pods")), 10)


def test_a_dependent_with_another_live_owner_only_loses_the_reference(cluster):
    store, clock, manager = cluster
    a = store.create("configmaps", {"metadata": {"name": "a", "namespace": "default"}})
    b = store.create("configmaps", {"metadata": {"name": "b", "namespace": "default"}})
    refs = [
        {"apiVersion": "v1", "kind": "ConfigMap", "name": o["metadata"]["name"], "uid": o["metadata"]["uid"]}
        for o in (a, b)
    ]
    store.create("configmaps", {"metadata": {"name": "dep", "namespace": "default", "ownerReferences": refs}})
    store.create("configmaps", {"metadata": {"name": "only-a", "namespace": "default", "ownerReferences": refs[:1]}})
    store.delete("configmaps", "default", "a")
    settle(manager)
    assert store.get("configmaps", "default", "dep")["metadata"]["ownerReferences"] == refs[1:]
    assert "default/only-a" not in store.keys("configmaps")


def test_scenario_pods_and_seeded_owner_references_are_left_alone(cluster):
    """Pods made by hand or with a ReplicaSet owner that does not exist (the
    demo's seeded pods) are neither adopted, deleted nor started."""
    store, clock, manager = cluster
    store.create("pods", make_pod("default", "seeded", phase="Pending"))
    store.create(
        "pods",
        {
            "metadata": {"name": "bare", "namespace": "default"},
            "spec": {"containers": [{"name": "c", "image": "nginx"}]},
        },
    )
    rv = store.current_rv()
    start_pods(clock, manager)
    assert store.current_rv() == rv
    store.delete("pods", "default", "bare")
    settle(manager)
    assert store.current_rv() == rv + 1  # only the delete itself


def test_controllers_off_leave_a_deployment_alone():
    store = Store()
    store.create("namespaces", {"metadata": {"name": "default"}})
    store.create("deployments", web_deployment("default", "web", 3))
    store.delete("deployments", "default", "web", propagation="Foreground")
    assert store.count("deployments") == 0 and store.count("replicasets") == 0 and store.count("pods") == 0


def test_rollout_scenario_rolls_and_scales(cluster):
    store, clock, manager = cluster
    runner = ScenarioRunner("rollout", store, seed=1)
    seen = []
    for _ in range(40):
        runner.step()
        start_pods(clock, manager)
        d = deployment(store)
        # web's own (the scenario's strays are another story: tests/explain).
        seen.append(
            (
                d["spec"]["replicas"],
                len(
                    [
                        rs
                        for rs in store.list("replicasets", "default")
                        if (rs["metadata"].get("labels") or {}).get("app") == "web"
                    ]
                ),
            )
        )
        if runner.ctx.state.get("changes", 0) >= 4 and rollout_complete(d):
            break
    assert runner.ctx.state["changes"] >= 4
    assert (8, 2) in seen and seen[-1] == (5, 3)  # scaled up between two restarts, back to 5 after the second
    assert (
        len(
            [
                p
                for p in store.list("pods")
                if not p["metadata"].get("deletionTimestamp") and p["metadata"]["labels"].get("app") == "web"
            ]
        )
        == 5
    )


@pytest.mark.parametrize(
    "body,want",
    [
        ({"propagationPolicy": "Sideways"}, 'Unsupported value: "Sideways"'),
        ({"propagationPolicy": "Orphan", "orphanDependents": True}, "cannot be both set"),
    ],
)
def test_bad_propagation_policy_is_422(body, want):
    with SimServer() as sim:
        sim.store.create("namespaces", {"metadata": {"name": "default"}})
        sim.store.create("configmaps", {"metadata": {"name": "x", "namespace": "default"}})
        status, st, _ = RawClient(sim.url, token=sim.token).request(
            "DELETE", "/api/v1/namespaces/default/configmaps/x", body
        )
    assert status == 422 and st["reason"] == "Invalid" and want in st["message"]


def test_scaling_during_a_rollout_is_shared_by_proportion(cluster):
    store, clock, manager = cluster
    store.create("deployments", web_deployment("default", "web", 10))
    start_pods(clock, manager)
    d = deployment(store)
    d["spec"]["template"]["spec"]["containers"][0]["image"] = "nginx:2"
    store.update("deployments", d)
    settle(manager)

    def sizes():
        rss = sorted(
            store.list("replicasets", "default"),
            key=lambda rs: rs["metadata"]["annotations"]["deployment.kubernetes.io/revision"],
        )
        return [rs["spec"]["replicas"] for rs in rss]

    # maxSurge 3, maxUnavailable 2 of 10: the new one starts at 3, two old pods go, so the new one
    # may grow to 5 (13 in all); then nothing moves until new pods are available.
    assert sizes() == [8, 5]
    d = deployment(store)
    d["spec"]["replicas"] = 20
    store.update("deployments", d)
    settle(manager)
    # 25 allowed (20 + 5 surge), 12 to add, shared by the size each was given for 13 (max-replicas):
    # the old one 8*25/13 -> 15, the new one 5*25/13 -> 10; no budget is left to scale down (25 - 15 - 10).
    assert sizes() == [15, 10]
    while not rollout_complete(deployment(store)):
        start_pods(clock, manager)
    assert sizes() == [0, 20]


def _rs_owned_by(name: str, owner_name: str, owner_uid: str) -> dict:
    labels = {"app": name}
    return {
        "apiVersion": "apps/v1",
        "kind": "ReplicaSet",
        "metadata": {
            "name": name,
            "namespace": "default",
            "labels": labels,
            "ownerReferences": [
                {
                    "apiVersion": "apps/v1",
                    "kind": "Deployment",
                    "name": owner_name,
                    "uid": owner_uid,
                    "controller": True,
                    "blockOwnerDeletion": True,
                }
            ],
        },
        "spec": {
            "replicas": 0,
            "selector": {"matchLabels": labels},
            "template": {"metadata": {"labels": labels}, "spec": {"containers": [{"name": "c", "image": "i"}]}},
        },
    }


def test_dangling_owners_are_collected_by_uid(cluster):
    """attemptToDeleteItem: an owner that is absent, or present under another UID, is dangling."""
    store, clock, manager = cluster
    web = store.create("deployments", web_deployment("default", "web", 0))
    store.create("replicasets", _rs_owned_by("gone-legacy", "gone", "00000000-0000-4000-8000-00000000beef"))
    store.create("replicasets", _rs_owned_by("web-stale", "web", "00000000-0000-4000-8000-00000000dead"))
    cm = store.create("configmaps", {"metadata": {"name": "live", "namespace": "default"}})
    refs = [
        {"apiVersion": "v1", "kind": "ConfigMap", "name": "live", "uid": cm["metadata"]["uid"]},
        {"apiVersion": "v1", "kind": "ConfigMap", "name": "ghost", "uid": "00000000-0000-4000-8000-0000000000aa"},
    ]
    store.create("configmaps", {"metadata": {"name": "two-owners", "namespace": "default", "ownerReferences": refs}})
    settle(manager)
    assert wait_for(
        lambda: (
            {
                rs["metadata"]["name"]
                for rs in store.list("replicasets", "default")
                if not rs["metadata"].get("deletionTimestamp")
            }
            == {
                rs["metadata"]["name"]
                for rs in store.list("replicasets", "default")
                if rs["metadata"]["ownerReferences"][0]["uid"] == web["metadata"]["uid"]
            }
        ),
        10,
    )
    assert store.get("configmaps", "default", "two-owners")["metadata"]["ownerReferences"] == refs[:1]


def test_a_dangling_owner_found_at_start_is_collected():
    store = Store()
    store.create("namespaces", {"metadata": {"name": "default"}})
    store.create("replicasets", _rs_owned_by("gone-legacy", "gone", "00000000-0000-4000-8000-00000000beef"))
    manager = ControllerManager(store, FakeClock()).start()
    try:
        assert wait_for(lambda: store.count("replicasets") == 0, 10)
    finally:
        manager.stop()


def test_foreground_deletion_of_a_replicaset_deletes_its_pods_in_the_background(cluster):
    """A leaf dependent of an owner deleted in the foreground is deleted with its own policy
    (Background), not in the foreground, blockOwnerDeletion or not."""
    store, clock, manager = cluster
    store.pod_stop_seconds = None
    store.create("deployments", web_deployment("default", "web", 2))
    start_pods(clock, manager)
    [rs] = store.list("replicasets", "default")
    store.delete("deployments", "default", "web", propagation="Orphan")
    settle(manager)
    seen = pod_finalizers_seen(store)
    store.delete("replicasets", "default", rs["metadata"]["name"], propagation="Foreground")
    settle(manager)
    pods = store.list("pods", "default")
    assert pods and all(p["metadata"].get("deletionTimestamp") for p in pods) and not seen
    assert store.get("replicasets", "default", rs["metadata"]["name"])["metadata"]["finalizers"] == [
        "foregroundDeletion"
    ]
    for p in pods:
        store.delete("pods", "default", p["metadata"]["name"], grace_period=0)
    assert wait_for(lambda: store.count("replicasets") == 0, 10)


def test_a_dependent_with_a_live_owner_loses_only_the_reference_to_the_foreground_deleted_one(cluster):
    store, clock, manager = cluster
    a = store.create("configmaps", {"metadata": {"name": "a", "namespace": "default"}})
    b = store.create("configmaps", {"metadata": {"name": "b", "namespace": "default"}})
    refs = [
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "name": o["metadata"]["name"],
            "uid": o["metadata"]["uid"],
            "blockOwnerDeletion": True,
        }
        for o in (a, b)
    ]
    store.create("configmaps", {"metadata": {"name": "dep", "namespace": "default", "ownerReferences": refs}})
    store.delete("configmaps", "default", "a", propagation="Foreground")
    assert wait_for(lambda: "default/a" not in store.keys("configmaps"), 10)
    assert store.get("configmaps", "default", "dep")["metadata"]["ownerReferences"] == refs[1:]


def test_a_new_deployment_adopts_the_orphaned_replicasets_and_their_pods_stay(cluster):
    """ClaimReplicaSets: an orphan its selector matches is adopted (a controller reference
    added); the template matches, so it is the new ReplicaSet and no pod is replaced. A
    ReplicaSet made again after an orphan delete adopts its old pods (claimPods)."""
    store, clock, manager = cluster
    store.create("deployments", web_deployment("default", "web", 2))
    start_pods(clock, manager)
    [rs] = store.list("replicasets", "default")
    pods = {p["metadata"]["name"] for p in store.list("pods", "default")}
    store.delete("deployments", "default", "web", propagation="Orphan")
    assert wait_for(lambda: store.count("deployments") == 0, 10)
    again = store.create("deployments", web_deployment("default", "web", 2))
    start_pods(clock, manager)
    [adopted] = store.list("replicasets", "default")
    assert adopted["metadata"]["uid"] == rs["metadata"]["uid"]
    assert [r["uid"] for r in adopted["metadata"]["ownerReferences"]] == [again["metadata"]["uid"]]
    assert {p["metadata"]["name"] for p in store.list("pods", "default")} == pods
    store.delete("replicasets", "default", rs["metadata"]["name"], propagation="Orphan")
    start_pods(clock, manager)
    [made] = store.list("replicasets", "default")  # the same name, made again by the Deployment
    assert made["metadata"]["uid"] != rs["metadata"]["uid"]
    live = [p for p in store.list("pods", "default") if not p["metadata"].get("deletionTimestamp")]
    assert {p["metadata"]["name"] for p in live} == pods
    assert all(p["metadata"]["ownerReferences"][0]["uid"] == made["metadata"]["uid"] for p in live)


def test_a_reconcile_takes_sync_seconds_on_the_clock():
    """sync_seconds: a Deployment's or ReplicaSet's reconcile writes that long
    after it is taken, so a cascade of writes is spread as a real
    controller manager's is, not committed within a millisecond."""
    store = Store()
    store.create("namespaces", {"metadata": {"name": "default"}})
    clock = FakeClock()
    manager = ControllerManager(store, clock, pod_start_seconds=2.0, sync_seconds=0.5).start()
    try:
        store.create("deployments", web_deployment("default", "web", 3))
        assert wait_for(lambda: clock.next_deadline() == 0.5, 10)
        clock.step(0.25)
        assert clock.next_deadline() == 0.5  # the worker still waits: nothing written
        assert store.list("replicasets", "default") == []
        clock.step(0.25)
        assert wait_for(lambda: len(store.list("replicasets", "default")) == 1, 10)
        # The ReplicaSet's sync (or the Deployment's again, first) waits its own half second.
        assert wait_for(lambda: clock.next_deadline() == 1.0, 10)
        assert store.list("pods", "default") == []
        clock.step(0.5)
        if not wait_for(lambda: len(store.list("pods", "default")) == 3, 1):
            assert wait_for(lambda: clock.next_deadline() == 1.5, 10) and not store.list("pods", "default")
            clock.step(0.5)
            assert wait_for(lambda: len(store.list("pods", "default")) == 3, 10)
    finally:
        manager.stop()
        store.close_all()
