"""The same kubectl rollout on the lab's kube-controller-manager and on the
simulator's controllers: after each step (create, set image, scale, rollout
undo, rollout restart, delete) both settle in the same Deployment status
(counts, conditions by type, status and reason, revision), the same
ReplicaSets by revision (sizes, revision history, desired/max-replicas) and
the same pod count.

On the lab a fake kubelet (``$LAB_DIR/fake-kubelet.py``) marks each new pod
Running and Ready a second after it appears, as the simulator's kubelet does."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import uuid

import pytest

from kubectl_informer.sim.controllers.manager import ControllerManager
from kubectl_informer.sim.server import SimServer
from tests.lab.conftest import KUBECTL

pytestmark = [pytest.mark.lab, pytest.mark.long_wait]

REVISION = "deployment.kubernetes.io/revision"
STEPS = [
    ("create", ["create", "deployment", "web", "--image=nginx:1.27", "--replicas=3"]),
    ("set image", ["set", "image", "deployment/web", "nginx=nginx:1.28"]),
    ("scale", ["scale", "deployment/web", "--replicas=5"]),
    ("undo", ["rollout", "undo", "deployment/web"]),
    ("restart", ["rollout", "restart", "deployment/web"]),
    ("delete", ["delete", "deployment", "web"]),
]


class Side:
    """kubectl against one cluster, in one namespace."""

    def __init__(self, name: str, kubeconfig: str, namespace: str, cache: str):
        self.name, self.namespace = name, namespace
        self.base = [KUBECTL, "--kubeconfig", kubeconfig, "--cache-dir", cache, "-n", namespace]

    def run(self, *args: str) -> str:
        r = subprocess.run(self.base + list(args), capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, f"{self.name}: kubectl {' '.join(args)}: {r.stderr}"
        return r.stdout

    def watch_progressing(self) -> subprocess.Popen:
        """A raw watch of the namespace's Deployments from the RV of a list made
        now, so it sees every later event however late it connects."""
        rv = json.loads(self.run("get", "deployments", "-o", "json"))["metadata"]["resourceVersion"]
        path = f"/apis/apps/v1/namespaces/{self.namespace}/deployments?watch=1&resourceVersion={rv}"
        return subprocess.Popen(self.base + ["get", "--raw", path], stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL, text=True)

    def items(self, resource: str) -> list[dict]:
        return json.loads(self.run("get", resource, "-o", "json"))["items"]

    def snapshot(self) -> dict:
        """What is compared: the Deployment's status, its ReplicaSets by revision, the pods."""
        deploys = self.items("deployments")
        out: dict = {"deployment": None}
        if deploys:
            [d] = deploys
            st = d.get("status") or {}
            out["deployment"] = {
                "revision": (d["metadata"].get("annotations") or {}).get(REVISION),
                "generation_observed": st.get("observedGeneration") == d["metadata"].get("generation"),
                "counts": {k: st.get(k, 0) for k in ("replicas", "updatedReplicas", "readyReplicas",
                                                      "availableReplicas", "unavailableReplicas",
                                                      "terminatingReplicas")},
                "conditions": [(c["type"], c["status"], c["reason"]) for c in st.get("conditions") or []]}
        rss = []
        for rs in self.items("replicasets"):
            ann = rs["metadata"].get("annotations") or {}
            rss.append({"revision": ann.get(REVISION), "history": ann.get("deployment.kubernetes.io/revision-history"),
                        "desired": ann.get("deployment.kubernetes.io/desired-replicas"),
                        "max": ann.get("deployment.kubernetes.io/max-replicas"),
                        "replicas": rs["spec"].get("replicas"), "status_replicas": rs["status"].get("replicas", 0),
                        "ready": rs["status"].get("readyReplicas", 0)})
        out["replicasets"] = sorted(rss, key=lambda x: int(x["revision"] or 0))
        pods = self.items("pods")
        out["pods"] = len(pods)
        out["terminating"] = sum(1 for p in pods if p["metadata"].get("deletionTimestamp"))
        return out


