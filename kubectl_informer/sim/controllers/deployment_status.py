"""A Deployment's status as the Deployment controller computes it:
``calculateStatus`` (sync.go: counts summed over the ReplicaSets, the
Available condition), ``syncRolloutStatus`` (progress.go: the Progressing
condition), and the condition helpers of deployment/util
(``NewDeploymentCondition``, ``SetDeploymentCondition``,
``DeploymentComplete``, ``DeploymentProgressing``).

Pure functions on dicts (tests/sim/test_deployment_conditions.py); the
controller (``deployments``) writes what they return.
"""

from __future__ import annotations

import copy

from kubectl_informer.sim.controllers import rollout as r
from kubectl_informer.sim.strategy import now_rfc3339

# deployment/util's reasons.
NEW_RS_CREATED = "NewReplicaSetCreated"  # NewReplicaSetReason
FOUND_NEW_RS = "FoundNewReplicaSet"  # FoundNewRSReason
RS_UPDATED = "ReplicaSetUpdated"  # ReplicaSetUpdatedReason
NEW_RS_AVAILABLE = "NewReplicaSetAvailable"  # NewRSAvailableReason
TIMED_OUT = "ProgressDeadlineExceeded"  # TimedOutReason
PAUSED, RESUMED = "DeploymentPaused", "DeploymentResumed"
MIN_AVAILABLE, MIN_UNAVAILABLE = "MinimumReplicasAvailable", "MinimumReplicasUnavailable"
MAX_INT32 = 2**31 - 1
_COUNTS = ("replicas", "updatedReplicas", "readyReplicas", "availableReplicas", "unavailableReplicas")


def _st(rs: dict | None, field: str) -> int:
    return int(((rs or {}).get("status") or {}).get(field) or 0)


def has_progress_deadline(d: dict) -> bool:
    """HasProgressDeadline: progressDeadlineSeconds set (the API defaults it to 600) and not MaxInt32."""
    v = (d.get("spec") or {}).get("progressDeadlineSeconds", 600)
    return v is not None and v != MAX_INT32


def new_condition(type_: str, status: str, reason: str, message: str) -> dict:
    """NewDeploymentCondition: both times now."""
    now = now_rfc3339()
    return {
        "type": type_,
        "status": status,
        "lastUpdateTime": now,
        "lastTransitionTime": now,
        "reason": reason,
        "message": message,
    }


def get_condition(status: dict, type_: str) -> dict | None:
    return next((c for c in status.get("conditions") or [] if c.get("type") == type_), None)


def set_condition(status: dict, cond: dict) -> None:
    """SetDeploymentCondition: nothing when status and reason are unchanged
    (the message is not compared); else the old one goes and the new one is
    appended, keeping the transition time when the status did not move."""
    cur = get_condition(status, cond["type"])
    if cur is not None and cur.get("status") == cond["status"] and cur.get("reason") == cond["reason"]:
        return
    cond = dict(cond)
    if cur is not None and cur.get("status") == cond["status"]:
        cond["lastTransitionTime"] = cur.get("lastTransitionTime")
    status["conditions"] = [c for c in status.get("conditions") or [] if c.get("type") != cond["type"]] + [cond]


def remove_condition(status: dict, type_: str) -> None:
    conds = [c for c in status.get("conditions") or [] if c.get("type") != type_]
    if conds:
        status["conditions"] = conds
    else:
        status.pop("conditions", None)


def calculate(d: dict, all_rs: list[dict | None], new: dict | None) -> dict:
    """calculateStatus: the counts, collisionCount and the conditions kept
    from ``d``, with Available set from the availability bound."""
    rss = [rs for rs in all_rs if rs is not None]
    available = sum(_st(rs, "availableReplicas") for rs in rss)
    total = sum(r.desired_replicas(rs) for rs in rss)  # GetReplicaCountForReplicaSets: spec.replicas
    prev = d.get("status") or {}
    status = {
        "observedGeneration": d["metadata"].get("generation", 0),
        "replicas": sum(_st(rs, "replicas") for rs in rss),  # GetActualReplicaCountForReplicaSets
        "updatedReplicas": _st(new, "replicas"),
        "readyReplicas": sum(_st(rs, "readyReplicas") for rs in rss),
        "availableReplicas": available,
        "unavailableReplicas": max(0, total - available),
    }
    for k in ("observedGeneration",) + _COUNTS:
        if not status[k]:
            status.pop(k)  # omitempty
    terminating = _terminating(rss)
    if terminating is not None:
        status["terminatingReplicas"] = terminating
    if prev.get("collisionCount") is not None:
        status["collisionCount"] = prev["collisionCount"]
    if prev.get("conditions"):
        status["conditions"] = copy.deepcopy(prev["conditions"])
    _, max_unavailable = r.rolling_params(d)
    if available >= r.desired_replicas(d) - max_unavailable:
        set_condition(status, new_condition("Available", "True", MIN_AVAILABLE, "Deployment has minimum availability."))
    else:
        set_condition(
            status,
            new_condition("Available", "False", MIN_UNAVAILABLE, "Deployment does not have minimum availability."),
        )
    return status


