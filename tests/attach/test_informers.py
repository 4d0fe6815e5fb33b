"""attach's informer rows and stale-sync skips, from the pages of the lab's
kube-controller-manager v1.36.2 (tests/attach/fixtures): what the model, -o
text and -o json say is what the page says. Expected figures are read from
the page text here with a regex, not with the code under test."""

from __future__ import annotations

import json
import re

from kubectl_informer.attach import server_rv
from kubectl_informer.attach.informers import english_plurals, server_rv_for
from kubectl_informer.attach.model import AttachModel
from kubectl_informer.attach.page import parse_page
from kubectl_informer.attach.report import model_dict, model_lines
from kubectl_informer.core.apierrors import ApiError

from .pages import KCM_SECONDS_APART, client_go_page, kcm_pages, store_rv_lines

LAT = [0, 0, 0, 1, 4, 8, 10, 10, 10, 10]
SAMPLE = re.compile(
    r'^(\w+)\{group="([^"]*)",name="([^"]*)",resource="([^"]*)",version="([^"]*)"(?:,le="([^"]+)")?\} '
    r"(\S+)$",
    re.M,
)


def _series(text: str, metric: str) -> dict:
    return {(g, v, r): float(x) for m, g, n, r, v, le, x in SAMPLE.findall(text) if m == metric}


def _model(extra: tuple[str, str] = ("", ""), server=None, note=None) -> AttachModel:
    m = AttachModel()
    for i, text in enumerate(kcm_pages()):
        page = parse_page(text + extra[i], 100.0 + i * KCM_SECONDS_APART)
        page.server_rv, page.server_note = server, note
        m.update(page)
    return m


def test_one_row_per_informer_with_the_pages_figures():
    first, second = kcm_pages()
    queued, c1, c2 = (
        _series(second, "informer_queued_items"),
        _series(first, "informer_processing_latency_seconds_count"),
        _series(second, "informer_processing_latency_seconds_count"),
    )
    m = _model()
    assert len(queued) == 55 and m.has_informers
    rows = {(f.group, f.version, f.resource): f for f in m.informers.values()}
    assert set(rows) == set(queued)
    assert {f.name for f in rows.values()} == {"kube-controller-manager"}
    # The resource label as informer-gen writes it (kind + s), shown as it is.
    assert ("networking.k8s.io", "v1", "ingresss") in rows and ("", "v1", "endpointss") in rows
    for gvr, f in rows.items():
        assert f.queued == queued[gvr]
        assert f.processed_total == c2[gvr]
        assert abs(f.processed_per_s - (c2[gvr] - c1[gvr]) / KCM_SECONDS_APART) < 1e-9
        assert f.store_rv is None and f.server_rv is None and f.lag_rv is None
    busy = max(rows, key=lambda g: c2[g] - c1[g])
    assert c2[busy] > c1[busy], "the recording holds work between its pages"


def test_processing_percentiles_are_estimated_inside_the_buckets_of_the_window():
    first, second = kcm_pages()
    b1, b2 = (_buckets(t, ("", "v1", "pods")) for t in (first, second))
    window = [(le, b2[le] - b1[le]) for le in b2]
    assert window[-1][1] > 0, "pods were processed between the pages"
    f = next(f for f in _model().informers.values() if (f.group, f.resource) == ("", "pods"))
    # p50 and p99 lie in the buckets where the 50th / 99th percentile of the window's pops falls.
    for q, estimate, bucket in (
        (0.5, f.latency_p50, f.latency_p50_bucket),
        (0.99, f.latency_p99, f.latency_p99_bucket),
    ):
        rank = q * window[-1][1]
        upper = next(le for le, c in window if c >= rank)
        lower = max([0.0] + [le for le, c in window if le < upper])
        assert bucket == (lower, upper) and lower <= estimate <= upper


def _buckets(text: str, gvr) -> dict[float, float]:
    return {
        float(le): float(x)
        for m, g, n, r, v, le, x in SAMPLE.findall(text)
        if m == "informer_processing_latency_seconds_bucket" and (g, v, r) == gvr
    }


def test_stale_sync_skips_total_and_rate():
    first, second = kcm_pages()
    pat = re.compile(
        r'^replicaset_controller_stale_sync_skips_total\{group="([^"]*)",resource="([^"]*)"\} (\S+)$', re.M
    )
    t1, t2 = ({(g, r): float(v) for g, r, v in pat.findall(t)} for t in (first, second))
    m = _model()
    assert set(m.stale_skips) == {("replicaset_controller", g, r) for g, r in t2}
    for (_controller, g, r), s in m.stale_skips.items():
        assert s.total == t2[(g, r)]
        assert abs(s.per_s - (t2[(g, r)] - t1.get((g, r), 0.0)) / KCM_SECONDS_APART) < 1e-9
    text = "\n".join(model_lines(m))
    skips = m.stale_skips[("replicaset_controller", "apps", "replicasets")]
    assert f"stale-sync skips replicaset_controller: pods {t2[('', 'pods')]:g} (" in text
    assert f"replicasets.apps {skips.total:g} ({skips.per_s:.1f}/s)" in text


