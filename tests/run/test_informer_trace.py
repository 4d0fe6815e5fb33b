"""Several informers in one trace: ``InformerTracer`` tags what each
informer's pipeline emits, ``informer_of`` reads it back, and one-informer
events carry no tag (CONTRACT of issue 19)."""

from __future__ import annotations

from kubectl_informer.core.trace import InformerTracer, TraceBuffer, TraceEvent, Tracer, informer_of
from kubectl_informer.core.trace_kinds import KINDS, PER_INFORMER, check_event


def test_an_informer_tracer_tags_every_event_and_a_plain_one_does_not():
    tracer, buf = Tracer(), TraceBuffer()
    tracer.subscribe(buf)
    InformerTracer(tracer, "replicasets.apps").emit("watch.start", None, resource_version="7")
    tracer.emit("watch.start", None, resource_version="8")
    tagged, plain = buf.drain()
    assert informer_of(tagged) == "replicasets.apps" and tagged.fields["resource_version"] == "7"
    assert informer_of(plain) is None and "informer" not in plain.fields


def test_an_informer_tracer_emits_nothing_while_nobody_listens_and_follows_a_later_subscription():
    tracer = Tracer()
    tagged = InformerTracer(tracer, "pods")
    assert not tagged.enabled
    tagged.emit("watch.start", None, resource_version="1")  # nobody: dropped
    buf = TraceBuffer()
    tracer.subscribe(buf)
    assert tagged.enabled
    tagged.emit_derived(
        "store.add",
        "default/a",
        resource_version="2",
        delta="Added",
        is_in_initial_list=False,
        object={"metadata": {"name": "a"}},
    )
    (ev,) = buf.drain()
    assert ev.kind == "store.add" and informer_of(ev) == "pods"


def test_every_kind_an_informer_emits_declares_the_informer_field_and_the_queue_kinds_do_not():
    for kind in PER_INFORMER:
        assert "informer" in KINDS[kind].fields and KINDS[kind].fields["informer"].optional
    for name in ("queue.add", "queue.get", "run.info", "experiment"):
        assert "informer" not in KINDS[name].fields


def test_the_contracts_new_fields_and_kinds_check():
    assert not check_event(
        "queue.add",
        "default/web",
        {"outcome": "queued", "depth": 1, "cause": ["ReplicaSet default/web-1 Updated", "Pod default/web-1-x Deleted"]},
    )
    assert not check_event(
        "owner.drop",
        "default/x",
        {"informer": "pods", "event": "Deleted", "reason": "uid_mismatch", "owner": "ReplicaSet default/r"},
    )
    assert check_event(
        "owner.drop", "default/x", {"informer": "pods", "event": "Deleted", "reason": "because", "owner": ""}
    )
    assert not check_event(
        "informer.synced", None, {"items": 3, "duration": 0.1, "resource_version": "9", "informer": "pods"}
    )


def test_the_informer_field_survives_json():
    ev = TraceEvent.checked(1, 0.0, "relist", None, reason="expired", informer="widgets.example.com")
    assert informer_of(TraceEvent.from_json(ev.to_json())) == "widgets.example.com"
