"""The owner-mapping Explain texts, from a controller's trace written by hand
(tests/panes/controller_trace.py): which text a selection gets, with which
numbers."""

from __future__ import annotations

from kubectl_informer.panes.explain import Facts, explain, render, subject_for
from kubectl_informer.panes.explain.match import marks_for

from ..panes.controller_trace import RS_LINK, rollout


def facts_of(events) -> Facts:
    f = Facts()
    f.mode = "queue"
    f.feed_all(events)
    return f


def ids(found) -> list[str]:
    return [text_id for text_id, _ in found]


def test_queue_record_of_a_mapped_storm_says_mapping_and_collapse():
    facts = facts_of(rollout(pod_deletes=5).events)
    found = explain(subject_for("queue", facts), facts)
    assert ids(found)[:1] == ["queue.dedup"] and "owner.mapped" in ids(found) and "owner.collapsed" in ids(found)
    values = dict(found)
    assert values["owner.mapped"]["chain"] == f"default/web ← {RS_LINK} ← Pod default/web-5887-4 Deleted"
    assert values["owner.mapped"]["links"] == 2 and values["owner.mapped"]["origin"] == "Pod"
    assert values["owner.collapsed"]["adds"] == 5 and values["owner.collapsed"]["kinds"] == "Pod ×5"
    assert "5 adds of default/web (Pod ×5)" in render("owner.collapsed", values["owner.collapsed"], strict=True)


def test_the_key_queued_by_its_own_event_is_no_mapping():
    facts = facts_of(rollout(pod_deletes=0).events)
    records = marks_for("queue", facts)
    assert records and all("owner.mapped" not in ids(explain(subject_for("queue", facts, back=b), facts))
                           for b in range(len(records)))


def test_inspector_on_the_queue_key_says_why_it_was_queued():
    facts = facts_of(rollout(pod_deletes=3).events)
    assert "owner.mapped" in ids(explain(subject_for("inspector", facts, key="default/web"), facts))


def test_dropped_objects_say_why_by_reason():
    facts = facts_of(rollout().events)
    orphan = explain(subject_for("inspector", facts, key="default/bare"), facts)
    assert ids(orphan)[-1] == "owner.orphan"
    assert "its Updated event on the pods informer queued nothing" in render(*orphan[-1], strict=True)
    stale = explain(subject_for("inspector", facts, key="default/old-1"), facts)
    assert ids(stale)[-1] == "owner.uid_mismatch"
    assert "names Deployment default/old" in render(*stale[-1], strict=True)
    assert "owner." not in " ".join(ids(explain(subject_for("inspector", facts, key="default/web-5887-0"), facts)))


def test_an_owner_of_a_kind_not_followed_has_no_text_and_breaks_nothing():
    t = rollout()
    t.ev("owner.drop", "default/job-pod", informer="pods", event="Added", reason="not_queue_kind",
         owner="Job default/nightly")
    facts = facts_of(t.events)
    assert not any(i.startswith("owner.") for i in ids(explain(subject_for("inspector", facts,
                                                                            key="default/job-pod"), facts)))
