"""The demo controller's reconcile for ``--demo stale``: a ReplicaSet
controller's ``syncReplicaSet`` on the simulator, with kube-controller-manager
v1.36's read-your-own-writes check.

For each ReplicaSet key the sample controller's worker takes:

1. ``ConsistencyStore.ensure_ready(key)``: while the Pod or ReplicaSet
   informer's store has not read the RV of this controller's last write for
   the key, ``ConsistencyError``: the worker skips the sync and requeues the
   key rate-limited (``stale_sync_skips_total``, ``queue.stale_skip``);
2. the ReplicaSet from the cache (gone: the record is cleared);
3. its pods from the Pod cache (the controller ownerReference's UID is the
   ReplicaSet's; terminating pods left out), then ``manageReplicas``: create
   the missing pods or delete the surplus (the newest first), recording each
   write's RV (``wrote_at``);
4. the status (``replicas``, ``observedGeneration``) written when it
   changed, and its RV recorded too (``updateReplicaSetStatus``).

What differs from kube-controller-manager: no expectations
(``ControllerExpectations``, which in the real controller also hold back a
second round of creates), so the stale cache's effect shows plainly; no
adoption or orphaning; pod names ``<rs>-<n>``. Writes go to the simulator's
store in this process only: the plugin never writes to a real cluster.
"""

from __future__ import annotations

import itertools
from typing import Any

from kubectl_informer.core.apierrors import ApiError
from kubectl_informer.core.trace import NULL_TRACER, Tracer
from kubectl_informer.core.trace_kinds import CONTROLLER_WRITE
from kubectl_informer.run.consistency import GroupResource
from kubectl_informer.run.owners import controller_of

PODS = GroupResource("", "pods")
REPLICASETS = GroupResource("apps", "replicasets")


def _meta(obj: Any) -> dict:
    meta = obj.get("metadata") if isinstance(obj, dict) else None
    return meta if isinstance(meta, dict) else {}


def _owned_by(pod: Any, uid: str) -> bool:
    ref = controller_of(pod)
    return ref is not None and ref.get("uid") == uid and not _meta(pod).get("deletionTimestamp")


class ReplicaSync:
    """``sync(key)`` for the sample controller (raises ``ConsistencyError``
    while the caches are behind this controller's own writes).

    ``sim_store``: the simulator's store (``create``, ``update``, ``delete``,
    ``list``); ``rs_store``/``pod_store``: the informers' indexers;
    ``consistency``: a ConsistencyStore (or the switchable one)."""

    def __init__(
        self, sim_store: Any, rs_store: Any, pod_store: Any, consistency: Any, tracer: Tracer | None = None
    ) -> None:
        self.sim = sim_store
        self.rs_store, self.pod_store = rs_store, pod_store
        self.consistency = consistency
        self.tracer = tracer or NULL_TRACER
        self._names = itertools.count(1)
        self.creates = self.deletes = self.duplicates = self.status_writes = 0

    def sync(self, key: str) -> None:
        self.consistency.ensure_ready(key)
        rs, exists = self.rs_store.get_by_key(key)
        if not exists:
            self.consistency.clear(key, "")
            return
        meta = _meta(rs)
        uid, ns, name = meta.get("uid") or "", meta.get("namespace") or "", meta.get("name") or ""
        pods = [p for p in self.pod_store.list() if _meta(p).get("namespace") == ns and _owned_by(p, uid)]
        want = int((rs.get("spec") or {}).get("replicas") or 0)
        diff = len(pods) - want
        if diff < 0:
            for _ in range(-diff):
                self._create(key, rs, uid, ns, name, want)
        elif diff > 0:
            newest = sorted(pods, key=lambda p: int(_meta(p).get("resourceVersion") or 0), reverse=True)
            for pod in newest[:diff]:
                self._delete(key, uid, pod)
        self._update_status(key, rs, uid, len(pods))

    # -- writes ---------------------------------------------------------------
    def _server_pods(self, ns: str, uid: str) -> int:
        """How many live pods the server holds for the ReplicaSet (the truth,
        read only to tell a duplicate create: the controller never sees it)."""
        return sum(1 for p in self.sim.list("pods", ns) if _owned_by(p, uid))

    def _create(self, key: str, rs: dict, uid: str, ns: str, name: str, want: int) -> None:
        duplicate = self._server_pods(ns, uid) >= want
        template = (rs.get("spec") or {}).get("template") or {}
        pod = {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {
                "name": f"{name}-{next(self._names)}",
                "namespace": ns,
                "labels": dict((template.get("metadata") or {}).get("labels") or {}),
                "ownerReferences": [
                    {
                        "apiVersion": "apps/v1",
                        "kind": "ReplicaSet",
                        "name": name,
                        "uid": uid,
                        "controller": True,
                        "blockOwnerDeletion": True,
                    }
                ],
            },
            "spec": dict(template.get("spec") or {"containers": [{"name": "app", "image": "nginx"}]}),
        }
        made = self.sim.create("pods", pod, manager="kube-controller-manager")
        self.creates += 1
        self.duplicates += duplicate
        self._wrote(key, uid, PODS, made, "create", duplicate)

    def _delete(self, key: str, uid: str, pod: dict) -> None:
        meta = _meta(pod)
        try:
            gone = self.sim.delete("pods", meta.get("namespace"), meta.get("name"))
        except ApiError as e:
            if e.status == 404:  # already gone (a stale cache's second delete): as the controller, ignore
                return
            raise
        self.deletes += 1
        self._wrote(key, uid, PODS, gone, "delete", False)

    def _update_status(self, key: str, rs: dict, uid: str, replicas: int) -> None:
        status = rs.get("status") or {}
        generation = _meta(rs).get("generation")
        if status.get("replicas") == replicas and status.get("observedGeneration") == generation:
            return  # updateReplicaSetStatus: nothing changed, nothing written
        new = {
            **rs,
            "metadata": dict(_meta(rs)),
            "status": {**status, "replicas": replicas, "observedGeneration": generation},
        }
        try:
            updated = self.sim.update("replicasets", new, subresource="status", manager="kube-controller-manager")
        except ApiError as e:
            if e.status in (404, 409):  # gone, or our cached copy is old: the next sync tries again
                return
            raise
        self.status_writes += 1
        self._wrote(key, uid, REPLICASETS, updated, "update_status", False)

    def _wrote(self, key: str, uid: str, gr: GroupResource, obj: dict, verb: str, duplicate: bool) -> None:
        rv = str(_meta(obj).get("resourceVersion") or "")
        self.consistency.wrote_at(key, uid, gr, rv)
        if self.tracer.enabled:
            self.tracer.emit(
                CONTROLLER_WRITE,
                key,
                verb=verb,
                resource=str(gr),
                name=str(_meta(obj).get("name")),
                resource_version=rv,
                duplicate=duplicate,
                consistency=bool(getattr(self.consistency, "enabled", True)),
            )

    def stats(self) -> dict[str, int]:
        return {
            "creates": self.creates,
            "deletes": self.deletes,
            "duplicates": self.duplicates,
            "status_writes": self.status_writes,
        }
