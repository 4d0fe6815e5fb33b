"""The Deployment controller's strategies and scaling (sync.go ``sync``,
``scale``, ``isScalingEvent``, ``cleanupDeployment``; rolling.go; recreate.go),
on ``deployments._Sync``. ``sync`` is the controller's entry point."""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING

from kubectl_informer.core.apierrors import ApiError
from kubectl_informer.core.label_selector import SelectorError
from kubectl_informer.sim.controllers import deployment_status as ds
from kubectl_informer.sim.controllers import revisions as rev
from kubectl_informer.sim.controllers import rollout as r
from kubectl_informer.sim.controllers.deployments import MANAGER, _active, _created, _replicas, _st, _Sync
from kubectl_informer.sim.controllers.owners import SyncError, as_selector, claim, get_or_none, is_deleting, owned_by

if TYPE_CHECKING:
    from kubectl_informer.sim.events import EventRecorder
    from kubectl_informer.sim.store import Store


def sync(store: Store, namespace: str, name: str, events: EventRecorder | None = None) -> None:
    """syncDeployment. ``events``: an EventRecorder for ScalingReplicaSet, or None."""
    d = get_or_none(store, "deployments", namespace, name)
    if d is None:
        return
    if _selects_all(d):
        return _selecting_all(store, d, events)
    s = _Sync(store, d, _replica_sets_for(store, d), events)
    if is_deleting(d):
        new, old = s.all_and_sync_revision(False)  # syncStatusOnly
        return s.sync_status([*old, new], new)
    cond = ds.paused_condition(d)
    if cond is not None:
        ds.set_condition(d.setdefault("status", {}), cond)
        s.update_status()
    spec = d.get("spec") or {}
    if spec.get("paused") or _is_scaling_event(s):
        return _sync_scaled(s)
    if (spec.get("strategy") or {}).get("type") == "Recreate":
        return _recreate(s)
    return _rolling(s)


def _selects_all(d: dict) -> bool:
    """``reflect.DeepEqual(d.Spec.Selector, &metav1.LabelSelector{})``: a
    selector object with no field set (an empty map or list set is not nil)."""
    sel = (d.get("spec") or {}).get("selector")
    return isinstance(sel, dict) and all(v is None for v in sel.values())


def _selecting_all(store: Store, d: dict, events: EventRecorder | None) -> None:
    """syncDeployment's answer to an empty selector: a SelectingAll warning,
    observedGeneration brought up to the generation, nothing else."""
    if events is not None:
        message = "This deployment is selecting all pods. A non-empty selector is required."
        events.record(d, "Warning", "SelectingAll", message, "deployment-controller")
    status, generation = d.setdefault("status", {}), d["metadata"].get("generation", 0)
    if status.get("observedGeneration", 0) < generation:
        status["observedGeneration"] = generation
        with contextlib.suppress(ApiError):  # the controller ignores this write's error
            store.update("deployments", d, subresource="status", manager=MANAGER)


def _replica_sets_for(store: Store, d: dict) -> list[dict]:
    """getReplicaSetsForDeployment: its ReplicaSets, orphans its selector
    matches adopted; a selector LabelSelectorAsSelector refuses is the sync's error."""
    meta = d["metadata"]
    try:
        selector = as_selector((d.get("spec") or {}).get("selector"))
    except SelectorError as e:
        raise SyncError(f"deployment {meta.get('namespace')}/{meta['name']} has invalid label selector: {e}") from None
    return claim(store, "replicasets", d, selector)


def _sync_scaled(s: _Sync) -> None:
    """sync: scale, clean up when paused, calculateStatus."""
    new, old = s.all_and_sync_revision(False)
    _scale(s, new, old)
    if (s.d.get("spec") or {}).get("paused"):
        _cleanup(s, old)
    s.sync_status([*old, new], new)


def _is_scaling_event(s: _Sync) -> bool:
    """isScalingEvent: an active ReplicaSet whose desired-replicas annotation differs from spec.replicas."""
    new, old = s.all_and_sync_revision(False)
    want = r.desired_replicas(s.d)
    for rs in _active([*old, new]):
        seen = (rs["metadata"].get("annotations") or {}).get(r.DESIRED_REPLICAS)
        try:
            if seen is not None and int(seen, 10) != want:
                return True
        except ValueError:
            continue
    return False


def _find_active_or_latest(new: dict | None, old: list[dict]) -> dict | None:
    """FindActiveOrLatest: the one active ReplicaSet; with none, the new one
    or the newest old one; None when several are active."""
    if new is None and not old:
        return None
    old = sorted(old, key=_created, reverse=True)
    active = _active([*old, new])
    if not active:
        return new if new is not None else old[0]
    return active[0] if len(active) == 1 else None


def _saturated(d: dict, rs: dict | None) -> bool:
    """IsSaturated: sized for the Deployment, annotation included, and all available."""
    if rs is None:
        return False
    want = r.desired_replicas(d)
    seen = (rs["metadata"].get("annotations") or {}).get(r.DESIRED_REPLICAS, "")
    return _replicas(rs) == want and seen == str(want) and _st(rs, "availableReplicas") == want


