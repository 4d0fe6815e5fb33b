"""kube-controller-manager's Deployment controller's handlers. The cases port
pkg/controller/deployment/deployment_controller_test.go (v1.36):
TestAddReplicaSet, TestAddReplicaSetOrphan, TestUpdateReplicaSet,
TestUpdateReplicaSetOrphanWithNewLabels, TestUpdateReplicaSetChangeControllerRef,
TestUpdateReplicaSetRelease, TestDeleteReplicaSet, TestDeleteReplicaSetOrphan,
TestPodDeletion(Doesnt)EnqueuesRecreateDeployment and the partial-ownership
pair, TestGetPodMapForReplicaSets; and resolveControllerRef's rules (kind,
name, UID), the resync early return and what has no handler at all."""

from __future__ import annotations

import copy
import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kubectl_informer.cache.keys import DeletedFinalStateUnknown
from kubectl_informer.cache.store import Indexer
from kubectl_informer.core.label_selector_object import selects
from kubectl_informer.core.trace import TraceBuffer, Tracer
from kubectl_informer.run.deployment_controller import (
    DeploymentController,
    add_pod_controller_indexer,
)
from kubectl_informer.run.owners import Followed
from kubectl_informer.workqueue.queue import Queue

_uids = itertools.count()


def new_deployment(name, selector, strategy="RollingUpdate"):
    # newDeployment: a UID, the selector as matchLabels and template labels
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": "default", "uid": f"u-{name}-{next(_uids)}", "resourceVersion": "1"},
        "spec": {
            "selector": {"matchLabels": dict(selector)},
            "strategy": {"type": strategy},
            "template": {"metadata": {"labels": dict(selector)}},
        },
    }


def controller_ref(owner):
    return {
        "apiVersion": "apps/v1",
        "kind": owner["kind"],
        "name": owner["metadata"]["name"],
        "uid": owner["metadata"]["uid"],
        "controller": True,
        "blockOwnerDeletion": True,
    }


def new_replica_set(d, name):
    # newReplicaSet: the Deployment's labels, its controller reference
    return {
        "apiVersion": "apps/v1",
        "kind": "ReplicaSet",
        "metadata": {
            "name": name,
            "namespace": "default",
            "uid": f"u-{name}-{next(_uids)}",
            "resourceVersion": "1",
            "labels": dict(d["spec"]["selector"]["matchLabels"]),
            "ownerReferences": [controller_ref(d)],
        },
        "spec": {"selector": d["spec"]["selector"]},
    }


def generate_pod_from_rs(rs, name=None):
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": name or f"{rs['metadata']['name']}-pod",
            "namespace": "default",
            "uid": f"u-pod-{next(_uids)}",
            "resourceVersion": "1",
            "labels": dict(rs["metadata"]["labels"]),
            "ownerReferences": [controller_ref(rs)],
        },
    }


def bump(o, **meta):
    # bumpResourceVersion
    out = copy.deepcopy(o)
    out["metadata"]["resourceVersion"] = str(int(out["metadata"]["resourceVersion"]) + 1)
    out["metadata"].update(meta)
    return out


class Fixture:
    """newFixture + newController: the listers' objects in the caches, a
    queue, the trace."""

    def __init__(self, d_lister=(), rs_lister=(), pod_lister=()):
        self.tracer, self.trace = Tracer(), TraceBuffer()
        self.tracer.subscribe(self.trace)
        caches = [Indexer() for _ in range(3)]
        add_pod_controller_indexer(caches[2])
        for cache, objs in zip(caches, (d_lister, rs_lister, pod_lister), strict=True):
            for o in objs:
                cache.add(o)
        self.queue = Queue(tracer=self.tracer)
        self.dc = DeploymentController(
            Followed("deployments.apps", "Deployment", "apps", True, caches[0]),
            Followed("replicasets.apps", "ReplicaSet", "apps", True, caches[1]),
            Followed("pods", "Pod", "", True, caches[2]),
            self.queue,
            self.tracer,
        )

    def get(self):
        item, _ = self.queue.get()
        self.queue.done(item)
        return item

    def drain(self):
        return sorted(self.get() for _ in range(self.queue.len()))

    def events(self, kind):
        return [e for e in self.trace.drain() if e.kind == kind]


