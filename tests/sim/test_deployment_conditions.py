"""The Deployment controller's status rules, ported from upstream's tests:
TestSyncRolloutStatus (progress_test.go; progress deadlines aside, the
simulator does not time them), TestSetCondition, TestDeploymentComplete,
TestDeploymentProgressing and the revision annotations of TestAnnotationUtils
(deployment/util/deployment_util_test.go); and the controller writing the
revision with the create and the status update, never on its own."""

from __future__ import annotations

import copy

import pytest

from kubectl_informer.core.apierrors import ApiError
from kubectl_informer.sim.controllers import deployment_status as ds
from kubectl_informer.sim.controllers import revisions as rev
from kubectl_informer.sim.controllers import rollout as r
from kubectl_informer.sim.controllers.deployment_sync import sync
from kubectl_informer.sim.scenarios import web_deployment
from kubectl_informer.sim.store import Store

T = "2017-02-15T18:49:00Z"
NEW_RS_AVAILABLE = {
    "type": "Progressing",
    "status": "True",
    "reason": ds.NEW_RS_AVAILABLE,
    "lastUpdateTime": T,
    "lastTransitionTime": T,
}
RS_UPDATED = {
    "type": "Progressing",
    "status": "True",
    "reason": ds.RS_UPDATED,
    "lastUpdateTime": T,
    "lastTransitionTime": T,
}
TIMED_OUT = {"type": "Progressing", "status": "False", "reason": ds.TIMED_OUT}


def deployment(pds, replicas, status_replicas, updated, available, conditions) -> dict:
    """currentDeployment: a Recreate Deployment with this status."""
    return {
        "metadata": {"name": "progress-test"},
        "spec": {"progressDeadlineSeconds": pds, "replicas": replicas, "strategy": {"type": "Recreate"}},
        "status": {
            "replicas": status_replicas,
            "updatedReplicas": updated,
            "availableReplicas": available,
            "conditions": copy.deepcopy(conditions),
        },
    }


def rs(name, spec_replicas, status_replicas, available) -> dict:
    """newRSWithAvailable."""
    return {
        "metadata": {"name": name},
        "spec": {"replicas": spec_replicas},
        "status": {"replicas": status_replicas, "availableReplicas": available},
    }


@pytest.mark.parametrize(
    "d,all_rs,new,want,transition_kept",
    [
        # No progress deadline: no Progressing condition at all.
        (deployment(ds.MAX_INT32, 3, 2, 2, 2, [RS_UPDATED]), [rs("bar", 0, 1, 1)], rs("foo", 3, 2, 2), None, False),
        # Only one active ReplicaSet, complete before: left alone (times too).
        (deployment(60, 3, 3, 3, 3, [NEW_RS_AVAILABLE]), [rs("bar", 3, 3, 3)], None, NEW_RS_AVAILABLE, True),
        # Progress while Progressing=True keeps the transition time.
        (deployment(60, 3, 2, 2, 2, [RS_UPDATED]), [rs("bar", 0, 1, 1)], rs("foo", 3, 2, 2), ds.RS_UPDATED, True),
        (deployment(60, 3, 2, 2, 2, [TIMED_OUT]), [rs("bar", 0, 1, 1)], rs("foo", 3, 2, 2), ds.RS_UPDATED, False),
        (deployment(60, 3, 2, 2, 2, []), [rs("bar", 0, 1, 1)], rs("foo", 3, 2, 2), ds.RS_UPDATED, False),
        (deployment(60, 3, 3, 3, 3, [RS_UPDATED]), [], rs("foo", 3, 3, 3), ds.NEW_RS_AVAILABLE, True),
        (deployment(60, 3, 3, 3, 3, [TIMED_OUT]), [], rs("foo", 3, 3, 3), ds.NEW_RS_AVAILABLE, False),
        (deployment(60, 3, 3, 3, 3, []), [], rs("foo", 3, 3, 3), ds.NEW_RS_AVAILABLE, False),
        (deployment(60, 0, 3, 3, 3, [RS_UPDATED]), [rs("foo", 0, 0, 0)], None, ds.NEW_RS_AVAILABLE, True),
    ],
)
def test_sync_rollout_status(d, all_rs, new, want, transition_kept):
    all_rs = all_rs + ([new] if new else [])
    cond = ds.get_condition(ds.rollout_status(d, all_rs, new), "Progressing")
    if want is None:
        assert cond is None
        return
    reason = want if isinstance(want, str) else want["reason"]
    assert (cond["status"], cond["reason"]) == ("True", reason)
    assert (cond["lastTransitionTime"] == T) == transition_kept
    if want is NEW_RS_AVAILABLE:
        assert cond["lastUpdateTime"] == T  # untouched