def _scale(s: _Sync, new: dict | None, old: list[dict]) -> None:
    """scale."""
    d = s.d
    want = r.desired_replicas(d)
    target = _find_active_or_latest(new, old)
    if target is not None:
        if _replicas(target) != want:
            s.scale_rs(target, want)
        return
    if _saturated(d, new):
        for rs in _active(old):
            s.scale_rs(rs, 0)
        return
    if ((d.get("spec") or {}).get("strategy") or {}).get("type", "RollingUpdate") != "RollingUpdate":
        return
    active = _active([*old, new])
    surge, _ = r.rolling_params(d)
    to_add = (want + surge if want > 0 else 0) - sum(_replicas(rs) for rs in active)
    if to_add:  # ReplicaSetsBySizeNewer when growing, BySizeOlder when shrinking
        active.sort(key=_created, reverse=to_add > 0)
        active.sort(key=_replicas, reverse=True)
    maxes = []
    for rs in active:
        v = (rs["metadata"].get("annotations") or {}).get(r.MAX_REPLICAS, "")
        maxes.append(int(v) if v.isdigit() else None)
    sizes = r.proportions([_replicas(x) for x in active], maxes, want, surge, _st(d, "replicas"))
    for rs, size in zip(active, sizes, strict=True):
        s.scale_rs(rs, size, force=True)


def _rolling(s: _Sync) -> None:
    """rolloutRolling."""
    new, old = s.all_and_sync_revision(True)
    all_rs = [*old, new]
    want = r.desired_replicas(s.d)
    if _replicas(new) != want:  # reconcileNewReplicaSet
        size = want if _replicas(new) > want else s._new_rs_new_replicas(all_rs, new)
        if s.scale_rs(new, size)[0]:
            return s.sync_rollout_status(all_rs, new)
    if _scale_down_old(s, new, _active(old)):
        return s.sync_rollout_status(all_rs, new)
    if ds.complete(s.d, s.d.get("status") or {}):
        _cleanup(s, old)
    s.sync_rollout_status(all_rs, new)


def _scale_down_old(s: _Sync, new: dict, old: list[dict]) -> bool:
    """reconcileOldReplicaSets: unhealthy old pods first (cleanupUnhealthyReplicas), then
    available ones beyond replicas - maxUnavailable (scaleDownOldReplicaSetsForRollingUpdate),
    each an update of its own on the ReplicaSet as last written."""
    _, unavailable = r.rolling_params(s.d)
    old = sorted(old, key=_created)
    steps, scaled = r.old_scale_down_steps(
        r.desired_replicas(s.d),
        unavailable,
        (_replicas(new), _st(new, "availableReplicas")),
        [(_replicas(rs), _st(rs, "availableReplicas")) for rs in old],
    )
    for i, size in steps:
        old[i] = s.scale_rs(old[i], size)[1]
    return scaled


def _recreate(s: _Sync) -> None:
    """rolloutRecreate: old ReplicaSets to 0; once no old pod runs, the new one (created then) to full size."""
    new, old = s.all_and_sync_revision(False)
    all_rs = [*old, new]
    scaled = False
    for rs in _active(old):
        scaled = s.scale_rs(rs, 0)[0] or scaled
    if scaled or _old_pods_running(s, new, old):
        return s.sync_rollout_status(all_rs, new)
    if new is None:
        new, old = s.all_and_sync_revision(True)
        all_rs = [*old, new]
    want = r.desired_replicas(s.d)
    if _replicas(new) != want:  # scaleUpNewReplicaSetForRecreate
        s.scale_rs(new, want)
    if ds.complete(s.d, s.d.get("status") or {}):
        _cleanup(s, old)
    s.sync_rollout_status(all_rs, new)


def _old_pods_running(s: _Sync, new: dict | None, old: list[dict]) -> bool:
    """oldPodsRunning: an old ReplicaSet reports pods, or one of its pods is not finished."""
    if sum(_st(rs, "replicas") for rs in old):
        return True
    for rs in old:
        if new is not None and rs["metadata"]["uid"] == new["metadata"]["uid"]:
            continue
        if any(
            (p.get("status") or {}).get("phase") not in ("Failed", "Succeeded") for p in owned_by(s.store, "pods", rs)
        ):
            return True
    return False


def _cleanup(s: _Sync, old: list[dict]) -> None:
    """cleanupDeployment: delete the oldest (by revision) old ReplicaSets beyond
    revisionHistoryLimit (the API defaults it to 10) that are empty and observed."""
    limit = (s.d.get("spec") or {}).get("revisionHistoryLimit", 10)
    if limit is None:
        return
    alive = [rs for rs in old if not is_deleting(rs)]
    diff = len(alive) - int(limit)
    if diff <= 0:
        return
    alive.sort(key=_created)
    alive.sort(key=lambda rs: rev.revision(rs) or 0)  # ReplicaSetsByRevision
    for rs in alive[:diff]:
        meta, st = rs["metadata"], rs.get("status") or {}
        if (
            st.get("replicas")
            or _replicas(rs)
            or meta.get("generation", 0) > st.get("observedGeneration", 0)
            or is_deleting(rs)
        ):
            continue
        try:
            s.store.delete("replicasets", meta["namespace"], meta["name"])
        except ApiError as e:
            if e.status != 404:
                raise