def settled(snap: dict, step: str) -> bool:
    if step == "delete":
        return snap["deployment"] is None and not snap["replicasets"] and not snap["pods"]
    d = snap["deployment"]
    if d is None or not d["generation_observed"] or snap["terminating"]:
        return False
    c = d["counts"]
    want = 5 if step not in ("create", "set image") else 3
    return (c["replicas"] == c["updatedReplicas"] == c["availableReplicas"] == want == snap["pods"]
            and not c["unavailableReplicas"]
            and all(rs["status_replicas"] == rs["replicas"] for rs in snap["replicasets"]))


def wait_settled(side: Side, step: str, deadline_s: float = 60.0) -> dict:
    """Poll until the rollout is done and two reads half a second apart agree."""
    deadline = time.monotonic() + deadline_s
    last = None
    while time.monotonic() < deadline:
        snap = side.snapshot()
        if settled(snap, step) and snap == last:
            return snap
        last = snap if settled(snap, step) else None
        time.sleep(0.5)
    pytest.fail(f"{side.name}: not settled {deadline_s:.0f}s after {step}: {side.snapshot()}")


@pytest.fixture
def lab_side(lab_kubeconfig, tmp_path):
    ns = f"kcm-sim-{uuid.uuid4().hex[:6]}"
    side = Side("lab", lab_kubeconfig, ns, str(tmp_path / "lab-cache"))
    subprocess.run([KUBECTL, "--kubeconfig", lab_kubeconfig, "create", "namespace", ns], check=True,
                   capture_output=True, timeout=30)
    kubelet_script = os.path.join(os.environ.get("LAB_DIR", ""), "fake-kubelet.py")
    if not os.path.exists(kubelet_script):
        pytest.skip("no lab: $LAB_DIR/fake-kubelet.py is missing")
    kubelet = subprocess.Popen([sys.executable, kubelet_script, lab_kubeconfig, ns, "1"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        yield side
    finally:
        kubelet.terminate()
        kubelet.wait(10)
        subprocess.run([KUBECTL, "--kubeconfig", lab_kubeconfig, "delete", "namespace", ns, "--wait=false"],
                       capture_output=True, timeout=30)


@pytest.fixture
def sim_side(tmp_path):
    sim = SimServer().start()
    ns = "kcm-sim"
    sim.store.create("namespaces", {"metadata": {"name": ns}})
    sim.store.pod_stop_seconds = 0.2  # the lab's pods have no node: a delete removes them at once
    manager = ControllerManager(sim.store, pod_start_seconds=1.0).start()
    try:
        yield Side("sim", sim.write_kubeconfig(str(tmp_path / "kubeconfig")), ns, str(tmp_path / "sim-cache"))
    finally:
        manager.stop()
        sim.stop()


def reasons(watch: subprocess.Popen) -> list[str]:
    """The Progressing reasons a watch saw up to the Deployment's deletion, repeats collapsed."""
    seen: list[str] = []
    try:
        for line in watch.stdout:  # the raw watch flushes one JSON event per line
            event = json.loads(line)
            if event["type"] == "DELETED":
                break
            reason = next((c["reason"] for c in (event["object"].get("status") or {}).get("conditions") or []
                           if c["type"] == "Progressing"), None)
            if reason and (not seen or seen[-1] != reason):
                seen.append(reason)
    finally:
        watch.terminate()
        watch.wait(10)
    return seen


def test_a_rollout_ends_each_step_the_same_on_the_lab_and_the_simulator(lab_side, sim_side):
    differences = []
    watches = [side.watch_progressing() for side in (lab_side, sim_side)]
    for step, args in STEPS:
        for side in (lab_side, sim_side):
            side.run(*args)
        lab, sim = wait_settled(lab_side, step), wait_settled(sim_side, step)
        print(f"after {step}: lab {lab}")  # shown with -s: what was compared
        if lab != sim:
            differences.append(f"after {step}:\n  lab: {lab}\n  sim: {sim}")
    # What the watches saw between the steps: the condition's path, e.g. NewReplicaSetCreated →
    # ReplicaSetUpdated → NewReplicaSetAvailable for a new template, no change for a scale.
    lab_seen, sim_seen = (reasons(w) for w in watches)
    print(f"Progressing reasons: lab {lab_seen}")
    if lab_seen != sim_seen:
        differences.append(f"Progressing reasons seen:\n  lab: {lab_seen}\n  sim: {sim_seen}")
    assert not differences, "\n".join(differences)
