"""Where discovery comes from: aggregated discovery, its legacy fallback,
kubectl's disk cache (read only) and ours (kube/discovery_fetch.py,
kube/discovery_cache.py), against the simulated API server over real HTTP."""

import os
import stat
import time
from pathlib import Path

import orjson
import pytest

from kubectl_informer.kube import discovery_cache as dc
from kubectl_informer.kube.config import USER_AGENT
from kubectl_informer.kube.discovery import Discovery
from kubectl_informer.kube.discovery_fetch import ACCEPT_DISCOVERY, is_aggregated
from kubectl_informer.kube.errors import UnknownResourceError
from kubectl_informer.kube.light import LightClient, LightConfig
from kubectl_informer.sim.server import SimServer


@pytest.fixture(autouse=True)
def caches_on(monkeypatch):
    monkeypatch.delenv("KUBECTL_INFORMER_DISCOVERY_CACHE")


@pytest.fixture(params=[True, False], ids=["aggregated", "legacy"])
def sim(request):
    srv = SimServer(aggregated_discovery=request.param).start()
    yield srv
    srv.stop()


def client(srv) -> LightClient:
    """A client of ``srv`` (a SimServer, or the fake server), with its token."""
    cfg = LightConfig(srv.url)
    if getattr(srv, "token", None):
        cfg.authorization = f"Bearer {srv.token}"
    return LightClient(cfg, USER_AGENT)


def paths(srv: SimServer) -> list[str]:
    return [p for _m, p, _s in srv.request_log]


def summary(d: Discovery) -> list[tuple]:
    return [
        (r.group, r.version, r.resource, r.kind, r.namespaced, r.singular, r.short_names, r.verbs) for r in d.ordered()
    ]


def test_aggregated_discovery_is_two_requests_and_finds_what_the_legacy_way_finds():
    with SimServer() as agg, SimServer(aggregated_discovery=False) as legacy:
        a, b = Discovery(client(agg), disk_cache=False), Discovery(client(legacy), disk_cache=False)
        assert summary(a) == summary(b) and summary(a)
        assert paths(agg) == ["/api", "/apis"]
        # Without it: every group version asked for on its own.
        assert sorted(paths(legacy)) == sorted(
            [
                "/api",
                "/apis",
                "/api/v1",
                "/apis/apps/v1",
                "/apis/apiextensions.k8s.io/v1",
                "/apis/example.com/v1",
                "/apis/authorization.k8s.io/v1",
            ]
        )
        pods = a.resolve("po")
        assert (pods.kind, pods.namespaced, pods.short_names) == ("Pod", True, ("po",))
        assert a.resolve("deploy").qualified_name == "deployments.apps"
        assert not a.resolve("crd").namespaced


def test_the_accept_header_asks_for_aggregated_discovery_first(fake, disco):
    Discovery(client(fake), disk_cache=False).resolve("pods")
    accepts = {r.path: r.headers.get("accept") for r in fake.requests}
    assert accepts["/api"] == accepts["/apis"] == ACCEPT_DISCOVERY
    assert ACCEPT_DISCOVERY == (
        "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,"
        "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,"
        "application/json"
    )
    # The fake server answers plain JSON: the legacy requests follow.
    assert "/api/v1" in accepts


@pytest.mark.parametrize(
    "content_type, expected",
    [
        ("application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList", True),
        ("application/json; as=APIGroupDiscoveryList;v=v2;g=apidiscovery.k8s.io;charset=utf-8", True),
        ("application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList", True),
        ("application/json", False),
        ("application/json;g=apidiscovery.k8s.io;v=v3;as=APIGroupDiscoveryList", False),
        ("text/html", False),
    ],
)
def test_the_answer_is_read_as_its_content_type_says(content_type, expected):
    assert is_aggregated(content_type) is expected


