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
import subprocess
import time

import pytest

from tests.lab.sides import Side

pytestmark = [pytest.mark.lab, pytest.mark.long_wait]

STEPS = [
    ("create", ["create", "deployment", "web", "--image=nginx:1.27", "--replicas=3"]),
    ("set image", ["set", "image", "deployment/web", "nginx=nginx:1.28"]),
    ("scale", ["scale", "deployment/web", "--replicas=5"]),
    ("undo", ["rollout", "undo", "deployment/web"]),
    ("restart", ["rollout", "restart", "deployment/web"]),
    ("pause", ["rollout", "pause", "deployment/web"]),
    ("set image while paused", ["set", "image", "deployment/web", "nginx=nginx:1.29"]),
    ("resume", ["rollout", "resume", "deployment/web"]),
    ("delete orphan", ["delete", "deployment", "web", "--cascade=orphan"]),
    # A new web adopts the orphaned ReplicaSets (its selector matches them); its template has no
    # restartedAt annotation, so none is its new one: a rollout to a sixth revision.
    ("create again", ["create", "deployment", "web", "--image=nginx:1.29", "--replicas=5"]),
    ("delete", ["delete", "deployment", "web"]),
]
RECREATE_STEPS = [
    ("create", ["create", "deployment", "web", "--image=nginx:1.27", "--replicas=3"]),
    ("recreate", ["patch", "deployment/web", "-p", '{"spec":{"strategy":{"type":"Recreate","rollingUpdate":null}}}']),
    ("set image", ["set", "image", "deployment/web", "nginx=nginx:1.28"]),
    ("scale", ["scale", "deployment/web", "--replicas=4"]),
    ("undo", ["rollout", "undo", "deployment/web"]),
    ("delete", ["delete", "deployment", "web"]),
]


def settled(snap: dict, step: str) -> bool:
    if step == "delete":
        return snap["deployment"] is None and not snap["replicasets"] and not snap["pods"]
    if step == "delete orphan":
        return snap["deployment"] is None and not any(rs["owned"] for rs in snap["replicasets"]) and snap["pods"] == 5
    d = snap["deployment"]
    if d is None or not d["generation_observed"] or snap["terminating"]:
        return False
    c = d["counts"]
    want = d["spec_replicas"]
    if step == "set image while paused":  # no new ReplicaSet while paused: none of the pods is updated
        return c["replicas"] == c["availableReplicas"] == want == snap["pods"] and not c["updatedReplicas"]
    return (
        c["replicas"] == c["updatedReplicas"] == c["availableReplicas"] == want == snap["pods"]
        and not c["unavailableReplicas"]
        and all(rs["status_replicas"] == rs["replicas"] for rs in snap["replicasets"])
    )


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


def reasons(watch: subprocess.Popen, deletions: int) -> tuple[list[str], int]:
    """The Progressing reasons a watch saw up to the Deployment's last deletion, repeats
    collapsed ("|" where one Deployment was deleted), and how many events it saw."""
    seen: list[str] = []
    n = 0
    try:
        for line in watch.stdout:  # the raw watch flushes one JSON event per line
            n += 1
            event = json.loads(line)
            if event["type"] == "DELETED":
                seen.append("|")
                deletions -= 1
                if not deletions:
                    break
                continue
            reason = next(
                (
                    c["reason"]
                    for c in (event["object"].get("status") or {}).get("conditions") or []
                    if c["type"] == "Progressing"
                ),
                None,
            )
            if reason and (not seen or seen[-1] != reason):
                seen.append(reason)
    finally:
        watch.terminate()
        watch.wait(10)
    return seen, n


def compare(lab_side: Side, sim_side: Side, steps: list) -> None:
    differences = []
    watches = [side.raw_watch(side.path("deployments")) for side in (lab_side, sim_side)]
    for step, args in steps:
        for side in (lab_side, sim_side):
            side.run(*args)
        lab, sim = wait_settled(lab_side, step), wait_settled(sim_side, step)
        print(f"after {step}: lab {lab}")  # shown with -s: what was compared
        if lab != sim:
            differences.append(f"after {step}:\n  lab: {lab}\n  sim: {sim}")
    # What the watches saw between the steps: the condition's path, e.g. NewReplicaSetCreated →
    # ReplicaSetUpdated → NewReplicaSetAvailable for a new template, no change for a scale.
    deletions = sum(1 for step, _ in steps if step.startswith("delete"))
    (lab_seen, lab_n), (sim_seen, sim_n) = (reasons(w, deletions) for w in watches)
    print(f"Progressing reasons: lab {lab_seen}")
    print(f"Deployment events: lab {lab_n}, sim {sim_n}")  # timing-dependent: shown, not compared
    if lab_seen != sim_seen:
        differences.append(f"Progressing reasons seen:\n  lab: {lab_seen}\n  sim: {sim_seen}")
    assert not differences, "\n".join(differences)


def test_a_rollout_ends_each_step_the_same_on_the_lab_and_the_simulator(lab_side, sim_side):
    compare(lab_side, sim_side, STEPS)


def test_a_recreate_rollout_ends_each_step_the_same(lab_side, sim_side):
    compare(lab_side, sim_side, RECREATE_STEPS)
