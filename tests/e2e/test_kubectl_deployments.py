"""Everyday kubectl on Deployments against the simulated cluster's controllers,
with the real kubectl binary: create, scale, rollout restart, rollout status
and delete (background, foreground, orphan) make and remove ReplicaSets and
pods as on a cluster."""

from __future__ import annotations

import json

import pytest

from kubectl_informer.clock.testing import wait_for
from kubectl_informer.sim.controllers.manager import ControllerManager
from kubectl_informer.sim.controllers.rollout import HASH_LABEL
from kubectl_informer.sim.server import SimServer
from tests.e2e.test_kubectl_sim import Kubectl

pytestmark = pytest.mark.e2e


@pytest.fixture
def cluster(tmp_path):
    sim = SimServer(
        anonymous=True
    ).start()  # kubectl sends no credentials to an http:// server (clientcmd): it is served as anonymous
    sim.store.create("namespaces", {"metadata": {"name": "default"}})
    manager = ControllerManager(sim.store, pod_start_seconds=0.2).start()
    kc = sim.write_kubeconfig(str(tmp_path / "kubeconfig"))
    yield sim, Kubectl(kc, str(tmp_path / "cache"))
    manager.stop()
    sim.stop()


def items(kubectl, resource: str) -> list[dict]:
    return kubectl.json("get", resource)["items"]


def live_pods(kubectl) -> list[dict]:
    return [p for p in items(kubectl, "pods") if not p["metadata"].get("deletionTimestamp")]


def create_web(kubectl, replicas: int = 3) -> dict:
    kubectl("create", "deployment", "web", "--image=nginx", f"--replicas={replicas}")
    done = kubectl("rollout", "status", "deploy/web", "--timeout=60s")
    assert 'deployment "web" successfully rolled out' in done.stdout
    return kubectl.json("get", "deploy", "web")


def controller_of(obj: dict) -> dict:
    refs = obj["metadata"]["ownerReferences"]
    assert len(refs) == 1 and refs[0]["controller"] is True and refs[0]["blockOwnerDeletion"] is True
    return refs[0]


