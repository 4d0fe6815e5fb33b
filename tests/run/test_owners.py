"""Owner mapping into one workqueue. The cases port the Deployment
controller's tests (pkg/controller/deployment/deployment_controller_test.go:
TestAddReplicaSet, TestUpdateReplicaSet, TestUpdateReplicaSetChangeControllerRef,
TestDeleteReplicaSet, TestDeleteReplicaSetOrphan, and getDeploymentForPod /
resolveControllerRef through the pod path) and controller-runtime's
EnqueueRequestForOwner with OnlyControllerOwner (pkg/handler/eventhandler_test.go).
Orphans are dropped here, where the Deployment controller would queue every
Deployment whose selector matches for adoption: we do not adopt."""

from __future__ import annotations

import pytest

from kubectl_informer.cache.keys import DeletedFinalStateUnknown
from kubectl_informer.cache.store import Indexer
from kubectl_informer.core.trace import TraceBuffer, Tracer
from kubectl_informer.run.owners import (
    Followed,
    OwnerEnqueueHandler,
    OwnerMapper,
    controller_of,
    group_of,
)
from kubectl_informer.workqueue.queue import Queue


def obj(kind, name, uid, ns="default", rv="1", owners=()):
    meta = {"name": name, "uid": uid, "resourceVersion": rv, "ownerReferences": list(owners)}
    if ns:
        meta["namespace"] = ns
    return {"kind": kind, "metadata": meta}


def ref(owner, api_version, controller=True, uid=None):
    r = {"apiVersion": api_version, "kind": owner["kind"], "name": owner["metadata"]["name"],
         "uid": uid or owner["metadata"]["uid"]}
    if controller is not None:
        r["controller"] = controller
    return r


class World:
    """Deployments, ReplicaSets, Pods (and Nodes) informers' caches, one queue
    of the queue resource's keys, and the trace of both."""

    def __init__(self, queue_resource="deployments.apps"):
        self.tracer, self.trace = Tracer(), TraceBuffer()
        self.tracer.subscribe(self.trace)
        self.caches = {r: Indexer() for r in ("deployments.apps", "replicasets.apps", "pods", "nodes")}
        followed = [Followed("deployments.apps", "Deployment", "apps", True, self.caches["deployments.apps"]),
                    Followed("replicasets.apps", "ReplicaSet", "apps", True, self.caches["replicasets.apps"]),
                    Followed("pods", "Pod", "", True, self.caches["pods"]),
                    Followed("nodes", "Node", "", False, self.caches["nodes"])]
        self.mapper = OwnerMapper(followed, queue_resource)
        self.queue = Queue(tracer=self.tracer)

    def handler(self, resource):
        return OwnerEnqueueHandler(self.mapper, resource, self.queue, self.tracer)

    def cache(self, resource, *objs):
        for o in objs:
            self.caches[resource].add(o)

    def queued(self):
        out = []
        while self.queue.len():
            item, _ = self.queue.get()
            out.append(item)
            self.queue.done(item)
        return out

    def events(self, kind):
        return [e for e in self.trace.drain() if e.kind == kind]


@pytest.fixture
def w():
    return World()


@pytest.fixture
def two_deployments(w):
    d1, d2 = obj("Deployment", "d1", "u-d1"), obj("Deployment", "d2", "u-d2")
    rs1 = obj("ReplicaSet", "rs1", "u-rs1", owners=[ref(d1, "apps/v1")])
    rs2 = obj("ReplicaSet", "rs2", "u-rs2", owners=[ref(d2, "apps/v1")])
    w.cache("deployments.apps", d1, d2)
    w.cache("replicasets.apps", rs1, rs2)
    return d1, d2, rs1, rs2


def test_add_replica_set_enqueues_its_deployment(w, two_deployments):
    # TestAddReplicaSet
    _, _, rs1, rs2 = two_deployments
    rs_handler = w.handler("replicasets.apps")
    rs_handler.on_add(rs1)
    assert w.queued() == ["default/d1"]
    rs_handler.on_add(rs2)
    assert w.queued() == ["default/d2"]
    adds = w.events("queue.add")
    assert [e.fields["cause"] for e in adds] == [["ReplicaSet default/rs1 Added"], ["ReplicaSet default/rs2 Added"]]


def test_update_replica_set_enqueues_its_deployment(w, two_deployments):
    # TestUpdateReplicaSet
    _, _, rs1, _ = two_deployments
    new = dict(rs1, metadata=dict(rs1["metadata"], resourceVersion="2"))
    w.handler("replicasets.apps").on_update(rs1, new)
    assert w.queued() == ["default/d1"]
    assert w.events("queue.add")[0].fields["cause"] == ["ReplicaSet default/rs1 Updated"]


