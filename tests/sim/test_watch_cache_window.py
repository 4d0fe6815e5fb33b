"""The simulated watch cache as kube-apiserver's cacher keeps it: the buffer's
resizing, how long a watcher's position lasts, re-initialisation, an etcd
restore, and the debug endpoint that reports it all over HTTP."""

import http.client
import json
import sys
import threading

import pytest

from kubectl_informer.clock.testing import FakeClock, wait_for
from kubectl_informer.core.apierrors import ApiError, is_too_large_resource_version
from kubectl_informer.sim.server import SimServer
from kubectl_informer.sim.store import Store
from tests.sim.conftest import pod

PODS = "/api/v1/namespaces/default/pods"


def _store(clock=None, **kw):
    s = Store(now=(clock or FakeClock()).now, **kw)
    s.create("namespaces", {"metadata": {"name": "default"}})
    return s


def _touch(store, n, prefix="p"):
    for i in range(n):
        store.create("pods", pod(f"{prefix}{store.current_rv()}-{i}"))


def _state(store):
    return store._state(store.resource("pods"))


def test_the_buffer_doubles_while_full_of_fresh_events_and_halves_when_they_go_stale():
    clock = FakeClock(1000.0)
    store = _store(clock)
    store.set_watch_cache_bounds(4, 16, "pods")
    _touch(store, 4)
    assert store.watch_cache_figures("pods")["capacity"] == 4
    _touch(store, 1)  # full, the oldest 0 s old: doubled before it goes in
    assert store.watch_cache_figures("pods")["capacity"] == 8
    _touch(store, 12)
    f = store.watch_cache_figures("pods")
    assert (f["capacity"], f["events"]) == (16, 16)
    _touch(store, 1)  # at the upper bound: the oldest goes instead
    assert store.watch_cache_figures("pods")["capacity"] == 16
    clock.step(76.0)  # eventFreshDuration (75 s) later, the newest quarter is stale
    _touch(store, 1)
    f = store.watch_cache_figures("pods")
    assert (f["capacity"], f["events"]) == (8, 8)
    assert f["oldestRV"] == str(_state(store).window[0].rv - 1)


def test_a_fixed_window_never_resizes():
    store = _store(watch_cache_size=4)
    _touch(store, 20)
    assert store.watch_cache_figures("pods")["capacity"] == 4


def test_a_position_answers_410_once_the_event_after_it_is_evicted():
    store = _store(watch_cache_size=8)
    _touch(store, 3)
    pos = store.current_rv() - 1  # the event after pos is the newest: 7 more events fit before it goes
    _touch(store, 7)
    store.start_watch("pods", resource_version=str(pos))  # still served
    _touch(store, 1)
    with pytest.raises(ApiError) as e:
        store.start_watch("pods", resource_version=str(pos))
    assert e.value.status == 410


def test_the_report_says_what_the_cacher_knows_and_no_forecast():
    clock = FakeClock(1000.0)
    store = _store(clock)
    _touch(store, 2)
    clock.step(30.0)
    store.bump_revision(5)  # writes to what the simulator does not serve: etcd's revision moves
    f = store.watch_cache_figures("pods")
    assert (f["capacity"], f["lowerBound"], f["upperBound"], f["freshSeconds"], f["oldestAge"]) == (
        100,
        100,
        102_400,
        75.0,
        30.0,
    )
    assert int(f["cacheRV"]) == store.current_rv() - 5 and f["progressNotifications"] == 0
    store.progress_notify("pods")
    f = store.watch_cache_figures("pods")
    assert (f["cacheRV"], f["progressNotifications"]) == (str(store.current_rv()), 1)
    w, _, _ = store.start_watch("pods", resource_version=f["cacheRV"])
    assert "room" not in next(x for x in store.watch_cache_figures("pods")["watchers"] if x["id"] == w.id)


