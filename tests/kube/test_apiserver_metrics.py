"""The Server pane's reading of a real API server's /metrics: pages of
kube-apiserver v1.30, v1.33 (tests/kube/fixtures, written by hand from those
versions' metric definitions) and v1.36 (captured from a real v1.36.2 API
server, trimmed), in both label shapes, served by a real local HTTP server,
through both transports; the forbidden case; the body cap; the poller's thread."""

from __future__ import annotations

import pathlib
import threading

import pytest

from kubectl_informer.clock.testing import FakeClock, wait_for
from kubectl_informer.core.trace import TraceBuffer, Tracer
from kubectl_informer.kube import apiserver_metrics
from kubectl_informer.kube.apiserver_metrics import figures_for, kept_lines, p99_from_buckets
from kubectl_informer.run.server_poll import FORBIDDEN_BACKOFF, ServerPoller

from .fake_apiserver import Reply, status

FIXTURES = pathlib.Path(__file__).parent / "fixtures"
PAGE = (FIXTURES / "apiserver-v1.36-metrics.txt").read_bytes()


def page(version: str) -> bytes:
    return (FIXTURES / f"apiserver-v{version}-metrics.txt").read_bytes()


def _pieces(data: bytes, size: int):
    return [data[i : i + size] for i in range(0, len(data), size)]


def _figures(f):
    return (
        f.cache_rv,
        f.events_received,
        f.events_dispatched,
        f.initialisations,
        f.capacity,
        f.terminated_watchers,
        f.consistent_reads_cache,
        f.consistent_reads_fallback,
        f.consistent_reads_failed,
        f.open_watches,
        f.objects,
        f.shape,
    )


@pytest.mark.parametrize("piece", [7, 4096, len(PAGE)])
def test_a_v1_36_page_from_a_real_api_server(piece):
    cms = figures_for(kept_lines(_pieces(PAGE, piece)), "", "configmaps")
    # {group="",resource="configmaps"}; terminated watchers: no series yet, so 0;
    # three WATCHes (cluster, namespace and resource scope) summed.
    assert _figures(cms) == ("253", 17, 37, 1, 100, 0, 1, 0, 0, 3, 0, "group")
    assert cms.read_wait_buckets[0] == (0.005, 5) and cms.read_wait_buckets[-1] == (float("inf"), 6)
    deployments = figures_for(kept_lines([PAGE]), "apps", "deployments")
    # No event received since the cache was initialised: no series, 0.
    assert _figures(deployments) == ("242", 0, 2, 1, 100, 0, 0, 0, 0, 1, 0, "group")
    nothing = figures_for(kept_lines([PAGE]), "", "secrets")
    assert (nothing.cache_rv, nothing.events_received, nothing.objects, nothing.shape) == ("", None, None, "")


def test_a_v1_33_page_is_read_by_its_qualified_resource_label_and_its_storage_prefix():
    lines = list(kept_lines([page("1.33")]))
    every = apiserver_metrics.figures_for_all(lines, [("", "configmaps"), ("apps", "deployments"), ("", "nodes")])
    # configmaps: 31 from the cache; 3 answered by etcd (fallback="true"); 1 failed (success="false").
    assert _figures(every[("", "configmaps")]) == ("884120", 512, 2210, 1, 200, 2, 31, 3, 1, 6, 57, "qualified")
    # resource="deployments.apps" for the cache's series, "/deployments" for its consistent reads.
    assert _figures(every[("apps", "deployments")]) == ("884102", 30, 88, 2, 100, 0, 6, 0, 0, 2, 9, "qualified")
    # nodes are kept under the etcd prefix "minions".
    assert every[("", "nodes")].consistent_reads_cache == 5 and every[("", "nodes")].cache_rv == "884119"
    p99, bucket = p99_from_buckets(every[("", "configmaps")].read_wait_buckets)
    assert bucket == "2-3" and p99 == pytest.approx(2.65)


def test_a_v1_30_page_has_no_cache_rv_and_no_consistent_reads():
    pods = figures_for(kept_lines([page("1.30")]), "", "pods")
    assert _figures(pods) == ("", 1520, 9120, 3, 1600, 4, None, None, None, 7, 212, "qualified")
    deployments = figures_for(kept_lines([page("1.30")]), "apps", "deployments")
    assert (deployments.terminated_watchers, deployments.consistent_reads_cache, deployments.capacity) == (0, None, 100)


def test_the_storage_prefix_is_kube_apiservers():
    prefix = apiserver_metrics.storage_prefix
    assert [
        prefix("", "pods"),
        prefix("apps", "deployments"),
        prefix("", "services"),
        prefix("networking.k8s.io", "ingresses"),
        prefix("example.com", "widgets"),
    ] == ["/pods", "/deployments", "/services/specs", "/ingress", "/example.com/widgets"]


