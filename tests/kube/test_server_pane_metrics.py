"""The Server pane fed by the real poller reading a /metrics page of
kube-apiserver v1.30, v1.33 and v1.36 (the fixtures and fake server of
test_apiserver_metrics.py): what the pane shows is what the page says, in
each version's label shape, in revisions where it is a difference of RVs."""

from __future__ import annotations

import pytest

from kubectl_informer.core.durations import format_short
from kubectl_informer.panes.server import ServerState
from kubectl_informer.run.server_poll import ServerPoller, Target
from kubectl_informer.tui.server import render_server

from .fake_apiserver import Reply, status
from .test_apiserver_metrics import PAGE, _poller, _traced, page, scrape_two_informers, two_pages


def _pane(buf) -> tuple[ServerState, list]:
    events = buf.drain()
    st = ServerState()
    st.feed_all(events)
    return st, [e for e in events if e.kind.startswith("server.")]


def _flat(st: ServerState, now: float, width: int = 160, height: int = 24) -> str:
    return " ".join(render_server(st, now, width, height).plain.split())


def test_the_pane_shows_two_scrapes_of_a_v1_36_page(fake, api, monkeypatch):
    clock, buf, poller = two_pages(fake, api, monkeypatch)
    poller.poll_once()
    clock.step(10.0)
    poller.poll_once()
    st, said = _pane(buf)
    assert [e.kind for e in said] == ["server.metrics", "server.metrics"] and st.scrapes == 2
    f = said[-1].fields
    assert {k: st.metrics[k] for k in f} == f  # the pane holds the last scrape's figures, as scraped
    text = _flat(st, clock.now())
    assert "watch cache RV 253 · ours 240 · RV Δ 13 revisions" in text
    assert "received 10.0/s · dispatched 50.0/s · slow watchers terminated 0" in text
    assert "capacity 100 events · initialisations 1 · open watches 3 · objects 0" in text
    assert "consistent: from cache 1 · answered by etcd 0 · failed 0" in text
    assert f"read-wait p99 ≈ {format_short(f['read_wait_p99'])} (estimated, bucket 0.005-0.025 s)" in text
    assert "scraped 0s ago (2 scrapes)" in text and "series {group, resource}: kube-apiserver 1.34+" in text
    assert "behind by" not in text and "lag" not in text  # a difference of RVs is not called a lag of events


@pytest.mark.parametrize(
    "version,target,ours,shown",
    [
        (
            "1.30",
            Target("", "pods"),
            "900",
            [
                "pods · from /metrics",
                "series {resource=NAME.GROUP}: kube-apiserver 1.30-1.33",
                "watch cache RV not on the page (exported from 1.31) · ours 900",
                "slow watchers terminated 4",
                "capacity 1600 events · initialisations 3 · open watches 7 · objects 212",
                "consistent: from cache - · answered by etcd - · failed -",
            ],
        ),
        (
            "1.33",
            Target("", "configmaps"),
            "884000",
            [
                "configmaps · from /metrics",
                "series {resource=NAME.GROUP}: kube-apiserver 1.30-1.33",
                "watch cache RV 884120 · ours 884000 · RV Δ 120 revisions",
                "slow watchers terminated 2",
                "capacity 200 events · initialisations 1 · open watches 6 · objects 57",
                "consistent: from cache 31 · answered by etcd 3 · failed 1",
                "read-wait p99 ≈ 2.6s (estimated, bucket 2-3 s)",
            ],
        ),
        (
            "1.33",
            Target("apps", "deployments"),
            "884100",
            [
                "deployments.apps · from /metrics",
                "watch cache RV 884102 · ours 884100 · RV Δ 2 revisions",
                "consistent: from cache 6 · answered by etcd 0 · failed 0",
                "initialisations 2 · open watches 2 · objects 9",
            ],
        ),
        (
            "1.36",
            Target("apps", "replicasets"),
            "200",
            [
                "replicasets.apps · from /metrics",
                "series {group, resource}: kube-apiserver 1.34+",
                "watch cache RV 242 · ours 200 · RV Δ 42 revisions",
                "slow watchers terminated 0",
                "capacity 100 events · initialisations 1 · open watches 1 · objects 0",
                "consistent: from cache 0 · answered by etcd 0 · failed 0",
            ],
        ),
    ],
)
def test_the_pane_drawn_from_each_versions_page(fake, api, monkeypatch, version, target, ours, shown):
    monkeypatch.setenv("KUBECTL_INFORMER_TRACE_CHECK", "1")
    fake.routes["/metrics"] = Reply(200, page(version))
    clock, tracer, buf = _traced()
    target.ours_rv = lambda: ours
    ServerPoller(api, tracer, mode="metrics", interval=10.0, clock=clock, targets=[target]).poll_once()
    st, said = _pane(buf)
    assert [e.kind for e in said] == ["server.metrics"]
    text = _flat(st, clock.now())
    for words in shown:
        assert words in text, (words, text)