def test_a_reinitialising_cache_ends_every_watch_answers_429_then_restarts_its_window():
    store = _store()
    _touch(store, 3)
    before = store.current_rv()
    w, _, _ = store.start_watch("pods", resource_version=str(before), user_agent="kubectl-informer/test")
    assert store.begin_reinit("pods") == 1
    assert w.closed and w.close_reason == "reinit"
    with pytest.raises(ApiError) as e:
        store.start_watch("pods", resource_version=str(before))
    assert (e.value.status, e.value.message, e.value.retry_after) == (429, "storage is (re)initializing", 1)
    _touch(store, 2)  # etcd takes writes meanwhile; the cache does not see them
    assert store.watch_cache_figures("pods")["events"] == 3
    assert store.end_reinit("pods") == 2
    f = store.watch_cache_figures("pods")
    assert (f["initialisations"], f["events"], f["oldestRV"], f["newestRV"]) == (
        2,
        0,
        str(store.current_rv()),
        str(store.current_rv()),
    )
    with pytest.raises(ApiError) as e:
        store.start_watch("pods", resource_version=str(before))
    assert e.value.status == 410
    store.start_watch("pods", resource_version=str(store.current_rv()))


def test_an_etcd_restore_takes_objects_and_the_rv_back():
    store = _store()
    _touch(store, 2, "old")
    snapshot, kept = store.current_rv(), sorted(store.keys("pods"))
    _touch(store, 3, "new")
    seen = store.current_rv()
    w, _, _ = store.start_watch("pods", resource_version=str(seen))
    assert store.restore(snapshot) == snapshot
    assert w.closed and store.current_rv() == snapshot and sorted(store.keys("pods")) == kept
    assert store.watch_cache_figures("pods")["initialisations"] == 2
    w, initial, _ = store.start_watch("pods", resource_version=str(seen))  # a plain watch ahead: accepted
    assert list(initial) == [] and w.last_rv == seen
    store.too_large_wait = 0.01
    with pytest.raises(ApiError) as e:  # a list (NotOlderThan) waits for the cache, then 504
        store.list_entries("pods", resource_version=str(seen))
    assert is_too_large_resource_version(e.value)
    assert e.value.message == f"Timeout: Too large resource version: {seen}, current: {snapshot}"


def _get(sim, path, headers=None):
    conn = http.client.HTTPConnection(sim.host, sim.port, timeout=10)
    conn.request("GET", path, headers={"Authorization": f"Bearer {sim.token}", **(headers or {})})
    resp = conn.getresponse()
    body = resp.read()
    conn.close()
    return resp.status, json.loads(body)


def test_the_debug_endpoint_reports_each_watcher_over_http():
    with SimServer(watch_cache_size=8) as sim:
        sim.store.create("namespaces", {"metadata": {"name": "default"}})
        _touch(sim.store, 3)
        start = sim.store.current_rv()
        conn = http.client.HTTPConnection(sim.host, sim.port, timeout=10)
        conn.request(
            "GET",
            f"/api/v1/namespaces/default/pods?watch=true&resourceVersion={start}",
            headers={"User-Agent": "kubectl-informer/9.9 (test)", "Authorization": f"Bearer {sim.token}"},
        )
        resp = conn.getresponse()
        _touch(sim.store, 2)
        lines = [resp.fp.readline() for _ in range(6)]  # two events, a chunk each: size, data, CRLF
        assert sum(b'"ADDED"' in line for line in lines) == 2
        assert wait_for(lambda: _get(sim, "/debug/informer/watchcache?resource=pods")[1]["watchers"][0]["sent"] == 2)
        code, doc = _get(sim, "/debug/informer/watchcache?resource=pods")
        assert code == 200 and doc["kind"] == "WatchCacheWindow"
        st = _state(sim.store)
        assert (doc["capacity"], doc["events"], doc["newestRV"], doc["currentRV"]) == (
            8,
            5,
            str(st.window[-1].rv),
            str(sim.store.current_rv()),
        )
        [w] = doc["watchers"]
        assert (w["userAgent"], w["startRV"], w["rv"], w["sent"]) == (
            "kubectl-informer/9.9 (test)",
            str(start),
            str(sim.store.current_rv()),
            2,
        )
        conn.close()
        assert _get(sim, "/debug/informer/watchcache")[0] == 400
        assert _get(sim, "/debug/informer/watchcache?resource=nosuchthings")[0] == 404
        assert _get(sim, "/debug/informer/watchcache?resource=deployments.apps")[1]["resource"] == "deployments.apps"