def test_a_pure_scale_up_keeps_new_replicaset_available():
    """isCompleteDeployment: once NewReplicaSetAvailable, no old replicas means no Progressing change,
    even while the new pods of a scale-up are not yet available."""
    d = deployment(600, 5, 3, 3, 3, [NEW_RS_AVAILABLE])
    d["spec"]["strategy"] = {}
    cond = ds.get_condition(ds.rollout_status(d, [rs("foo", 5, 5, 3)], rs("foo", 5, 5, 3)), "Progressing")
    assert cond == NEW_RS_AVAILABLE


def test_available_condition_follows_max_unavailable():
    d = {"metadata": {"name": "d", "generation": 2}, "spec": {"replicas": 4}, "status": {}}  # 25%: 1 may be down
    st = ds.calculate(d, [rs("a", 4, 4, 3)], rs("a", 4, 4, 3))
    assert ds.get_condition(st, "Available")["reason"] == ds.MIN_AVAILABLE
    assert (st["observedGeneration"], st["unavailableReplicas"]) == (2, 1)
    st = ds.calculate(d, [rs("a", 4, 4, 2)], rs("a", 4, 4, 2))
    assert ds.get_condition(st, "Available")["reason"] == ds.MIN_UNAVAILABLE


def test_set_condition_ignores_a_new_message_and_appends_a_new_reason():
    status = {
        "conditions": [
            {"type": "Progressing", "status": "True", "reason": "A", "message": "m1", "lastTransitionTime": T},
            {"type": "Available", "status": "True", "reason": "X"},
        ]
    }
    ds.set_condition(status, {**ds.new_condition("Progressing", "True", "A", "m2")})
    assert status["conditions"][0]["message"] == "m1"
    ds.set_condition(status, ds.new_condition("Progressing", "True", "B", "m3"))
    assert [c["type"] for c in status["conditions"]] == ["Available", "Progressing"]
    assert status["conditions"][1]["lastTransitionTime"] == T  # same status: transition time kept


@pytest.mark.parametrize(
    "replicas,status,complete",
    [
        (5, dict(replicas=5, updatedReplicas=5, availableReplicas=5, observedGeneration=1), True),
        (5, dict(replicas=5, updatedReplicas=5, availableReplicas=5, observedGeneration=0), False),
        (5, dict(replicas=6, updatedReplicas=5, availableReplicas=5, observedGeneration=1), False),
        (5, dict(replicas=5, updatedReplicas=4, availableReplicas=5, observedGeneration=1), False),
        (5, dict(replicas=5, updatedReplicas=5, availableReplicas=4, observedGeneration=1), False),
    ],
)
def test_deployment_complete(replicas, status, complete):
    assert ds.complete({"metadata": {"generation": 1}, "spec": {"replicas": replicas}}, status) is complete


@pytest.mark.parametrize(
    "old,new,progressing",
    [
        (dict(replicas=10, updatedReplicas=2), dict(replicas=10, updatedReplicas=3), True),  # more updated
        (dict(replicas=10, updatedReplicas=2), dict(replicas=9, updatedReplicas=2), True),  # fewer old
        (dict(replicas=10, readyReplicas=2), dict(replicas=10, readyReplicas=3), True),
        (dict(replicas=10, availableReplicas=2), dict(replicas=10, availableReplicas=3), True),
        (dict(replicas=10, updatedReplicas=2), dict(replicas=11, updatedReplicas=2), False),  # more old
        (dict(replicas=10, updatedReplicas=2), dict(replicas=10, updatedReplicas=2), False),
    ],
)
def test_deployment_progressing(old, new, progressing):
    assert ds.progressing({"status": old}, new) is progressing


