"""KubeListerWatcher over real HTTP: query strings, errors, streamed watches."""

import socket
import threading

import pytest

from kubectl_informer.cache.listwatch import ListOptions
from kubectl_informer.clock.testing import wait_for
from kubectl_informer.core.apierrors import ApiError, is_expired, is_too_many_requests
from kubectl_informer.kube import listwatch as kube_listwatch
from kubectl_informer.kube import request_limits
from kubectl_informer.kube.discovery import Resource
from kubectl_informer.kube.listwatch import KubeListerWatcher

from .fake_apiserver import Reply, Stream, status

PODS = Resource("", "v1", "pods", "Pod", True)
NODES = Resource("", "v1", "nodes", "Node", False)
DEPLOY = Resource("apps", "v1", "deployments", "Deployment", True)


def pod(name, rv, ns="default"):
    return {"metadata": {"name": name, "namespace": ns, "resourceVersion": str(rv)}, "status": {"phase": "Running"}}


def pod_list(*items, rv="10", cont=None):
    meta = {"resourceVersion": rv}
    if cont:
        meta["continue"] = cont
    return {"kind": "PodList", "apiVersion": "v1", "metadata": meta, "items": list(items)}


def test_list_sends_every_option_and_fills_kind(api, fake):
    fake.routes["/api/v1/namespaces/team-a/pods"] = pod_list(pod("a", 5, "team-a"), rv="12", cont="tok2")
    lw = KubeListerWatcher(api, PODS, "team-a", label_selector="app=web", field_selector="status.phase=Running")
    got = lw.list(
        ListOptions(
            resource_version="0",
            resource_version_match="NotOlderThan",
            limit=500,
            continue_="tok1",
            timeout_seconds=7,
            label_selector="ignored",
        )
    )
    q = fake.requests[-1].query
    assert q == {
        "labelSelector": "app=web",
        "fieldSelector": "status.phase=Running",
        "resourceVersion": "0",
        "resourceVersionMatch": "NotOlderThan",
        "limit": "500",
        "continue": "tok1",
        "timeoutSeconds": "7",
    }
    assert got["metadata"] == {"resourceVersion": "12", "continue": "tok2"}
    assert got["items"][0]["kind"] == "Pod" and got["items"][0]["apiVersion"] == "v1"
    assert fake.requests[-1].headers["accept"] == "application/json"


def test_paths_all_namespaces_cluster_scoped_and_groups(api, fake):
    fake.routes["/api/v1/pods"] = pod_list()
    fake.routes["/api/v1/nodes"] = {"kind": "NodeList", "metadata": {"resourceVersion": "3"}, "items": None}
    fake.routes["/apis/apps/v1/namespaces/x/deployments"] = {
        "kind": "DeploymentList",
        "items": [{"metadata": {"name": "d"}}],
    }
    assert KubeListerWatcher(api, PODS).list(ListOptions())["items"] == []
    assert fake.requests[-1].query == {}  # resource_version None: not sent at all
    assert KubeListerWatcher(api, NODES, namespace="ignored").list(ListOptions())["items"] == []
    d = KubeListerWatcher(api, DEPLOY, "x").list(ListOptions(resource_version=""))["items"][0]
    assert (d["kind"], d["apiVersion"]) == ("Deployment", "apps/v1")
    assert fake.requests[-1].query == {"resourceVersion": ""}