def test_bookmarks_sent_are_counted():
    with SimServer() as sim:
        sim.store.create("namespaces", {"metadata": {"name": "default"}})
        conn = http.client.HTTPConnection(sim.host, sim.port, timeout=10)
        conn.request(
            "GET",
            "/api/v1/namespaces/default/pods?watch=true&allowWatchBookmarks=true&resourceVersion="
            + str(sim.store.current_rv()),
            headers={"Authorization": f"Bearer {sim.token}"},
        )
        resp = conn.getresponse()
        got = threading.Event()
        assert wait_for(lambda: sim.store.watchers("pods"))
        sim.store.bump_revision()
        sim.store.progress_notify("pods")
        sim.store.send_bookmarks("pods")
        threading.Thread(target=lambda: (resp.fp.readline(), resp.fp.readline(), got.set()), daemon=True).start()
        assert got.wait(10)
        assert wait_for(lambda: sim.store.watch_cache_figures("pods")["bookmarksSent"] == 1)
        conn.close()


def _evict_once_cached(ev, evict):
    """A trace that calls ``evict`` at the first line of Event.line run
    after ``ev``'s wire line is cached: a watch handler (no store lock)
    interleaved with a writer pushing ``ev`` out of the window, made
    deterministic."""
    code, done = type(ev).line.__code__, []

    def local(frame, event, arg):
        if event == "line" and ev._line is not None and not done:
            done.append(True)
            evict()
        return local

    return lambda frame, event, arg: local if event == "call" and frame.f_code is code else None


def test_an_event_evicted_while_a_handler_writes_it_still_gives_its_line():
    """A watch handler writes an event outside the store's lock; a write may
    push it out of the window meanwhile, dropping its cached line. The
    handler still gets the line (it got None before: a TypeError that cut
    the watch)."""
    store = _store()
    store.set_watch_cache_size(1, "pods")
    _touch(store, 1)
    ev = _state(store).window[-1]
    before = sys.gettrace()
    sys.settrace(_evict_once_cached(ev, lambda: _touch(store, 1, "next")))
    try:
        line = ev.line()
    finally:
        sys.settrace(before)
    assert _state(store).window[-1] is not ev  # it was evicted while its line was written
    assert isinstance(line, bytes) and json.loads(line)["type"] == "ADDED"
    assert ev._line is None  # history keeps the event, not its line


def test_a_watcher_behind_the_window_writes_evicted_events_without_caching_them(client, sim):
    """A slow watcher still has events the window has evicted: it gets their
    lines, and history (which keeps the events) does not keep the lines."""
    sim.store.set_watch_cache_size(2, "pods")
    w = client.watch(PODS, resourceVersion=str(sim.store.current_rv()))
    sim.faults.stall_watches(60)  # the handler holds what it pops until the stall is lifted: it falls behind
    for i in range(5):
        sim.store.create("pods", pod(f"p{i}"))
    sim.faults.clear()
    assert [e["object"]["metadata"]["name"] for e in w.take(5)] == [f"p{i}" for i in range(5)]
    w.close()
    assert [ev._line is None for ev in _state(sim.store).history] == [True] * 3 + [False] * 2
    sim.store.expire_watch_cache("pods")
    assert all(ev._line is None for ev in _state(sim.store).history)
