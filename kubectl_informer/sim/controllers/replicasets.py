"""The ReplicaSet controller (pkg/controller/replicaset), simulated:
``syncReplicaSet`` manages replicas only when the ReplicaSet's expectations
are satisfied (``expectations``: the pods it created and deleted last time
were all observed), creates in slow-start batches of 1, 2, 4, …
(``slowStartBatch``), at most ``burstReplicas`` (500) per sync, deletes the
pods ``getPodsToDelete`` ranks first (``podorder``), and writes the status
counted from the pods it saw before managing them (``calculateStatus``),
terminatingReplicas included (DeploymentReplicaSetTerminatingReplicas, on
since 1.35).

Only pods whose controller reference is the ReplicaSet (by UID) count;
active pods with no controller reference that its selector matches are
adopted first (``claimPods``). A selector ``LabelSelectorAsSelector``
refuses ends the sync with a logged error and no write, as syncReplicaSet's
``HandleError`` and ``return nil`` do.
"""

from __future__ import annotations

import copy
import logging
from typing import TYPE_CHECKING

from kubectl_informer.core.apierrors import ApiError
from kubectl_informer.core.label_selector import SelectorError
from kubectl_informer.sim.controllers.expectations import (
    BURST_REPLICAS,
    SLOW_START_INITIAL_BATCH_SIZE,
    ControllerExpectations,
    slow_start_batch,
)
from kubectl_informer.sim.controllers.owners import (
    as_selector,
    claim,
    controller_ref,
    get_or_none,
    is_deleting,
    new_controller_ref,
)
from kubectl_informer.sim.controllers.podorder import is_active, is_ready, pods_to_delete
from kubectl_informer.sim.controllers.rollout import desired_replicas

if TYPE_CHECKING:
    from kubectl_informer.sim.events import EventRecorder
    from kubectl_informer.sim.store import Store

BURST = BURST_REPLICAS
log = logging.getLogger(__name__)


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
        c.setdefault(
            "imagePullPolicy",
            "Always" if c.get("image", "").endswith(":latest") or ":" not in c.get("image", "") else "IfNotPresent",
        )
        c.setdefault("terminationMessagePath", "/dev/termination-log")
        c.setdefault("terminationMessagePolicy", "File")
    pod_meta = {
        "generateName": rs["metadata"]["name"] + "-",
        "namespace": rs["metadata"]["namespace"],
        "labels": dict(meta.get("labels") or {}),
        "ownerReferences": [new_controller_ref(rs)],
    }
    if meta.get("annotations"):
        pod_meta["annotations"] = dict(meta["annotations"])
    return {"apiVersion": "v1", "kind": "Pod", "metadata": pod_meta, "spec": spec}


def _terminating(pod: dict) -> bool:
    """IsPodTerminating: being deleted and not finished."""
    return bool(pod["metadata"].get("deletionTimestamp")) and (pod.get("status") or {}).get("phase") not in (
        "Succeeded",
        "Failed",
    )


def sync(
    store: Store,
    namespace: str,
    name: str,
    expectations: ControllerExpectations | None = None,
    events: EventRecorder | None = None,
) -> list[tuple[str, str, str]]:
    """syncReplicaSet. Returns the pods created (namespace, name, uid) so
    their start can be scheduled. ``events``: an EventRecorder for
    SuccessfulCreate/SuccessfulDelete, or None."""
    expectations = expectations if expectations is not None else ControllerExpectations()
    key = f"{namespace}/{name}"
    rs = get_or_none(store, "replicasets", namespace, name)
    if rs is None:
        expectations.delete(key)
        return []
    needs_sync = expectations.satisfied(key)
    try:
        selector = as_selector((rs.get("spec") or {}).get("selector"))
    except SelectorError as e:
        log.warning("error converting pod selector to selector for rs %s/%s: %s", namespace, name, e)
        return []
    in_ns = store.list("pods", namespace)  # the pod lister's view, listed once for this sync
    uid = rs["metadata"]["uid"]
    pods = [p for p in in_ns if (controller_ref(p) or {}).get("uid") == uid]
    # claimPods: the active pods it controls, active orphans its selector matches adopted.
    active = claim(store, "pods", rs, selector, keep=is_active, objs=in_ns)
    created: list = []
    err = None
    if needs_sync and not is_deleting(rs):
        created, err = _manage(store, rs, key, active, expectations, events, in_ns)
    _update_status(store, rs, active, [p for p in pods if _terminating(p)])
    if err is not None:
        raise err
    return created