@pytest.mark.parametrize(
    "reply, check",
    [
        (
            Reply(410, status(410, "Expired", "too old resource version: 5 (120)")),
            lambda e: is_expired(e) and e.message == "too old resource version: 5 (120)",
        ),
        (
            Reply(
                403,
                status(
                    403,
                    "Forbidden",
                    'pods is forbidden: User "jane" cannot list resource "pods" in API '
                    'group "" in the namespace "default"',
                ),
            ),
            lambda e: e.status == 403 and e.message.startswith('pods is forbidden: User "jane"'),
        ),
        (
            Reply(404, status(404, "NotFound", "the server could not find the requested resource")),
            lambda e: e.status == 404 and e.reason == "NotFound",
        ),
        (
            Reply(429, status(429, "TooManyRequests", "too many requests", retryAfterSeconds=1), {"Retry-After": "3"}),
            lambda e: is_too_many_requests(e) and e.retry_after == 3.0,
        ),
        (
            Reply(500, b"<html><body>\n<h1>502 Bad Gateway</h1>\n</body></html>"),
            lambda e: (
                e.status == 500 and e.reason == "InternalError" and "\n" not in e.message and "Bad Gateway" in e.message
            ),
        ),
        (
            Reply(
                504,
                status(
                    504,
                    "Timeout",
                    "Too large resource version: 50, current: 20",
                    causes=[{"reason": "ResourceVersionTooLarge", "message": "Too large resource version"}],
                ),
            ),
            lambda e: e.status == 504 and e.details[0]["reason"] == "ResourceVersionTooLarge",
        ),
    ],
)
def test_http_failures_are_api_errors(api, fake, reply, check):
    request_limits.set_retries(api, max_retries=0)  # the answer as it comes (the retries: test_rest_retry.py)
    fake.routes["/api/v1/pods"] = reply
    lw = KubeListerWatcher(api, PODS)
    for call in (lw.list, lw.watch):
        with pytest.raises(ApiError) as e:
            call(ListOptions())
        assert check(e.value), repr(e.value)


def test_connection_refused(api):
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    api.configuration.host = f"http://127.0.0.1:{port}"
    api.close()  # drop pooled connections to the old host
    lw = KubeListerWatcher(api, PODS)
    with pytest.raises(ConnectionRefusedError):
        lw.list(ListOptions())
    with pytest.raises(ConnectionRefusedError):
        lw.watch(ListOptions())


def events(*pairs):
    return [{"type": t, "object": o} for t, o in pairs]


@pytest.mark.parametrize("chunked, split", [(True, False), (True, True), (False, False), (False, True)])
def test_watch_decodes_every_event(api, fake, chunked, split):
    evs = events(
        ("ADDED", pod("a", 11)),
        ("MODIFIED", pod("a", 12)),
        (
            "BOOKMARK",
            {
                "kind": "Pod",
                "metadata": {"resourceVersion": "13", "annotations": {"k8s.io/initial-events-end": "true"}},
            },
        ),
        ("DELETED", pod("a", 14)),
    )
    fake.routes["/api/v1/pods"] = Stream(evs + [b"\n"], chunked=chunked, split=split)
    got = list(KubeListerWatcher(api, PODS).watch(ListOptions(resource_version="10")))
    assert [(e.type, e.object["metadata"]["resourceVersion"]) for e in got] == [
        ("ADDED", "11"),
        ("MODIFIED", "12"),
        ("BOOKMARK", "13"),
        ("DELETED", "14"),
    ]


def test_watch_query(api, fake):
    fake.routes["/api/v1/namespaces/ns/pods"] = Stream([])
    lw = KubeListerWatcher(api, PODS, "ns", label_selector="a=b")
    list(
        lw.watch(
            ListOptions(
                resource_version="",
                resource_version_match="NotOlderThan",
                timeout_seconds=321,
                allow_watch_bookmarks=True,
                send_initial_events=True,
            )
        )
    )
    assert fake.requests[-1].query == {
        "watch": "true",
        "labelSelector": "a=b",
        "resourceVersion": "",
        "resourceVersionMatch": "NotOlderThan",
        "allowWatchBookmarks": "true",
        "sendInitialEvents": "true",
        "timeoutSeconds": "321",
    }


def test_watch_error_event_passes_the_status_through(api, fake):
    gone = status(410, "Expired", "too old resource version: 3 (200)")
    fake.routes["/api/v1/pods"] = Stream(events(("ADDED", pod("a", 201)), ("ERROR", gone)))
    got = list(KubeListerWatcher(api, PODS).watch(ListOptions(resource_version="3")))
    assert got[1].type == "ERROR" and got[1].object == gone
    assert is_expired(ApiError.from_status(got[1].object))


