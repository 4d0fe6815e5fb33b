"""The Deployment controller (pkg/controller/deployment), simulated: one
ReplicaSet per pod template, named ``<deployment>-<pod-template-hash>``; a
rolling update within maxSurge/maxUnavailable (``rollout``); Recreate;
proportional scaling while a rollout is under way; old ReplicaSets pruned to
``revisionHistoryLimit``; and the status and conditions ``kubectl rollout
status`` reads.

Not modelled: progress deadlines (no ProgressDeadlineExceeded), rollbacks
through ``spec.rollbackTo``, minReadySeconds (a ready pod is available), and
adoption of orphaned ReplicaSets.
"""

from __future__ import annotations

import copy

from kubectl_informer.core.apierrors import ApiError
from kubectl_informer.sim.controllers import rollout as r
from kubectl_informer.sim.controllers.deployment_status import sync_status
from kubectl_informer.sim.controllers.owners import get_or_none, is_deleting, new_controller_ref, owned_by


def _replicas(rs: dict) -> int:
    return r.desired_replicas(rs)


def _avail(rs: dict) -> int:
    return int((rs.get("status") or {}).get("availableReplicas") or 0)


def _created(rs: dict) -> tuple:
    return rs["metadata"].get("creationTimestamp", ""), rs["metadata"]["name"]


def split(d: dict, rss: list[dict]) -> tuple[dict | None, list[dict]]:
    """FindNewReplicaSet / FindOldReplicaSets: the oldest ReplicaSet whose
    template equals the Deployment's (pod-template-hash aside), and the rest."""
    rss = sorted(rss, key=_created)
    tmpl = (d.get("spec") or {}).get("template") or {}
    new = next((rs for rs in rss if r.templates_equal((rs.get("spec") or {}).get("template"), tmpl)), None)
    return new, [rs for rs in rss if rs is not new]


def sync(store, namespace: str, name: str, events=None) -> None:
    """One reconcile of a Deployment (syncDeployment). ``events``: an
    EventRecorder for the ScalingReplicaSet events, or None."""
    d = get_or_none(store, "deployments", namespace, name)
    if d is None:
        return
    rss = owned_by(store, "replicasets", d)
    if is_deleting(d):
        return sync_status(store, d, *split(d, rss))
    new, old = split(d, rss)
    spec = d.get("spec") or {}
    if spec.get("paused") or _is_scaling_event(d, rss):
        _scale(store, d, new, old, events)
        return sync_status(store, d, *split(d, owned_by(store, "replicasets", d)))
    if new is None:
        new = _create_new_rs(store, d, old, events)
        if new is None:
            return  # a name collision: the bumped collisionCount brings us back
    else:
        new = _sync_revision(store, d, new, old)
    if (spec.get("strategy") or {}).get("type") == "Recreate":
        _recreate(store, d, new, old, events)
    else:
        _rolling(store, d, new, old, events)
    _cleanup(store, d)
    sync_status(store, d, *split(d, owned_by(store, "replicasets", d)))


def _is_scaling_event(d: dict, rss: list[dict]) -> bool:
    """A change of spec.replicas that the active ReplicaSets have not seen (isScalingEvent)."""
    want = r.desired_replicas(d)
    for rs in rss:
        if _replicas(rs) > 0:
            seen = (rs["metadata"].get("annotations") or {}).get(r.DESIRED_REPLICAS)
            if seen is not None and seen.isdigit() and int(seen) != want:
                return True
    return False


def scale_rs(store, d: dict, rs: dict, replicas: int, events=None) -> dict:
    """Set a ReplicaSet's size and the annotations that record the Deployment's
    size and surge it was sized for (one update, as scaleReplicaSet does)."""
    surge, _ = r.rolling_params(d)
    want_ann = {r.DESIRED_REPLICAS: str(r.desired_replicas(d)), r.MAX_REPLICAS: str(r.desired_replicas(d) + surge)}
    ann = rs["metadata"].get("annotations") or {}
    if _replicas(rs) == replicas and all(ann.get(k) == v for k, v in want_ann.items()):
        return rs
    before = _replicas(rs)
    rs = copy.deepcopy(rs)
    rs["metadata"]["annotations"] = {**ann, **want_ann}
    rs.setdefault("spec", {})["replicas"] = replicas
    out = store.update("replicasets", rs)
    if before != replicas:
        _scaled(events, d, rs["metadata"]["name"], before, replicas)
    return out


