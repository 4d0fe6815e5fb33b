"""kube-controller-manager's Deployment controller's shape
(``queue deployments --controller deployment``): its three informers and
exactly the event handlers ``NewDeploymentController`` registers
(``pkg/controller/deployment/deployment_controller.go``, v1.36):

- Deployments: ``addDeployment``, ``updateDeployment`` (every update, a
  resync too), ``deleteDeployment`` (a tombstone's object) enqueue the
  Deployment's key;
- ReplicaSets: ``addReplicaSet`` (a ReplicaSet already being deleted goes to
  ``deleteReplicaSet``; with a controller reference, the Deployment
  ``resolveControllerRef`` finds; an orphan, every Deployment
  ``getDeploymentsForReplicaSet`` finds by selector, so one may adopt it),
  ``updateReplicaSet`` (a resync, same resourceVersion, returns at once; a
  changed controller reference enqueues the old owner too; an orphan's
  candidates only when its labels or its controller reference changed),
  ``deleteReplicaSet`` (a tombstone's object; an orphan enqueues nothing);
- Pods: only ``deletePod``: the Deployment of the pod's ReplicaSet
  (``getDeploymentForPod``), and only when it is a Recreate Deployment with
  no pod left (``getPodMapForDeployment`` counts the pods cache's pods whose
  controller is one of its ReplicaSets). Pod adds and updates have no
  handler.

``resolveControllerRef`` compares the reference's kind (not its group) with
Deployment, looks the name up in the Deployments cache in the object's
namespace and requires the reference's UID. One deviation: ``deletePod``
lists the Deployment's ReplicaSets from the API server (``RsListFromClient``);
the plugin never calls the API from a handler and reads its ReplicaSets
cache instead (the same selector and controller filter, ``ListReplicaSets``).

Each add carries the one event that caused it as ``cause`` and the handler
as ``via``; a decision not to enqueue is traced as ``owner.drop``.
"""

from __future__ import annotations

from typing import Any

from kubectl_informer.core.label_selector import SelectorError
from kubectl_informer.core.label_selector_object import EVERYTHING, as_selector, selects
from kubectl_informer.core.objects import DeletedFinalStateUnknown
from kubectl_informer.core.trace import Tracer
from kubectl_informer.run.owners import (
    Dropped,
    Followed,
    TracedEnqueue,
    controller_of,
    event_of_update,
    meta_of,
    ref_described,
)

DEPLOYMENT = "Deployment"
REPLICA_SET = "ReplicaSet"
RECREATE = "Recreate"
# controller.PodControllerIndex: pods by their controller reference.
POD_CONTROLLER_INDEX = "podController"


def pod_controller_index_key(namespace: str, ref: dict | None) -> str:
    """controller.PodControllerIndexKey: ``ns/Kind/name/uid``, or ``ns`` for an orphan."""
    if ref is None:
        return namespace
    return f"{namespace}/{ref.get('kind')}/{ref.get('name')}/{ref.get('uid')}"


def pod_controller_index(obj: Any) -> list[str]:
    """The index controller.AddPodControllerIndexer adds to the pods informer."""
    if not isinstance(obj, dict):
        return []
    return [pod_controller_index_key(meta_of(obj).get("namespace") or "", controller_of(obj))]


def add_pod_controller_indexer(informer: Any) -> None:
    """controller.AddPodControllerIndexer on the pods informer (or a bare
    indexer): its cache indexed by controller reference, once."""
    indexer = informer.get_indexer() if hasattr(informer, "get_indexer") else informer
    if POD_CONTROLLER_INDEX not in indexer.get_indexers():
        informer.add_indexers({POD_CONTROLLER_INDEX: pod_controller_index})


def _strategy(d: dict) -> Any:
    return ((d.get("spec") or {}).get("strategy") or {}).get("type")


def _key(obj: dict) -> str:
    meta = meta_of(obj)
    ns, name = meta.get("namespace") or "", meta.get("name") or ""
    return f"{ns}/{name}" if ns else name