def test_new_replicaset_annotations_move_the_revision_and_keep_history():
    d = {"metadata": {"annotations": {"team": "a", r.REVISION: "9", rev.LAST_APPLIED: "{}"}}, "spec": {"replicas": 4}}
    fresh = {"metadata": {}}
    assert rev.set_new_rs_annotations(d, fresh, 1, exists=False)
    assert fresh["metadata"]["annotations"] == {
        "team": "a",
        r.REVISION: "1",
        r.DESIRED_REPLICAS: "4",
        r.MAX_REPLICAS: "5",
    }
    rolled_back = {"metadata": {"annotations": {r.REVISION: "1"}}}
    assert rev.set_new_rs_annotations(d, rolled_back, 3, exists=True)
    assert rolled_back["metadata"]["annotations"][rev.REVISION_HISTORY] == "1"
    rolled_back["metadata"]["annotations"][r.REVISION] = "3"
    assert rev.set_new_rs_annotations(d, rolled_back, 5, exists=True)
    assert rolled_back["metadata"]["annotations"][rev.REVISION_HISTORY] == "1,3"
    assert not rev.set_new_rs_annotations(d, rolled_back, 5, exists=True)  # already there: no update
    assert r.DESIRED_REPLICAS not in rolled_back["metadata"]["annotations"]  # only on a new one


def test_revision_history_drops_the_oldest_past_its_length_limit():
    rs_ = {"metadata": {"annotations": {r.REVISION: "4", rev.REVISION_HISTORY: "1,2,3"}}}
    rev.set_new_rs_annotations({"metadata": {}, "spec": {}}, rs_, 5, exists=True, limit_chars=6)
    assert rs_["metadata"]["annotations"][rev.REVISION_HISTORY] == "2,3,4"  # 7 chars > 6: "1" goes


def test_the_revision_is_written_with_the_create_and_the_status_update():
    store = Store()
    store.create("namespaces", {"metadata": {"name": "default"}})
    writes = []
    store.listeners.append(lambda rdef, ev: writes.append((rdef.qualified, ev.type)))
    store.create("deployments", web_deployment("default", "web", 3))
    writes.clear()
    with pytest.raises(ApiError) as e:
        sync(store, "default", "web")
    assert e.value.status == 409
    [made] = store.list("replicasets", "default")
    assert made["metadata"]["annotations"][r.REVISION] == "1" and made["spec"]["replicas"] == 3
    d = store.get("deployments", "default", "web")
    assert d["metadata"]["annotations"][r.REVISION] == "1"
    assert [c["reason"] for c in d["status"]["conditions"]] == [ds.NEW_RS_CREATED]
    # The create, then one status update with the annotation and the condition; the status
    # write that follows carries the resourceVersion read at the start: a 409, as upstream.
    assert writes == [("replicasets.apps", "ADDED"), ("deployments.apps", "MODIFIED")]


def test_a_deployment_status_update_writes_annotations_but_not_labels_or_spec():
    """deploymentStatusStrategy.PrepareForUpdate resets only spec and labels; other kinds'
    status updates keep all metadata (a pod's, ResetObjectMetaForStatus)."""
    store = Store()
    store.create("namespaces", {"metadata": {"name": "default"}})
    d = store.create("deployments", web_deployment("default", "web", 3))
    d["metadata"]["annotations"] = {r.REVISION: "1"}
    d["metadata"]["labels"] = {"app": "changed"}
    d["spec"]["replicas"] = 9
    d["status"] = {"observedGeneration": 1}
    out = store.update("deployments", d, subresource="status")
    assert out["metadata"]["annotations"] == {r.REVISION: "1"}
    assert out["metadata"]["labels"] == {"app": "web"} and out["spec"]["replicas"] == 3
    assert out["status"] == {"observedGeneration": 1}
    pod = store.create("pods", {"metadata": {"name": "p", "namespace": "default"}, "spec": {}})
    pod["metadata"]["annotations"] = {"a": "b"}
    pod["status"] = {"phase": "Running"}
    assert "annotations" not in store.update("pods", pod, subresource="status")["metadata"]
    patched = store.patch(
        "deployments",
        "default",
        "web",
        {"metadata": {"annotations": {r.REVISION: "2"}, "labels": {"x": "y"}}},
        subresource="status",
    )
    assert patched["metadata"]["annotations"] == {r.REVISION: "2"} and patched["metadata"]["labels"] == {"app": "web"}
