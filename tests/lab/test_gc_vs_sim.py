"""The garbage collector on the lab and on the simulator: a ReplicaSet whose
owner Deployment is not there (a UID nobody has) is collected; a Deployment
deleted in the foreground has its ReplicaSet deleted in the foreground (it
has pods) and its pods in the background (leaves: ``attemptToDeleteItem``
deletes in the foreground only a dependent that has dependents)."""

from __future__ import annotations

import json
import subprocess
import time

import pytest

from tests.lab.sides import Side

pytestmark = [pytest.mark.lab, pytest.mark.long_wait]

DANGLING_RS = {
    "apiVersion": "apps/v1",
    "kind": "ReplicaSet",
    "metadata": {
        "name": "gone-legacy",
        "labels": {"app": "legacy"},
        "ownerReferences": [
            {
                "apiVersion": "apps/v1",
                "kind": "Deployment",
                "name": "gone",
                "uid": "00000000-0000-4000-8000-00000000beef",
                "controller": True,
                "blockOwnerDeletion": True,
            }
        ],
    },
    "spec": {
        "replicas": 0,
        "selector": {"matchLabels": {"app": "legacy"}},
        "template": {
            "metadata": {"labels": {"app": "legacy"}},
            "spec": {"containers": [{"name": "nginx", "image": "nginx"}]},
        },
    },
}


def wait(side: Side, what: str, ok, deadline_s: float = 30.0):
    deadline = time.monotonic() + deadline_s
    while time.monotonic() < deadline:
        if ok():
            return
        time.sleep(0.2)
    pytest.fail(f"{side.name}: {what} within {deadline_s:.0f}s")


def finalizers_until_deleted(watch: subprocess.Popen, names: set[str]) -> set[str]:
    """Every finalizer the watched objects carried, read until each of ``names`` was deleted."""
    seen: set[str] = set()
    left = set(names)
    try:
        for line in watch.stdout:
            event = json.loads(line)
            meta = event["object"]["metadata"]
            seen.update(meta.get("finalizers") or [])
            if event["type"] == "DELETED":
                left.discard(meta["name"])
                if not left:
                    break
    finally:
        watch.terminate()
        watch.wait(10)
    return seen


def run_steps(side: Side) -> dict:
    side.run("create", "deployment", "web", "--image=nginx:1.27", "--replicas=2")
    wait(side, "2 pods ready", lambda: side.items("deployments")[0].get("status", {}).get("availableReplicas") == 2)
    r = subprocess.run(
        side.base + ["create", "-f", "-"], input=json.dumps(DANGLING_RS), capture_output=True, text=True, timeout=30
    )
    assert r.returncode == 0, r.stderr
    wait(
        side,
        "the ReplicaSet with a missing owner collected",
        lambda: "gone-legacy" not in {rs["metadata"]["name"] for rs in side.items("replicasets")},
    )
    pods = {p["metadata"]["name"] for p in side.items("pods")}
    [rs] = [rs["metadata"]["name"] for rs in side.items("replicasets")]
    watches = side.raw_watch(side.path("replicasets")), side.raw_watch(side.path("pods"))
    side.run("delete", "deployment", "web", "--cascade=foreground", "--timeout=60s")
    return {
        "replicaset finalizers": finalizers_until_deleted(watches[0], {rs}),
        "pod finalizers": finalizers_until_deleted(watches[1], pods),
        "left": (side.items("deployments"), side.items("replicasets"), side.items("pods")),
    }


def test_dangling_owner_and_foreground_deletion_as_on_the_lab(lab_side, sim_side):
    lab, sim = run_steps(lab_side), run_steps(sim_side)
    print(f"lab: {lab}")  # shown with -s
    assert lab == sim