def key(o):
    return f"{o['metadata']['namespace']}/{o['metadata']['name']}"


@pytest.fixture
def two():
    d1 = new_deployment("d1", {"foo": "bar"})
    d2 = new_deployment("d2", {"foo": "bar"})
    return d1, d2, new_replica_set(d1, "rs1"), new_replica_set(d2, "rs2")


def test_add_replica_set(two):
    d1, d2, rs1, rs2 = two
    f = Fixture(d_lister=[d1, d2])
    f.dc.add_replica_set(rs1)
    assert f.queue.len() == 1 and f.get() == key(d1)
    f.dc.add_replica_set(rs2)
    assert f.queue.len() == 1 and f.get() == key(d2)
    assert [(e.fields["cause"], e.fields["via"]) for e in f.events("queue.add")] == [
        (["ReplicaSet default/rs1 Added"], "addReplicaSet"),
        (["ReplicaSet default/rs2 Added"], "addReplicaSet"),
    ]


def test_add_replica_set_orphan():
    d1, d2 = new_deployment("d1", {"foo": "bar"}), new_deployment("d2", {"foo": "bar"})
    d3 = new_deployment("d3", {"foo": "notbar"})
    rs = new_replica_set(d1, "rs1")
    rs["metadata"]["ownerReferences"] = []
    f = Fixture(d_lister=[d1, d2, d3])
    f.dc.add_replica_set(rs)
    assert f.drain() == [key(d1), key(d2)]


def test_add_replica_set_being_deleted_is_handled_as_its_deletion(two):
    d1, _, rs1, _ = two
    f = Fixture(d_lister=[d1])
    orphan = bump(rs1, deletionTimestamp="2026-01-01T00:00:00Z", ownerReferences=[])
    f.dc.add_replica_set(orphan)  # deleteReplicaSet: an orphan's deletion wakes nobody, no adoption
    assert f.queue.len() == 0
    f.dc.add_replica_set(bump(rs1, deletionTimestamp="2026-01-01T00:00:00Z"))
    assert f.drain() == [key(d1)]


def test_update_replica_set(two):
    d1, d2, rs1, rs2 = two
    f = Fixture(d_lister=[d1, d2], rs_lister=[rs1, rs2])
    f.dc.update_replica_set(rs1, bump(rs1))
    assert f.queue.len() == 1 and f.get() == key(d1)
    f.dc.update_replica_set(rs2, bump(rs2))
    assert f.queue.len() == 1 and f.get() == key(d2)


def test_update_replica_set_resync_returns_at_once(two):
    # "Periodic resync will send update events for all known replica sets."
    d1, _, rs1, _ = two
    f = Fixture(d_lister=[d1], rs_lister=[rs1])
    f.dc.update_replica_set(rs1, copy.deepcopy(rs1))
    assert f.queue.len() == 0
    (drop,) = f.events("owner.drop")
    assert (drop.key, drop.fields["reason"], drop.fields["event"]) == ("default/rs1", "resync", "Sync")


def test_update_replica_set_orphan_with_new_labels():
    d1, d2 = new_deployment("d1", {"foo": "bar"}), new_deployment("d2", {"foo": "bar"})
    rs = new_replica_set(d1, "rs1")
    rs["metadata"]["ownerReferences"] = []
    f = Fixture(d_lister=[d1, d2], rs_lister=[rs])
    prev = copy.deepcopy(rs)
    prev["metadata"]["labels"] = {"foo": "notbar"}
    f.dc.update_replica_set(prev, bump(rs))
    assert f.drain() == [key(d1), key(d2)]


