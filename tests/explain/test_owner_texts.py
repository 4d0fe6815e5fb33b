"""The controller-shape Explain texts, from a controller's trace written by
hand (tests/panes/controller_trace.py, kube-controller-manager's shape):
which text a selection gets, with which numbers."""

from __future__ import annotations

from kubectl_informer.panes.explain import Facts, explain, render, subject_for
from kubectl_informer.panes.explain.match import marks_for

from ..panes.controller_trace import RS_LINK, Trace, rollout


def facts_of(events) -> Facts:
    f = Facts()
    f.mode = "queue"
    f.feed_all(events)
    return f


def ids(found) -> list[str]:
    return [text_id for text_id, _ in found]


def test_queue_record_of_a_replica_set_storm_names_the_handler_and_the_collapse():
    facts = facts_of(rollout(rs_updates=5).events)
    found = explain(subject_for("queue", facts), facts)
    assert ids(found)[:1] == ["queue.dedup"]
    assert "owner.deployment_controller" in ids(found) and "owner.collapsed" in ids(found)
    values = dict(found)
    said = values["owner.deployment_controller"]
    assert (said["link"], said["via"], said["origin"]) == (RS_LINK, "updateReplicaSet", "ReplicaSet")
    assert said["chain"] == f"default/web ← {RS_LINK}"
    text = render("owner.deployment_controller", said, strict=True)
    assert f"default/web was queued by {RS_LINK}, through the Deployment controller's updateReplicaSet" in text
    assert values["owner.collapsed"]["adds"] == 5 and values["owner.collapsed"]["kinds"] == "ReplicaSet ×5"


def test_controller_runtime_adds_get_the_enqueue_request_for_owner_text():
    t = Trace()
    t.ev("queue.add", "default/web", outcome="queued", depth=1, cause=[RS_LINK], via="EnqueueRequestForOwner")
    t.ev("queue.get", "default/web", depth=0, worker=0, waited=0.01)
    facts = facts_of(t.events)
    found = dict(explain(subject_for("queue", facts), facts))
    assert "owner.deployment_controller" not in found
    assert "EnqueueRequestForOwner with OnlyControllerOwner" in render(
        "owner.for_owner", found["owner.for_owner"], strict=True
    )


def test_a_recorded_chain_without_a_handler_gets_no_rule_text():
    # Recordings made before the handlers named themselves: the chain is shown, no rule claimed.
    t = Trace()
    t.ev("queue.add", "default/web", outcome="queued", depth=1, cause=[RS_LINK, "Pod default/web-5887-x Deleted"])
    t.ev("queue.get", "default/web", depth=0, worker=0, waited=0.01)
    facts = facts_of(t.events)
    assert not any(i.startswith("owner.") for i in ids(explain(subject_for("queue", facts), facts)))


def test_the_key_queued_by_its_own_event_is_no_mapping():
    facts = facts_of(rollout(rs_updates=0).events)
    records = marks_for("queue", facts)
    assert all(
        "owner.deployment_controller" not in ids(explain(subject_for("queue", facts, back=b), facts))
        for b in range(len(records))
    )


def test_inspector_on_the_queue_key_says_why_it_was_queued():
    facts = facts_of(rollout(rs_updates=3).events)
    assert "owner.deployment_controller" in ids(explain(subject_for("inspector", facts, key="default/web"), facts))


def test_dropped_objects_say_why_by_reason():
    facts = facts_of(rollout().events)
    orphan = explain(subject_for("inspector", facts, key="default/bare"), facts)
    assert ids(orphan)[-1] == "owner.orphan"
    assert "its Deleted event on the pods informer queued nothing" in render(*orphan[-1], strict=True)
    stale = explain(subject_for("inspector", facts, key="default/old-1"), facts)
    assert ids(stale)[-1] == "owner.uid_mismatch"
    assert "names Deployment default/old" in render(*stale[-1], strict=True)
    deleted = explain(subject_for("inspector", facts, key="default/web-5887-0"), facts)
    assert ids(deleted)[-1] == "owner.pod_delete"
    assert (
        "default/web-5887-0 was deleted and its ReplicaSet's controller is Deployment default/web, but its "
        "strategy is not Recreate"
    ) in render(*deleted[-1], strict=True)
    assert "owner." not in " ".join(ids(explain(subject_for("inspector", facts, key="default/web-5887-1"), facts)))


def test_a_controller_of_another_kind_and_a_resync_say_their_rule():
    t = rollout()
    t.ev(
        "owner.drop",
        "default/job-pod",
        informer="pods",
        event="Added",
        reason="not_queue_kind",
        owner="Job default/nightly",
    )
    t.ev("owner.drop", "default/web-5887", informer="replicasets.apps", event="Sync", reason="resync", owner="")
    t.ev("owner.drop", "default/x", informer="pods", event="Added", reason="bad_api_version", owner="Job default/j")
    facts = facts_of(t.events)
    other = explain(subject_for("inspector", facts, key="default/job-pod"), facts)
    assert ids(other)[-1] == "owner.other_kind" and "names Job default/nightly" in render(*other[-1], strict=True)
    resync = explain(subject_for("inspector", facts, key="default/web-5887"), facts)
    assert ids(resync)[-1] == "owner.resync"
    assert not any(
        i.startswith("owner.") for i in ids(explain(subject_for("inspector", facts, key="default/x"), facts))
    )


def test_a_resync_skipped_does_not_hide_why_the_objects_change_was_dropped():
    t = rollout()
    t.ev("owner.drop", "default/old-1", informer="replicasets.apps", event="Sync", reason="resync", owner="")
    facts = facts_of(t.events)
    assert ids(explain(subject_for("inspector", facts, key="default/old-1"), facts))[-1] == "owner.uid_mismatch"