def test_several_informers_each_have_their_own_rv_difference(fake, api, monkeypatch):
    monkeypatch.setenv("KUBECTL_INFORMER_TRACE_CHECK", "1")
    clock, buf = scrape_two_informers(fake, api)
    st, _ = _pane(buf)
    assert st.resource == "deployments.apps" and st.scrapes == 1
    text = _flat(st, clock.now())
    assert "deployments.apps · from /metrics" in text and "watch cache RV 242 · ours 240 · RV Δ 2 revisions" in text
    assert "replicasets.apps cache RV 242 · ours 230 · RV Δ 12 · received 0.0/s" not in text  # no rate from one scrape
    assert "replicasets.apps cache RV 242 · ours 230 · RV Δ 12 · received -" in text


def test_the_pane_says_a_refusal_with_its_rule_until_a_scrape_succeeds(fake, api, monkeypatch):
    monkeypatch.setenv("KUBECTL_INFORMER_TRACE_CHECK", "1")
    fake.routes["/metrics"] = Reply(403, status(403, "Forbidden", 'forbidden: User "jane" cannot get path "/metrics"'))
    clock, tracer, buf = _traced()
    poller = _poller(api, clock, tracer)
    poller.poll_once()
    st, _ = _pane(buf)
    text = " ".join(render_server(st, clock.now(), 120, 20).plain.split())
    assert "/metrics refused (403)" in text and 'cannot get path "/metrics"' in text
    assert 'rules: - nonResourceURLs: ["/metrics"], verbs: ["get"]' in text
    fake.routes["/metrics"] = Reply(200, PAGE)
    poller.poll_once()
    st.feed_all(buf.drain())
    assert st.forbidden is None and "watch cache RV" in render_server(st, clock.now(), 120, 20).plain


# -- several informers on the simulator: ours per informer ----------------------------------------


def _window_doc(resource: str, watchers: list[tuple[int, str, str]], ua: str) -> dict:
    """The simulator's report for one resource: watchers as (id, startRV, rv)."""
    return {
        "kind": "WatchCacheWindow",
        "resource": resource,
        "oldestRV": "100",
        "newestRV": "140",
        "capacity": 100,
        "events": 40,
        "turnover": 1.0,
        "initialisations": 1,
        "bookmarksSent": 0,
        "watchers": [{"id": i, "userAgent": ua, "startRV": start, "rv": rv, "sent": 0} for i, start, rv in watchers],
    }


def test_on_the_simulator_each_informers_watcher_is_its_own(fake, api, monkeypatch):
    """``queue deployments --owns replicasets``: two informers, two windows,
    each informer's last watch started at its own RV. Each window's ours is
    that informer's watcher, not the one whose watch started last."""
    import json

    from kubectl_informer.run.server_poll import WINDOW_PATH

    monkeypatch.setenv("KUBECTL_INFORMER_TRACE_CHECK", "1")
    ua = api.user_agent
    assert ua  # both transports send ours
    docs = {
        "deployments.apps": _window_doc("deployments.apps", [(1, "120", "130"), (3, "125", "140")], ua),
        "replicasets.apps": _window_doc("replicasets.apps", [(2, "125", "135")], ua),
    }
    fake.routes[WINDOW_PATH] = lambda req: Reply(200, json.dumps(docs[req.query["resource"]]).encode())
    clock, tracer, buf = _traced()
    targets = [Target("apps", "deployments", "deployments.apps"), Target("apps", "replicasets", "replicasets.apps")]
    poller = ServerPoller(api, tracer, mode="sim", clock=clock, targets=targets)
    tracer.emit("watch.start", None, resource_version="120", informer="deployments.apps")
    tracer.emit("watch.start", None, resource_version="125", informer="replicasets.apps")  # the last one
    poller.poll_once()
    st, said = _pane(buf)
    assert [e.fields["resource"] for e in said] == ["deployments.apps", "replicasets.apps"]
    assert [e.fields["ours_rv"] for e in said] == ["130", "135"]
    assert st.ours("deployments.apps").id == "1" and st.ours("replicasets.apps").id == "2"
    text = _flat(st, clock.now())
    assert "no watch of ours is open" not in text
    assert "ours deployments.apps RV 130 · RV Δ 10" in text and "ours replicasets.apps RV 135 · RV Δ 5" in text
