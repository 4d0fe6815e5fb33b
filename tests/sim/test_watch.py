"""Watch semantics through real HTTP: watch-cache window, 410/504 as ERROR
events, bookmarks, WatchList, selectors on the stream, timeoutSeconds."""

import contextlib

import pytest

from kubectl_informer.sim.server import SimServer
from tests.sim._http import RawClient
from tests.sim.conftest import pod

PODS = "/api/v1/namespaces/default/pods"


def rv_of(ev):
    return int(ev["object"]["metadata"]["resourceVersion"])


def test_watch_from_rv_replays_later_events_then_streams(client, sim):
    client.request("POST", PODS, pod("a"))
    rv = sim.store.current_rv()
    client.request("POST", PODS, pod("b"))
    client.request("DELETE", PODS + "/a")
    w = client.watch(PODS, resourceVersion=str(rv))
    assert w.status == 200 and w.resp.getheader("Transfer-Encoding") == "chunked"
    evs = w.take(2)
    assert [(e["type"], e["object"]["metadata"]["name"]) for e in evs] == [("ADDED", "b"), ("DELETED", "a")]
    assert rv_of(evs[1]) == sim.store.current_rv()  # DELETED carries the deletion's RV
    sim.store.create("pods", pod("c"))
    ev = w.next()
    assert (ev["type"], ev["object"]["metadata"]["name"]) == ("ADDED", "c")
    assert ev["object"]["kind"] == "Pod"
    w.close()


def test_watch_without_rv_starts_with_synthetic_adds(client, sim):
    for n in ("a", "b"):
        client.request("POST", PODS, pod(n))
    for rv in ("", "0"):
        w = client.watch(PODS, resourceVersion=rv or None)
        assert [(e["type"], e["object"]["metadata"]["name"]) for e in w.take(2)] == [("ADDED", "a"), ("ADDED", "b")]
        w.close()


def test_watch_older_than_window_is_410_error_event():
    with SimServer(watch_cache_size=5) as sim:
        sim.store.create("namespaces", {"metadata": {"name": "default"}})
        client = RawClient(sim.url, token=sim.token)
        rv = sim.store.current_rv()
        for i in range(5):
            sim.store.create("pods", pod(f"p{i}"))
        w = client.watch(PODS, resourceVersion=str(rv))  # 5 events after rv: still in the window
        assert len(w.take(5)) == 5
        w.close()
        sim.store.create("pods", pod("p5"))  # the window slides past rv
        w = client.watch(PODS, resourceVersion=str(rv))
        evs = w.rest()
        assert w.status == 200 and len(evs) == 1 and evs[0]["type"] == "ERROR"
        st = evs[0]["object"]
        assert st["code"] == 410 and st["reason"] == "Expired"
        assert st["message"] == f"too old resource version: {rv} ({rv + 1})"


def test_a_plain_watch_ahead_of_the_cache_is_accepted_and_skips_events_up_to_its_rv(client, sim):
    # cacher.Watch waits for the cache only when sendInitialEvents=true: a
    # plain watch from an RV the cache has not reached starts at once, and
    # cacheWatcher.process sends only events newer than that RV.
    ahead = sim.store.current_rv() + 3
    w = client.watch(PODS, resourceVersion=str(ahead), allowWatchBookmarks="true")
    assert w.status == 200
    from kubectl_informer.clock.testing import wait_for

    assert wait_for(lambda: sim.store.watchers("pods"))
    for i in range(5):
        sim.store.create("pods", pod(f"p{i}"))
    sim.store.send_bookmarks()
    evs = w.take(3)
    assert [(e["type"], e["object"]["metadata"].get("name")) for e in evs] == [
        ("ADDED", "p3"),
        ("ADDED", "p4"),
        ("BOOKMARK", None),
    ]
    assert rv_of(evs[0]) == ahead + 1
    w.close()


def test_expire_watch_cache_makes_old_rvs_410(client, sim):
    client.request("POST", PODS, pod("a"))
    rv = sim.store.current_rv()
    client.request("POST", PODS, pod("b"))
    sim.store.expire_watch_cache("pods")
    assert client.watch(PODS, resourceVersion=str(rv)).rest()[0]["object"]["code"] == 410
    w = client.watch(PODS, resourceVersion=str(sim.store.current_rv()))  # from now: fine
    sim.store.create("pods", pod("c"))
    assert w.next()["object"]["metadata"]["name"] == "c"
    w.close()