class DeploymentController:
    """The handlers of one Deployment controller, reading the run's three
    caches (``Followed``: deployments, replicasets, pods) and adding to one
    queue. ``handler_for(resource)`` is what the run registers on each informer."""

    def __init__(
        self, deployments: Followed, replica_sets: Followed, pods: Followed, queue: Any, tracer: Tracer | None = None
    ) -> None:
        self.d, self.rs, self.pods = deployments, replica_sets, pods
        self._on = {f.resource: TracedEnqueue(f, queue, tracer) for f in (deployments, replica_sets, pods)}

    def handler_for(self, resource: str) -> Any:
        return {
            self.d.resource: _DeploymentEvents,
            self.rs.resource: _ReplicaSetEvents,
            self.pods.resource: _PodEvents,
        }[resource](self)

    # --- the listers ----------------------------------------------------------------------

    def resolve_controller_ref(self, namespace: str, ref: dict) -> dict | None:
        """resolveControllerRef: the Deployment ``ref`` names, or None."""
        try:
            return self._resolve(namespace, ref)
        except Dropped:
            return None

    def _resolve(self, namespace: str, ref: dict) -> dict:
        described = ref_described(ref, namespace)
        if ref.get("kind") != DEPLOYMENT:  # the wrong kind is not even looked up
            raise Dropped("not_queue_kind", described)
        name = ref.get("name") if isinstance(ref.get("name"), str) else ""
        d, exists = self.d.indexer.get_by_key(f"{namespace}/{name}")
        if not exists:
            raise Dropped("owner_not_cached", described)
        if meta_of(d).get("uid") != ref.get("uid"):
            raise Dropped("uid_mismatch", described)
        return d

    def get_deployments_for_replica_set(self, rs: dict) -> list[dict]:
        """getDeploymentsForReplicaSet (util.GetDeploymentsForReplicaSet): the
        Deployments of the ReplicaSet's namespace whose selector matches its
        labels (the listers' test: a nil, empty or invalid selector matches
        nothing); none for a ReplicaSet without labels."""
        labels = meta_of(rs).get("labels") or {}
        if not isinstance(labels, dict) or not labels:
            return []
        ns = meta_of(rs).get("namespace") or ""
        found = [
            d
            for d in self.d.indexer.list()
            if (meta_of(d).get("namespace") or "") == ns and selects((d.get("spec") or {}).get("selector"), labels)
        ]
        return sorted(found, key=_key)

    def get_deployment_for_pod(self, pod: dict) -> dict:
        """getDeploymentForPod: the pod's controller ReplicaSet (kind only,
        cached, same UID), then that ReplicaSet's Deployment; Dropped if none."""
        ref = controller_of(pod)
        if ref is None:
            raise Dropped("no_controller")
        ns = meta_of(pod).get("namespace") or ""
        if ref.get("kind") != REPLICA_SET:
            raise Dropped("not_queue_kind", ref_described(ref, ns))
        rs, exists = self.rs.indexer.get_by_key(f"{ns}/{ref.get('name')}")
        if not exists:
            raise Dropped("owner_not_cached", ref_described(ref, ns))
        if meta_of(rs).get("uid") != ref.get("uid"):
            raise Dropped("uid_mismatch", ref_described(ref, ns))
        rs_ref = controller_of(rs)
        if rs_ref is None:
            raise Dropped("no_controller", f"{REPLICA_SET} {_key(rs)}")
        return self._resolve(meta_of(rs).get("namespace") or "", rs_ref)

    def replica_sets_of(self, d: dict) -> list[dict]:
        """util.ListReplicaSets: the Deployment's namespace's ReplicaSets its
        selector matches and it controls (metav1.IsControlledBy: the
        controller reference's UID), read from the ReplicaSets cache."""
        ns, uid = meta_of(d).get("namespace") or "", meta_of(d).get("uid")
        try:  # its error is ListReplicaSets' (the sync fails): none listed
            selector = as_selector((d.get("spec") or {}).get("selector"))
        except SelectorError:
            return []
        if selector.nothing:  # the lister is given its String(), "", which labels.Parse reads as Everything
            selector = EVERYTHING
        out = []
        for rs in self.rs.indexer.list():
            ref = controller_of(rs)
            if (
                (meta_of(rs).get("namespace") or "") == ns
                and ref is not None
                and ref.get("uid") == uid
                and selector.matches(meta_of(rs).get("labels") or {})
            ):
                out.append(rs)
        return out

    def pods_of(self, d: dict) -> int:
        """The pods getPodMapForDeployment maps to the Deployment's
        ReplicaSets (controller.FilterPodsByOwner on the pods cache's
        controller index, orphans excluded), counted."""
        indexer = self.pods.indexer
        count = 0
        for rs in self.replica_sets_of(d):
            meta = meta_of(rs)
            if not (meta.get("namespace") and meta.get("name") and meta.get("uid")):
                continue  # FilterPodsByOwner refuses an owner without them
            key = pod_controller_index_key(
                meta["namespace"], {"kind": REPLICA_SET, "name": meta["name"], "uid": meta["uid"]}
            )
            count += len(indexer.by_index(POD_CONTROLLER_INDEX, key))
        return count

    # --- the handlers ---------------------------------------------------------------------

    def _enqueue(self, d: dict, source: Followed, obj: Any, event: str, via: str) -> None:
        try:
            self._on[source.resource].enqueue(_key(d), obj, event, via)
        except (KeyError, TypeError):  # controller.KeyFunc failed: upstream logs it and returns
            return

    def _drop(self, source: Followed, obj: Any, event: str, d: Dropped) -> None:
        self._on[source.resource].drop(obj, event, d)

    def add_deployment(self, d: dict) -> None:
        self._enqueue(d, self.d, d, "Added", "addDeployment")

    def update_deployment(self, old: dict, cur: dict) -> None:
        self._enqueue(cur, self.d, cur, event_of_update(old, cur), "updateDeployment")

    def delete_deployment(self, obj: Any) -> None:
        d = obj.obj if isinstance(obj, DeletedFinalStateUnknown) else obj
        if isinstance(d, dict):
            self._enqueue(d, self.d, obj, "Deleted", "deleteDeployment")

    def add_replica_set(self, rs: dict) -> None:
        if meta_of(rs).get("deletionTimestamp"):
            # Seen already being deleted (e.g. after a restart): as a deletion.
            self._delete_replica_set(rs, "Added", "addReplicaSet")
            return
        ref = controller_of(rs)
        if ref is not None:
            self._to_owner(rs, rs, ref, "Added", "addReplicaSet")
            return
        self._to_candidates(rs, rs, "Added", "addReplicaSet")

    def update_replica_set(self, old: dict, cur: dict) -> None:
        if meta_of(cur).get("resourceVersion") == meta_of(old).get("resourceVersion"):
            self._drop(self.rs, cur, "Sync", Dropped("resync"))  # a resync: nothing can have changed
            return
        cur_ref, old_ref = controller_of(cur), controller_of(old)
        ref_changed = cur_ref != old_ref
        if ref_changed and old_ref is not None:
            d = self.resolve_controller_ref(meta_of(old).get("namespace") or "", old_ref)
            if d is not None:
                self._enqueue(d, self.rs, cur, "Updated", "updateReplicaSet")
        if cur_ref is not None:
            self._to_owner(cur, cur, cur_ref, "Updated", "updateReplicaSet")
            return
        if ref_changed or meta_of(cur).get("labels") != meta_of(old).get("labels"):  # reflect.DeepEqual
            self._to_candidates(cur, cur, "Updated", "updateReplicaSet")
        else:
            self._drop(self.rs, cur, "Updated", Dropped("no_controller"))

    def delete_replica_set(self, obj: Any) -> None:
        self._delete_replica_set(obj, "Deleted", "deleteReplicaSet")

    def _delete_replica_set(self, obj: Any, event: str, via: str) -> None:
        rs = obj.obj if isinstance(obj, DeletedFinalStateUnknown) else obj
        if not isinstance(rs, dict):
            return
        ref = controller_of(rs)
        if ref is None:  # nobody cares about an orphan's deletion
            self._drop(self.rs, obj, event, Dropped("no_controller"))
            return
        self._to_owner(rs, obj, ref, event, via)

    def delete_pod(self, obj: Any) -> None:
        pod = obj.obj if isinstance(obj, DeletedFinalStateUnknown) else obj
        if not isinstance(pod, dict):
            return
        try:
            d = self.get_deployment_for_pod(pod)
            if _strategy(d) != RECREATE:
                raise Dropped("not_recreate", f"{DEPLOYMENT} {_key(d)}")
            if self.pods_of(d):
                raise Dropped("pods_remain", f"{DEPLOYMENT} {_key(d)}")
        except Dropped as e:
            self._drop(self.pods, obj, "Deleted", e)
            return
        self._enqueue(d, self.pods, obj, "Deleted", "deletePod")

    def _to_owner(self, rs: dict, obj: Any, ref: dict, event: str, via: str) -> None:
        try:
            d = self._resolve(meta_of(rs).get("namespace") or "", ref)
        except Dropped as e:
            self._drop(self.rs, obj, event, e)
            return
        self._enqueue(d, self.rs, obj, event, via)

    def _to_candidates(self, rs: dict, obj: Any, event: str, via: str) -> None:
        found = self.get_deployments_for_replica_set(rs)
        if not found:
            self._drop(self.rs, obj, event, Dropped("no_match"))
        for d in found:
            self._enqueue(d, self.rs, obj, event, via)


