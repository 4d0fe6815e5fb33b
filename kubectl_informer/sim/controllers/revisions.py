"""The annotations the Deployment controller keeps on its ReplicaSets and on
the Deployment (deployment/util): ``SetNewReplicaSetAnnotations`` (the
Deployment's own annotations copied, the revision moved up with the old one
appended to ``revision-history``, desired/max replicas on a new one),
``SetReplicasAnnotations`` and ``SetDeploymentRevision``.

They change the dict given and say whether they changed it, as the Go
functions do (tests/sim/test_deployment_conditions.py).
"""

from __future__ import annotations

from kubectl_informer.sim.controllers import rollout as r

REVISION_HISTORY = "deployment.kubernetes.io/revision-history"
LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
# annotationsToSkip: never copied from the Deployment to a ReplicaSet (nor back by kubectl rollout undo).
SKIPPED = frozenset(
    {
        LAST_APPLIED,
        r.REVISION,
        REVISION_HISTORY,
        r.DESIRED_REPLICAS,
        r.MAX_REPLICAS,
        "deprecated.deployment.rollback.to",
    }
)
MAX_HISTORY_CHARS = 2000  # maxRevHistoryLengthInChars


def revision(rs: dict) -> int | None:
    """Revision: the annotation as an int; None when it does not parse (MaxRevision skips it)."""
    v = ((rs.get("metadata") or {}).get("annotations") or {}).get(r.REVISION, "0")
    try:
        return int(v, 10)
    except ValueError:
        return None


def max_revision(rss: list[dict]) -> int:
    return max([v for v in (revision(rs) for rs in rss) if v is not None] + [0])


def _annotations(obj: dict) -> dict:
    meta = obj.setdefault("metadata", {})
    if meta.get("annotations") is None:
        meta["annotations"] = {}
    return meta["annotations"]


def set_replicas_annotations(rs: dict, desired: int, max_replicas: int) -> bool:
    """SetReplicasAnnotations: desired-replicas and max-replicas."""
    ann = _annotations(rs)
    changed = False
    for key, value in ((r.DESIRED_REPLICAS, str(desired)), (r.MAX_REPLICAS, str(max_replicas))):
        if ann.get(key) != value:
            ann[key] = value
            changed = True
    return changed


def replicas_annotations_need_update(rs: dict, desired: int, max_replicas: int) -> bool:
    ann = (rs.get("metadata") or {}).get("annotations") or {}
    return ann.get(r.DESIRED_REPLICAS) != str(desired) or ann.get(r.MAX_REPLICAS) != str(max_replicas)


def set_new_rs_annotations(
    d: dict, rs: dict, new_revision: int, exists: bool, limit_chars: int = MAX_HISTORY_CHARS
) -> bool:
    """SetNewReplicaSetAnnotations, on the new ReplicaSet ``rs``."""
    changed = False
    ann = _annotations(rs)
    for k, v in ((d.get("metadata") or {}).get("annotations") or {}).items():
        if k not in SKIPPED and ann.get(k) != v:  # copyDeploymentAnnotationsToReplicaSet
            ann[k] = v
            changed = True
    had = r.REVISION in ann
    old = ann.get(r.REVISION, "")
    try:
        old_n = int(old, 10) if old else 0
    except ValueError:
        return False  # an old revision that is not a number: nothing more is done
    if old_n < new_revision:
        ann[r.REVISION] = str(new_revision)
        changed = True
        if had:
            _append_history(ann, old, limit_chars)
    if not exists:
        surge, _ = r.rolling_params(d)
        want = r.desired_replicas(d)
        changed = set_replicas_annotations(rs, want, want + surge) or changed
    return changed


def _append_history(ann: dict, old: str, limit_chars: int) -> None:
    history = ann.get(REVISION_HISTORY, "")
    if not history:
        ann[REVISION_HISTORY] = old
        return
    parts = history.split(",")
    total, start = len(history) + len(old) + 1, 0
    while total > limit_chars and start < len(parts):  # the oldest go first
        total -= len(parts[start]) + 1
        start += 1
    if total <= limit_chars:
        ann[REVISION_HISTORY] = ",".join(parts[start:] + [old])


def set_deployment_revision(d: dict, value: str) -> bool:
    """SetDeploymentRevision: the Deployment's revision annotation (written
    with the status update that follows, which keeps metadata but labels)."""
    ann = _annotations(d)
    if ann.get(r.REVISION) != value:
        ann[r.REVISION] = value
        return True
    return False