def test_update_replica_set_orphan_without_changes_enqueues_nothing():
    d1 = new_deployment("d1", {"foo": "bar"})
    rs = new_replica_set(d1, "rs1")
    rs["metadata"]["ownerReferences"] = []
    f = Fixture(d_lister=[d1], rs_lister=[rs])
    f.dc.update_replica_set(rs, bump(rs))  # same labels, still no controller: no adoption attempt
    assert f.queue.len() == 0
    assert [e.fields["reason"] for e in f.events("owner.drop")] == ["no_controller"]


def test_update_replica_set_change_controller_ref(two):
    d1, d2, _, _ = two
    rs = new_replica_set(d1, "rs1")
    f = Fixture(d_lister=[d1, d2], rs_lister=[rs])
    prev = copy.deepcopy(rs)
    prev["metadata"]["ownerReferences"] = [controller_ref(d2)]
    f.dc.update_replica_set(prev, bump(rs))
    assert f.drain() == [key(d1), key(d2)]
    assert {e.fields["via"] for e in f.events("queue.add")} == {"updateReplicaSet"}


def test_update_replica_set_release(two):
    d1, d2, _, _ = two
    rs = new_replica_set(d1, "rs1")
    f = Fixture(d_lister=[d1, d2], rs_lister=[rs])
    f.dc.update_replica_set(rs, bump(rs, ownerReferences=[]))
    assert f.drain() == [key(d1), key(d2)]  # the old owner, and both as adopters of the orphan


def test_delete_replica_set(two):
    d1, d2, rs1, rs2 = two
    f = Fixture(d_lister=[d1, d2], rs_lister=[rs1, rs2])
    f.dc.delete_replica_set(rs1)
    assert f.queue.len() == 1 and f.get() == key(d1)
    f.dc.delete_replica_set(DeletedFinalStateUnknown("default/rs2", rs2))  # a tombstone's object
    assert f.queue.len() == 1 and f.get() == key(d2)
    assert f.events("queue.add")[1].fields["cause"] == ["ReplicaSet default/rs2 Deleted"]


def test_delete_replica_set_orphan():
    d1, d2 = new_deployment("d1", {"foo": "bar"}), new_deployment("d2", {"foo": "bar"})
    rs = new_replica_set(d1, "rs1")
    rs["metadata"]["ownerReferences"] = []
    f = Fixture(d_lister=[d1, d2], rs_lister=[rs])
    f.dc.delete_replica_set(rs)
    assert f.queue.len() == 0


def test_resolve_controller_ref_needs_kind_name_and_uid(two):
    d1, _, rs1, _ = two
    f = Fixture(d_lister=[d1])
    ref = controller_ref(d1)
    assert f.dc.resolve_controller_ref("default", ref) == d1
    assert f.dc.resolve_controller_ref("default", dict(ref, kind="StatefulSet")) is None
    assert f.dc.resolve_controller_ref("other", ref) is None
    assert f.dc.resolve_controller_ref("default", dict(ref, uid="u-a-predecessor")) is None
    # the kind only: the group of the reference is not compared
    assert f.dc.resolve_controller_ref("default", dict(ref, apiVersion="extensions/v1beta1")) == d1
    # the reasons the trace gives
    for bad, reason in (
        (dict(ref, kind="StatefulSet"), "not_queue_kind"),
        (dict(ref, name="gone"), "owner_not_cached"),
        (dict(ref, uid="u-old"), "uid_mismatch"),
    ):
        rs = copy.deepcopy(rs1)
        rs["metadata"]["ownerReferences"] = [bad]
        f.dc.add_replica_set(rs)
        assert f.events("owner.drop")[-1].fields["reason"] == reason
    assert f.queue.len() == 0