def test_timeout_seconds_ends_the_stream_cleanly(client, sim):
    # a negative timeout has passed already: kube-apiserver ends the watch at once
    w = client.watch(PODS, resourceVersion=str(sim.store.current_rv()), timeoutSeconds="-1")
    assert w.rest() == []  # clean end: the terminating chunk arrived


@pytest.mark.parametrize(
    ("param", "raw", "message"),
    [  # what kube-apiserver v1.36 answered the lab (Go's strconv.ParseInt, base 10, 64 bits)
        ("timeoutSeconds", "1.5", 'strconv.ParseInt: parsing "1.5": invalid syntax'),
        ("timeoutSeconds", "", 'strconv.ParseInt: parsing "": invalid syntax'),
        ("timeoutSeconds", " 1", 'strconv.ParseInt: parsing " 1": invalid syntax'),
        ("timeoutSeconds", "0x1", 'strconv.ParseInt: parsing "0x1": invalid syntax'),
        (
            "timeoutSeconds",
            "99999999999999999999",
            'strconv.ParseInt: parsing "99999999999999999999": value out of range',
        ),
        ("limit", "1.5", 'strconv.ParseInt: parsing "1.5": invalid syntax'),
        ("limit", "1_0", 'strconv.ParseInt: parsing "1_0": invalid syntax'),
    ],
)
def test_an_integer_parameter_is_read_as_go_parses_it(client, sim, param, raw, message):
    query = {param: raw} if param == "limit" else {param: raw, "watch": "true"}
    code, status = client.get(PODS, **query)
    assert code == 400 and status["reason"] == "BadRequest" and status["message"] == message


def test_label_selector_turns_modified_into_added_and_deleted(client, sim):
    client.request("POST", PODS, pod("a", labels={"app": "x"}))
    w = client.watch(PODS, resourceVersion=str(sim.store.current_rv()), labelSelector="app=y")
    p = PODS + "/a"
    client.request("PATCH", p, {"metadata": {"labels": {"app": "y"}}}, ctype="application/merge-patch+json")
    client.request("PATCH", p, {"metadata": {"labels": {"v": "2"}}}, ctype="application/merge-patch+json")
    client.request("PATCH", p, {"metadata": {"labels": {"app": "z"}}}, ctype="application/merge-patch+json")
    assert [e["type"] for e in w.take(3)] == ["ADDED", "MODIFIED", "DELETED"]
    w.close()


def test_namespace_and_field_selector_filter_watch(client, sim):
    w = client.watch(
        "/api/v1/pods", resourceVersion=str(sim.store.current_rv()), fieldSelector="metadata.namespace=other"
    )
    client.request("POST", PODS, pod("skip"))
    client.request("POST", "/api/v1/namespaces/other/pods", pod("seen", ns="other"))
    assert w.next()["object"]["metadata"]["name"] == "seen"
    w.close()


def test_watch_one_object_by_name(client, sim):
    client.request("POST", PODS, pod("a"))
    client.request("POST", PODS, pod("b"))
    w = client.watch(PODS + "/b", resourceVersion="")
    ev = w.next()
    assert ev["object"]["metadata"]["name"] == "b"
    client.request("DELETE", PODS + "/a")
    client.request("DELETE", PODS + "/b")
    ev = w.next()
    assert (ev["type"], ev["object"]["metadata"]["name"]) == ("DELETED", "b")
    w.close()


def test_bookmarks_on_request_only_when_allowed(client, sim):
    rv = str(sim.store.current_rv())
    with_bm = client.watch(PODS, resourceVersion=rv, allowWatchBookmarks="true")
    without = client.watch(PODS, resourceVersion=rv)
    from kubectl_informer.clock.testing import wait_for

    assert wait_for(lambda: len(sim.store.watchers("pods")) == 2)
    sim.store.create("configmaps", {"metadata": {"name": "c", "namespace": "default"}})  # RV moves elsewhere
    sim.store.progress_notify("pods")  # etcd's progress notification moves the pods cache's RV there
    assert sim.store.send_bookmarks() == 1
    ev = with_bm.next()
    assert ev["type"] == "BOOKMARK" and rv_of(ev) == sim.store.current_rv()
    assert ev["object"]["kind"] == "Pod" and ev["object"]["apiVersion"] == "v1"
    sim.store.create("pods", pod("a"))
    assert without.next()["type"] == "ADDED"  # no bookmark went to it
    with_bm.close()
    without.close()


