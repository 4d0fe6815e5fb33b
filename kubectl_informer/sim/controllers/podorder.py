"""Which pods a ReplicaSet deletes first when it has too many: the
ReplicaSet controller's ``getPodsToDelete``, which ranks each pod by how
many active pods of the same controller (the Deployment's other
ReplicaSets included, ``getIndirectlyRelatedPods``) share its node
(``getPodsRankedByRelatedPodsOnSameNode``) and sorts by
``controller.ActivePodsWithRanks.Less`` (pkg/controller/controller_utils.go),
with the feature gates on as in v1.36 (PodDeletionCost, LogarithmicScaleDown).

Pure functions on pod dicts, tested alone (tests/sim/test_pod_order.py).
"""

from __future__ import annotations

import functools
import math
from datetime import UTC, datetime

DELETION_COST = "controller.kubernetes.io/pod-deletion-cost"
_PHASE_ORDINAL = {"Pending": 0, "Unknown": 1, "Running": 2}  # podPhaseToOrdinal; any other phase counts 0
_INT32 = (-(2**31), 2**31 - 1)


def parse_time(ts: str | None) -> datetime | None:
    """An RFC 3339 time as the API serves it (seconds or fractions), None when absent."""
    if not ts:
        return None
    try:
        return datetime.fromisoformat(ts.replace("Z", "+00:00"))
    except ValueError:
        return None


def is_ready(pod: dict) -> bool:
    """podutil.IsPodReady."""
    return any(
        c.get("type") == "Ready" and c.get("status") == "True"
        for c in (pod.get("status") or {}).get("conditions") or []
    )


def is_active(pod: dict) -> bool:
    """controller.IsPodActive: not Succeeded or Failed, and not being deleted."""
    return (pod.get("status") or {}).get("phase") not in ("Succeeded", "Failed") and not (
        pod.get("metadata") or {}
    ).get("deletionTimestamp")


def deletion_cost(pod: dict) -> int:
    """helper.GetDeletionCostFromPodAnnotations: the annotation as an int32;
    0 when absent or not a plain decimal ("+1", "007" and out of range are 0)."""
    value = ((pod.get("metadata") or {}).get("annotations") or {}).get(DELETION_COST)
    if value is None or not value:
        return 0
    if not (value[0] == "-" or value == "0" or "1" <= value[0] <= "9"):
        return 0
    try:
        n = int(value, 10)
    except ValueError:
        return 0
    return n if _INT32[0] <= n <= _INT32[1] and value.lstrip("-").isdigit() else 0


def ready_time(pod: dict) -> datetime | None:
    """podReadyTime: the Ready condition's lastTransitionTime for a ready pod, else zero (None)."""
    if not is_ready(pod):
        return None
    for c in (pod.get("status") or {}).get("conditions") or []:
        if c.get("type") == "Ready" and c.get("status") == "True":
            return parse_time(c.get("lastTransitionTime"))
    return None


def max_restarts(pod: dict) -> tuple[int, int]:
    """maxContainerRestarts: (regular, sidecar) — the most restarts of any
    container, and of any init container that always restarts (a sidecar)."""
    status = pod.get("status") or {}
    regular = max([int(c.get("restartCount") or 0) for c in status.get("containerStatuses") or []], default=0)
    sidecars = {
        c.get("name") for c in (pod.get("spec") or {}).get("initContainers") or [] if c.get("restartPolicy") == "Always"
    }
    sidecar = max(
        [
            int(c.get("restartCount") or 0)
            for c in status.get("initContainerStatuses") or []
            if c.get("name") in sidecars
        ],
        default=0,
    )
    return regular, sidecar


def _after_or_zero(t1: datetime | None, t2: datetime | None) -> bool:
    """afterOrZero: a zero time sorts first, else the later one does."""
    if t1 is None or t2 is None:
        return t1 is None
    return t1 > t2


def _log_rank_diff(t1: datetime, t2: datetime, now: datetime) -> int:
    """logarithmicRankDiff: compare floor(log2(age in nanoseconds)); a non-positive age ranks -1."""

    def rank(t: datetime) -> int:
        ns = round((now - t).total_seconds() * 1e9)
        return int(math.log2(ns)) if ns > 0 else -1

    return rank(t1) - rank(t2)