def _manage(
    store: Store,
    rs: dict,
    key: str,
    active: list[dict],
    expectations: ControllerExpectations,
    events: EventRecorder | None,
    in_ns: list[dict],
) -> tuple[list[tuple[str, str, str]], Exception | None]:
    """manageReplicas: (pods created, the first error or None)."""
    diff = len(active) - desired_replicas(rs)
    if diff < 0:
        n = min(-diff, BURST)
        expectations.expect_creations(key, n)
        made: list[dict] = []
        successes, err = slow_start_batch(
            n, SLOW_START_INITIAL_BATCH_SIZE, lambda: made.append(_create_pod(store, rs, events))
        )
        for _ in range(n - successes):  # the skipped ones will not be observed
            expectations.creation_observed(key)
        return [(m["metadata"]["namespace"], m["metadata"]["name"], m["metadata"]["uid"]) for m in made], err
    if diff > 0:
        victims = pods_to_delete(active, _related_pods(store, rs, in_ns), min(diff, BURST))
        expectations.expect_deletions(key, [f"{p['metadata']['namespace']}/{p['metadata']['name']}" for p in victims])
        err = None
        for p in victims:
            err = _delete_pod(store, rs, key, p, expectations, events) or err
        return [], err
    return [], None


def _create_pod(store: Store, rs: dict, events: EventRecorder | None) -> dict:
    made = store.create("pods", new_pod(rs), manager="kube-controller-manager")
    _record(events, rs, "SuccessfulCreate", f"Created pod: {made['metadata']['name']}")
    return made


def _delete_pod(
    store: Store, rs: dict, key: str, pod: dict, expectations: ControllerExpectations, events: EventRecorder | None
) -> ApiError | None:
    meta = pod["metadata"]
    try:
        store.delete("pods", meta["namespace"], meta["name"], grace_period=None)
    except ApiError as e:
        expectations.deletion_observed(key, f"{meta['namespace']}/{meta['name']}")
        return None if e.status == 404 else e
    _record(events, rs, "SuccessfulDelete", f"Deleted pod: {meta['name']}")
    return None


def _related_pods(store: Store, rs: dict, in_ns: list[dict]) -> list[dict]:
    """getIndirectlyRelatedPods: the pods (of ``in_ns``, the namespace's) selected
    by every ReplicaSet with the same controller (this one included); none
    without a controller."""
    ref = controller_ref(rs)
    if ref is None:
        return []
    selectors = []
    for other in store.list("replicasets", rs["metadata"]["namespace"]):
        if (controller_ref(other) or {}).get("uid") != ref.get("uid"):
            continue
        try:
            selectors.append(as_selector((other.get("spec") or {}).get("selector")))
        except SelectorError:
            continue  # an invalid selector matches no pod
    return [p for p in in_ns if any(s.matches(p["metadata"].get("labels")) for s in selectors)]


def _record(events: EventRecorder | None, rs: dict, reason: str, message: str) -> None:
    if events is not None:
        events.record(rs, "Normal", reason, message, "replicaset-controller")


def _update_status(store: Store, rs: dict, pods: list[dict], terminating: list[dict]) -> None:
    """calculateStatus and updateReplicaSetStatus (written only when it changed; a failed
    write is tried once more on the ReplicaSet as read again, the status unchanged)."""
    labels = (((rs.get("spec") or {}).get("template") or {}).get("metadata") or {}).get("labels") or {}
    ready = sum(1 for p in pods if is_ready(p))
    status = dict(rs.get("status") or {})
    status.update(
        {
            "replicas": len(pods),
            "fullyLabeledReplicas": sum(
                1 for p in pods if labels.items() <= (p["metadata"].get("labels") or {}).items()
            ),
            "readyReplicas": ready,
            "availableReplicas": ready,  # minReadySeconds 0: ready is available
            "terminatingReplicas": len(terminating),
            "observedGeneration": rs["metadata"].get("generation", 1),
        }
    )
    for k in ("readyReplicas", "availableReplicas", "fullyLabeledReplicas"):
        if not status[k]:
            status.pop(k)  # omitempty, as the Go type writes it (terminatingReplicas is a pointer: 0 shown)
    if status == (rs.get("status") or {}):
        return
    for retry in (False, True):  # statusUpdateRetries: once more on the ReplicaSet read again
        try:
            store.update(
                "replicasets", {**rs, "status": status}, subresource="status", manager="kube-controller-manager"
            )
            return
        except ApiError:
            if retry:
                raise
            rs = store.get("replicasets", rs["metadata"]["namespace"], rs["metadata"]["name"])