def test_periodic_bookmarks():
    with SimServer(bookmark_interval=0.05) as sim:
        w = RawClient(sim.url, token=sim.token).watch(PODS, resourceVersion="0", allowWatchBookmarks="true")
        from kubectl_informer.clock.testing import wait_for

        assert wait_for(lambda: sim.store.watchers("pods"))
        # A bookmark goes only once the cache's RV is past the watch's start: etcd's
        # revision moves (another resource) and a progress notification brings it.
        sim.store.bump_revision()
        sim.store.progress_notify()
        evs = w.take(1)
        sim.store.bump_revision()
        sim.store.progress_notify()
        evs += w.take(1)
        assert [e["type"] for e in evs] == ["BOOKMARK", "BOOKMARK"]
        w.close()


def test_bookmark_never_goes_behind_events(client, sim):
    w = client.watch(PODS, resourceVersion=str(sim.store.current_rv()), allowWatchBookmarks="true")
    from kubectl_informer.clock.testing import wait_for

    assert wait_for(lambda: sim.store.watchers("pods"))
    for i in range(20):
        sim.store.create("pods", pod(f"p{i}"))
        if i % 5 == 0:
            sim.store.send_bookmarks()
    last = 0
    for ev in w.take(24):
        assert rv_of(ev) >= last
        last = rv_of(ev)
    w.close()


def watch_list(client, **extra):
    params = dict(sendInitialEvents="true", resourceVersionMatch="NotOlderThan", allowWatchBookmarks="true")
    params.update(extra)
    return client.watch(PODS, **params)


def test_watch_list_sends_state_then_initial_events_end_bookmark(client, sim):
    for n in ("a", "b", "c"):
        client.request("POST", PODS, pod(n))
    rv = sim.store.current_rv()
    w = watch_list(client, resourceVersion="")
    evs = w.take(4)
    assert [(e["type"], e["object"]["metadata"].get("name")) for e in evs[:3]] == [
        ("ADDED", "a"),
        ("ADDED", "b"),
        ("ADDED", "c"),
    ]
    end = evs[3]
    assert end["type"] == "BOOKMARK" and rv_of(end) == rv
    assert end["object"]["metadata"]["annotations"] == {"k8s.io/initial-events-end": "true"}
    sim.store.create("pods", pod("d"))
    ev = w.next()
    assert (ev["type"], ev["object"]["metadata"]["name"]) == ("ADDED", "d")
    w.close()


def test_watch_list_from_future_rv_is_too_large(client, sim):
    sim.store.too_large_wait = 0.05  # kube-apiserver waits 3 s (tests/sim/test_cacher.py times it)
    evs = watch_list(client, resourceVersion=str(sim.store.current_rv() + 5)).rest()
    assert evs[0]["type"] == "ERROR" and evs[0]["object"]["code"] == 504
    assert evs[0]["object"]["details"]["causes"] == [
        {"reason": "ResourceVersionTooLarge", "message": "Too large resource version"}
    ]


def test_watch_list_validation(client, sim):
    # without allowWatchBookmarks, kube-apiserver v1.36 sends the state and no end bookmark (the lab)
    client.request("POST", PODS, pod("a"))
    w = client.watch(PODS, sendInitialEvents="true", resourceVersionMatch="NotOlderThan", timeoutSeconds="-1")
    assert w.status == 200 and [e["type"] for e in w.rest()] == ["ADDED"]
    w = client.watch(PODS, sendInitialEvents="true", allowWatchBookmarks="true")
    assert w.status == 422 and "NotOlderThan" in w.resp.read().decode()
    w = client.watch(PODS, resourceVersionMatch="NotOlderThan")
    assert w.status == 422
    status, st = client.get(PODS, sendInitialEvents="true")
    assert status == 422 and "forbidden for list" in st["message"]


@pytest.mark.parametrize("rv", ["", "0"])
def test_a_watch_from_now_or_any_is_a_watch_list_by_default(client, sim, rv):
    """SetListOptionsDefaults (WatchList on): a watch from "" or "0" naming
    neither sendInitialEvents nor resourceVersionMatch is sent its state, then
    the initial-events-end bookmark when bookmarks are allowed (the lab's
    kube-apiserver v1.36 answers `?watch=1&allowWatchBookmarks=true` so)."""
    client.request("POST", PODS, pod("a"))
    evs = client.watch(PODS, resourceVersion=rv or None, allowWatchBookmarks="true").take(2)
    assert [e["type"] for e in evs] == ["ADDED", "BOOKMARK"]
    assert evs[1]["object"]["metadata"]["annotations"] == {"k8s.io/initial-events-end": "true"}
    named = client.watch(
        PODS,
        resourceVersion="0",
        allowWatchBookmarks="true",
        sendInitialEvents="false",
        resourceVersionMatch="NotOlderThan",
    )
    sim.store.create("pods", pod("b"))
    assert named.next()["object"]["metadata"]["name"] == "b"  # asked not to: no state, no end bookmark
    named.close()