def test_pod_deletion_enqueues_recreate_deployment():
    foo = new_deployment("foo", {"foo": "bar"}, strategy="Recreate")
    rs = new_replica_set(foo, "foo-1")
    pod = generate_pod_from_rs(rs)
    f = Fixture(d_lister=[foo], rs_lister=[rs])
    f.dc.delete_pod(pod)
    assert f.drain() == [key(foo)]
    (add,) = f.events("queue.add")
    assert (add.fields["cause"], add.fields["via"]) == (["Pod default/foo-1-pod Deleted"], "deletePod")


def test_pod_deletion_doesnt_enqueue_recreate_deployment():
    # Upstream's rs1/rs2 are not in the ReplicaSet lister: the pod's
    # ReplicaSet is not found, so nothing is enqueued.
    foo = new_deployment("foo", {"foo": "bar"}, strategy="Recreate")
    rs1, rs2 = new_replica_set(foo, "foo-1"), new_replica_set(foo, "foo-1")
    pod1, pod2 = generate_pod_from_rs(rs1), generate_pod_from_rs(rs2)
    f = Fixture(d_lister=[foo], pod_lister=[pod1, pod2])
    f.dc.delete_pod(pod1)
    assert f.queue.len() == 0
    assert f.events("owner.drop")[0].fields["reason"] == "owner_not_cached"


def test_pod_deletion_partial_replica_set_ownership_enqueue_recreate_deployment():
    foo = new_deployment("foo", {"foo": "bar"}, strategy="Recreate")
    rs1, rs2 = new_replica_set(foo, "foo-1"), new_replica_set(foo, "foo-2")
    rs2["metadata"]["ownerReferences"] = []
    pod = generate_pod_from_rs(rs1)
    f = Fixture(d_lister=[foo], rs_lister=[rs1, rs2])
    f.dc.delete_pod(pod)
    assert f.drain() == [key(foo)]


def test_pod_deletion_partial_replica_set_ownership_doesnt_enqueue_recreate_deployment():
    foo = new_deployment("foo", {"foo": "bar"}, strategy="Recreate")
    rs1, rs2 = new_replica_set(foo, "foo-1"), new_replica_set(foo, "foo-2")
    rs2["metadata"]["ownerReferences"] = []
    pod = generate_pod_from_rs(rs1)
    f = Fixture(d_lister=[foo], rs_lister=[rs1, rs2], pod_lister=[pod])
    f.dc.delete_pod(pod)
    assert f.queue.len() == 0
    assert f.events("owner.drop")[0].fields["reason"] == "pods_remain"


def test_pod_deletion_of_a_rolling_update_deployment_enqueues_nothing(two):
    d1, _, rs1, _ = two
    f = Fixture(d_lister=[d1], rs_lister=[rs1])
    f.dc.delete_pod(DeletedFinalStateUnknown("default/rs1-pod", generate_pod_from_rs(rs1)))
    assert f.queue.len() == 0
    (drop,) = f.events("owner.drop")
    assert (drop.key, drop.fields["reason"], drop.fields["owner"]) == (
        "default/rs1-pod",
        "not_recreate",
        "Deployment default/d1",
    )


def test_pods_have_no_add_or_update_handler(two):
    d1, _, rs1, _ = two
    f = Fixture(d_lister=[d1], rs_lister=[rs1])
    pods = f.dc.handler_for("pods")
    pod = generate_pod_from_rs(rs1)
    pods.on_add(pod)
    pods.on_update(pod, bump(pod))
    assert f.queue.len() == 0 and not f.trace.drain()


def test_get_pod_map_for_replica_sets():
    # TestGetPodMapForReplicaSets: pods by their controller among the
    # Deployment's ReplicaSets; an orphan with matching labels is not counted,
    # an inactive (Failed) pod is.
    d = new_deployment("foo", {"foo": "bar"}, strategy="Recreate")
    rs1, rs2 = new_replica_set(d, "rs1"), new_replica_set(d, "rs2")
    pod1, pod2 = generate_pod_from_rs(rs1), generate_pod_from_rs(rs2)
    pod3 = generate_pod_from_rs(rs1, "pod3")
    pod3["metadata"]["ownerReferences"] = []
    pod4 = generate_pod_from_rs(rs1, "pod4")
    pod4["status"] = {"phase": "Failed"}
    f = Fixture(d_lister=[d], rs_lister=[rs1, rs2], pod_lister=[pod1, pod2, pod3, pod4])
    assert f.dc.pods_of(d) == 3


