"""The simulated watch cache's decisions as kube-apiserver v1.36's cacher
makes them, ported from its tests (watch_cache_test.go: TestDynamicCache,
TestCacheIncreaseDoesNotBreakWatch, TestEvents, TestWaitUntilFreshAndListTimeout)
and from cacher.go's Watch: which requests wait for the cache
(waitUntilFreshAndBlock) and answer 504, which start at once, and what moves
the cache's resourceVersion."""

import threading
import time

import pytest

from kubectl_informer.clock.testing import FakeClock, wait_for
from kubectl_informer.core.apierrors import ApiError, is_too_large_resource_version
from kubectl_informer.sim.resources import PODS
from kubectl_informer.sim.store import Store
from kubectl_informer.sim.watchcache import (
    EVENT_FRESH_SECONDS,
    Entry,
    Event,
    ResourceState,
    resized_capacity,
    retry_after_for_unready_cache,
)
from tests.sim.conftest import pod

FRESH = EVENT_FRESH_SECONDS


def _event(i: int, t: float) -> Event:
    ev = Event("MODIFIED", i + 1, Entry(f"default/event-{i}", "default", f"event-{i}", i + 1, b"{}", {}, {}), None)
    ev.t = t
    return ev


# TestDynamicCache's table: (events, capacity, start index, lower, upper, interval, capacity after, start after)
DYNAMIC = [
    (5, 5, 0, 5 // 2, 10, FRESH / 6, 10, 0),
    (5, 5, 0, 5 // 2, 10, FRESH / 4, 5, 0),
    (5, 5, 0, 5 // 2, 10, FRESH + 1, 2, 3),
    (5, 5, 0, 3, 10, FRESH + 1, 3, 2),
    (5, 5, 0, 5 // 2, 8, FRESH / 6, 8, 0),
    (5, 5, 3, 5 // 2, 10, FRESH / 6, 10, 3),
    (5, 5, 3, 5 // 2, 10, FRESH / 4, 5, 3),
    (5, 5, 3, 5 // 2, 10, FRESH + 1, 2, 6),
    (5, 5, 3, 3, 10, FRESH + 1, 3, 5),
    (5, 5, 3, 5 // 2, 8, FRESH / 6, 8, 3),
    (8, 8, 0, 4, 16, FRESH / 9, 16, 0),
    (8, 8, 0, 4, 16, FRESH / 8, 8, 0),
    (8, 8, 0, 4, 16, FRESH / 2 + 1, 4, 4),
    (8, 8, 0, 7, 16, FRESH / 2 + 1, 7, 1),
    (8, 8, 0, 4, 10, FRESH / 9, 10, 0),
    (8, 8, 3, 4, 16, FRESH / 9, 16, 3),
    (8, 8, 3, 4, 16, FRESH / 8, 8, 3),
    (8, 8, 3, 4, 16, FRESH / 2 + 1, 4, 7),
    (8, 8, 3, 7, 16, FRESH / 2 + 1, 7, 4),
    (8, 8, 3, 4, 10, FRESH / 9, 10, 3),
]


@pytest.mark.parametrize("count, capacity, start, lower, upper, interval, want_capacity, want_start", DYNAMIC)
def test_dynamic_cache(count, capacity, start, lower, upper, interval, want_capacity, want_start):
    st = ResourceState(PODS, capacity, 100, now=lambda: 0.0)
    st.lower_capacity, st.upper_capacity = lower, upper
    st.window.extend(_event(start + i, interval * i) for i in range(count))
    st._resize(interval * count)
    assert st.window_size == want_capacity
    # The events kept are the newest ones, in order (startIndex moved by the events evicted).
    assert [ev.entry.name for ev in st.window] == [f"event-{i}" for i in range(want_start, start + count)]


@pytest.mark.parametrize(
    "capacity, oldest, quarter, want",
    [
        (100, 10.0, 1.0, 200),  # full of fresh events: doubled
        (65_536, 10.0, 1.0, 102_400),  # up to the upper bound
        (102_400, 10.0, 1.0, 102_400),  # at the bound: the oldest goes instead
        (400, 200.0, 80.0, 200),  # the newest quarter stale: halved
        (150, 200.0, 80.0, 100),  # down to the lower bound
        (400, 200.0, 75.0, 400),  # a quarter exactly 75 s old is not stale yet
        (400, 75.0, 10.0, 400),  # an oldest exactly 75 s old is not fresh: no change
    ],
)
def test_resized_capacity(capacity, oldest, quarter, want):
    assert resized_capacity(capacity, oldest, quarter, 100, 102_400) == want


def test_cache_increase_does_not_break_watch():
    st = ResourceState(PODS, 2, 100, now=lambda: 0.0)
    st.lower_capacity, st.upper_capacity = 2, 102_400
    st.restart_window(10)  # the initial list at RV 10
    for rv, t in ((20, 0.0), (30, 2 * FRESH), (40, 2 * FRESH), (50, 2 * FRESH + 1)):
        st.now = lambda t=t: t
        st.record(Event("ADDED", rv, Entry(f"k{rv}", "", f"k{rv}", rv, b"{}", {}, {}), None))
    assert st.window_size == 4 and [ev.rv for ev in st.window] == [30, 40, 50]
    assert st.too_old_below() == 29  # a watch from 15 is too old: RV 20 was evicted


def _store(size=None, clock=None, **kw):
    s = Store(watch_cache_size=size, now=(clock or FakeClock()).now, **kw)
    s.create("namespaces", {"metadata": {"name": "default"}})
    return s


def test_events():
    store = _store(5)
    # TestEvents fills a cache that never listed (its oldest servable RV is its first event's, less one);
    # ours has always listed: at the RV just before the first event, which comes to the same.
    store.bump_revision(10)  # no RV of the test is "0" (a watch from "0" starts with the current state)
    store.expire_watch_cache("pods")
    store.create("pods", pod("pod"))
    first = store.current_rv()  # TestEvents' RV 3
    base = first - 3

    def since(rv: int) -> list[int]:
        w, lines, _ = store.start_watch("pods", resource_version=str(base + rv))
        store.stop_watch(w)
        return [int(line.split(b'"resourceVersion":"')[1].split(b'"')[0]) - base for line in lines]

    with pytest.raises(ApiError) as e:
        since(1)
    assert e.value.status == 410
    assert since(2) == [3]
    for _ in range(2):
        p = store.get("pods", "default", "pod")
        p["metadata"]["labels"] = {"n": str(store.current_rv())}
        store.update("pods", p)
    assert since(3) == [4, 5]
    for _ in range(4):
        p = store.get("pods", "default", "pod")
        p["metadata"]["labels"] = {"n": str(store.current_rv())}
        store.update("pods", p)
    with pytest.raises(ApiError):
        since(3)  # full: RVs 5 to 9 are kept
    assert since(4) == [5, 6, 7, 8, 9]


def test_a_list_for_an_rv_never_reached_waits_then_answers_504_with_retry_after():
    # TestWaitUntilFreshAndListTimeout: etcd's revision (3 here: nothing else is written) never reaches 4.
    store = _store(too_large_wait=0.2)
    want = store.current_rv() + 1
    started = time.monotonic()
    with pytest.raises(ApiError) as e:
        store.list_entries("pods", resource_version=str(want))
    assert time.monotonic() - started >= 0.2
    assert is_too_large_resource_version(e.value) and e.value.retry_after == 1
    assert e.value.message == f"Timeout: Too large resource version: {want}, current: {store.current_rv()}"


def test_a_list_waits_until_a_write_reaches_its_rv():
    store = _store(too_large_wait=5.0)
    want = store.current_rv() + 1
    threading.Timer(
        0.05, lambda: store.create("configmaps", {"metadata": {"name": "c", "namespace": "default"}})
    ).start()
    _, at, _, _ = store.list_entries("pods", resource_version=str(want))
    # A configmap's write moved etcd's revision; the pods cache reached it by a progress notification.
    assert at == want == store.cache_rv("pods")


def test_what_moves_the_caches_rv_and_what_each_read_is_served_at():
    store = _store(too_large_wait=0.0)
    store.create("pods", pod("a"))
    pods_rv = store.current_rv()
    store.bump_revision(4)  # other resources' writes: etcd's revision moves, the pods cache does not
    etcd = store.current_rv()
    assert store.cache_rv("pods") == pods_rv < etcd
    assert store.list_entries("pods", resource_version="0")[1] == pods_rv  # any state: the cache's
    assert store.list_entries("pods", resource_version=str(pods_rv))[1] == pods_rv  # not older than: the cache's
    assert store.cache_rv("pods") == pods_rv  # a read the cache can serve asks etcd for nothing
    assert store.list_entries("pods", resource_version="")[1] == etcd  # a consistent read: etcd's revision
    assert store.cache_rv("pods") == etcd  # reached by the progress notification it asked for


def test_only_a_watchlist_waits_a_plain_watch_ahead_starts_at_once():
    store = _store(too_large_wait=0.05)
    ahead = store.current_rv() + 10
    w, lines, end = store.start_watch("pods", resource_version=str(ahead))
    assert (list(lines), end, w.last_rv, w.floor) == ([], None, ahead, ahead)
    for send_initial in (True,):
        with pytest.raises(ApiError) as e:
            store.start_watch(
                "pods", resource_version=str(ahead), allow_bookmarks=True, send_initial_events=send_initial
            )
        assert is_too_large_resource_version(e.value)
    # sendInitialEvents=false is a plain watch too: accepted.
    w2, _, _ = store.start_watch("pods", resource_version=str(ahead), send_initial_events=False)
    assert w2.last_rv == ahead


def test_where_watches_from_empty_and_zero_start():
    store = _store()
    store.create("pods", pod("a"))
    store.bump_revision(3)
    etcd, cache = store.current_rv(), store.cache_rv("pods")
    w, _, _ = store.start_watch("pods", resource_version="", send_initial_events=False)
    assert w.last_rv == etcd  # "" without initial events: etcd's current revision
    w, _, _ = store.start_watch("pods", resource_version="0", send_initial_events=False)
    assert w.last_rv == cache  # "0": any, the cache's
    w, lines, end = store.start_watch("pods", resource_version="0", allow_bookmarks=True, send_initial_events=True)
    assert (len(list(lines)), end) == (1, cache)
    w, lines, end = store.start_watch("pods", resource_version="", allow_bookmarks=True, send_initial_events=True)
    assert (len(list(lines)), end) == (1, etcd)  # waited for etcd's revision: a progress notification


def test_etcds_periodic_progress_notification_moves_every_cache():
    clock = FakeClock(100.0)
    store = _store(clock=clock, progress_notify_interval=600.0)
    before = store.cache_rv("pods")
    store.bump_revision(2)
    clock.step(599.0)
    assert store.cache_rv("pods") == before
    clock.step(1.0)
    assert store.cache_rv("pods") == store.current_rv()
    assert store.watch_cache_figures("pods")["progressNotifications"] == 1


def test_a_bookmark_carries_the_caches_rv_and_goes_only_past_the_watchs_start(client, sim):
    start = sim.store.current_rv()
    w = client.watch("/api/v1/namespaces/default/pods", resourceVersion=str(start), allowWatchBookmarks="true")
    assert wait_for(lambda: sim.store.watchers("pods"))
    sim.store.bump_revision()
    assert sim.store.send_bookmarks("pods") == 1  # at the cache's RV, the watch's start: not sent
    sim.store.progress_notify("pods")
    sim.store.send_bookmarks("pods")
    ev = w.next()
    assert ev["type"] == "BOOKMARK" and ev["object"]["metadata"]["resourceVersion"] == str(start + 1)
    w.close()


def test_a_reinitialising_caches_429_asks_to_wait_longer_the_longer_it_is_down():
    assert [retry_after_for_unready_cache(s) for s in (0, 11, 12, 30, 60, 600)] == [1, 1, 2, 6, 30, 30]
    clock = FakeClock()
    store = _store(clock=clock)
    store.begin_reinit("pods")
    clock.step(30)
    with pytest.raises(ApiError) as e:
        store.start_watch("pods", resource_version="")
    assert (e.value.status, e.value.retry_after) == (429, 6)