def test_only_the_families_read_are_kept():
    kept = list(kept_lines([PAGE]))
    assert not any("apiserver_request_total" in line or "go_goroutines" in line or "Captured" in line for line in kept)
    assert any(line.startswith("# TYPE apiserver_watch_cache_read_wait_seconds histogram") for line in kept)


def test_the_deprecated_object_count_serves_where_the_new_one_is_absent():
    page = (
        b"# TYPE apiserver_storage_objects gauge\n"
        b'apiserver_storage_objects{resource="deployments.apps"} 41\n'
        b'apiserver_storage_objects{resource="pods"} -1\n'
    )
    assert figures_for(kept_lines([page]), "apps", "deployments").objects == 41
    assert figures_for(kept_lines([page]), "", "pods").objects is None  # -1: the API server could not count


def test_p99_is_estimated_within_its_bucket():
    p99, bucket = p99_from_buckets(
        [(0.005, 200), (0.025, 280), (0.05, 295), (0.1, 300), (0.2, 304), (float("inf"), 306)]
    )
    # 0.99 * 306 = 302.94 falls in (0.1, 0.2], 2.94 of its 4 observations in.
    assert bucket == "0.1-0.2" and p99 == pytest.approx(0.1 + 0.1 * 2.94 / 4)
    assert p99_from_buckets([(0.005, 0), (float("inf"), 0)]) == (None, "")
    assert p99_from_buckets([(3.0, 10), (float("inf"), 100)]) == (3.0, "3-+Inf")


def _poller(api, clock, tracer, **kw):
    return ServerPoller(
        api, tracer, "", "configmaps", "metrics", interval=10.0, clock=clock, ours_rv=lambda: "240", **kw
    )


def _traced():
    clock = FakeClock(100.0)
    tracer = Tracer(clock)
    buf = TraceBuffer()
    tracer.subscribe(buf)
    return clock, tracer, buf


def two_pages(fake, api, monkeypatch):
    """The page, then the same page 10 s later with 100 more events received
    and 500 more dispatched; a poller on a FakeClock reading them."""
    monkeypatch.setenv("KUBECTL_INFORMER_TRACE_CHECK", "1")
    later = PAGE.replace(
        b'received_total{group="",resource="configmaps"} 17', b'received_total{group="",resource="configmaps"} 117'
    ).replace(
        b'dispatched_total{group="",resource="configmaps"} 37', b'dispatched_total{group="",resource="configmaps"} 537'
    )
    assert later != PAGE
    pages = [PAGE, later]
    fake.routes["/metrics"] = lambda req: Reply(200, pages[min(len(fake.requests_to("/metrics")), 2) - 1])
    clock, tracer, buf = _traced()
    return clock, buf, _poller(api, clock, tracer)


def test_two_scrapes_give_rates_rv_difference_and_p99(fake, api, monkeypatch):
    clock, buf, poller = two_pages(fake, api, monkeypatch)
    assert poller.poll_once() == 10.0
    clock.step(10.0)
    assert poller.poll_once() == 10.0
    first, second = [e for e in buf.drain() if e.kind == "server.metrics"]
    assert first.fields["events_received_per_s"] is None  # one scrape: no rate yet
    f = second.fields
    assert (f["source"], f["resource"], f["cache_rv"], f["ours_rv"], f["rv_behind"]) == (
        "metrics",
        "configmaps",
        "253",
        "240",
        13,
    )
    assert (f["events_received_per_s"], f["events_dispatched_per_s"]) == (10.0, 50.0)
    assert (
        f["initialisations"],
        f["consistent_reads_cache"],
        f["consistent_reads_fallback"],
        f["consistent_reads_failed"],
    ) == (1, 1, 0, 0)
    assert (f["capacity"], f["terminated_watchers"], f["series"]) == (100, 0, "group")
    assert (f["open_watches"], f["objects"], f["read_wait_bucket"], f["read_wait_p99_estimated"]) == (
        3,
        0,
        "0.005-0.025",
        True,
    )
    assert f["read_wait_p99"] == pytest.approx(0.005 + 0.02 * 0.94)
    assert "informer" not in f  # one informer: none named
    reqs = fake.requests_to("/metrics")
    assert len(reqs) == 2 and all(r.method == "GET" and r.headers["accept"].startswith("text/plain") for r in reqs)