def test_create_scale_restart_and_status(cluster):
    sim, kubectl = cluster
    d = create_web(kubectl, 3)
    assert d["status"]["readyReplicas"] == d["status"]["availableReplicas"] == d["status"]["updatedReplicas"] == 3
    assert d["status"]["observedGeneration"] == d["metadata"]["generation"]
    [rs] = items(kubectl, "rs")
    h = rs["metadata"]["labels"][HASH_LABEL]
    assert rs["metadata"]["name"] == f"web-{h}" and rs["spec"]["selector"]["matchLabels"] == {
        "app": "web",
        HASH_LABEL: h,
    }
    ref = controller_of(rs)
    assert (ref["kind"], ref["name"], ref["uid"]) == ("Deployment", "web", d["metadata"]["uid"])
    pods = items(kubectl, "pods")
    assert len(pods) == 3
    for p in pods:
        ref = controller_of(p)
        assert (ref["kind"], ref["name"], ref["uid"]) == ("ReplicaSet", rs["metadata"]["name"], rs["metadata"]["uid"])
        assert p["metadata"]["name"].startswith(f"web-{h}-") and p["status"]["phase"] == "Running"
    assert "3/3" in kubectl("get", "deploy", "web").stdout
    described = kubectl("describe", "deploy", "web").stdout
    assert f"NewReplicaSet:   web-{h} (3/3 replicas created)" in described
    assert f"Scaled up replica set web-{h} from 0 to 3" in described  # the deployment-controller's event
    created = kubectl("get", "events", "--field-selector", "reason=SuccessfulCreate", "-o", "json")
    assert len(json.loads(created.stdout)["items"]) == 3  # one per pod, from the replicaset-controller

    kubectl("scale", "deploy", "web", "--replicas=5")
    kubectl("rollout", "status", "deploy/web", "--timeout=60s")
    assert len(live_pods(kubectl)) == 5 and items(kubectl, "rs")[0]["spec"]["replicas"] == 5

    kubectl("rollout", "restart", "deploy/web")
    done = kubectl("rollout", "status", "deploy/web", "--timeout=60s")
    assert "successfully rolled out" in done.stdout
    rss = {r["metadata"]["name"]: r for r in items(kubectl, "rs")}
    assert len(rss) == 2
    new = next(r for r in rss.values() if r["metadata"]["name"] != f"web-{h}")
    new_hash = new["metadata"]["labels"][HASH_LABEL]
    assert new_hash != h and new["metadata"]["name"] == f"web-{new_hash}"
    assert rss[f"web-{h}"]["spec"]["replicas"] == 0 and new["spec"]["replicas"] == 5
    assert new["metadata"]["annotations"]["deployment.kubernetes.io/revision"] == "2"
    assert "kubectl.kubernetes.io/restartedAt" in new["spec"]["template"]["metadata"]["annotations"]
    # The old pods terminate: waited for in the store (each kubectl call is a process), then seen by kubectl.
    assert wait_for(lambda: len(sim.store.list("pods")) == 5, 15, interval=0.02)
    assert len(items(kubectl, "pods")) == 5
    assert all(p["metadata"]["labels"][HASH_LABEL] == new_hash for p in items(kubectl, "pods"))

    # kubectl rollout undo patches the template back (a JSON patch of spec.template and the
    # annotations): the first ReplicaSet is the new one again, with the next revision and its
    # old one in revision-history (SetNewReplicaSetAnnotations).
    kubectl("rollout", "undo", "deploy/web")
    kubectl("rollout", "status", "deploy/web", "--timeout=60s")
    first = kubectl.json("get", "rs", f"web-{h}")
    assert first["spec"]["replicas"] == 5
    assert first["metadata"]["annotations"]["deployment.kubernetes.io/revision"] == "3"
    assert first["metadata"]["annotations"]["deployment.kubernetes.io/revision-history"] == "1"
    d = kubectl.json("get", "deploy", "web")
    assert d["metadata"]["annotations"]["deployment.kubernetes.io/revision"] == "3"
    assert [(c["type"], c["reason"]) for c in d["status"]["conditions"]] == [
        ("Available", "MinimumReplicasAvailable"),
        ("Progressing", "NewReplicaSetAvailable"),
    ]


def test_delete_background_collects_replicasets_and_pods(cluster):
    sim, kubectl = cluster
    create_web(kubectl, 3)
    kubectl("delete", "deploy", "web")  # --cascade=background, kubectl's default
    assert wait_for(lambda: not sim.store.list("replicasets") and not sim.store.list("pods"), 15, interval=0.02)
    assert not items(kubectl, "rs") and not items(kubectl, "pods")


def test_delete_foreground_removes_dependents_before_the_owner(cluster):
    sim, kubectl = cluster
    create_web(kubectl, 3)
    kubectl("delete", "deploy", "web", "--cascade=foreground")  # waits until the Deployment is gone
    # The Deployment went last: by then its ReplicaSet and pods were gone.
    assert items(kubectl, "deploy") == [] and items(kubectl, "rs") == [] and items(kubectl, "pods") == []


def test_delete_orphan_leaves_dependents_without_the_owner(cluster):
    sim, kubectl = cluster
    create_web(kubectl, 3)
    kubectl("delete", "deploy", "web", "--cascade=orphan")
    assert items(kubectl, "deploy") == []
    [rs] = items(kubectl, "rs")
    assert "ownerReferences" not in rs["metadata"]
    assert len(items(kubectl, "pods")) == 3
    kubectl("delete", "rs", rs["metadata"]["name"], "--cascade=orphan")
    pods = items(kubectl, "pods")
    assert items(kubectl, "rs") == [] and len(pods) == 3
    assert all("ownerReferences" not in p["metadata"] for p in pods)