def test_a_changed_controller_ref_enqueues_the_old_and_the_new_owner(w, two_deployments):
    # TestUpdateReplicaSetChangeControllerRef (and controller-runtime's
    # "Owners of both objects in the UpdateEvent")
    d1, d2, rs1, _ = two_deployments
    prev = dict(rs1, metadata=dict(rs1["metadata"], ownerReferences=[ref(d2, "apps/v1")]))
    nxt = dict(rs1, metadata=dict(rs1["metadata"], resourceVersion="2"))
    w.handler("replicasets.apps").on_update(prev, nxt)
    assert sorted(w.queued()) == ["default/d1", "default/d2"]


def test_an_unchanged_controller_ref_enqueues_one_owner_once(w, two_deployments):
    # controller-runtime: "the one duplicate Owner of both objects in the UpdateEvent"
    _, _, rs1, _ = two_deployments
    w.handler("replicasets.apps").on_update(rs1, dict(rs1, metadata=dict(rs1["metadata"], resourceVersion="2")))
    assert [e.fields["outcome"] for e in w.events("queue.add")] == ["queued"]


def test_a_resync_is_a_sync_cause(w, two_deployments):
    _, _, rs1, _ = two_deployments
    w.handler("replicasets.apps").on_update(rs1, rs1)
    assert w.events("queue.add")[0].fields["cause"] == ["ReplicaSet default/rs1 Sync"]


def test_delete_replica_set_enqueues_its_deployment_through_a_tombstone_too(w, two_deployments):
    # TestDeleteReplicaSet; deleteReplicaSet reads a DeletedFinalStateUnknown's object
    _, _, rs1, rs2 = two_deployments
    handler = w.handler("replicasets.apps")
    handler.on_delete(rs1)
    assert w.queued() == ["default/d1"]
    handler.on_delete(DeletedFinalStateUnknown("default/rs2", rs2))
    assert w.queued() == ["default/d2"]
    assert w.events("queue.add")[1].fields["cause"] == ["ReplicaSet default/rs2 Deleted"]


def test_an_orphan_enqueues_nothing_and_is_traced(w, two_deployments):
    # TestDeleteReplicaSetOrphan; controller-runtime: no owners, no Controller owners
    orphan = obj("ReplicaSet", "rs3", "u-rs3")
    w.handler("replicasets.apps").on_delete(orphan)
    not_controller = obj("ReplicaSet", "rs4", "u-rs4", owners=[ref(two_deployments[0], "apps/v1", controller=None)])
    w.handler("replicasets.apps").on_add(not_controller)
    assert w.queued() == []
    drops = w.events("owner.drop")
    assert [(e.key, e.fields["reason"], e.fields["event"], e.fields["owner"]) for e in drops] == [
        ("default/rs3", "no_controller", "Deleted", ""), ("default/rs4", "no_controller", "Added", "")]
    assert drops[0].fields["informer"] == "replicasets.apps"


def test_a_pod_maps_through_its_replica_set_to_the_deployment(w, two_deployments):
    # getDeploymentForPod: pod -> its controller ReplicaSet (cached, same UID)
    # -> that ReplicaSet's controller Deployment (resolveControllerRef)
    _, _, rs1, _ = two_deployments
    pod = obj("Pod", "rs1-x", "u-p", owners=[ref(rs1, "apps/v1")])
    w.handler("pods").on_delete(DeletedFinalStateUnknown("default/rs1-x", pod))
    assert w.queued() == ["default/d1"]
    assert w.events("queue.add")[0].fields["cause"] == ["ReplicaSet default/rs1 Updated", "Pod default/rs1-x Deleted"]


def test_a_uid_mismatch_anywhere_on_the_chain_drops_the_event(w, two_deployments):
    # resolveControllerRef: "We can't look up by UID, so look up by Name and
    # then verify UID" - a Deployment recreated under the same name is not the owner
    d1, _, rs1, _ = two_deployments
    stale_rs = obj("ReplicaSet", "rs1", "u-rs1", owners=[ref(d1, "apps/v1", uid="u-old-d1")])
    w.cache("replicasets.apps", stale_rs)
    pod = obj("Pod", "rs1-x", "u-p", owners=[ref(rs1, "apps/v1")])
    w.handler("pods").on_update(pod, dict(pod, metadata=dict(pod["metadata"], resourceVersion="5")))
    pod_of_other_rs = obj("Pod", "rs2-y", "u-q", owners=[ref(two_deployments[3], "apps/v1", uid="u-other")])
    w.handler("pods").on_add(pod_of_other_rs)
    assert w.queued() == []
    assert [(e.key, e.fields["reason"], e.fields["owner"]) for e in w.events("owner.drop")] == [
        ("default/rs1-x", "uid_mismatch", "Deployment default/d1"),
        ("default/rs2-y", "uid_mismatch", "ReplicaSet default/rs2")]


