"""A Deployment's status from its ReplicaSets (sync.go calculateStatus and
progress.go's conditions), what ``kubectl rollout status`` and ``kubectl get
deploy`` read."""

from __future__ import annotations

from kubectl_informer.sim.controllers import rollout as r
from kubectl_informer.sim.strategy import now_rfc3339


def _n(rs: dict, field: str) -> int:
    return int((rs.get("status") or {}).get(field) or 0)


def calculate(d: dict, new: dict | None, old: list[dict]) -> dict:
    """The status fields: counts summed over the ReplicaSets, and conditions."""
    all_rs = ([new] if new else []) + old
    want = r.desired_replicas(d)
    _, unavailable_ok = r.rolling_params(d)
    available = sum(_n(rs, "availableReplicas") for rs in all_rs)
    prev = d.get("status") or {}
    status = {"observedGeneration": d["metadata"].get("generation", 1),
              "replicas": sum(_n(rs, "replicas") for rs in all_rs),
              "updatedReplicas": _n(new, "replicas") if new else 0,
              "readyReplicas": sum(_n(rs, "readyReplicas") for rs in all_rs),
              "availableReplicas": available,
              # Desired pods of every ReplicaSet not yet available (none while scaling down).
              "unavailableReplicas": max(0, sum(r.desired_replicas(rs) for rs in all_rs) - available)}
    if prev.get("collisionCount") is not None:
        status["collisionCount"] = prev["collisionCount"]
    for k in ("replicas", "updatedReplicas", "readyReplicas", "availableReplicas", "unavailableReplicas"):
        if not status[k]:
            status.pop(k)  # omitempty
    ok = available >= want - unavailable_ok
    conds = {c.get("type"): c for c in prev.get("conditions") or [] if isinstance(c, dict)}
    conds["Available"] = _condition(conds.get("Available"), "Available", ok,
                                    "MinimumReplicasAvailable" if ok else "MinimumReplicasUnavailable",
                                    "Deployment has minimum availability." if ok else
                                    "Deployment does not have minimum availability.")
    if new is not None:
        conds["Progressing"] = _progressing(conds.get("Progressing"), d, new, status)
    status["conditions"] = [conds[t] for t in ("Available", "Progressing") if t in conds]
    return status


def _progressing(prev: dict | None, d: dict, new: dict, status: dict) -> dict:
    name = new["metadata"]["name"]
    want = r.desired_replicas(d)
    complete = (status.get("updatedReplicas", 0) == want and status.get("replicas", 0) == want
                and status.get("availableReplicas", 0) == want)
    if complete:
        return _condition(prev, "Progressing", True, "NewReplicaSetAvailable",
                          f'ReplicaSet "{name}" has successfully progressed.')
    if prev is not None and prev.get("reason") == "NewReplicaSetCreated" and name in prev.get("message", ""):
        return prev
    if prev is None or name not in prev.get("message", ""):
        return _condition(prev, "Progressing", True, "NewReplicaSetCreated", f'Created new replica set "{name}"')
    return _condition(prev, "Progressing", True, "ReplicaSetUpdated", f'ReplicaSet "{name}" is progressing.')


def _condition(prev: dict | None, type_: str, ok: bool, reason: str, message: str) -> dict:
    """A condition; its times kept when nothing about it changed."""
    status = "True" if ok else "False"
    if prev and prev.get("status") == status and prev.get("reason") == reason and prev.get("message") == message:
        return prev
    now = now_rfc3339()
    moved = not prev or prev.get("status") != status
    return {"type": type_, "status": status, "lastUpdateTime": now,
            "lastTransitionTime": now if moved else prev.get("lastTransitionTime", now),
            "reason": reason, "message": message}


def sync_status(store, d: dict, new: dict | None, old: list[dict]) -> None:
    """Write the status if it changed (through the status subresource)."""
    d = store.get("deployments", d["metadata"]["namespace"], d["metadata"]["name"])
    status = calculate(d, new, old)
    if status != (d.get("status") or {}):
        store.update("deployments", {**d, "status": status}, subresource="status")