def test_undecodable_line_ends_the_watch_with_an_error(api, fake):
    fake.routes["/api/v1/pods"] = Stream(
        [{"type": "ADDED", "object": pod("a", 1)}, b"{not json\n", {"type": "ADDED", "object": pod("b", 2)}]
    )
    got = list(KubeListerWatcher(api, PODS).watch(ListOptions()))
    assert [e.type for e in got] == ["ADDED", "ERROR"]
    assert got[1].object["reason"] == "InternalError" and "unable to decode" in got[1].object["message"]


@pytest.mark.parametrize("chunked", [True, False])
def test_events_arrive_as_flushed_and_stop_ends_the_stream(api, fake, chunked):
    release = threading.Event()
    fake.routes["/api/v1/pods"] = Stream(events(("ADDED", pod("a", 1))), chunked=chunked, release=release)
    w = KubeListerWatcher(api, PODS).watch(ListOptions())
    seen, done = [], threading.Event()

    def consume():
        for ev in w:
            seen.append(ev)
        done.set()

    threading.Thread(target=consume, daemon=True).start()
    # The first event is decoded while the server still holds the stream open.
    assert wait_for(lambda: len(seen) == 1, 5)
    assert not done.is_set()
    w.stop()
    assert done.wait(5)
    assert len(seen) == 1
    w.stop()  # idempotent
    release.set()


def test_stream_closed_by_the_server_ends_quietly(api, fake):
    fake.routes["/api/v1/pods"] = Stream(events(("ADDED", pod("a", 1))) + [b'{"type":"ADDED","obj'], chunked=False)
    got = list(KubeListerWatcher(api, PODS).watch(ListOptions()))
    # a truncated last line is an unexpected EOF: the stream just ended (client-go's StreamWatcher)
    assert [e.type for e in got] == ["ADDED"]
    fake.routes["/api/v1/pods"] = Stream([b'{"type":"ADDED","object":{"metadata":{"name":"x"}}}'], chunked=False)
    assert [e.object["metadata"]["name"] for e in KubeListerWatcher(api, PODS).watch(ListOptions())] == ["x"]


def test_gc_is_paused_through_watch_list_initial_events_only(api, fake, monkeypatch):
    import gc

    end = {"kind": "Pod", "metadata": {"resourceVersion": "12", "annotations": {"k8s.io/initial-events-end": "true"}}}
    fake.routes["/api/v1/pods"] = Stream(
        events(("ADDED", pod("a", 11)), ("ADDED", pod("b", 12)), ("BOOKMARK", end), ("MODIFIED", pod("a", 13)))
    )
    lw = KubeListerWatcher(api, PODS)
    # Counted from what is frozen now (tests/conftest.py froze what collection
    # loaded), never unfrozen: that would put it all back into every later
    # collection of the worker. Frozen objects freed meanwhile lower the
    # count; a freeze raises it by every object alive outside it.
    frozen = gc.get_freeze_count()
    seen = []
    for ev in lw.watch(ListOptions(send_initial_events=True, allow_watch_bookmarks=True)):
        seen.append((ev.type, gc.isenabled()))
    assert seen == [("ADDED", False), ("ADDED", False), ("BOOKMARK", True), ("MODIFIED", True)]
    assert gc.get_freeze_count() <= frozen  # two objects: nothing worth freezing
    monkeypatch.setattr(kube_listwatch, "FREEZE_MIN_ITEMS", 2)
    list(lw.watch(ListOptions(send_initial_events=True, allow_watch_bookmarks=True)))
    assert gc.get_freeze_count() > frozen  # a big collection is frozen out of later collections
    assert gc.isenabled()
    # A stream that ends before its bookmark (or a plain watch) leaves the GC on.
    fake.routes["/api/v1/pods"] = Stream(events(("ADDED", pod("a", 11))))
    assert [e.type for e in lw.watch(ListOptions(send_initial_events=True))] == ["ADDED"]
    assert gc.isenabled()
    fake.routes["/api/v1/pods"] = Stream(events(("ADDED", pod("a", 11))))
    assert [gc.isenabled() for _ in lw.watch(ListOptions())] == [True]
