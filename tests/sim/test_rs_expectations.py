"""The ReplicaSet controller's pacing: ports of upstream's
TestControllerExpectations / TestUIDExpectations (controller_utils_test.go)
and TestSlowStartBatch (replica_set_test.go), and the simulated
ReplicaSet sync holding back while its last creates or deletes are
unobserved."""

from __future__ import annotations

import pytest

from kubectl_informer.clock.testing import FakeClock
from kubectl_informer.core.apierrors import ApiError
from kubectl_informer.sim.controllers import replicasets
from kubectl_informer.sim.controllers.expectations import EXPECTATIONS_TIMEOUT, ControllerExpectations, slow_start_batch
from kubectl_informer.sim.store import Store


def test_creations_observed_beyond_the_expected_still_satisfy():
    e = ControllerExpectations(FakeClock())
    e.expect_creations("ns/rs", 10)
    for _ in range(9):
        e.creation_observed("ns/rs")
    assert not e.satisfied("ns/rs")
    e.creation_observed("ns/rs")
    e.creation_observed("ns/rs")
    assert e.get("ns/rs") == (-1, 0) and e.satisfied("ns/rs")


def test_expectations_expire_after_five_minutes():
    clock = FakeClock()
    e = ControllerExpectations(clock)
    assert e.satisfied("ns/rs")  # never recorded
    e.expect_creations("ns/rs", 1)
    assert not e.satisfied("ns/rs")
    clock.step(EXPECTATIONS_TIMEOUT)
    assert not e.satisfied("ns/rs")
    clock.step(1)
    assert e.satisfied("ns/rs")


def test_only_the_expected_pods_deletions_count_once_each():
    e = ControllerExpectations(FakeClock())
    keys = [f"ns/rs-{i}" for i in range(5)]
    e.expect_deletions("ns/rs", keys)
    e.deletion_observed("ns/rs", "ns/someone-else")
    e.deletion_observed("ns/rs", keys[0])
    e.deletion_observed("ns/rs", keys[0])  # the same pod seen again (terminating, then gone)
    assert e.get("ns/rs") == (0, 4) and not e.satisfied("ns/rs")
    for k in keys[1:]:
        e.deletion_observed("ns/rs", k)
    assert e.satisfied("ns/rs")
    e.delete("ns/rs")
    assert e.get("ns/rs") is None


@pytest.mark.parametrize(
    "count,limit,successes,failed,calls",
    [
        (10, 0, 0, True, 1),  # all fail: the first batch of one ends it
        (10, 10, 10, False, 10),  # 1 + 2 + 4 + 3
        (10, 5, 5, True, 7),  # 1 + 2 + 4: the third batch had failures
    ],
)
def test_slow_start_batch(count, limit, successes, failed, calls):
    n = {"calls": 0}

    def fn():
        n["calls"] += 1
        if n["calls"] > limit:
            raise RuntimeError("fake error")

    got, err = slow_start_batch(count, 1, fn)
    assert (got, err is not None, n["calls"]) == (successes, failed, calls)


def _store_with_rs(replicas: int) -> Store:
    store = Store()
    store.create("namespaces", {"metadata": {"name": "ns"}})
    labels = {"app": "a"}
    store.create(
        "replicasets",
        {
            "apiVersion": "apps/v1",
            "kind": "ReplicaSet",
            "metadata": {"name": "rs", "namespace": "ns"},
            "spec": {
                "replicas": replicas,
                "selector": {"matchLabels": labels},
                "template": {"metadata": {"labels": labels}, "spec": {"containers": [{"name": "c", "image": "i"}]}},
            },
        },
    )
    return store


def test_a_replicaset_waits_for_its_creations_to_be_observed():
    store, e = _store_with_rs(3), ControllerExpectations(FakeClock())
    assert len(replicasets.sync(store, "ns", "rs", e)) == 3
    assert store.get("replicasets", "ns", "rs")["status"]["replicas"] == 0  # counted before the creates
    victim = store.list("pods", "ns")[0]["metadata"]["name"]
    store.delete("pods", "ns", victim)
    assert replicasets.sync(store, "ns", "rs", e) == []  # 3 adds still unobserved: no new pod
    assert store.count("pods") == 2
    for _ in range(3):
        e.creation_observed("ns/rs")
    assert len(replicasets.sync(store, "ns", "rs", e)) == 1


def test_a_failing_create_stops_the_slow_start_and_lowers_the_expectations():
    store, e = _store_with_rs(10), ControllerExpectations(FakeClock())
    real_create, calls = store.create, []

    def create(resource, obj, **kw):
        if resource == "pods":
            calls.append(1)
            if len(calls) > 5:
                raise ApiError(403, "Forbidden", "exceeded quota")
        return real_create(resource, obj, **kw)

    store.create = create
    with pytest.raises(ApiError):
        replicasets.sync(store, "ns", "rs", e)
    assert len(calls) == 7 and store.count("pods") == 5
    assert e.get("ns/rs") == (5, 0)  # the five made are still to be observed; the skipped are not awaited


def test_a_replicaset_deletes_by_rank_and_waits_for_the_deletions():
    store, e = _store_with_rs(3), ControllerExpectations(FakeClock())
    replicasets.sync(store, "ns", "rs", e)
    for _ in range(3):
        e.creation_observed("ns/rs")
    pods = sorted(store.list("pods", "ns"), key=lambda p: p["metadata"]["name"])
    cheap = pods[1]
    cheap["metadata"]["annotations"] = {"controller.kubernetes.io/pod-deletion-cost": "-10"}
    store.update("pods", cheap)
    rs = store.get("replicasets", "ns", "rs")
    rs["spec"]["replicas"] = 2
    store.update("replicasets", rs)
    replicasets.sync(store, "ns", "rs", e)
    assert [
        p["metadata"]["name"] for p in store.list("pods", "ns") if not p["metadata"].get("deletionTimestamp")
    ] == sorted(p["metadata"]["name"] for p in pods if p is not cheap)
    assert e.get("ns/rs") == (0, 1) and not e.satisfied("ns/rs")


def test_a_conflicting_status_write_is_tried_once_more_on_a_fresh_read():
    """updateReplicaSetStatus: statusUpdateRetries (1), the ReplicaSet read again in between."""
    store, e = _store_with_rs(0), ControllerExpectations(FakeClock())
    real_update, calls = store.update, []

    def update(resource, obj, subresource=None, **kw):
        if resource == "replicasets" and subresource == "status":
            calls.append(obj["metadata"]["resourceVersion"])
            if len(calls) == 1:
                raise ApiError(409, "Conflict", "the object has been modified")
        return real_update(resource, obj, subresource=subresource, **kw)

    store.update = update
    replicasets.sync(store, "ns", "rs", e)
    assert len(calls) == 2 and store.get("replicasets", "ns", "rs")["status"]["observedGeneration"] == 1
