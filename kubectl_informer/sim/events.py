"""core/v1 Events the simulated cluster's components record for what the
scenarios do (a pod scheduled, started, restarting, stopped), so ``kubectl
get events -w`` and ``kubectl informer watch events`` have traffic.

Like kube-apiserver's event TTL, old events go: a namespace keeps its last
``limit`` events, the oldest deleted first, so a long run stays bounded.

The components named in ``correlated`` (the simulated kube-controller-manager's
controllers) go through client-go's event correlator first
(``event_correlator``): repeats counted on one event, similar ones combined,
a burst per object then one every five minutes.
"""

from __future__ import annotations

import contextlib
import secrets
from collections import deque
from typing import TYPE_CHECKING

from kubectl_informer.clock import Clock
from kubectl_informer.core.apierrors import ApiError
from kubectl_informer.sim.event_correlator import EventCorrelator
from kubectl_informer.sim.strategy import now_rfc3339

if TYPE_CHECKING:
    from kubectl_informer.sim.store import Store

NORMAL, WARNING = "Normal", "Warning"


class EventRecorder:
    """Records Events about objects into a store: one per call, or for a
    component in ``correlated`` what its ``EventCorrelator`` decides."""

    def __init__(
        self, store: Store, limit: int = 200, clock: Clock | None = None, correlated: frozenset[str] = frozenset()
    ):
        self.store = store
        self.limit = limit
        self._names: dict[str, deque] = {}
        self._correlators = {c: EventCorrelator(clock) for c in correlated}

    def record(self, obj: dict, type_: str, reason: str, message: str, component: str, host: str = "") -> dict | None:
        meta = obj.get("metadata") or {}
        ns = meta.get("namespace") or "default"
        now = now_rfc3339()
        event = {
            "metadata": {"name": f"{meta.get('name', 'object')}.{secrets.token_hex(8)}", "namespace": ns},
            "involvedObject": {
                "kind": obj.get("kind", ""),
                "namespace": ns,
                "name": meta.get("name", ""),
                "uid": meta.get("uid", ""),
                "apiVersion": obj.get("apiVersion", ""),
                "resourceVersion": meta.get("resourceVersion", ""),
            },
            "reason": reason,
            "message": message,
            "type": type_,
            "source": {"component": component, **({"host": host} if host else {})},
            "firstTimestamp": now,
            "lastTimestamp": now,
            "count": 1,
            "reportingComponent": component,
            "reportingInstance": host,
        }
        correlator = self._correlators.get(component)
        if correlator is None:
            return self._create(ns, event)
        return self._correlated(correlator, ns, event)

    def _correlated(self, correlator: EventCorrelator, ns: str, event: dict) -> dict | None:
        """recordToSink: drop, patch the event already written (count up), or create."""
        out, name = correlator.correlate(event)
        if out is None:
            return None
        if name is not None:
            try:
                old = self.store.get("events", ns, name)
                made = self.store.update(
                    "events",
                    {
                        **old,
                        "count": int(old.get("count") or 1) + 1,
                        "lastTimestamp": out["lastTimestamp"],
                        "message": out["message"],
                    },
                )
                correlator.written(made, out)
                return made
            except ApiError:
                pass  # gone (the limit pruned it): created again, as on a 404
        created = self._create(ns, {**out, "count": 1, "firstTimestamp": out["lastTimestamp"]})
        if created is not None:
            correlator.written(created, out)
        return created

    def _create(self, ns: str, event: dict) -> dict | None:
        try:
            made = self.store.create("events", event)
        except ApiError:
            return None  # the namespace is going away
        names = self._names.setdefault(ns, deque())
        names.append(made["metadata"]["name"])
        while len(names) > self.limit:
            old = names.popleft()
            with contextlib.suppress(ApiError):
                self.store.delete("events", ns, old)
        return made


def pod_events(rec: EventRecorder, before: dict | None, after: dict | None) -> None:
    """The events the scheduler and kubelet record for a pod's change."""
    pod = after or before
    if pod is None:
        return
    node = (pod.get("spec") or {}).get("nodeName", "")
    cname = (((pod.get("spec") or {}).get("containers") or [{}])[0]).get("name", "app")
    ns, name = pod["metadata"].get("namespace", ""), pod["metadata"].get("name", "")
    if before is None:
        rec.record(pod, NORMAL, "Scheduled", f"Successfully assigned {ns}/{name} to {node}", "default-scheduler")
        return
    if after is None:
        rec.record(pod, NORMAL, "Killing", f"Stopping container {cname}", "kubelet", node)
        return
    old_phase = (before.get("status") or {}).get("phase")
    new_phase = (after.get("status") or {}).get("phase")
    if old_phase != "Running" and new_phase == "Running":
        rec.record(pod, NORMAL, "Started", f"Started container {cname}", "kubelet", node)
    elif _restarts(after) > _restarts(before):
        rec.record(
            pod,
            WARNING,
            "BackOff",
            f"Back-off restarting failed container {cname} in pod {name}_{ns}({pod['metadata'].get('uid', '')})",
            "kubelet",
            node,
        )


def _restarts(pod: dict) -> int:
    return sum(int(c.get("restartCount") or 0) for c in (pod.get("status") or {}).get("containerStatuses") or [])