def test_text_and_json_carry_the_rows_and_say_the_store_rv_is_not_served():
    m = _model()
    lines = model_lines(m)
    rows = [ln for ln in lines if ln.startswith("informer ") and "(kube-controller-manager)" in ln]
    assert len(rows) == 55
    deploy = next(ln for ln in rows if ln.startswith("informer apps/v1 deployments "))
    assert re.search(
        r"queued 0 · processed \d+\.\d/s \(\d+\) · processing p50 ≈\S+ p99 ≈\S+ · store RV - · "
        r"server RV - · lag -$",
        deploy,
    ), deploy
    assert any("no informer_store_resource_version on this page" in ln for ln in lines)
    d = json.loads(json.dumps(model_dict(m, "lab")))
    assert len(d["informers"]) == 55 and "queued_history" not in d["informers"][0]
    one = next(r for r in d["informers"] if (r["group"], r["resource"]) == ("apps", "replicasets"))
    assert set(one) >= {
        "name",
        "group",
        "version",
        "resource",
        "queued",
        "processed_per_s",
        "latency_p50",
        "latency_p99",
        "latency_p50_bucket",
        "store_rv",
        "server_rv",
        "lag_rv",
    }
    assert {s["controller"] for s in d["stale_sync_skips"]} == {"replicaset_controller"}
    assert d["informer_notes"] and "store RV and lag unknown" in d["informer_notes"][0]


def test_store_rv_and_lag_behind_the_servers_watch_cache_in_rv_units():
    stores = {
        ("apps", "v1", "replicasets"): 7290,
        ("networking.k8s.io", "v1", "ingresss"): 7100,
        ("", "v1", "pods"): 7301,
    }
    server = {("apps", "replicasets"): 7298, ("networking.k8s.io", "ingresses"): 7100, ("", "pods"): 7301}
    m = _model(extra=("", store_rv_lines(stores)), server=server)
    rows = {(f.group, f.version, f.resource): f for f in m.informers.values()}
    assert (rows[("apps", "v1", "replicasets")].store_rv, rows[("apps", "v1", "replicasets")].lag_rv) == (7290, 8)
    # informer-gen's "ingresss" is the server's "ingresses".
    assert (
        rows[("networking.k8s.io", "v1", "ingresss")].server_rv,
        rows[("networking.k8s.io", "v1", "ingresss")].lag_rv,
    ) == (7100, 0)
    assert rows[("", "v1", "pods")].lag_rv == 0
    # No store RV on the page for this one: no lag, though the server has an RV for it.
    assert rows[("apps", "v1", "deployments")].lag_rv is None
    text = "\n".join(model_lines(m))
    assert "informer apps/v1 replicasets (kube-controller-manager):" in text
    assert "store RV 7290 · server RV 7298 · lag 8 RV" in text
    assert "no informer_store_resource_version" not in text


def test_server_rv_matching_and_plurals():
    server = {
        ("networking.k8s.io", "networkpolicies"): 5,
        ("", "endpoints"): 6,
        ("storage.k8s.io", "storageclasses"): 7,
    }
    assert server_rv_for("networking.k8s.io", "networkpolicys", server) == 5
    assert server_rv_for("", "endpointss", server) == 6
    assert server_rv_for("storage.k8s.io", "storageclasss", server) == 7
    assert server_rv_for("apps", "deployments", server) is None
    assert server_rv_for("storage.k8s.io", "storageclasses", {("storage.k8s.io", "storageclasses"): 9}) == 9
    assert english_plurals("policy") == ("policy", "policyes", "policies")


def test_an_older_process_gets_one_line_not_an_empty_table():
    m = AttachModel()
    m.update(parse_page(client_go_page(depth=1, adds=2, retries=0, latency_cum=LAT, work_cum=LAT), 1.0))
    assert not m.has_informers and m.informers == {}
    lines = [ln for ln in model_lines(m) if "informer" in ln]
    assert lines == [
        "informers: this page has none of client-go 1.36's informer_* series (an older process, or "
        "its informers have no reserved name): no informer rows"
    ]
    d = model_dict(m, "x")
    assert d["informers"] == [] and d["informer_notes"] == lines


def test_the_servers_rvs_by_version_of_labels():
    new = [
        'apiserver_watch_cache_resource_version{group="",resource="pods"} 7301',
        'apiserver_watch_cache_resource_version{group="apps",resource="deployments"} 1.234567e+06',
    ]
    assert server_rv.resource_versions(new) == {("", "pods"): 7301, ("apps", "deployments"): 1234567}
    old = [
        'apiserver_watch_cache_resource_version{resource="deployments.apps"} 42',
        'apiserver_watch_cache_resource_version{resource="pods"} 43',
    ]
    assert server_rv.resource_versions(old) == {("apps", "deployments"): 42, ("", "pods"): 43}