def test_deployment_events_enqueue_the_deployment_a_resync_too(two):
    d1, _, _, _ = two
    f = Fixture(d_lister=[d1])
    h = f.dc.handler_for("deployments.apps")
    h.on_add(d1)
    h.on_update(d1, d1)  # updateDeployment has no resync check
    h.on_delete(DeletedFinalStateUnknown("default/d1", d1))
    adds = f.events("queue.add")
    assert [(e.key, e.fields["cause"][0], e.fields["via"]) for e in adds] == [
        ("default/d1", "Deployment default/d1 Added", "addDeployment"),
        ("default/d1", "Deployment default/d1 Sync", "updateDeployment"),
        ("default/d1", "Deployment default/d1 Deleted", "deleteDeployment"),
    ]


labels = st.dictionaries(st.sampled_from("abc"), st.sampled_from("xyz"), max_size=3)


@given(labels, labels)
def test_match_labels_select_as_a_subset(selector, rs_labels):
    # LabelSelectorAsSelector: every matchLabels pair must be present; an
    # empty selector is labels.Everything(), which GetDeploymentsForReplicaSet refuses.
    expected = bool(selector) and selector.items() <= rs_labels.items()
    assert selects({"matchLabels": selector}, rs_labels) == expected


def test_match_expressions_and_what_matches_nothing():
    lab = {"app": "web", "tier": "fe"}
    assert selects({"matchExpressions": [{"key": "app", "operator": "In", "values": ["web", "x"]}]}, lab)
    assert not selects({"matchExpressions": [{"key": "app", "operator": "NotIn", "values": ["web"]}]}, lab)
    assert selects({"matchExpressions": [{"key": "zone", "operator": "DoesNotExist"}]}, lab)
    assert selects({"matchExpressions": [{"key": "tier", "operator": "Exists"}]}, lab)
    assert not selects(None, lab)  # labels.Nothing()
    assert not selects({"matchExpressions": [{"key": "app", "operator": "In", "values": []}]}, lab)
    assert not selects({"matchExpressions": [{"key": "app", "operator": "Gt", "values": ["1"]}]}, lab)
    # NewRequirement's checks: a key or value kube-apiserver would refuse makes the selector match nothing
    assert not selects({"matchLabels": {"a b": "web"}}, {"a b": "web"})
    assert not selects({"matchLabels": {"app": "we b"}}, {"app": "we b"})


def test_list_replica_sets_takes_the_deployments_selector_as_listers_do():
    # util.ListReplicaSets: LabelSelectorAsSelector, its String() to the lister, then IsControlledBy.
    d = new_deployment("foo", {"foo": "bar"})
    rs1, rs2 = new_replica_set(d, "rs1"), new_replica_set(d, "rs2")
    rs2["metadata"]["labels"] = {"foo": "other"}
    f = Fixture(d_lister=[d], rs_lister=[rs1, rs2])
    assert [r["metadata"]["name"] for r in f.dc.replica_sets_of(d)] == ["rs1"]
    # nil: labels.Nothing(), whose String() "" the lister parses as Everything: every owned one
    d["spec"]["selector"] = None
    assert sorted(r["metadata"]["name"] for r in f.dc.replica_sets_of(d)) == ["rs1", "rs2"]
    # a selector LabelSelectorAsSelector refuses: ListReplicaSets' error, nothing listed
    d["spec"]["selector"] = {"matchExpressions": [{"key": "foo", "operator": "In", "values": []}]}
    assert f.dc.replica_sets_of(d) == []
