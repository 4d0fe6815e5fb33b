"""FakeSource: the in-memory ListerWatcher (client-go's FakeControllerSource,
fake_controller_source_test.go's TestRCNumber-style checks plus our faults)."""

import random
import threading

import pytest

from kubectl_informer.cache.listwatch import ListOptions
from kubectl_informer.cache.testing.fake_controller_source import FakeSource, make_object, too_many_requests_error
from kubectl_informer.clock.testing import wait_for
from kubectl_informer.core.apierrors import ApiError, is_expired, is_too_large_resource_version


def drain(w, n):
    out = []
    it = iter(w)
    for _ in range(n):
        out.append(next(it))
    return out


def test_rv_counter_list_and_watch_from_rv():
    # TestRCNumber: every change takes the next RV; a watch from an RV
    # replays what came after it.
    src = FakeSource()
    a = src.add(make_object("a"))
    src.add(make_object("b"))
    src.modify(dict(a, spec={"x": 1}))
    src.delete("default/b")
    assert src.resource_version == "4"
    lst = src.list(ListOptions(resource_version="0"))
    assert lst["metadata"]["resourceVersion"] == "4"
    assert [o["metadata"]["name"] for o in lst["items"]] == ["a"]
    w = src.watch(ListOptions(resource_version="1"))
    evs = drain(w, 3)
    assert [(e.type, e.object["metadata"]["resourceVersion"]) for e in evs] == [
        ("ADDED", "2"),
        ("MODIFIED", "3"),
        ("DELETED", "4"),
    ]
    src.add(make_object("c"))
    assert next(iter(w)).object["metadata"]["name"] == "c"
    w.stop()
    assert list(w) == [] and src.open_watches() == 0


def test_objects_are_copied():
    src = FakeSource()
    obj = make_object("a")
    src.add(obj)
    assert "resourceVersion" not in obj["metadata"]


def test_watch_from_compacted_rv_gets_410_event():
    src = FakeSource(history=2)
    for n in "abcd":
        src.add(make_object(n))
    (ev,) = list(src.watch(ListOptions(resource_version="1")))
    assert ev.type == "ERROR" and ev.object["code"] == 410
    assert len(drain(src.watch(ListOptions(resource_version="2")), 2)) == 2


def test_too_large_rv_and_bad_rv():
    src = FakeSource()
    src.add(make_object("a"))
    with pytest.raises(ApiError) as ei:
        src.list(ListOptions(resource_version="9"))
    assert is_too_large_resource_version(ei.value)
    with pytest.raises(ApiError):
        src.list(ListOptions(resource_version="x"))


def test_paged_list_is_a_consistent_snapshot_and_continue_expires():
    src = FakeSource()
    for i in range(5):
        src.add(make_object(f"p{i}"))
    p1 = src.list(ListOptions(resource_version="0", limit=2))
    assert p1["metadata"]["continue"] and p1["metadata"]["remainingItemCount"] == 3
    src.add(make_object("late"))
    p2 = src.list(ListOptions(limit=2, continue_=p1["metadata"]["continue"]))
    p3 = src.list(ListOptions(limit=2, continue_=p2["metadata"]["continue"]))
    names = [o["metadata"]["name"] for p in (p1, p2, p3) for o in p["items"]]
    assert names == [f"p{i}" for i in range(5)] and p3["metadata"]["resourceVersion"] == "5"
    assert "continue" not in p3["metadata"]
    with pytest.raises(ApiError) as ei:
        src.list(ListOptions(limit=2, continue_=p1["metadata"]["continue"]))
    assert is_expired(ei.value)
    assert "continue" not in FakeSource(honor_limit=False).list(ListOptions(limit=1))["metadata"]


def test_watch_list_stream_and_unsupported_mode():
    src = FakeSource()
    src.add(make_object("a"))
    w = src.watch(
        ListOptions(send_initial_events=True, allow_watch_bookmarks=True, resource_version_match="NotOlderThan")
    )
    evs = drain(w, 2)
    assert evs[0].type == "ADDED"
    assert evs[1].type == "BOOKMARK" and evs[1].object["metadata"]["annotations"] == {
        "k8s.io/initial-events-end": "true"
    }
    off = FakeSource(watch_list=False)
    assert list(off.watch(ListOptions(send_initial_events=True))) == []


def test_faults_on_next_call():
    src = FakeSource()
    src.fail_next(too_many_requests_error(), "watch")
    src.fail_next(ConnectionRefusedError("refused"), "list")
    with pytest.raises(ConnectionRefusedError):
        src.list(ListOptions())
    src.list(ListOptions())  # only once
    with pytest.raises(ApiError):
        src.watch(ListOptions())
    with pytest.raises(ValueError):
        src.fail_next(ValueError(), "get")


def test_drop_expire_and_error_end_open_watches():
    src = FakeSource()
    src.add(make_object("a"))
    w1 = src.watch(ListOptions(resource_version="1"))
    src.drop_watches()
    assert list(w1) == []
    w2 = src.watch(ListOptions(resource_version="1"))
    src.expire_watches()
    (ev,) = list(w2)
    assert ev.type == "ERROR" and ev.object["reason"] == "Expired"
    # After expiry the old RV is compacted away.
    (ev,) = drain(src.watch(ListOptions(resource_version="0")), 1)  # "0": current state
    assert ev.type == "ADDED"


def test_blocking_watch_wakes_on_change_and_times_out_on_clock(clock):
    src = FakeSource(clock=clock)
    w = src.watch(ListOptions(resource_version="0", timeout_seconds=300))
    got = []
    t = threading.Thread(target=lambda: got.extend(w), daemon=True)
    t.start()
    src.add(make_object("a"))
    assert wait_for(lambda: len(got) == 1)
    assert wait_for(clock.has_waiters)
    clock.step(300)
    t.join(5)
    assert not t.is_alive() and len(got) == 1


def test_churn_keeps_state_consistent_with_events():
    src = FakeSource(history=100000)
    w = src.watch(ListOptions(resource_version="0"))
    src.churn(500, random.Random(4), max_objects=20)
    src.drop_watches()
    state = {}
    for ev in w:
        key = "default/" + ev.object["metadata"]["name"]
        if ev.type == "DELETED":
            state.pop(key)
        else:
            state[key] = ev.object
    assert state == src.objects()