def test_a_stale_group_version_is_failed_and_the_rest_is_served():
    from kubectl_informer.kube.discovery_fetch import Snapshot, split_aggregated

    snap = Snapshot([])
    split_aggregated(
        {
            "items": [
                {"metadata": {"name": "metrics.k8s.io"}, "versions": [{"version": "v1beta1", "freshness": "Stale"}]},
                {
                    "metadata": {"name": "apps"},
                    "versions": [
                        {
                            "version": "v1",
                            "freshness": "Current",
                            "resources": [
                                {
                                    "resource": "deployments",
                                    "responseKind": {"group": "apps", "version": "v1", "kind": "Deployment"},
                                    "scope": "Namespaced",
                                    "singularResource": "deployment",
                                    "verbs": ["list", "watch"],
                                    "subresources": [
                                        {
                                            "subresource": "scale",
                                            "responseKind": {"group": "autoscaling", "version": "v1", "kind": "Scale"},
                                            "verbs": ["get"],
                                        }
                                    ],
                                },
                                {"resource": "nokind", "scope": "Cluster", "verbs": ["list"]},
                            ],
                        }
                    ],
                },
            ]
        },
        snap,
    )
    assert snap.failed == {"metrics.k8s.io/v1beta1": "stale"}
    assert [g["name"] for g in snap.groups] == ["apps"]
    names = [r["name"] for r in snap.resources["apps/v1"]["resources"]]
    assert names == ["deployments", "deployments/scale"]  # a resource without a kind is dropped


@pytest.mark.parametrize(
    "host, name",
    [
        ("https://127.0.0.1:6443", "127.0.0.1_6443"),
        ("http://localhost:8080", "localhost_8080"),
        ("https://api.example.com", "api.example.com"),
        ("https://[::1]:6443", "___1__6443"),
        ("https://example.com:443/k8s/clusters/c-1", "example.com_443/k8s/clusters/c_1"),
    ],
)
def test_the_cache_directory_is_named_as_kubectl_names_it(host, name):
    assert dc.host_dir_name(host) == name


def test_cache_directories_follow_kubectl_and_xdg(monkeypatch, tmp_path):
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("KUBECACHEDIR")
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert dc.kubectl_dir("https://10.0.0.1:6443") == f"{tmp_path}/.kube/cache/discovery/10.0.0.1_6443"
    assert dc.kubectl_dir("https://10.0.0.1:6443", "/elsewhere") == "/elsewhere/discovery/10.0.0.1_6443"
    monkeypatch.setenv("KUBECACHEDIR", "/kc")
    assert dc.kubectl_dir("https://10.0.0.1:6443") == "/kc/discovery/10.0.0.1_6443"
    assert dc.own_dir("https://10.0.0.1:6443") == f"{tmp_path}/.cache/kubectl-informer/discovery/10.0.0.1_6443"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/ignored")
    assert dc.own_dir("https://h:1").startswith(f"{tmp_path}/.cache/")
    monkeypatch.setenv("XDG_CACHE_HOME", "/xdg")
    # A user and password in the URL never become part of our path.
    assert dc.own_dir("https://jane:s3cret@h:1") == "/xdg/kubectl-informer/discovery/h_1"
    assert dc.kubectl_dir("https://h/../../../etc") is None  # would leave the cache directory


def test_our_cache_is_written_private_and_read_back_without_a_request(sim):
    d = Discovery(client(sim))
    expected = summary(d)
    directory = dc.own_dir(sim.url)
    files = sorted(os.path.relpath(os.path.join(r, f), directory) for r, _, fs in os.walk(directory) for f in fs)
    assert files == sorted(
        [
            "servergroups.json",
            "v1/serverresources.json",
            "apps/v1/serverresources.json",
            "apiextensions.k8s.io/v1/serverresources.json",
            "example.com/v1/serverresources.json",
            "authorization.k8s.io/v1/serverresources.json",
        ]
    )
    root = dc.own_root()
    for r, _dirs, fs in os.walk(root):
        assert stat.S_IMODE(os.stat(r).st_mode) == 0o700, r
        for f in fs:
            assert stat.S_IMODE(os.stat(os.path.join(r, f)).st_mode) == 0o600, f
    sim.request_log.clear()
    again = Discovery(client(sim))
    assert summary(again) == expected and again.source == dc.OWN_CACHE
    assert paths(sim) == []


