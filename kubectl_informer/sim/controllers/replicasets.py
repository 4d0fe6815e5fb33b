"""The ReplicaSet controller (pkg/controller/replicaset), simulated: keep
``spec.replicas`` active pods owned by the ReplicaSet, creating them from its
template or deleting the least useful first, and report them in its status.

The store is read directly, so there are no informer caches to wait for
(the real controller's "expectations"). Orphans are not adopted.
"""

from __future__ import annotations

import copy

from kubectl_informer.sim.controllers.owners import get_or_none, is_deleting, new_controller_ref, owned_by
from kubectl_informer.sim.controllers.pods import is_active, pod_ready
from kubectl_informer.sim.controllers.rollout import desired_replicas

# The real controller creates or deletes at most this many pods per sync (burstReplicas).
BURST = 500
_PHASE_RANK = {"Pending": 0, "Unknown": 1, "Running": 2}


def new_pod(rs: dict) -> dict:
    """A pod from the ReplicaSet's template, named ``<rs>-<5 random>`` by generateName."""
    tmpl = copy.deepcopy((rs.get("spec") or {}).get("template") or {})
    meta = tmpl.get("metadata") or {}
    spec = tmpl.get("spec") or {}
    spec.setdefault("restartPolicy", "Always")
    spec.setdefault("terminationGracePeriodSeconds", 30)
    spec.setdefault("dnsPolicy", "ClusterFirst")
    spec.setdefault("schedulerName", "default-scheduler")
    for c in spec.get("containers") or []:
        c.setdefault("imagePullPolicy", "Always" if c.get("image", "").endswith(":latest")
                     or ":" not in c.get("image", "") else "IfNotPresent")
        c.setdefault("terminationMessagePath", "/dev/termination-log")
        c.setdefault("terminationMessagePolicy", "File")
    pod_meta = {"generateName": rs["metadata"]["name"] + "-", "namespace": rs["metadata"]["namespace"],
                "labels": dict(meta.get("labels") or {}), "ownerReferences": [new_controller_ref(rs)]}
    if meta.get("annotations"):
        pod_meta["annotations"] = dict(meta["annotations"])
    return {"apiVersion": "v1", "kind": "Pod", "metadata": pod_meta, "spec": spec}


def deletion_order(pods: list[dict]) -> list[dict]:
    """controller.ActivePods' order, the first to delete first: unscheduled
    before scheduled, Pending before Running, not ready before ready, then
    the newest first."""
    def rank(p: dict):
        status = p.get("status") or {}
        return (bool((p.get("spec") or {}).get("nodeName")), _PHASE_RANK.get(status.get("phase"), 1),
                pod_ready(p), _neg_time(p["metadata"].get("creationTimestamp", "")), p["metadata"]["name"])
    return sorted(pods, key=rank)


def _neg_time(ts: str) -> tuple:
    return tuple(-ord(ch) for ch in ts)  # newest first


def sync(store, namespace: str, name: str, events=None) -> list[tuple[str, str, str]]:
    """One reconcile of a ReplicaSet. Returns the pods created (namespace,
    name, uid) so their start can be scheduled. ``events``: an EventRecorder
    for SuccessfulCreate/SuccessfulDelete, or None."""
    rs = get_or_none(store, "replicasets", namespace, name)
    if rs is None:
        return []
    pods = [p for p in owned_by(store, "pods", rs) if is_active(p)]
    created = []
    if not is_deleting(rs):
        created = _manage(store, rs, pods, events)
        pods = [p for p in owned_by(store, "pods", rs) if is_active(p)]
    _update_status(store, rs, pods)
    return created


def _manage(store, rs: dict, pods: list[dict], events=None) -> list:
    diff = len(pods) - desired_replicas(rs)
    if diff < 0:
        made = [store.create("pods", new_pod(rs)) for _ in range(min(-diff, BURST))]
        for m in made:
            _record(events, rs, "SuccessfulCreate", f"Created pod: {m['metadata']['name']}")
        return [(m["metadata"]["namespace"], m["metadata"]["name"], m["metadata"]["uid"]) for m in made]
    for p in deletion_order(pods)[:min(diff, BURST)]:
        if get_or_none(store, "pods", p["metadata"]["namespace"], p["metadata"]["name"]) is not None:
            store.delete("pods", p["metadata"]["namespace"], p["metadata"]["name"], grace_period=None,
                         precondition_uid=p["metadata"]["uid"])
            _record(events, rs, "SuccessfulDelete", f"Deleted pod: {p['metadata']['name']}")
    return []


def _record(events, rs: dict, reason: str, message: str) -> None:
    if events is not None:
        events.record(rs, "Normal", reason, message, "replicaset-controller")


def _update_status(store, rs: dict, pods: list[dict]) -> None:
    labels = (((rs.get("spec") or {}).get("template") or {}).get("metadata") or {}).get("labels") or {}
    ready = sum(1 for p in pods if pod_ready(p))
    status = dict(rs.get("status") or {})
    status.update({
        "replicas": len(pods),
        "fullyLabeledReplicas": sum(1 for p in pods if labels.items() <= (p["metadata"].get("labels") or {}).items()),
        "readyReplicas": ready, "availableReplicas": ready,  # minReadySeconds 0: ready is available
        "observedGeneration": rs["metadata"].get("generation", 1)})
    for k in ("readyReplicas", "availableReplicas", "fullyLabeledReplicas"):
        if not status[k]:
            status.pop(k)  # omitempty, as the Go type writes it
    if status != (rs.get("status") or {}):
        store.update("replicasets", {**rs, "status": status}, subresource="status")
