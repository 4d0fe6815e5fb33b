"""Which pods a ReplicaSet deletes first: ports of upstream's
TestSortingActivePodsWithRanks (pkg/controller/controller_utils_test.go,
with PodDeletionCost and LogarithmicScaleDown on, as in v1.36) and
TestGetPodsToDelete (pkg/controller/replicaset/replica_set_test.go)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from kubectl_informer.sim.controllers.podorder import (
    DELETION_COST,
    deletion_cost,
    less,
    pods_to_delete,
    ranks_by_node,
    sort_with_ranks,
)

NOW = datetime(2026, 6, 1, 12, 0, 0, tzinfo=UTC)
MONTH_AGO, H2, H5, H8 = (
    NOW - timedelta(days=30),
    NOW - timedelta(hours=2),
    NOW - timedelta(hours=5),
    NOW - timedelta(hours=8),
)


def _ts(t: datetime | None) -> str | None:
    return None if t is None else t.isoformat().replace("+00:00", "Z")


def pod(
    name: str,
    node: str,
    phase: str,
    ready: bool,
    restarts: int = 0,
    side_restarts: int = 0,
    ready_since: datetime | None = None,
    created: datetime | None = None,
    annotations=None,
) -> dict:
    status: dict = {"phase": phase}
    if ready:
        status["conditions"] = [{"type": "Ready", "status": "True", "lastTransitionTime": _ts(ready_since)}]
        status["containerStatuses"] = [{"restartCount": restarts}]
        status["initContainerStatuses"] = [{"name": "sidecar", "restartCount": side_restarts}]
    meta = {"name": name, "creationTimestamp": _ts(created)}
    if annotations:
        meta["annotations"] = annotations
    return {
        "metadata": meta,
        "spec": {"nodeName": node, "initContainers": [{"name": "sidecar", "restartPolicy": "Always"}]},
        "status": status,
    }


UNSCHEDULED = pod("unscheduled", "", "Pending", False)
PENDING = pod("pending", "node", "Pending", False)
UNKNOWN = pod("unknown-phase", "node", "Unknown", False)
NOT_READY = pod("not-ready", "node", "Running", False)
READY_NO_TIME = pod("ready-no-last-transition-time", "node", "Running", True)
READY_NOW = pod("ready-now", "node", "Running", True, ready_since=NOW, created=NOW)
READY_THEN = pod("ready-then", "node", "Running", True, ready_since=MONTH_AGO, created=MONTH_AGO)
HIGH_RESTARTS = pod("ready-high-restarts", "node", "Running", True, 9001, 0, NOW, NOW)
HIGH_SIDE_RESTARTS = pod("ready-high-restarts", "node", "Running", True, 9001, 9001, NOW, NOW)
CREATED_THEN = pod("ready-now-created-then", "node", "Running", True, ready_since=NOW, created=MONTH_AGO)
LOW_COST = pod(
    "low-deletion-cost", "node", "Running", True, ready_since=NOW, created=MONTH_AGO, annotations={DELETION_COST: "10"}
)
HIGH_COST = pod(
    "high-deletion-cost",
    "node",
    "Running",
    True,
    ready_since=NOW,
    created=MONTH_AGO,
    annotations={DELETION_COST: "100"},
)
UNSCHEDULED_5H = pod("unscheduled-5-hours", "", "Pending", False, ready_since=H5, created=H5)
UNSCHEDULED_8H = pod("unscheduled-10-hours", "", "Pending", False, ready_since=H8, created=H8)
READY_2H = pod("ready-2-hours", "", "Running", True, ready_since=H2, created=MONTH_AGO)
READY_5H = pod("ready-5-hours", "", "Running", True, ready_since=H5, created=MONTH_AGO)
READY_8H = pod("ready-10-hours", "", "Running", True, ready_since=H8, created=MONTH_AGO)


@pytest.mark.parametrize(
    "p1,p2",
    [
        (UNSCHEDULED, None),
        (PENDING, None),
        (UNKNOWN, None),
        (NOT_READY, None),
        (CREATED_THEN, None),
        (READY_NOW, None),
        (READY_THEN, None),
        (HIGH_RESTARTS, None),
        (UNSCHEDULED_5H, UNSCHEDULED_8H),  # the same power-of-two age bucket: equal (LogarithmicScaleDown)
        (READY_5H, READY_8H),
    ],
)
def test_equal_pods_are_not_ordered(p1, p2):
    p2 = p2 or p1
    assert not less(p1, p2, 1, 1, NOW) and not less(p2, p1, 1, 1, NOW)


@pytest.mark.parametrize(
    "lesser,greater",
    [
        ((UNSCHEDULED, 1), (PENDING, 2)),
        ((UNSCHEDULED, 2), (PENDING, 1)),
        ((PENDING, 1), (UNKNOWN, 2)),
        ((UNKNOWN, 1), (NOT_READY, 2)),
        ((NOT_READY, 1), (READY_NO_TIME, 1)),
        ((READY_NO_TIME, 1), (READY_NOW, 1)),
        ((READY_NOW, 2), (READY_NO_TIME, 1)),
        ((READY_NOW, 1), (READY_THEN, 1)),
        ((READY_NOW, 2), (READY_THEN, 1)),
        ((HIGH_RESTARTS, 1), (READY_NOW, 1)),
        ((HIGH_SIDE_RESTARTS, 1), (HIGH_RESTARTS, 1)),
        ((READY_NOW, 2), (HIGH_RESTARTS, 1)),
        ((READY_NOW, 1), (CREATED_THEN, 1)),
        ((CREATED_THEN, 2), (READY_NOW, 1)),
        ((LOW_COST, 2), (HIGH_COST, 1)),  # the cost decides before the rank
        ((READY_2H, 1), (READY_5H, 1)),
    ],
)
def test_the_lesser_pod_is_deleted_first(lesser, greater):
    (a, ra), (b, rb) = lesser, greater
    assert less(a, b, ra, rb, NOW)
    assert not less(b, a, rb, ra, NOW)


@pytest.mark.parametrize(
    "value,want",
    [
        ("10", 10),
        ("-5", -5),
        ("0", 0),
        ("+1", 0),
        ("007", 0),
        ("", 0),
        ("abc", 0),
        ("2147483648", 0),
        ("-2147483648", -2147483648),
    ],
)
def test_pod_deletion_cost_parses_as_upstream(value, want):
    assert deletion_cost({"metadata": {"annotations": {DELETION_COST: value}}}) == want


def _ready_on(name: str, node: str) -> dict:
    return {
        "metadata": {"name": name},
        "spec": {"nodeName": node},
        "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]},
    }


NOT_READY_NODE = {
    "metadata": {"name": "scheduled-running-not-ready-pod"},
    "spec": {"nodeName": "fake-node"},
    "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "False"}]},
}
PENDING_NODE = {
    "metadata": {"name": "scheduled-pending-pod"},
    "spec": {"nodeName": "fake-node"},
    "status": {"phase": "Pending"},
}
UNSCHEDULED_PENDING = {"metadata": {"name": "unscheduled-pending-pod"}, "spec": {}, "status": {"phase": "Pending"}}
ON1, ON2 = _ready_on("ready-on-node-1", "fake-node-1"), _ready_on("ready-on-node-2", "fake-node-2")


@pytest.mark.parametrize(
    "pods,related,diff,want",
    [
        ([], [], 0, []),
        ([NOT_READY_NODE, ON1], [], 2, [NOT_READY_NODE, ON1]),  # all go: not sorted
        ([ON1, NOT_READY_NODE], [], 1, [NOT_READY_NODE]),
        (
            [ON1, ON1, ON2, NOT_READY_NODE, PENDING_NODE, UNSCHEDULED_PENDING],
            [],
            6,
            [ON1, ON1, ON2, NOT_READY_NODE, PENDING_NODE, UNSCHEDULED_PENDING],
        ),
        ([PENDING_NODE, UNSCHEDULED_PENDING], [], 1, [UNSCHEDULED_PENDING]),
        ([ON1, NOT_READY_NODE, NOT_READY_NODE], [], 2, [NOT_READY_NODE, NOT_READY_NODE]),
        # Ready and sharing its node with another related ready pod goes before one alone on its node.
        ([ON1, ON2], [ON1, ON1, ON2], 1, [ON1]),
        ([ON2, ON1], [ON1, ON2, ON2], 1, [ON2]),
    ],
)
def test_get_pods_to_delete(pods, related, diff, want):
    assert pods_to_delete(pods, related, diff, NOW) == want


def test_ranks_count_only_active_related_pods_on_the_node():
    gone = {**ON1, "metadata": {"name": "going", "deletionTimestamp": "2026-06-01T00:00:00Z"}}
    assert ranks_by_node([ON1, ON2, UNSCHEDULED_PENDING], [ON1, ON1, gone, ON2, UNSCHEDULED_PENDING]) == [2, 1, 1]


def test_sort_puts_the_cheapest_newest_unready_first():
    pods = [READY_THEN, CREATED_THEN, LOW_COST, NOT_READY, UNSCHEDULED]
    assert [p["metadata"]["name"] for p in sort_with_ranks(pods, [0] * len(pods), NOW)] == [
        "unscheduled",
        "not-ready",
        "ready-now-created-then",
        "ready-then",
        "low-deletion-cost",
    ]