def _terminating(rss: list[dict]) -> int | None:
    """GetTerminatingReplicaCountForReplicaSets (DeploymentReplicaSetTerminatingReplicas, on since
    1.35): the sum, or None when a ReplicaSet the controller synced has not reported it."""
    n = 0
    for rs in rss:
        st = rs.get("status") or {}
        if st.get("terminatingReplicas") is None:
            if not st.get("observedGeneration"):
                continue  # never synced: does not count
            return None
        n += int(st["terminatingReplicas"])
    return n


def complete(d: dict, status: dict) -> bool:
    """DeploymentComplete: every replica updated and available, none old, the spec observed."""
    want = r.desired_replicas(d)
    return (
        status.get("updatedReplicas", 0) == want
        and status.get("replicas", 0) == want
        and status.get("availableReplicas", 0) == want
        and status.get("observedGeneration", 0) >= d["metadata"].get("generation", 0)
    )


def progressing(d: dict, status: dict) -> bool:
    """DeploymentProgressing: against the status ``d`` carries, more updated,
    fewer old, more ready or more available replicas."""
    old = d.get("status") or {}
    old_old = old.get("replicas", 0) - old.get("updatedReplicas", 0)
    new_old = status.get("replicas", 0) - status.get("updatedReplicas", 0)
    return (
        status.get("updatedReplicas", 0) > old.get("updatedReplicas", 0)
        or new_old < old_old
        or status.get("readyReplicas", 0) > old.get("readyReplicas", 0)
        or status.get("availableReplicas", 0) > old.get("availableReplicas", 0)
    )


def rollout_status(d: dict, all_rs: list[dict | None], new: dict | None) -> dict:
    """syncRolloutStatus's new status: ``calculate``, then Progressing —
    left alone once NewReplicaSetAvailable while no old replica is left (so a
    pure scale keeps it), else NewReplicaSetAvailable when complete, or
    ReplicaSetUpdated (its transition time kept) when progress was made since
    the status ``d`` carries. Progress deadlines are not timed here."""
    status = calculate(d, all_rs, new)
    deadline = has_progress_deadline(d)
    if not deadline:
        remove_condition(status, "Progressing")
    cur = get_condition(d.get("status") or {}, "Progressing")
    done = (
        status.get("replicas", 0) == status.get("updatedReplicas", 0)
        and cur is not None
        and cur.get("reason") == NEW_RS_AVAILABLE
    )
    if deadline and not done:
        name = (new or {}).get("metadata", {}).get("name")
        if complete(d, status):
            msg = (
                f'ReplicaSet "{name}" has successfully progressed.'
                if new
                else f'Deployment "{d["metadata"]["name"]}" has successfully progressed.'
            )
            set_condition(status, new_condition("Progressing", "True", NEW_RS_AVAILABLE, msg))
        elif progressing(d, status):
            msg = (
                f'ReplicaSet "{name}" is progressing.'
                if new
                else f'Deployment "{d["metadata"]["name"]}" is progressing.'
            )
            cond = new_condition("Progressing", "True", RS_UPDATED, msg)
            if cur is not None:
                if cur.get("status") == "True":
                    cond["lastTransitionTime"] = cur.get("lastTransitionTime")
                remove_condition(status, "Progressing")
            set_condition(status, cond)
    remove_condition(status, "ReplicaFailure")  # the simulated ReplicaSets never report one
    return status


def paused_condition(d: dict) -> dict | None:
    """checkPausedConditions: the Progressing condition to set when a
    Deployment is paused or resumed (Unknown, DeploymentPaused/Resumed), or None."""
    if not has_progress_deadline(d):
        return None
    cur = get_condition(d.get("status") or {}, "Progressing")
    if cur is not None and cur.get("reason") == TIMED_OUT:
        return None
    paused_now = cur is not None and cur.get("reason") == PAUSED
    if (d.get("spec") or {}).get("paused") and not paused_now:
        return new_condition("Progressing", "Unknown", PAUSED, "Deployment is paused")
    if not (d.get("spec") or {}).get("paused") and paused_now:
        return new_condition("Progressing", "Unknown", RESUMED, "Deployment is resumed")
    return None
