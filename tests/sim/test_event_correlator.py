"""client-go's EventCorrelator as the simulated controllers' events go
through it (tools/record/events_cache.go; cases after its
TestEventCorrelator): repeats counted, similar events combined after 10
messages, 25 per object then one each 5 minutes."""

from __future__ import annotations

from kubectl_informer.clock.testing import FakeClock
from kubectl_informer.sim.event_correlator import AGGREGATE_INTERVAL, COMBINED, EventCorrelator
from kubectl_informer.sim.events import EventRecorder
from kubectl_informer.sim.store import Store

DEPLOY = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "ns", "uid": "u1"}}


def recorder(clock=None):
    store = Store()
    store.create("namespaces", {"metadata": {"name": "ns"}})
    return store, EventRecorder(store, clock=clock or FakeClock(), correlated=frozenset({"deployment-controller"}))


def scaled(rec, message: str, reason: str = "ScalingReplicaSet"):
    return rec.record(DEPLOY, "Normal", reason, message, "deployment-controller")


def test_a_repeated_event_is_counted_on_the_first_one():
    store, rec = recorder()
    for _ in range(3):
        scaled(rec, "Scaled up replica set web-1 from 0 to 3")
    [e] = store.list("events", "ns")
    assert e["count"] == 3 and e["message"] == "Scaled up replica set web-1 from 0 to 3"


def test_the_tenth_similar_message_is_combined():
    store, rec = recorder()
    for i in range(12):
        scaled(rec, f"Scaled down replica set web-1 from {i + 1} to {i}")
    events = store.list("events", "ns")
    combined = [e for e in events if e["message"].startswith(COMBINED)]
    assert len(events) == 10 and len(combined) == 1
    assert (
        combined[0]["count"] == 3 and combined[0]["message"] == COMBINED + "Scaled down replica set web-1 from 12 to 11"
    )


def test_other_components_are_not_correlated():
    store, rec = recorder()
    for _ in range(3):
        rec.record(DEPLOY, "Normal", "Started", "Started container nginx", "kubelet")
    assert len(store.list("events", "ns")) == 3


def test_the_aggregation_starts_again_after_ten_minutes():
    clock = FakeClock()
    c = EventCorrelator(clock)
    base = {"source": {"component": "c"}, "involvedObject": {"name": "web"}, "type": "Normal", "reason": "R"}
    for i in range(9):
        assert c.correlate({**base, "message": str(i)})[0]["message"] == str(i)
    clock.step(AGGREGATE_INTERVAL + 1)
    assert c.correlate({**base, "message": "9"})[0]["message"] == "9"  # a fresh record: 1 message


def test_spam_filter_lets_25_through_then_one_per_five_minutes():
    clock = FakeClock()
    c = EventCorrelator(clock)
    base = {"source": {"component": "c"}, "involvedObject": {"name": "web"}, "type": "Normal"}
    passed = sum(c.correlate({**base, "reason": f"R{i}", "message": "m"})[0] is not None for i in range(30))
    assert passed == 25
    clock.step(299)
    assert c.correlate({**base, "reason": "late", "message": "m"})[0] is None
    clock.step(1)
    assert c.correlate({**base, "reason": "later", "message": "m"})[0] is not None
    other = {**base, "involvedObject": {"name": "api"}, "reason": "R", "message": "m"}
    assert c.correlate(other)[0] is not None  # another object has its own bucket
