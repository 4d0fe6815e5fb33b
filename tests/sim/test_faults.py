"""Fault injection through real HTTP."""

import time

import pytest

from kubectl_informer.clock.testing import wait_for
from tests.sim.conftest import pod

PODS = "/api/v1/namespaces/default/pods"


def test_fail_next_counts_and_matches_verb(client, sim):
    sim.faults.fail_next(429, count=2, verb="list")
    assert client.get(PODS + "/x")[0] == 404  # a get is not a list
    status, st, headers = client.request("GET", PODS)
    assert status == 429 and st["reason"] == "TooManyRequests" and headers["Retry-After"] == "1"
    assert st["details"]["retryAfterSeconds"] == 1
    assert client.get(PODS)[0] == 429
    assert client.get(PODS)[0] == 200
    assert sim.faults.injected == 2 and sim.faults.pending_failures() == 0


def test_fail_next_500_and_resource_filter(client, sim):
    sim.faults.fail_next(500, resource="configmaps")
    assert client.get(PODS)[0] == 200
    status, st = client.get("/api/v1/namespaces/default/configmaps")
    assert status == 500 and st["reason"] == "InternalError"


def test_fail_next_410_on_watch_is_an_error_event(client, sim):
    sim.faults.fail_next(410, verb="watch")
    w = client.watch(PODS, resourceVersion="0")
    evs = w.rest()
    assert w.status == 200 and evs[0]["type"] == "ERROR" and evs[0]["object"]["code"] == 410


def test_fail_next_rejects_bad_count(sim):
    with pytest.raises(ValueError):
        sim.faults.fail_next(500, count=0)


def test_discovery_is_never_failed(client, sim):
    sim.faults.fail_next(500)
    assert client.get("/api/v1")[0] == 200
    assert client.get(PODS)[0] == 500


def test_drop_watches_ends_streams_cleanly(client, sim):
    w = client.watch(PODS, resourceVersion="0")
    assert wait_for(lambda: sim.store.watchers("pods"))
    assert sim.faults.drop_watches() == 1
    assert w.rest() == []  # the terminating chunk: a clean end, as on a server-side timeout


def _raw_watch(sim, drop):
    import socket

    sock = socket.create_connection((sim.host, sim.port), timeout=5)
    sock.sendall(
        f"GET {PODS}?watch=true&resourceVersion=0 HTTP/1.1\r\nHost: {sim.host}:{sim.port}\r\n"
        f"Authorization: Bearer {sim.token}\r\n\r\n".encode()
    )
    assert wait_for(lambda: sim.store.watchers("pods"))
    drop()
    data = b""
    # A clean end keeps the connection open (HTTP/1.1 keep-alive); a cut closes it.
    while not data.endswith(b"\r\n0\r\n\r\n") and (chunk := sock.recv(65536)):
        data += chunk
    sock.close()
    return data


def test_abrupt_drop_cuts_the_connection(sim):
    data = _raw_watch(sim, lambda: sim.faults.drop_watches(abrupt=True))
    assert data.startswith(b"HTTP/1.1 200") and not data.endswith(b"0\r\n\r\n")


def test_clean_drop_sends_the_terminating_chunk(sim):
    data = _raw_watch(sim, lambda: sim.faults.drop_watches())
    assert data.endswith(b"\r\n0\r\n\r\n")


def test_stall_holds_events_then_delivers_them(client, sim):
    w = client.watch(PODS, resourceVersion=str(sim.store.current_rv()))
    assert wait_for(lambda: sim.store.watchers("pods"))
    sim.faults.stall_watches(0.4)
    t = time.monotonic()
    sim.store.create("pods", pod("a"))
    ev = w.next()
    assert ev["object"]["metadata"]["name"] == "a"
    assert time.monotonic() - t >= 0.3  # held back while stalled
    w.close()


def test_lag_holds_each_event_of_its_resource_from_its_commit(client, sim):
    """lag_watches: every pod event arrives its lag after it was committed,
    the writes themselves answer at once, and other resources are on time."""
    w = client.watch(PODS, resourceVersion=str(sim.store.current_rv()))
    assert wait_for(lambda: sim.store.watchers("pods"))
    sim.faults.lag_watches(0.4, "pods")
    assert sim.faults.watch_lag("pods") == 0.4 and sim.faults.watch_lag("configmaps") == 0.0
    t = time.monotonic()
    sim.store.create("pods", pod("a"))
    sim.store.create("pods", pod("b"))
    assert time.monotonic() - t < 0.3  # the writes are not held
    names = [w.next()["object"]["metadata"]["name"] for _ in range(2)]
    took = time.monotonic() - t
    assert names == ["a", "b"] and took >= 0.35  # held their lag from their commit (lower bound only: a loaded machine)
    sim.faults.clear()
    assert sim.faults.watch_lag("pods") == 0.0
    w.close()


def test_delay_slows_matching_verbs(client, sim):
    sim.faults.delay(0.3, verb="list")
    # Only lower bounds on wall time: the machine may be loaded.
    assert sim.faults.response_delay("get") == 0 and sim.faults.response_delay("list") == 0.3
    t = time.monotonic()
    assert client.get(PODS)[0] == 200
    assert time.monotonic() - t >= 0.3
    sim.faults.clear()
    assert sim.faults.response_delay("list") == 0


def test_slow_watcher_is_closed(client, sim):
    sim.store.max_watcher_queue = 5
    sim.faults.stall_watches(5)  # the consumer cannot drain while stalled
    w = client.watch(PODS, resourceVersion=str(sim.store.current_rv()))
    assert wait_for(lambda: sim.store.watchers("pods"))
    # Held from here: once closed, its handler ends the stream (the stall ends
    # with the watch) and unregisters it, on a busy machine before the next line.
    [watcher] = sim.store.watchers("pods")
    for i in range(8):
        sim.store.create("pods", pod(f"p{i}"))
    assert watcher.closed and watcher.close_reason == "slow"
    sim.faults.clear()
    got = [e["object"]["metadata"]["name"] for e in w.rest()]
    # What was queued (plus the one the handler may already hold), then the end: never all 8.
    assert got in (["p0", "p1", "p2", "p3", "p4"], ["p0", "p1", "p2", "p3", "p4", "p5"])


def test_clear_restores_the_servers_watch_list_setting():
    from kubectl_informer.sim.server import SimServer

    s = SimServer(watch_list=False)
    s.faults.set_watch_list(True)
    s.faults.clear()
    assert s.faults.watch_list is False
