"""The simulated Deployment controller's arithmetic against the real
controller's rules: the cases of pkg/controller/deployment's rolling_test.go
and util/deployment_util_test.go, ported to the pure functions of
``sim/controllers/rollout.py``."""

from __future__ import annotations

import pytest

from kubectl_informer.core.apierrors import ApiError
from kubectl_informer.sim.controllers import rollout as r


def deployment(replicas, surge=None, unavailable=None, strategy="RollingUpdate") -> dict:
    ru = {k: v for k, v in (("maxSurge", surge), ("maxUnavailable", unavailable)) if v is not None}
    spec = {"replicas": replicas, "strategy": {"type": strategy}}
    if strategy == "RollingUpdate":
        spec["strategy"]["rollingUpdate"] = ru
    return {"metadata": {}, "spec": spec}


@pytest.mark.parametrize(
    "surge,unavailable,desired,want",
    [
        ("25%", "25%", 10, (3, 2)),  # surge rounds up, unavailable down
        ("25%", "25%", 5, (2, 1)),  # the defaults for kubectl create deployment --replicas=5
        ("25%", "25%", 3, (1, 0)),
        ("25%", "25%", 1, (1, 0)),
        (0, 0, 10, (0, 1)),  # both zero: unavailable becomes 1, or nothing could move
        ("0%", "0%", 10, (0, 1)),
        ("50%", 1, 10, (5, 1)),
        (2, "30%", 10, (2, 3)),
        (None, None, 4, (1, 1)),  # unset: the 25% defaults
    ],
)
def test_resolve_fenceposts(surge, unavailable, desired, want):
    assert r.resolve_fenceposts(surge, unavailable, desired) == want


@pytest.mark.parametrize(
    "d,want",
    [
        (deployment(10, 1, 5), 5),
        (deployment(10, 1, 10), 10),
        (deployment(5, 1, 10), 5),
        (deployment(0, 1, 10), 0),
        (deployment(10, strategy="Recreate"), 0),
        (deployment(10, 1, "50%"), 5),
        (deployment(10, 1, "100%"), 10),
        (deployment(5, 1, "100%"), 5),
    ],
)
def test_max_unavailable_as_deployment_util_test(d, want):
    assert r.rolling_params(d)[1] == want


@pytest.mark.parametrize("bad", ["abc", "10", "-5%", "5.5%", True, None, 1.5])
def test_a_value_neither_int_nor_percent_is_refused(bad):
    with pytest.raises(ApiError) as e:
        r.scaled_value(bad, 10, True)
    assert e.value.status == 422


# rolling_test.go TestDeploymentController_reconcileNewReplicaSet: maxUnavailable 0, one old ReplicaSet.
@pytest.mark.parametrize(
    "replicas,surge,old,new,want",
    [
        (10, 0, 10, 0, 0),  # no surge: cannot scale up
        (10, 2, 10, 0, 2),
        (10, 2, 5, 0, 7),
        (10, 2, 10, 2, 2),  # at replicas + surge already
        (10, 2, 2, 11, 10),  # above the Deployment's size: scaled down
    ],
)
def test_reconcile_new_replica_set(replicas, surge, old, new, want):
    s, _ = r.resolve_fenceposts(surge, 0, replicas)
    assert r.reconcile_new_size(replicas, s, old + new, new) == want


# rolling_test.go TestDeploymentController_reconcileOldReplicaSets: maxSurge 0.
@pytest.mark.parametrize(
    "replicas,unavailable,old,new,old_ready,new_ready,want_old",
    [
        (10, 0, 10, 0, 10, 0, 9),
        (10, 2, 10, 0, 10, 0, 8),
        (10, 2, 10, 0, 8, 0, 8),  # the unhealthy old pods are cleaned up first
        (10, 2, 10, 0, 9, 0, 8),  # one unhealthy cleaned up and one ready scaled down
        (10, 2, 8, 2, 8, 0, 8),  # the new ReplicaSet's unavailable pods block a further scale-down
    ],
)
def test_reconcile_old_replica_sets(replicas, unavailable, old, new, old_ready, new_ready, want_old):
    _, u = r.resolve_fenceposts(0, unavailable, replicas)
    assert r.old_sizes_after_scale_down(replicas, u, (new, new_ready), [(old, old_ready)]) == [want_old]


# rolling_test.go TestDeploymentController_scaleDownOldReplicaSetsForRollingUpdate: the old RS alone.
@pytest.mark.parametrize(
    "replicas,unavailable,ready,old,want",
    [
        (10, 0, 10, 10, 9),
        (10, 2, 10, 10, 8),
        (10, 2, 8, 10, 10),
        (10, 2, 10, 0, 0),
        (10, 2, 1, 10, 10),
    ],
)
def test_scale_down_old_replica_sets_for_rolling_update(replicas, unavailable, ready, old, want):
    _, u = r.resolve_fenceposts(0, unavailable, replicas)
    budget = r.scale_down_budget(replicas, u, ready)
    assert r.take_in_order([old], budget) == [want]


