"""A pod's life after its ReplicaSet creates it: the scheduler binds it to a
node at once, and the kubelet starts its containers ``start_seconds`` later
(on the controllers' clock), when it turns Running and Ready.

``advance`` moves one pod one step and says when to call it again.
"""

from __future__ import annotations

import zlib
from typing import TYPE_CHECKING

from kubectl_informer.sim.controllers.owners import get_or_none, is_deleting
from kubectl_informer.sim.controllers.podorder import is_active as is_active  # re-exported
from kubectl_informer.sim.controllers.podorder import is_ready
from kubectl_informer.sim.objects import pod_status
from kubectl_informer.sim.strategy import now_rfc3339

if TYPE_CHECKING:
    from kubectl_informer.sim.events import EventRecorder
    from kubectl_informer.sim.store import Store

NODES = ("node-1", "node-2", "node-3")


pod_ready = is_ready  # podutil.IsPodReady


def _ip(name: str) -> str:
    n = zlib.crc32(name.encode())
    return f"10.244.{n % 250}.{n // 250 % 250 + 2}"


def _scheduled_status(pod: dict) -> dict:
    now = now_rfc3339()
    containers = (pod.get("spec") or {}).get("containers") or [{}]
    return {
        "phase": "Pending",
        "qosClass": "BestEffort",
        "hostIP": "172.18.0.2",
        "startTime": now,
        "conditions": [{"type": "PodScheduled", "status": "True", "lastProbeTime": None, "lastTransitionTime": now}],
        "containerStatuses": [
            {
                "name": c.get("name", ""),
                "image": c.get("image", ""),
                "imageID": "",
                "ready": False,
                "restartCount": 0,
                "started": False,
                "state": {"waiting": {"reason": "ContainerCreating"}},
            }
            for c in containers
        ],
    }


def advance(
    store: Store, namespace: str, name: str, uid: str, start_seconds: float, events: EventRecorder | None = None
) -> float | None:
    """One step of the pod's start: bind it (then wait ``start_seconds``), or
    start it. None when there is nothing more to do (running, gone, replaced).
    ``events``: an EventRecorder for Scheduled and Started, or None."""
    pod = get_or_none(store, "pods", namespace, name)
    if pod is None or pod["metadata"].get("uid") != uid or is_deleting(pod):
        return None
    spec = pod.setdefault("spec", {})
    if not spec.get("nodeName"):
        spec["nodeName"] = NODES[zlib.crc32(name.encode()) % len(NODES)]
        store.update("pods", pod)  # the scheduler's binding
        pod = store.get("pods", namespace, name)
        pod["status"] = _scheduled_status(pod)
        store.update("pods", pod, subresource="status")
        if events is not None:
            events.record(
                pod,
                "Normal",
                "Scheduled",
                f"Successfully assigned {namespace}/{name} to {spec['nodeName']}",
                "default-scheduler",
            )
        return start_seconds
    if (pod.get("status") or {}).get("phase") == "Pending":
        containers = spec.get("containers") or [{}]
        pod["status"] = pod_status(
            "Running", _ip(name), app=containers[0].get("name", ""), image=containers[0].get("image", "")
        )
        pod["status"]["containerStatuses"] = [
            {**pod["status"]["containerStatuses"][0], "name": c.get("name", ""), "image": c.get("image", "")}
            for c in containers
        ]
        store.update("pods", pod, subresource="status")  # the kubelet: containers started, probes pass
        if events is not None:
            for c in containers:
                events.record(
                    pod, "Normal", "Started", f"Started container {c.get('name', '')}", "kubelet", spec["nodeName"]
                )
    return None