def test_an_unreadable_server_page_is_one_line(monkeypatch):
    import contextlib

    from kubectl_informer.kube import rest

    def forbidden(*a, **kw):
        raise ApiError(403, "Forbidden", 'forbidden: User "dev" cannot get path "/metrics"')

    monkeypatch.setattr(rest, "get_body", forbidden)
    rvs, note = server_rv.ServerRV(object()).read()
    assert rvs is None and note.startswith("the API server's /metrics is forbidden to you (nonResourceURLs")

    @contextlib.contextmanager
    def no_family(*a, **kw):
        yield iter([b"# HELP x y\n", b"x 1\n"])

    monkeypatch.setattr(rest, "get_body", no_family)
    assert server_rv.ServerRV(object()).read() == (
        None,
        "the API server's /metrics has no apiserver_watch_cache_resource_version (watch cache off?): no lag shown",
    )
    m = _model(extra=("", store_rv_lines({("", "v1", "pods"): 1})), note="the API server's /metrics is forbidden")
    assert "informers: the API server's /metrics is forbidden" in model_lines(m)


def test_the_server_is_asked_only_when_the_page_has_store_rvs():
    from kubectl_informer.cli import attach as cli_attach

    class Server:
        calls = 0

        def annotate(self, page):
            Server.calls += 1
            page.server_rv, page.server_note = {("apps", "replicasets"): 7298}, None
            return page

    class Page:
        describe = "test"

        def __init__(self, text):
            self.text, self.server_rv = text, Server()

        def fetch(self):
            return self.text

    first, second = kcm_pages()
    assert cli_attach.scrape(Page(first)).server_rv is None and Server.calls == 0
    with_rv = cli_attach.scrape(Page(second + store_rv_lines({("apps", "v1", "replicasets"): 7290})))
    assert Server.calls == 1 and with_rv.server_rv == {("apps", "replicasets"): 7298}
    m = AttachModel()
    m.update(with_rv)
    assert next(f.lag_rv for f in m.informers.values() if f.resource == "replicasets") == 8


def test_a_url_target_reads_the_api_server_only_with_kubeconfig_or_context(tmp_path):
    from kubectl_informer.cli.attach import AttachOptions, open_scraper

    url = "https://127.0.0.1:10257/metrics"
    assert getattr(open_scraper(AttachOptions(url)), "server_rv", None) is None
    kubeconfig = tmp_path / "kc"
    kubeconfig.write_text(
        "apiVersion: v1\nkind: Config\ncurrent-context: c\nclusters:\n- name: k\n  cluster:\n"
        "    server: https://127.0.0.1:6443\ncontexts:\n- name: c\n  context:\n    cluster: k\n"
        "    user: u\nusers:\n- name: u\n  user:\n    token: t\n"
    )
    kubeconfig.chmod(0o600)
    assert isinstance(open_scraper(AttachOptions(url, kubeconfig=str(kubeconfig))).server_rv, server_rv.ServerRV)


def test_a_pages_labels_are_shown_printable_in_the_table_and_the_detail():
    from kubectl_informer.panes.attach_view import informer_detail, informer_row

    evil = "x\x1b]52;c;ZXZpbA==\x07[bold]"
    page = (
        f'informer_queued_items{{group="g\u202e",name="n",resource="{evil}",version="v1"}} 3\n'
        f'informer_queued_items{{group="g",name="m",resource="pods",version="v1"}} 0\n'
    )
    m = AttachModel()
    m.update(parse_page(page, 1.0))
    f = next(f for f in m.informers.values() if f.name == "n")
    row = informer_row(f, with_name=True)
    assert row[:3] == ("g\\u202e/v1 x\\x1b]52;c;ZXZpbA==\\x07[bold]", "n", "3")
    assert informer_detail(f).startswith("g\\u202e/v1 x\\x1b]52;c;ZXZpbA==\\x07[bold] (n): ")


def test_rates_say_dash_until_a_second_scrape_and_a_new_skip_series_counts_from_zero():
    from kubectl_informer.panes.attach_view import informer_row

    first, second = kcm_pages()
    m = AttachModel()
    m.update(parse_page(first, 100.0))
    f = next(f for f in m.informers.values() if f.resource == "pods")
    assert not f.rated and informer_row(f)[2] == "–"
    text = "\n".join(model_lines(m))
    assert "processed –" in text and "replicasets.apps" in text and "(–)" in text
    # daemonset_controller's counter vector had no series on the first page: its first skips count from 0.
    m.update(
        parse_page(
            second + 'daemonset_controller_stale_sync_skips_total{group="apps",resource="daemonsets"} 3\n',
            100.0 + KCM_SECONDS_APART,
        )
    )
    assert m.informers[("kube-controller-manager", "", "v1", "pods")].rated
    ds = m.stale_skips[("daemonset_controller", "apps", "daemonsets")]
    assert ds.rated and ds.per_s == 3 / KCM_SECONDS_APART
    assert "stale-sync skips daemonset_controller: daemonsets.apps 3 (0.6/s)" in model_lines(m)