def _scaled(events, d: dict, rs_name: str, before: int, after: int) -> None:
    """The deployment-controller's ScalingReplicaSet event, as kubectl describe shows it."""
    if events is not None:
        way = "up" if after > before else "down"
        events.record(d, "Normal", "ScalingReplicaSet", f"Scaled {way} replica set {rs_name} from {before} to {after}",
                      "deployment-controller")


def _scale(store, d: dict, new: dict | None, old: list[dict], events=None) -> None:
    """sync.go scale: one active ReplicaSet takes the whole size; several share the change by proportion."""
    active = [rs for rs in ([new] if new else []) + old if _replicas(rs) > 0]
    want = r.desired_replicas(d)
    if len(active) <= 1:
        target = active[0] if active else (new or (max(old, key=_created) if old else None))
        if target is not None:
            scale_rs(store, d, target, want, events)
        return
    if new is not None and _saturated(d, new):  # the new ReplicaSet has it all: the old ones go
        for rs in old:
            scale_rs(store, d, rs, 0, events)
        return
    surge, _ = r.rolling_params(d)
    growing = want + surge - sum(_replicas(rs) for rs in active) > 0
    # Largest first; among equals, newer first when growing and older first when shrinking.
    active.sort(key=_created, reverse=growing)
    active.sort(key=_replicas, reverse=True)
    maxes = []
    for rs in active:
        v = (rs["metadata"].get("annotations") or {}).get(r.MAX_REPLICAS, "")
        maxes.append(int(v) if v.isdigit() else None)
    status_replicas = int((d.get("status") or {}).get("replicas") or 0)
    for rs, size in zip(active, r.proportions([_replicas(x) for x in active], maxes, want, surge, status_replicas)):
        scale_rs(store, d, rs, size, events)


def _saturated(d: dict, rs: dict) -> bool:
    """IsSaturated: the ReplicaSet is sized for the Deployment, annotation included, and all available."""
    want = r.desired_replicas(d)
    seen = (rs["metadata"].get("annotations") or {}).get(r.DESIRED_REPLICAS)
    return _replicas(rs) == want and seen == str(want) and _avail(rs) == want


def _revision(rs: dict) -> int:
    v = (rs["metadata"].get("annotations") or {}).get(r.REVISION, "0")
    return int(v) if v.isdigit() else 0


def _create_new_rs(store, d: dict, old: list[dict], events=None) -> dict | None:
    """The new ReplicaSet for the current template (getNewReplicaSet)."""
    spec = d.get("spec") or {}
    collisions = (d.get("status") or {}).get("collisionCount")
    h = r.template_hash(spec.get("template") or {}, collisions)
    tmpl = copy.deepcopy(spec.get("template") or {})
    tmpl.setdefault("metadata", {}).setdefault("labels", {})[r.HASH_LABEL] = h
    selector = copy.deepcopy(spec.get("selector") or {})
    selector.setdefault("matchLabels", {})[r.HASH_LABEL] = h
    surge, _ = r.rolling_params(d)
    want = r.desired_replicas(d)
    size = r.new_rs_new_replicas(want, surge, sum(_replicas(rs) for rs in old), 0) \
        if (spec.get("strategy") or {}).get("type") != "Recreate" else 0
    revision = max([_revision(rs) for rs in old] + [0]) + 1
    meta = d["metadata"]
    rs = {"apiVersion": "apps/v1", "kind": "ReplicaSet",
          "metadata": {"name": f"{meta['name']}-{h}", "namespace": meta["namespace"],
                       "labels": dict(tmpl["metadata"]["labels"]), "ownerReferences": [new_controller_ref(d)],
                       "annotations": {r.DESIRED_REPLICAS: str(want), r.MAX_REPLICAS: str(want + surge),
                                       r.REVISION: str(revision)}},
          "spec": {"replicas": size, "minReadySeconds": spec.get("minReadySeconds", 0), "selector": selector,
                   "template": tmpl}}
    try:
        made = store.create("replicasets", rs, manager="kube-controller-manager")
    except ApiError as e:
        if e.status != 409:
            raise
        return _on_collision(store, d, rs)
    _set_revision(store, d, revision)
    if size:
        _scaled(events, d, made["metadata"]["name"], 0, size)
    return made


