"""The Deployment controller (pkg/controller/deployment), simulated, its
sync path ported step by step: ``syncDeployment`` → status only while
deleting; ``checkPausedConditions``; ``sync`` for a paused Deployment or a
scaling event (``isScalingEvent``), which scales (``scale``: one active
ReplicaSet takes the size, several share it by proportion) and writes
``calculateStatus``; otherwise ``rolloutRolling`` or ``rolloutRecreate``,
which write ``syncRolloutStatus``.

``getNewReplicaSet`` creates the ReplicaSet ``<deployment>-<pod-template-hash>``
with the Deployment's annotations, its revision and desired/max replicas in
the create itself, then writes the Deployment's revision annotation and the
Progressing condition in one status update (the status strategy keeps
annotations), as upstream does. One sync works on the Deployment as it read
it: a second write in the same sync carries the resourceVersion it read and
may meet a 409 Conflict, as kube-controller-manager's does; the manager then
syncs again.

Not modelled: progress deadlines (no ProgressDeadlineExceeded),
spec.rollbackTo (extensions/v1beta1 only; ``kubectl rollout undo`` patches
the template), minReadySeconds (a ready pod is available), the release of
a ReplicaSet whose labels stop matching (orphans are adopted: ``owners.claim``).
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Literal, overload

from kubectl_informer.core.apierrors import ApiError
from kubectl_informer.sim.controllers import deployment_status as ds
from kubectl_informer.sim.controllers import revisions as rev
from kubectl_informer.sim.controllers import rollout as r
from kubectl_informer.sim.controllers.owners import (
    controller_ref,
    get_or_none,
    new_controller_ref,
)

if TYPE_CHECKING:
    from kubectl_informer.sim.events import EventRecorder
    from kubectl_informer.sim.store import Store

MANAGER = "kube-controller-manager"
_NAME_MAX = 253  # validation.DNS1123SubdomainMaxLength


def _replicas(rs: dict) -> int:
    return r.desired_replicas(rs)


def _st(rs: dict, field: str) -> int:
    return int((rs.get("status") or {}).get(field) or 0)


def _created(rs: dict) -> tuple:
    return rs["metadata"].get("creationTimestamp", ""), rs["metadata"]["name"]


def split(d: dict, rss: list[dict]) -> tuple[dict | None, list[dict]]:
    """FindNewReplicaSet / FindOldReplicaSets: the oldest ReplicaSet whose
    template equals the Deployment's (pod-template-hash aside), and the rest."""
    rss = sorted(rss, key=_created)
    want = r.template_key((d.get("spec") or {}).get("template"))
    new = next((rs for rs in rss if r.template_key((rs.get("spec") or {}).get("template")) == want), None)
    return new, [rs for rs in rss if rs is not new]


def _active(rss: Iterable[dict | None]) -> list[dict]:
    """FilterActiveReplicaSets: spec.replicas above 0."""
    return [rs for rs in rss if rs is not None and _replicas(rs) > 0]