def test_a_stale_or_corrupt_cache_is_rediscovered_never_an_error(tmp_path):
    with SimServer() as srv:
        Discovery(client(srv)).groups()
        groups = os.path.join(dc.own_dir(srv.url), "servergroups.json")
        old = time.time() - dc.TTL - 60
        os.utime(groups, (old, old))
        srv.request_log.clear()
        d = Discovery(client(srv))
        assert d.resolve("pods").kind == "Pod" and d.source == "server"
        assert paths(srv) == ["/api", "/apis"]
        resources = os.path.join(dc.own_dir(srv.url), "v1", "serverresources.json")
        for junk in (b"{not json", b"[1, 2]", b'{"kind": "Pod"}', b" " * (dc.MAX_FILE + 1)):
            with open(resources, "wb") as f:
                f.write(junk)
            srv.request_log.clear()
            d = Discovery(client(srv))
            assert d.resolve("pods").kind == "Pod" and d.source == "server"
            assert paths(srv) == ["/api", "/apis"]


def test_a_resource_missing_from_the_cache_is_asked_for_once(tmp_path):
    with SimServer() as srv:
        Discovery(client(srv)).groups()
        os.unlink(os.path.join(dc.own_dir(srv.url), "example.com", "v1", "serverresources.json"))
        srv.request_log.clear()
        d = Discovery(client(srv))
        assert d.resolve("pods").kind == "Pod" and paths(srv) == []  # from the cache
        assert d.resolve("widgets").kind == "Widget" and d.source == "server"  # a CRD new since
        assert paths(srv) == ["/api", "/apis"]
        with pytest.raises(UnknownResourceError):
            d.resolve("nosuch")
        assert paths(srv) == ["/api", "/apis"]  # refreshed once, not again


def test_kubectls_cache_is_read_and_never_written(tmp_path, monkeypatch):
    with SimServer() as srv:
        theirs = dc.kubectl_dir(srv.url)
        # What kubectl writes (the same legacy documents), made by our writer
        # into a directory then handed over as kubectl's.
        monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "staging"))
        Discovery(client(srv)).groups()
        os.makedirs(os.path.dirname(theirs), exist_ok=True)
        os.rename(dc.own_dir(srv.url), theirs)
        monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "ours"))
        before = {p: (os.stat(p).st_mtime_ns, Path(p).read_bytes()) for p in _files(theirs)}
        srv.request_log.clear()
        d = Discovery(client(srv))
        assert d.resolve("deploy").resource == "deployments" and d.source == dc.KUBECTL_CACHE
        assert paths(srv) == []
        d.refresh()  # from the server: written to ours only
        assert {p: (os.stat(p).st_mtime_ns, Path(p).read_bytes()) for p in _files(theirs)} == before
        assert os.path.exists(os.path.join(dc.own_dir(srv.url), "servergroups.json"))


def _files(root: str) -> list[str]:
    return sorted(os.path.join(r, f) for r, _, fs in os.walk(root) for f in fs)


def test_the_cache_holds_no_credential(tmp_path):
    with SimServer(tokens=frozenset({"tok-very-secret"})) as srv:
        cfg = LightConfig(srv.url)
        cfg.authorization = "Bearer tok-very-secret"
        Discovery(LightClient(cfg, USER_AGENT)).groups()
        for p in _files(dc.own_root()):
            assert b"tok-very-secret" not in Path(p).read_bytes()
            assert orjson.loads(Path(p).read_bytes())["kind"] in ("APIGroupList", "APIResourceList")


def test_disk_cache_off_reads_and_writes_nothing(monkeypatch):
    with SimServer() as srv:
        Discovery(client(srv), disk_cache=False).groups()
        assert not os.path.exists(dc.own_root())
        monkeypatch.setenv("KUBECTL_INFORMER_DISCOVERY_CACHE", "0")
        Discovery(client(srv)).groups()
        assert not os.path.exists(dc.own_root())
        monkeypatch.setenv("KUBECTL_INFORMER_DISCOVERY_CACHE", "1")
        Discovery(client(srv)).groups()
        assert os.path.exists(dc.own_root())