def scrape_two_informers(fake, api):
    """One scrape for a Deployments informer at RV 240 and a ReplicaSets one at 230: (clock, trace)."""
    from kubectl_informer.run.server_poll import Target

    fake.routes["/metrics"] = Reply(200, PAGE)
    clock, tracer, buf = _traced()
    targets = [
        Target("apps", "deployments", "deployments.apps", lambda: "240"),
        Target("apps", "replicasets", "replicasets.apps", lambda: "230"),
    ]
    ServerPoller(api, tracer, mode="metrics", interval=10.0, clock=clock, targets=targets).poll_once()
    return clock, buf


def test_one_scrape_reports_each_informers_resource_with_its_own_rv(fake, api, monkeypatch):
    monkeypatch.setenv("KUBECTL_INFORMER_TRACE_CHECK", "1")
    _, buf = scrape_two_informers(fake, api)
    said = [e.fields for e in buf.drain() if e.kind == "server.metrics"]
    assert [(f["resource"], f["informer"], f["cache_rv"], f["ours_rv"], f["rv_behind"]) for f in said] == [
        ("deployments.apps", "deployments.apps", "242", "240", 2),
        ("replicasets.apps", "replicasets.apps", "242", "230", 12),
    ]
    assert len(fake.requests_to("/metrics")) == 1  # one GET for both


def test_forbidden_is_said_once_with_the_rule_then_backed_off(fake, api, monkeypatch):
    monkeypatch.setenv("KUBECTL_INFORMER_TRACE_CHECK", "1")
    fake.routes["/metrics"] = Reply(403, status(403, "Forbidden", 'forbidden: User "jane" cannot get path "/metrics"'))
    clock, tracer, buf = _traced()
    poller = _poller(api, clock, tracer)
    waits = [poller.poll_once(), poller.poll_once(), poller.poll_once()]
    assert waits == [FORBIDDEN_BACKOFF, 2 * FORBIDDEN_BACKOFF, 4 * FORBIDDEN_BACKOFF]
    said = [e for e in buf.drain() if e.kind.startswith("server.")]
    assert [e.kind for e in said] == ["server.forbidden"]
    f = said[0].fields
    assert (f["status"], f["source"]) == (403, "metrics")
    assert f["rule"] == 'nonResourceURLs: ["/metrics"], verbs: ["get"]'
    assert f["message"] == 'forbidden: User "jane" cannot get path "/metrics"'
    # Allowed again: the figures come, and a later refusal is said again.
    fake.routes["/metrics"] = Reply(200, PAGE)
    assert poller.poll_once() == 10.0
    fake.routes["/metrics"] = Reply(403, status(403, "Forbidden", "forbidden"))
    assert poller.poll_once() == FORBIDDEN_BACKOFF
    assert [e.kind for e in buf.drain()] == ["server.metrics", "server.forbidden"]


def test_a_page_past_the_cap_is_not_read_and_backs_off(fake, api, monkeypatch):
    monkeypatch.setattr(apiserver_metrics, "MAX_METRICS_BODY", 1000)
    fake.routes["/metrics"] = Reply(200, PAGE)
    clock, tracer, buf = _traced()
    poller = _poller(api, clock, tracer)
    assert [poller.poll_once(), poller.poll_once()] == [10.0, 20.0]
    assert [e.kind for e in buf.drain()] == []


def test_the_poller_thread_asks_once_per_interval_and_stops(fake, api):
    fake.routes["/metrics"] = Reply(200, PAGE)
    clock, tracer, buf = _traced()
    poller = _poller(api, clock, tracer)
    stop = threading.Event()
    t = threading.Thread(target=poller.run, args=(stop,))
    t.start()
    try:
        assert wait_for(clock.has_waiters)
        assert fake.requests_to("/metrics") == []  # the first scrape waits its interval
        for n in (1, 2):
            clock.step(10.0)
            assert wait_for(lambda n=n: len(fake.requests_to("/metrics")) == n and clock.has_waiters())
        assert len(fake.requests_to("/metrics")) == 2
    finally:
        stop.set()
        t.join(5)
    assert not t.is_alive()
    assert sum(1 for e in buf.drain() if e.kind == "server.metrics") == 2


def test_a_failing_scrape_is_tried_again_within_four_intervals(fake, api):
    # A 500 (or a reset, a timeout) is not a refusal: the wait
    # doubles from the interval and stops at four of them, so the pane comes
    # back soon after the server does (a refusal waits FORBIDDEN_BACKOFF).
    fake.routes["/metrics"] = lambda req: Reply(500, b"etcd is unhappy")
    clock, tracer, buf = _traced()
    poller = _poller(api, clock, tracer)
    waits = [poller.poll_once() for _ in range(5)]
    assert waits == [10.0, 20.0, 40.0, 40.0, 40.0]