def test_cleanup_and_scale_down_are_two_updates_of_one_replica_set():
    # 10 replicas, maxUnavailable 2, the old one 10 with 9 available: one unhealthy pod goes
    # (cleanupUnhealthyReplicas: 10 -> 9), then one available beyond 8 (9 -> 8): two updates,
    # two ScalingReplicaSet events, as upstream.
    assert r.old_scale_down_steps(10, 2, (0, 0), [(10, 9)]) == ([(0, 9), (0, 8)], True)
    # Status behind a scale-down (more available than desired): upstream's cleanup errors out.
    assert r.old_scale_down_steps(10, 2, (0, 0), [(5, 6), (5, 5)]) == ([], False)


def test_scale_down_takes_the_oldest_replica_set_first():
    # 10 replicas, maxUnavailable 3, 12 available in all: 5 may go, all from the oldest first.
    assert r.old_sizes_after_scale_down(10, 3, (4, 4), [(3, 3), (5, 5)]) == [0, 3]


def test_a_rolling_update_of_five_with_the_defaults_goes_step_by_step():
    """kubectl create deployment --replicas=5, then a template change: maxSurge
    2, maxUnavailable 1. The new ReplicaSet may start 2 pods; one old pod may go
    at once; then each step waits for new pods to become available."""
    surge, unavailable = r.rolling_params(deployment(5))
    assert (surge, unavailable) == (2, 1)
    assert r.reconcile_new_size(5, surge, 5, 0) == 2
    assert r.old_sizes_after_scale_down(5, unavailable, (2, 0), [(5, 5)]) == [4]
    assert r.reconcile_new_size(5, surge, 6, 2) == 3
    assert r.old_sizes_after_scale_down(5, unavailable, (3, 0), [(4, 4)]) == [4]  # none new available yet
    assert r.old_sizes_after_scale_down(5, unavailable, (3, 3), [(4, 4)]) == [1]


@pytest.mark.parametrize(
    "sizes,maxes,replicas,surge,status,want",
    [
        ([5], [5], 10, 0, 5, [10]),  # one ReplicaSet takes the whole change
        ([6, 4], [10, 10], 20, 0, 10, [12, 8]),  # shared by proportion
        ([6, 4], [10, 10], 5, 0, 10, [3, 2]),
        ([3, 3, 3], [9, 9, 9], 10, 0, 9, [4, 3, 3]),  # the leftover goes to the first (largest)
        ([6, 4], [None, None], 20, 0, 10, [12, 8]),  # no annotation: status.replicas is the base
        ([6, 4], [10, 10], 0, 0, 10, [0, 0]),  # scaled to zero
    ],
)
def test_proportional_scaling(sizes, maxes, replicas, surge, status, want):
    assert r.proportions(sizes, maxes, replicas, surge, status) == want
    assert sum(want) == (replicas + surge if replicas else 0)


def test_template_hash_follows_the_template_and_the_collision_count():
    t = {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "nginx", "image": "nginx"}]}}
    h = r.template_hash(t)
    assert h == r.template_hash({**t, "metadata": {"labels": {"app": "web", r.HASH_LABEL: "x"}}})
    assert set(h) <= set("bcdfghjklmnpqrstvwxz2456789") and 1 <= len(h) <= 10
    assert r.template_hash({**t, "spec": {"containers": [{"name": "nginx", "image": "nginx:2"}]}}) != h
    assert r.template_hash(t, 0) != h and r.template_hash(t, 1) not in (h, r.template_hash(t, 0))


def test_safe_encode_is_apimachinerys():
    # Each byte indexes "bcdfghjklmnpqrstvwxz2456789": the digits 0-9 map to 4..9, b, c, d, f.
    assert r.safe_encode("0123456789") == "456789bcdf"
    assert r.fnv32a(b"") == 0x811C9DC5 and r.fnv32a(b"a") == 0xE40C292C


def test_templates_equal_ignores_only_the_hash_label():
    a = {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"image": "nginx"}]}}
    b = {"metadata": {"labels": {"app": "web", r.HASH_LABEL: "abc"}}, "spec": {"containers": [{"image": "nginx"}]}}
    assert r.templates_equal(a, b)
    assert not r.templates_equal(a, {**b, "spec": {"containers": [{"image": "nginx:2"}]}})
    assert not r.templates_equal(
        a, {"metadata": {"labels": {"app": "web"}, "annotations": {"x": "1"}}, "spec": a["spec"]}
    )