def _on_collision(store, d: dict, rs: dict) -> dict | None:
    """A ReplicaSet of that name exists: ours with this template (use it) or
    another (bump status.collisionCount, which moves the hash)."""
    meta = rs["metadata"]
    there = get_or_none(store, "replicasets", meta["namespace"], meta["name"])
    if there is not None and r.templates_equal((there.get("spec") or {}).get("template"), rs["spec"]["template"]):
        return there
    d = store.get("deployments", d["metadata"]["namespace"], d["metadata"]["name"])
    status = dict(d.get("status") or {})
    status["collisionCount"] = int(status.get("collisionCount") or 0) + 1
    store.update("deployments", {**d, "status": status}, subresource="status")
    return None


def _sync_revision(store, d: dict, new: dict, old: list[dict]) -> dict:
    """The new ReplicaSet carries the highest revision (a template rolled back to gets a new number)."""
    revision = max([_revision(rs) for rs in old] + [0]) + 1
    if _revision(new) < revision:  # the annotation only moves up (SetNewReplicaSetAnnotations)
        new = copy.deepcopy(new)
        new["metadata"].setdefault("annotations", {})[r.REVISION] = str(revision)
        new = store.update("replicasets", new)
    _set_revision(store, d, _revision(new))
    return new


def _set_revision(store, d: dict, revision: int) -> None:
    d = store.get("deployments", d["metadata"]["namespace"], d["metadata"]["name"])
    ann = d["metadata"].get("annotations") or {}
    if ann.get(r.REVISION) != str(revision):
        d["metadata"]["annotations"] = {**ann, r.REVISION: str(revision)}
        store.update("deployments", d)


def _rolling(store, d: dict, new: dict, old: list[dict], events=None) -> None:
    """rolloutRolling: scale the new ReplicaSet if we may, else old ones down."""
    want = r.desired_replicas(d)
    surge, unavailable = r.rolling_params(d)
    total = _replicas(new) + sum(_replicas(rs) for rs in old)
    size = r.reconcile_new_size(want, surge, total, _replicas(new))
    if size != _replicas(new):
        scale_rs(store, d, new, size, events)
        return
    old = sorted(old, key=_created)
    sizes = r.old_sizes_after_scale_down(want, unavailable, (_replicas(new), _avail(new)),
                                         [(_replicas(rs), _avail(rs)) for rs in old])
    for rs, size in zip(old, sizes):
        if size != _replicas(rs):
            scale_rs(store, d, rs, size, events)


def _recreate(store, d: dict, new: dict, old: list[dict], events=None) -> None:
    """rolloutRecreate: old ReplicaSets to 0, and the new one up once no old pod runs."""
    active_old = [rs for rs in old if _replicas(rs) > 0]
    for rs in active_old:
        scale_rs(store, d, rs, 0, events)
    if active_old or any(int((rs.get("status") or {}).get("replicas") or 0) for rs in old):
        return
    scale_rs(store, d, new, r.desired_replicas(d), events)


def _cleanup(store, d: dict) -> None:
    """cleanupDeployment: delete old, empty ReplicaSets beyond revisionHistoryLimit (default 10), oldest first."""
    limit = (d.get("spec") or {}).get("revisionHistoryLimit", 10)
    new, old = split(d, owned_by(store, "replicasets", d))
    empty = [rs for rs in old if _replicas(rs) == 0 and not int((rs.get("status") or {}).get("replicas") or 0)
             and not is_deleting(rs)]
    for rs in sorted(empty, key=_revision)[:max(0, len(old) - int(limit))]:
        try:
            store.delete("replicasets", rs["metadata"]["namespace"], rs["metadata"]["name"],
                         precondition_uid=rs["metadata"]["uid"])
        except ApiError as e:
            if e.status != 404:
                raise