class _Sync:
    """One syncDeployment: the Deployment as read (``d``, changed in place as
    Go changes its copy), its ReplicaSets as listed, the event recorder."""

    def __init__(self, store: Store, d: dict, rss: list[dict], events: EventRecorder | None):
        self.store, self.d, self.rss, self.events = store, d, rss, events

    # ------------------------------------------------------------ writes
    def update_status(self) -> None:
        """UpdateStatus with the Deployment as read (its resourceVersion a precondition)."""
        self.store.update("deployments", self.d, subresource="status", manager=MANAGER)

    def _update_rs(self, rs: dict) -> dict:
        return self.store.update("replicasets", rs, subresource="", manager=MANAGER)

    def _event(self, message: str) -> None:
        if self.events is not None:
            self.events.record(self.d, "Normal", "ScalingReplicaSet", message, "deployment-controller")

    def scale_rs(self, rs: dict, size: int, force: bool = False) -> tuple[bool, dict]:
        """scaleReplicaSet: size and desired/max-replicas annotations in one update."""
        if not force and _replicas(rs) == size:
            return False, rs
        want = r.desired_replicas(self.d)
        surge, _ = r.rolling_params(self.d)
        size_moves = _replicas(rs) != size
        if not (size_moves or rev.replicas_annotations_need_update(rs, want, want + surge)):
            return False, rs
        before = _replicas(rs)
        rs = copy.deepcopy(rs)
        rs.setdefault("spec", {})["replicas"] = size
        rev.set_replicas_annotations(rs, want, want + surge)
        rs = self._update_rs(rs)
        if size_moves:
            self._event(
                f"Scaled {'up' if before < size else 'down'} replica set {rs['metadata']['name']} "
                f"from {before} to {size}"
            )
        return size_moves, rs

    # ------------------------------------------------------------ the new ReplicaSet
    @overload
    def all_and_sync_revision(self, create: Literal[True]) -> tuple[dict, list[dict]]: ...
    @overload
    def all_and_sync_revision(self, create: Literal[False]) -> tuple[dict | None, list[dict]]: ...

    def all_and_sync_revision(self, create: bool) -> tuple[dict | None, list[dict]]:
        """getAllReplicaSetsAndSyncRevision: (new, all old); with ``create``
        (createIfNotExisted) the new one is made when absent, so it is never None."""
        new, old = split(self.d, self.rss)
        return self.new_rs(new, old, create), old

    def new_rs(self, existing: dict | None, old: list[dict], create: bool) -> dict | None:
        """getNewReplicaSet."""
        new_revision = rev.max_revision(old) + 1
        if existing is not None:
            return self._sync_existing(existing, new_revision)
        if not create:
            return None
        return self._create(old, new_revision)

    def _sync_existing(self, existing: dict, new_revision: int) -> dict:
        rs = copy.deepcopy(existing)
        spec = self.d.get("spec") or {}
        changed = rev.set_new_rs_annotations(self.d, rs, new_revision, exists=True)
        if changed or (rs.get("spec") or {}).get("minReadySeconds", 0) != spec.get("minReadySeconds", 0):
            rs.setdefault("spec", {})["minReadySeconds"] = spec.get("minReadySeconds", 0)
            return self._update_rs(rs)  # the Deployment's revision follows in the next sync
        needs = rev.set_deployment_revision(self.d, rs["metadata"]["annotations"].get(r.REVISION, ""))
        status = self.d.setdefault("status", {})
        if ds.has_progress_deadline(self.d) and ds.get_condition(status, "Progressing") is None:
            ds.set_condition(
                status,
                ds.new_condition(
                    "Progressing", "True", ds.FOUND_NEW_RS, f'Found new replica set "{rs["metadata"]["name"]}"'
                ),
            )
            needs = True
        if needs:
            self.update_status()
        return rs

    def _new_rs_object(self, old: list[dict], new_revision: int) -> dict:
        d, spec = self.d, self.d.get("spec") or {}
        h = r.template_hash(spec.get("template") or {}, (d.get("status") or {}).get("collisionCount"))
        tmpl = copy.deepcopy(spec.get("template") or {})
        tmpl.setdefault("metadata", {})["labels"] = {**(tmpl["metadata"].get("labels") or {}), r.HASH_LABEL: h}
        selector = copy.deepcopy(spec.get("selector") or {})
        selector["matchLabels"] = {**(selector.get("matchLabels") or {}), r.HASH_LABEL: h}
        name = d["metadata"]["name"]
        if len(name) > _NAME_MAX - 1 - len(h):  # generateReplicaSetName
            name = name[: _NAME_MAX - 1 - len(h)]
        rs: dict[str, Any] = {
            "apiVersion": "apps/v1",
            "kind": "ReplicaSet",
            "metadata": {
                "name": f"{name}-{h}",
                "namespace": d["metadata"]["namespace"],
                "labels": dict(tmpl["metadata"]["labels"]),
                "ownerReferences": [new_controller_ref(d)],
            },
            "spec": {
                "replicas": 0,
                "minReadySeconds": spec.get("minReadySeconds", 0),
                "selector": selector,
                "template": tmpl,
            },
        }
        rs["spec"]["replicas"] = self._new_rs_new_replicas(old + [rs], rs)
        rev.set_new_rs_annotations(d, rs, new_revision, exists=False)
        return rs

    def _new_rs_new_replicas(self, all_rs: list[dict], new: dict) -> int:
        """NewRSNewReplicas: within the surge for RollingUpdate, the whole size for Recreate."""
        want = r.desired_replicas(self.d)
        if ((self.d.get("spec") or {}).get("strategy") or {}).get("type") == "Recreate":
            return want
        surge, _ = r.rolling_params(self.d)
        return r.new_rs_new_replicas(want, surge, sum(_replicas(x) for x in all_rs), _replicas(new))

    def _create(self, old: list[dict], new_revision: int) -> dict:
        rs = self._new_rs_object(old, new_revision)
        already = False
        try:
            made = self.store.create("replicasets", rs, manager=MANAGER)
        except ApiError as e:
            if e.status != 409:
                raise
            made, already = self._on_collision(rs, e), True
        if not already and _replicas(rs):
            self._event(f"Scaled up replica set {made['metadata']['name']} from 0 to {_replicas(rs)}")
        needs = rev.set_deployment_revision(self.d, str(new_revision))
        if not already and ds.has_progress_deadline(self.d):
            ds.set_condition(
                self.d.setdefault("status", {}),
                ds.new_condition(
                    "Progressing", "True", ds.NEW_RS_CREATED, f'Created new replica set "{made["metadata"]["name"]}"'
                ),
            )
            needs = True
        if needs:
            self.update_status()
        return made

    def _on_collision(self, rs: dict, err: ApiError) -> dict:
        """A ReplicaSet of that name exists: ours with this template (use it),
        or another (bump status.collisionCount, which moves the hash, and fail)."""
        meta = rs["metadata"]
        there = get_or_none(self.store, "replicasets", meta["namespace"], meta["name"])
        if there is None:
            raise err
        ref = controller_ref(there)
        if (
            ref is not None
            and ref.get("uid") == self.d["metadata"]["uid"]
            and r.templates_equal((there.get("spec") or {}).get("template"), (self.d.get("spec") or {}).get("template"))
        ):
            return there
        status = self.d.setdefault("status", {})
        status["collisionCount"] = int(status.get("collisionCount") or 0) + 1
        self.update_status()
        raise err

    # ------------------------------------------------------------ status
    def sync_status(self, all_rs: list, new: dict | None) -> None:
        """syncDeploymentStatus: calculateStatus, written when it differs."""
        status = ds.calculate(self.d, all_rs, new)
        if status != (self.d.get("status") or {}):
            self.d["status"] = status
            self.update_status()

    def sync_rollout_status(self, all_rs: list, new: dict | None) -> None:
        """syncRolloutStatus."""
        status = ds.rollout_status(self.d, all_rs, new)
        if status != (self.d.get("status") or {}):
            self.d["status"] = status
            self.update_status()