def test_an_owner_not_in_its_cache_drops_the_event(w):
    d = obj("Deployment", "gone", "u-g")
    rs = obj("ReplicaSet", "gone-1", "u-r", owners=[ref(d, "apps/v1")])
    w.handler("replicasets.apps").on_add(rs)
    assert w.queued() == []
    (drop,) = w.events("owner.drop")
    assert (drop.fields["reason"], drop.fields["owner"]) == ("owner_not_cached", "Deployment default/gone")


def test_owners_must_match_group_and_kind_not_version(w, two_deployments):
    # controller-runtime: "no owners matching Group and Kind" (wrong group,
    # wrong kind) and "owners matching Group and Kind with a different version"
    d1, _, rs1, _ = two_deployments
    wrong_group = obj("Pod", "p1", "u1", owners=[ref(rs1, "extensions/v1")])
    wrong_kind = obj("Pod", "p2", "u2", owners=[dict(ref(rs1, "apps/v1"), kind="StatefulSet")])
    other_version = obj("Pod", "p3", "u3", owners=[ref(rs1, "apps/v1beta2")])
    handler = w.handler("pods")
    for pod in (wrong_group, wrong_kind, other_version):
        handler.on_add(pod)
    assert w.queued() == ["default/d1"]
    assert [(e.key, e.fields["reason"], e.fields["owner"]) for e in w.events("owner.drop")] == [
        ("default/p1", "not_queue_kind", "ReplicaSet default/rs1"),
        ("default/p2", "not_queue_kind", "StatefulSet default/rs1")]


def test_only_the_first_controller_reference_counts(w, two_deployments):
    # controller-runtime: "only the first the Controller if there are multiple Controller owners"
    d1, d2, rs1, rs2 = two_deployments
    pod = obj("Pod", "p", "u", owners=[ref(rs2, "apps/v1", controller=False), ref(rs1, "apps/v1"),
                                       ref(rs2, "apps/v1")])
    assert controller_of(pod)["name"] == "rs1"
    w.handler("pods").on_add(pod)
    assert w.queued() == ["default/d1"]


def test_an_api_version_that_does_not_parse_matches_nothing(w, two_deployments):
    # controller-runtime: "with an invalid APIVersion in the OwnerReference"
    assert group_of("apps/v1/fail") is None and group_of("v1") == "" and group_of("apps/v1") == "apps"
    w.handler("pods").on_add(obj("Pod", "p", "u", owners=[ref(two_deployments[2], "apps/v1/fail")]))
    assert w.queued() == []


def test_a_cluster_scoped_owner_is_looked_up_by_name():
    # controller-runtime: "a owner that is cluster scoped"
    w = World(queue_resource="nodes")
    node = obj("Node", "node-1", "u-n", ns=None)
    w.cache("nodes", node)
    w.handler("pods").on_add(obj("Pod", "p", "u", owners=[ref(node, "v1")]))
    assert w.queued() == ["node-1"]
    assert w.events("queue.add")[0].fields["cause"] == ["Pod default/p Added"]


def test_the_queue_resources_own_events_enqueue_its_key(w, two_deployments):
    d1 = two_deployments[0]
    w.handler("deployments.apps").on_update(d1, dict(d1, metadata=dict(d1["metadata"], resourceVersion="9")))
    assert w.queued() == ["default/d1"]
    assert w.events("queue.add")[0].fields["cause"] == ["Deployment default/d1 Updated"]


def test_a_loop_of_controller_references_reaches_no_key(w):
    a = obj("ReplicaSet", "a", "u-a")
    b = obj("ReplicaSet", "b", "u-b", owners=[ref(a, "apps/v1")])
    a["metadata"]["ownerReferences"] = [ref(b, "apps/v1")]
    w.cache("replicasets.apps", a, b)
    w.handler("pods").on_add(obj("Pod", "p", "u", owners=[ref(a, "apps/v1")]))
    assert w.queued() == []
    assert w.events("owner.drop")[0].fields["reason"] == "not_queue_kind"


def test_adds_that_collapse_while_dirty_keep_their_cause(w, two_deployments):
    _, _, rs1, _ = two_deployments
    pod = obj("Pod", "rs1-x", "u-p", owners=[ref(rs1, "apps/v1")])
    w.handler("replicasets.apps").on_add(rs1)
    w.handler("pods").on_add(pod)
    adds = w.events("queue.add")
    assert [e.fields["outcome"] for e in adds] == ["queued", "already_dirty"]
    assert adds[1].fields["cause"] == ["ReplicaSet default/rs1 Updated", "Pod default/rs1-x Added"]


def test_an_object_that_cannot_be_keyed_is_skipped(w):
    # client-go's handlers log and skip an object without metadata
    for handler in (w.handler("pods"), w.handler("deployments.apps")):
        handler.on_add({"kind": "Pod"})
        handler.on_delete(None)
    assert w.queued() == [] and not w.events("owner.drop")