@pytest.mark.parametrize(
    ("raw", "on"), [("abc", True), ("", True), ("TRUE", True), ("0", False), ("False", False), (None, False)]
)
def test_a_boolean_parameter_is_false_only_when_absent_0_or_false(client, sim, raw, on):
    """Convert_Slice_string_To_bool: `allowWatchBookmarks=abc` allows them."""
    evs = client.watch(PODS, allowWatchBookmarks=raw, timeoutSeconds="-1").rest()
    assert [e["type"] for e in evs] == (["BOOKMARK"] if on else [])


@pytest.mark.parametrize(
    ("query", "code", "reason", "message"),
    [  # kube-apiserver v1.36 on the lab: a list's 400, a watch's bare storage error (500, no reason)
        (
            {"resourceVersion": "abc"},
            400,
            "BadRequest",
            'invalid resource version: resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": '
            "invalid syntax",
        ),
        (
            {"resourceVersion": "-1"},
            400,
            "BadRequest",
            'invalid resource version: resourceVersion: Invalid value: "-1": strconv.ParseUint: parsing "-1": '
            "invalid syntax",
        ),
        (
            {"resourceVersion": "abc", "watch": "1"},
            500,
            None,
            'resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax',
        ),
        (
            {"resourceVersion": "1", "resourceVersionMatch": "Bogus"},
            422,
            "Invalid",
            'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Unsupported value: "Bogus": '
            'supported values: "Exact", "NotOlderThan", ""',
        ),
    ],
)
def test_a_bad_resource_version_is_refused_in_the_servers_words(client, query, code, reason, message):
    status, st = client.get(PODS, **query)
    assert (status, st.get("reason"), st["message"]) == (code, reason, message)


def test_watch_list_switched_off_rejects_like_a_gate_off_server(client, sim):
    sim.faults.set_watch_list(False)
    w = watch_list(client, resourceVersion="")
    assert w.status == 422
    assert "WatchList feature gate" in w.resp.read().decode()
    sim.faults.watch_list = True
    assert watch_list(client, resourceVersion="").status == 200


def test_watch_list_switched_off_ignore_mode_is_a_plain_watch(client, sim):
    client.request("POST", PODS, pod("a"))
    rv = sim.store.current_rv()
    sim.faults.set_watch_list(False, mode="ignore")
    w = watch_list(client, resourceVersion=str(rv))
    sim.store.create("pods", pod("b"))
    ev = w.next()  # no initial ADDED for "a", no end bookmark: the old server's plain watch from rv
    assert (ev["type"], ev["object"]["metadata"]["name"]) == ("ADDED", "b")
    w.close()
    with pytest.raises(ValueError):
        sim.faults.set_watch_list(False, mode="sometimes")


def test_bulk_load_closes_watches_and_resets_window(client, sim):
    from kubectl_informer.sim.objects import many_pods

    client.request("POST", PODS, pod("a"))
    rv = sim.store.current_rv()
    w = client.watch(PODS, resourceVersion=str(rv))
    from kubectl_informer.clock.testing import wait_for

    assert wait_for(lambda: sim.store.watchers("pods"))
    sim.store.bulk_load("pods", many_pods(10))
    assert w.rest() == []
    assert client.watch(PODS, resourceVersion=str(rv)).rest()[0]["object"]["code"] == 410


def test_large_initial_watch_list():
    from kubectl_informer.sim.objects import many_pods

    with SimServer() as sim:
        sim.store.bulk_load("pods", many_pods(3000))
        w = watch_list(RawClient(sim.url, token=sim.token), resourceVersion="")
        evs = w.take(3001)
        assert len(evs) == 3001 and evs[-1]["type"] == "BOOKMARK"
        w.close()


def test_server_stop_ends_open_watches(sim):
    w = RawClient(sim.url, token=sim.token).watch(PODS, resourceVersion="0")
    from kubectl_informer.clock.testing import wait_for

    assert wait_for(lambda: sim.store.watchers("pods"))
    sim.stop()
    import http.client

    with contextlib.suppress(http.client.HTTPException, OSError):  # cut, as a stopped server does
        w.rest()
    assert sim.active_connections() == 0 or wait_for(lambda: sim.active_connections() == 0)