class _Events:
    """One informer's ResourceEventHandlerFuncs: the controller's functions
    for the events it registered, nothing for the others."""

    def __init__(self, controller: DeploymentController) -> None:
        self.c = controller

    def on_add(self, obj: Any, is_in_initial_list: bool = False) -> None:
        pass

    def on_update(self, old: Any, new: Any) -> None:
        pass

    def on_delete(self, obj: Any) -> None:
        pass


class _DeploymentEvents(_Events):
    def on_add(self, obj: Any, is_in_initial_list: bool = False) -> None:
        if isinstance(obj, dict):
            self.c.add_deployment(obj)

    def on_update(self, old: Any, new: Any) -> None:
        if isinstance(new, dict):
            self.c.update_deployment(old, new)

    def on_delete(self, obj: Any) -> None:
        self.c.delete_deployment(obj)


class _ReplicaSetEvents(_Events):
    def on_add(self, obj: Any, is_in_initial_list: bool = False) -> None:
        if isinstance(obj, dict):
            self.c.add_replica_set(obj)

    def on_update(self, old: Any, new: Any) -> None:
        if isinstance(old, dict) and isinstance(new, dict):
            self.c.update_replica_set(old, new)

    def on_delete(self, obj: Any) -> None:
        self.c.delete_replica_set(obj)


class _PodEvents(_Events):
    """Only DeleteFunc: dc.deletePod."""

    def on_delete(self, obj: Any) -> None:
        self.c.delete_pod(obj)