def _by_time(t1: datetime | None, t2: datetime | None, uid1: str, uid2: str, now: datetime | None) -> bool:
    # The LogarithmicScaleDown branch (GA since 1.31): times in the same power-of-two age bucket
    # are equal, and the UID breaks the tie.
    if now is None or t1 is None or t2 is None:
        return _after_or_zero(t1, t2)
    diff = _log_rank_diff(t1, t2, now)
    return uid1 < uid2 if diff == 0 else diff < 0


def less(a: dict, b: dict, rank_a: int, rank_b: int, now: datetime | None) -> bool:
    """ActivePodsWithRanks.Less: True when ``a`` is deleted before ``b``."""
    node_a, node_b = (a.get("spec") or {}).get("nodeName") or "", (b.get("spec") or {}).get("nodeName") or ""
    if node_a != node_b and (not node_a or not node_b):
        return not node_a  # unassigned first
    pa = _PHASE_ORDINAL.get((a.get("status") or {}).get("phase") or "", 0)
    pb = _PHASE_ORDINAL.get((b.get("status") or {}).get("phase") or "", 0)
    if pa != pb:
        return pa < pb  # Pending < Unknown < Running
    if is_ready(a) != is_ready(b):
        return not is_ready(a)  # not ready first
    ca, cb = deletion_cost(a), deletion_cost(b)
    if ca != cb:
        return ca < cb  # lower pod-deletion-cost first
    if rank_a != rank_b:
        return rank_a > rank_b  # more related pods on its node first
    uid_a, uid_b = (a.get("metadata") or {}).get("uid", ""), (b.get("metadata") or {}).get("uid", "")
    if is_ready(a) and is_ready(b):
        ta, tb = ready_time(a), ready_time(b)
        if ta != tb:
            return _by_time(ta, tb, uid_a, uid_b, now)  # ready for less time first
    ra, rb = max_restarts(a), max_restarts(b)
    if ra[0] != rb[0]:
        return ra[0] > rb[0]  # more restarts first
    if ra[1] != rb[1]:
        return ra[1] > rb[1]
    ta = parse_time((a.get("metadata") or {}).get("creationTimestamp"))
    tb = parse_time((b.get("metadata") or {}).get("creationTimestamp"))
    if ta != tb:
        return _by_time(ta, tb, uid_a, uid_b, now)  # newer first
    return False


def sort_with_ranks(pods: list[dict], ranks: list[int], now: datetime | None = None) -> list[dict]:
    """The pods in ActivePodsWithRanks order (``ranks`` parallel to ``pods``)."""
    now = now or datetime.now(UTC)
    pairs = list(zip(pods, ranks, strict=True))

    def cmp(x: tuple[dict, int], y: tuple[dict, int]) -> int:
        if less(x[0], y[0], x[1], y[1], now):
            return -1
        if less(y[0], x[0], y[1], x[1], now):
            return 1
        return 0

    return [p for p, _ in sorted(pairs, key=functools.cmp_to_key(cmp))]


def ranks_by_node(pods: list[dict], related: list[dict]) -> list[int]:
    """getPodsRankedByRelatedPodsOnSameNode's ranks: for each pod, the active
    related pods on its node (pods with no node share the "" node)."""
    on_node: dict[str, int] = {}
    for p in related:
        if is_active(p):
            node = (p.get("spec") or {}).get("nodeName") or ""
            on_node[node] = on_node.get(node, 0) + 1
    return [on_node.get((p.get("spec") or {}).get("nodeName") or "", 0) for p in pods]


def pods_to_delete(pods: list[dict], related: list[dict], diff: int, now: datetime | None = None) -> list[dict]:
    """getPodsToDelete: the first ``diff`` pods, ranked and sorted only when not all of them go."""
    if diff < len(pods):
        pods = sort_with_ranks(pods, ranks_by_node(pods, related), now)
    return pods[:diff]