def test_window_floor_follows_the_oldest_held_event_like_the_cacher():
    # watch_cache.go: once an event is evicted, a watch from below (oldest - 1) is too old,
    # even when the RVs in between belonged to other resources.
    with SimServer(watch_cache_size=2) as sim:
        sim.store.create("namespaces", {"metadata": {"name": "default"}})
        client = RawClient(sim.url, token=sim.token)
        sim.store.create("pods", pod("a"))
        sim.store.create("configmaps", {"metadata": {"name": "c1", "namespace": "default"}})
        gap = sim.store.current_rv()
        sim.store.create("configmaps", {"metadata": {"name": "c2", "namespace": "default"}})
        sim.store.create("pods", pod("b"))
        sim.store.create("pods", pod("c"))  # evicts "a"; the oldest held is "b"
        oldest = sim.store.current_rv() - 1
        evs = client.watch(PODS, resourceVersion=str(gap)).rest()
        assert evs[0]["object"]["message"] == f"too old resource version: {gap} ({oldest - 1})"
        w = client.watch(PODS, resourceVersion=str(oldest - 1))
        assert [e["object"]["metadata"]["name"] for e in w.take(2)] == ["b", "c"]
        w.close()


def test_a_client_closing_a_quiet_watch_frees_it(sim):
    # Without this the handler would only notice at its next write.
    for _ in range(2):
        w = RawClient(sim.url, token=sim.token).watch(PODS, resourceVersion="0")
        from kubectl_informer.clock.testing import wait_for

        assert wait_for(lambda: len(sim.store.watchers("pods")) == 1)
        w.resp.close()
        w.close()
        assert wait_for(lambda: not sim.store.watchers("pods"), timeout=5)


def test_a_client_closing_a_quiet_tls_watch_frees_it():
    from kubectl_informer.clock.testing import wait_for

    with SimServer(tls=True) as sim:
        w = RawClient(sim.url, ca_pem=sim.ca_pem, token=sim.token).watch(PODS, resourceVersion="0")
        assert wait_for(lambda: len(sim.store.watchers("pods")) == 1)
        w.resp.close()
        w.close()
        assert wait_for(lambda: not sim.store.watchers("pods"), timeout=5)


def test_events_out_of_the_window_let_their_wire_line_go(client, sim):
    """History keeps every event's object versions (for Exact lists); the
    cached watch line is only for the window's replays, so an event leaving
    the window drops it (a long run's history was twice the size). A watch
    from inside the window still replays its lines, one from before still
    answers 410."""
    sim.store.set_watch_cache_size(3, "pods")
    rv0 = sim.store.current_rv()
    w = client.watch(PODS, resourceVersion=str(rv0))  # every event's line is written to it
    for i in range(6):
        client.request("POST", PODS, pod(f"p{i}"))
    assert [e["object"]["metadata"]["name"] for e in w.take(6)] == [f"p{i}" for i in range(6)]
    st = sim.store._states[sim.store.resource("pods")]
    assert [ev._line is None for ev in st.history] == [True] * 3 + [False] * 3
    late = client.watch(PODS, resourceVersion=str(st.window[0].rv - 1))
    assert [e["object"]["metadata"]["name"] for e in late.take(3)] == ["p3", "p4", "p5"]
    old = client.watch(PODS, resourceVersion=str(rv0))
    ev = old.next()
    assert ev["type"] == "ERROR" and ev["object"]["code"] == 410


def test_history_is_compacted_by_age_as_etcd_is():
    """Exact lists are served from history for history_seconds (kube-apiserver
    compacts etcd every 5 minutes), then answer 410; a long run's history
    stays at what that time brought, not history_limit events."""
    from kubectl_informer.clock.testing import FakeClock
    from kubectl_informer.core.apierrors import ApiError
    from kubectl_informer.sim.store import Store

    clock = FakeClock(start=50.0)
    store = Store(history_seconds=300.0, now=clock.now)
    store.create("namespaces", {"metadata": {"name": "default"}})
    rv_before = store.current_rv()
    store.create("pods", pod("a"))
    clock.step(200)
    store.create("pods", pod("b"))
    assert [
        e.name
        for e in store.list_entries("pods", "default", resource_version=str(rv_before), resource_version_match="Exact")[
            0
        ]
    ] == []
    clock.step(200)  # a's event is 400 s old, b's 200 s
    store.create("pods", pod("c"))
    st = store._states[store.resource("pods")]
    assert [ev.entry.name for ev in st.history] == ["b", "c"]
    with pytest.raises(ApiError) as err:
        store.list_entries("pods", "default", resource_version=str(rv_before), resource_version_match="Exact")
    assert err.value.status == 410
