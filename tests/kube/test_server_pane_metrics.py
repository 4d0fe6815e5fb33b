"""The Server pane fed by the real poller reading a /metrics page in
kube-apiserver v1.36's format (the fixture and fake server of
test_apiserver_metrics.py): what the pane shows is what the page says."""

from __future__ import annotations

from kubectl_informer.core.durations import format_short
from kubectl_informer.panes.server import ServerState
from kubectl_informer.tui.server import render_server

from .fake_apiserver import Reply, status
from .test_apiserver_metrics import PAGE, _poller, _traced, two_pages


def _pane(buf) -> tuple[ServerState, list]:
    events = buf.drain()
    st = ServerState()
    st.feed_all(events)
    return st, [e for e in events if e.kind.startswith("server.")]


def test_the_pane_shows_two_scrapes_of_a_v1_36_page(fake, api, monkeypatch):
    clock, buf, poller = two_pages(fake, api, monkeypatch)
    poller.poll_once()
    clock.step(10.0)
    poller.poll_once()
    st, said = _pane(buf)
    assert [e.kind for e in said] == ["server.metrics", "server.metrics"] and st.scrapes == 2
    f = said[-1].fields
    assert {k: st.metrics[k] for k in f} == f  # the pane holds the last scrape's figures, as scraped
    text = render_server(st, clock.now(), 100, 20).plain
    assert f"watch cache RV {f['cache_rv']} · ours behind by {f['lag']}" in text
    assert "received 10.0/s · dispatched 50.0/s" in text
    assert f"initialisations {f['initialisations']} · open watches {f['open_watches']} · objects {f['objects']}" \
        in text
    assert f"consistent from cache {f['consistent_reads_cache']} · fell back to etcd " \
           f"{f['consistent_reads_fallback']}" in text
    assert f"read-wait p99 ≈ {format_short(f['read_wait_p99'])} (estimated, bucket 0.1-0.2 s)" in text
    assert format_short(f["read_wait_p99"]) == "173ms"  # 0.1735 s: the page's buckets, interpolated
    assert "scraped 0s ago (2 scrapes)" in text


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
