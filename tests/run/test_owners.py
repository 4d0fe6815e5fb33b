"""controller-runtime's shape: ``For(queue resource)`` is
EnqueueRequestForObject, each ``Owns()`` EnqueueRequestForOwner with
OnlyControllerOwner. The cases port controller-runtime's
pkg/handler/eventhandler_test.go ("EnqueueRequestForOwner" with
OnlyControllerOwner): one reference followed, never two, no cache read, no
UID compared, old and new owners on update, the namespace dropped for a
cluster-scoped owner."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kubectl_informer.cache.keys import DeletedFinalStateUnknown
from kubectl_informer.cache.store import Indexer
from kubectl_informer.core.trace import TraceBuffer, Tracer
from kubectl_informer.run.owners import (
    FOR_OBJECT,
    FOR_OWNER,
    Followed,
    ForObjectHandler,
    ForOwnerHandler,
    controller_of,
    group_of,
    parse_group_version,
)
from kubectl_informer.workqueue.queue import Queue


def obj(kind, name, uid, ns="default", rv="1", owners=()):
    meta = {"name": name, "uid": uid, "resourceVersion": rv, "ownerReferences": list(owners)}
    if ns:
        meta["namespace"] = ns
    return {"kind": kind, "metadata": meta}


def ref(owner, api_version, controller=True, uid=None):
    r = {
        "apiVersion": api_version,
        "kind": owner["kind"],
        "name": owner["metadata"]["name"],
        "uid": uid or owner["metadata"]["uid"],
    }
    if controller is not None:
        r["controller"] = controller
    return r


def bumped(o, **meta):
    return dict(
        o, metadata=dict(o["metadata"], **{"resourceVersion": str(int(o["metadata"]["resourceVersion"]) + 1), **meta})
    )


FOLLOWED = {
    "deployments.apps": ("Deployment", "apps", True),
    "replicasets.apps": ("ReplicaSet", "apps", True),
    "pods": ("Pod", "", True),
    "nodes": ("Node", "", False),
}


class World:
    """A queue of ``queue_resource``'s keys, each informer's (empty) cache,
    and the trace."""

    def __init__(self, queue_resource="deployments.apps"):
        self.tracer, self.trace = Tracer(), TraceBuffer()
        self.tracer.subscribe(self.trace)
        self.followed = {r: Followed(r, *v, Indexer()) for r, v in FOLLOWED.items()}
        self.owner = self.followed[queue_resource]
        self.queue = Queue(tracer=self.tracer)

    def handler(self, resource):
        if self.followed[resource] is self.owner:
            return ForObjectHandler(self.owner, self.queue, self.tracer)
        return ForOwnerHandler(self.owner, self.followed[resource], self.queue, self.tracer)

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


D1, D2 = obj("Deployment", "d1", "u-d1"), obj("Deployment", "d2", "u-d2")
RS1 = obj("ReplicaSet", "rs1", "u-rs1", owners=[ref(D1, "apps/v1")])


def test_an_owned_objects_events_enqueue_the_owner_its_controller_reference_names(w):
    # "should enqueue a Request with the Owners matching the Group and Kind" (Create, Delete)
    h = w.handler("replicasets.apps")
    h.on_add(RS1)
    assert w.queued() == ["default/d1"]
    h.on_delete(DeletedFinalStateUnknown("default/rs1", RS1))
    assert w.queued() == ["default/d1"]
    adds = w.events("queue.add")
    assert [(e.fields["cause"], e.fields["via"]) for e in adds] == [
        (["ReplicaSet default/rs1 Added"], FOR_OWNER),
        (["ReplicaSet default/rs1 Deleted"], FOR_OWNER),
    ]


def test_nothing_is_looked_up_the_owner_need_not_be_cached_nor_have_that_uid(w):
    # EnqueueRequestForOwner builds the request from the reference alone:
    # the Deployments cache is empty and the UID is no Deployment's.
    stale = obj("ReplicaSet", "rs9", "u-rs9", owners=[ref(D1, "apps/v1", uid="u-long-gone")])
    w.handler("replicasets.apps").on_add(stale)
    assert w.queued() == ["default/d1"] and not w.events("owner.drop")


def test_update_enqueues_the_owners_of_both_objects(w):
    # "Owners of both objects in the UpdateEvent"
    prev = obj("ReplicaSet", "rs1", "u-rs1", owners=[ref(D2, "apps/v1")])
    w.handler("replicasets.apps").on_update(prev, bumped(RS1))
    assert sorted(w.queued()) == ["default/d1", "default/d2"]


def test_update_with_one_owner_enqueues_it_once(w):
    # "the one duplicate Owner of both objects in the UpdateEvent"
    w.handler("replicasets.apps").on_update(RS1, bumped(RS1))
    assert [e.fields["outcome"] for e in w.events("queue.add")] == ["queued"]


def test_a_resync_enqueues_too_and_says_sync(w):
    # controller-runtime's handlers have no resync filter: an update with one
    # resourceVersion is an update like any other.
    w.handler("replicasets.apps").on_update(RS1, RS1)
    assert w.queued() == ["default/d1"]
    assert w.events("queue.add")[0].fields["cause"] == ["ReplicaSet default/rs1 Sync"]


def test_update_that_drops_the_controller_still_enqueues_the_old_owner(w):
    w.handler("replicasets.apps").on_update(RS1, bumped(RS1, ownerReferences=[]))
    assert w.queued() == ["default/d1"] and not w.events("owner.drop")


def test_one_reference_never_two_a_pod_of_a_replica_set_enqueues_no_deployment(w):
    # Owns(&Pod{}) on a Deployment reconciler: the Pod's controller is a
    # ReplicaSet, not a Deployment, and nothing follows that ReplicaSet on.
    w.followed["replicasets.apps"].indexer.add(RS1)
    pod = obj("Pod", "rs1-x", "u-p", owners=[ref(RS1, "apps/v1")])
    w.handler("pods").on_delete(pod)
    assert w.queued() == []
    (drop,) = w.events("owner.drop")
    assert (drop.key, drop.fields["reason"], drop.fields["owner"], drop.fields["event"]) == (
        "default/rs1-x",
        "not_queue_kind",
        "ReplicaSet default/rs1",
        "Deleted",
    )


def test_no_owners_and_no_controller_owners_enqueue_nothing(w):
    # "no owners", "no Controller owners" (OnlyControllerOwner)
    w.handler("replicasets.apps").on_add(obj("ReplicaSet", "rs3", "u-rs3"))
    w.handler("replicasets.apps").on_add(
        obj("ReplicaSet", "rs4", "u-rs4", owners=[ref(D1, "apps/v1", controller=False)])
    )
    w.handler("replicasets.apps").on_add(
        obj("ReplicaSet", "rs5", "u-rs5", owners=[ref(D1, "apps/v1", controller=None)])
    )
    assert w.queued() == []
    assert [(e.key, e.fields["reason"]) for e in w.events("owner.drop")] == [
        ("default/rs3", "no_controller"),
        ("default/rs4", "no_controller"),
        ("default/rs5", "no_controller"),
    ]


def test_the_controller_of_another_kind_hides_a_plain_owner_of_the_queues_kind(w):
    # getOwnersReferences with isController returns the controller reference only.
    other = {"apiVersion": "batch/v1", "kind": "Job", "name": "j", "uid": "u-j", "controller": True}
    w.handler("replicasets.apps").on_add(
        obj("ReplicaSet", "rs6", "u", owners=[ref(D1, "apps/v1", controller=False), other])
    )
    assert w.queued() == []
    assert w.events("owner.drop")[0].fields["owner"] == "Job default/j"


def test_owners_must_match_group_and_kind_not_version(w):
    # "no owners matching Group and Kind" (wrong group, wrong kind) and
    # "owners matching Group and Kind with a different version"
    h = w.handler("replicasets.apps")
    h.on_add(obj("ReplicaSet", "a", "u1", owners=[ref(D1, "extensions/v1beta1")]))
    h.on_add(obj("ReplicaSet", "b", "u2", owners=[dict(ref(D1, "apps/v1"), kind="StatefulSet")]))
    h.on_add(obj("ReplicaSet", "c", "u3", owners=[ref(D2, "apps/v1beta2")]))
    assert w.queued() == ["default/d2"]
    assert [(e.key, e.fields["reason"], e.fields["owner"]) for e in w.events("owner.drop")] == [
        ("default/a", "not_queue_kind", "Deployment default/d1"),
        ("default/b", "not_queue_kind", "StatefulSet default/d1"),
    ]


def test_only_the_first_controller_reference_counts(w):
    # "only the first the Controller if there are multiple Controller owners"
    rs = obj(
        "ReplicaSet", "p", "u", owners=[ref(D2, "apps/v1", controller=False), ref(D1, "apps/v1"), ref(D2, "apps/v1")]
    )
    assert controller_of(rs)["name"] == "d1"
    w.handler("replicasets.apps").on_add(rs)
    assert w.queued() == ["default/d1"]


def test_an_api_version_that_does_not_parse_enqueues_nothing(w):
    # "with an invalid APIVersion in the OwnerReference"; schema.ParseGroupVersion
    assert parse_group_version("apps/v1/fail") is None and group_of("apps/v1/fail") is None
    assert parse_group_version("v1") == ("", "v1") and parse_group_version("apps/v1") == ("apps", "v1")
    assert parse_group_version("") == ("", "") and parse_group_version("/") == ("", "")
    w.handler("replicasets.apps").on_add(obj("ReplicaSet", "p", "u", owners=[ref(D1, "apps/v1/fail")]))
    assert w.queued() == []
    assert w.events("owner.drop")[0].fields["reason"] == "bad_api_version"


def test_a_cluster_scoped_owner_gets_no_namespace():
    # "a owner that is cluster scoped": the request has the name only
    w = World(queue_resource="nodes")
    node = obj("Node", "node-1", "u-n", ns=None)
    w.handler("pods").on_add(obj("Pod", "p", "u", owners=[ref(node, "v1")]))
    assert w.queued() == ["node-1"]
    assert w.events("queue.add")[0].fields["cause"] == ["Pod default/p Added"]


def test_the_queue_resources_own_events_enqueue_its_key(w):
    # For(): EnqueueRequestForObject, the new object's key on update
    h = w.handler("deployments.apps")
    h.on_update(D1, bumped(D1))
    h.on_delete(DeletedFinalStateUnknown("default/d2", D2))
    assert w.queued() == ["default/d1", "default/d2"]
    assert [(e.fields["cause"], e.fields["via"]) for e in w.events("queue.add")] == [
        (["Deployment default/d1 Updated"], FOR_OBJECT),
        (["Deployment default/d2 Deleted"], FOR_OBJECT),
    ]


def test_every_cause_is_one_event_the_run_saw(w):
    # No looked-up intermediate object is ever a link: a cause has one link,
    # the event of the object whose informer delivered it.
    h = w.handler("replicasets.apps")
    h.on_add(RS1)
    h.on_update(RS1, bumped(RS1))
    assert all(
        len(e.fields["cause"]) == 1 and e.fields["cause"][0].startswith("ReplicaSet default/rs1 ")
        for e in w.events("queue.add")
    )


def test_an_object_that_cannot_be_keyed_is_skipped(w):
    # client-go's handlers log and skip an object without metadata
    for handler in (w.handler("replicasets.apps"), w.handler("deployments.apps")):
        handler.on_add({"kind": "Pod"})
        handler.on_delete(None)
    assert w.queued() == [] and not w.events("owner.drop")


refs = st.lists(
    st.fixed_dictionaries(
        {
            "apiVersion": st.sampled_from(["apps/v1", "apps/v1beta2", "extensions/v1beta1", "v1", "apps/v1/x"]),
            "kind": st.sampled_from(["Deployment", "ReplicaSet", "StatefulSet"]),
            "name": st.sampled_from(["a", "b", "c"]),
            "uid": st.just("u"),
            "controller": st.sampled_from([True, False, None]),
        }
    ),
    max_size=4,
)


@given(refs, refs)
def test_an_update_enqueues_exactly_the_controllers_of_the_queues_kind_of_old_and_new(old_refs, new_refs):
    # getOwnerReconcileRequest with OnlyControllerOwner on both objects, into one set
    w = World()
    old = obj("ReplicaSet", "r", "u-r", owners=old_refs)
    new = bumped(obj("ReplicaSet", "r", "u-r", owners=new_refs))

    def expected(rs):
        ctl = next((r for r in rs if r["controller"] is True), None)
        ok = (
            ctl is not None
            and ctl["kind"] == "Deployment"
            and ctl["apiVersion"].split("/")[0] == "apps"
            and ctl["apiVersion"].count("/") == 1
        )
        return {f"default/{ctl['name']}"} if ok else set()

    w.handler("replicasets.apps").on_update(old, new)
    adds = w.events("queue.add")
    assert sorted(e.key for e in adds) == sorted(expected(old_refs) | expected(new_refs))
    assert all(e.fields["cause"] == ["ReplicaSet default/r Updated"] for e in adds)
