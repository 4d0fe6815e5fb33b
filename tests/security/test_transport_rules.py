"""client-go's transport rules, which main did not follow: proxies from the
environment (HTTP_PROXY/HTTPS_PROXY/NO_PROXY, as Go's
``http.ProxyFromEnvironment``: users behind a corporate proxy could not use
the plugin at all), the kubeconfig's ``proxy-url`` taking precedence, CONNECT
for https; ``insecure-skip-tls-verify`` together with a CA refused (client-go's
``TLSConfigFor``; main accepted it and skipped verification); a watch ERROR
whose Status is malformed said in words (main said Python's).

The proxy is a real one on 127.0.0.1 (forward_proxy.py), the server the
simulator behind it, and the command the real one (in-process: its own
code, through its error guard).
"""

from __future__ import annotations

import base64
import threading

import pytest

from kubectl_informer.cache.listwatch import WatchEvent
from kubectl_informer.cache.reflector import Reflector
from kubectl_informer.cache.store import Indexer
from kubectl_informer.core.apierrors import ApiError
from tests.security.conftest import assert_refused, run_cli, write_kubeconfig
from tests.security.forward_proxy import ForwardProxy
from tests.security.in_process import run_in_process

NO_PROXY_ENV = {
    "HTTP_PROXY": None,
    "HTTPS_PROXY": None,
    "NO_PROXY": None,
    "http_proxy": None,
    "https_proxy": None,
    "no_proxy": None,
    "ALL_PROXY": None,
    "all_proxy": None,
    "REQUEST_METHOD": None,
}


@pytest.fixture
def proxy():
    p = ForwardProxy().start()
    yield p
    p.stop()


def watch(kc: str, env: dict | None = None):
    return run_in_process(
        "watch", "pods", "--kubeconfig", kc, "-o", "text", "--max-events", "1", env={**NO_PROXY_ENV, **(env or {})}
    )


# --- the decision: Go's httpproxy tests (TestProxyForURL, TestUseProxy) -----------------------

GO_NO_PROXY = (
    "foobar.com, .barbaz.net, *.wildcard.io, 192.168.1.1, 192.168.1.2:81, 192.168.1.3:80, 10.0.0.0/30, "
    "2001:db8::52:0:1, [2001:db8::52:0:2]:443, [2001:db8::52:0:3]:80, 2002:db8:a::45/64"
)


@pytest.mark.parametrize(
    "host,proxied",
    [
        ("localhost", False),
        ("127.0.0.1", False),
        ("127.0.0.2", False),
        ("::1", False),
        ("::2", True),
        ("192.168.1.1", False),
        ("192.168.1.2", True),
        ("192.168.1.3", False),
        ("192.168.1.4", True),
        ("10.0.0.2", False),
        ("2001:db8::52:0:1", False),
        ("2001:db8::52:0:2", True),
        ("2001:db8::52:0:3", False),
        ("2002:db8:a::123", False),
        ("fe80::424b:c8be:1643:a1b6", True),
        ("barbaz.net", True),
        ("www.barbaz.net", False),
        ("foobar.com", False),
        ("www.foobar.com", False),
        ("foofoobar.com", True),
        ("baz.com", True),
        ("localhost.net", True),
        ("local.localhost", True),
        ("barbarbaz.net", True),
        ("wildcard.io", True),
        ("nested.wildcard.io", False),
        ("awildcard.io", True),
    ],
)
def test_no_proxy_as_go_matches_it(host, proxied):
    from kubectl_informer.kube.proxy import use_proxy

    assert use_proxy(host, "80", GO_NO_PROXY) is proxied
    assert use_proxy(host, "80", "*") is False
    assert use_proxy("example.com", "80", ":1") is True  # a malformed entry is ignored


@pytest.mark.parametrize(
    "env,url,want",
    [
        ({"HTTP_PROXY": "127.0.0.1:8080"}, "http://example.com", "http://127.0.0.1:8080"),
        ({"HTTP_PROXY": "cache.corp.example.com:1234"}, "http://example.com", "http://cache.corp.example.com:1234"),
        ({"HTTP_PROXY": "localhost"}, "http://example.com", "http://localhost"),
        ({"HTTP_PROXY": "https://cache.corp.example.com"}, "http://example.com", "https://cache.corp.example.com"),
        (
            {"HTTP_PROXY": "http.proxy.tld", "HTTPS_PROXY": "secure.proxy.tld"},
            "http://insecure.tld/",
            "http://http.proxy.tld",
        ),
        (
            {"HTTP_PROXY": "http.proxy.tld", "HTTPS_PROXY": "secure.proxy.tld"},
            "https://secure.tld/",
            "http://secure.proxy.tld",
        ),
        ({"HTTP_PROXY": "http.proxy.tld"}, "https://secure.tld/", None),  # https takes HTTPS_PROXY only
        ({"https_proxy": "lower.tld", "HTTPS_PROXY": "upper.tld"}, "https://x.tld/", "http://upper.tld"),
        ({"https_proxy": "lower.tld", "HTTPS_PROXY": ""}, "https://x.tld/", "http://lower.tld"),
        ({"ALL_PROXY": "all.tld"}, "https://x.tld/", None),  # Go has no ALL_PROXY
        ({"NO_PROXY": "example.com", "HTTP_PROXY": "proxy"}, "http://example.com/", None),
        ({"NO_PROXY": ".example.com", "HTTP_PROXY": "proxy"}, "http://example.com/", "http://proxy"),
        ({"NO_PROXY": "ample.com", "HTTP_PROXY": "proxy"}, "http://example.com/", "http://proxy"),
        ({"NO_PROXY": "example.com", "HTTP_PROXY": "proxy"}, "http://foo.example.com/", None),
        ({"no_proxy": "example.com:6443", "HTTPS_PROXY": "proxy"}, "https://example.com:6443/", None),
        ({"NO_PROXY": "example.com:6443", "HTTPS_PROXY": "proxy"}, "https://example.com/", "http://proxy"),
        ({"NO_PROXY": "10.0.0.0/8", "HTTPS_PROXY": "proxy"}, "https://10.96.0.1/", None),
        ({"NO_PROXY": ".示例.com", "HTTP_PROXY": "proxy"}, "http://www.示例.com", None),
        ({"NO_PROXY": "xn--fsq092h.com", "HTTP_PROXY": "proxy"}, "http://www.示例.com", None),
        ({"HTTPS_PROXY": "proxy"}, "https://localhost:6443", None),
        ({"HTTPS_PROXY": "proxy"}, "https://127.3.2.1:6443", None),
        ({"HTTPS_PROXY": "proxy"}, "https://[::1]:6443", None),
        ({"HTTPS_PROXY": "proxy"}, "https://[::ffff:127.0.0.1]:6443", None),  # Go's IsLoopback sees the IPv4
        ({"NO_PROXY": "10.0.0.0/8", "HTTPS_PROXY": "proxy"}, "https://[::ffff:10.1.2.3]/", None),
        ({"NO_PROXY": "example.com", "HTTP_PROXY": "proxy"}, "http://[1000::%25.example.com]:123", "http://proxy"),
        ({"HTTPS_PROXY": "proxy"}, "https://LOCALHOST:6443", "http://proxy"),  # Go compares the name as written
        ({"HTTPS_PROXY": "https://p.tld", "REQUEST_METHOD": "GET"}, "https://x.tld/", "https://p.tld"),
        ({}, "http://example.com", None),
    ],
)
def test_the_environments_proxy_as_go_picks_it(env, url, want):
    from kubectl_informer.kube.proxy import proxy_from_environment

    assert proxy_from_environment(url, env) == want


def test_http_proxy_is_refused_in_a_cgi_environment_as_go_refuses_it():
    from kubectl_informer.kube.proxy import ProxyError, proxy_from_environment

    with pytest.raises(ProxyError, match="refusing to use HTTP_PROXY value in CGI environment"):
        proxy_from_environment("http://example.com", {"HTTP_PROXY": "p", "REQUEST_METHOD": "GET"})


# --- through a real proxy --------------------------------------------------------------------


def test_the_environments_proxy_carries_every_request_light_kubeconfig_or_not(sim, proxy, tmp_path):
    """A token kubeconfig (main's light client, which never proxied) to a
    server named by a host that is not loopback: every request is an
    absolute-form GET through HTTP_PROXY."""
    kc = write_kubeconfig(tmp_path / "kc", f"http://kubernetes.proxied.test:{sim.port}")
    r = watch(kc, {"HTTP_PROXY": proxy.url})
    assert r.returncode == 0 and r.stdout.startswith("Replaced "), r.stderr
    assert proxy.methods() and set(proxy.methods()) == {"GET"}
    assert all(t.startswith(f"http://kubernetes.proxied.test:{sim.port}/") for _, t in proxy.requests)
    assert len(proxy.requests) == len(sim.request_log)
    assert all({k.lower(): v for k, v in h.items()}.get("authorization") == "Bearer sim-token" for h in proxy.headers)
    # NO_PROXY naming its domain, or loopback: not through the proxy (and the name does not resolve).
    before = len(proxy.requests)
    kc2 = write_kubeconfig(tmp_path / "kc2", sim.url)
    assert watch(kc2, {"HTTP_PROXY": proxy.url}).returncode == 0
    r = watch(kc, {"HTTP_PROXY": proxy.url, "NO_PROXY": "proxied.test"})
    assert r.returncode == 1
    assert len(proxy.requests) == before


def test_proxy_url_tunnels_https_with_connect_and_wins_over_no_proxy(sim_tls, proxy, tmp_path):
    """proxy-url (client-go: for every request, NO_PROXY not consulted):
    https is a CONNECT tunnel, the server's certificate verified through it."""
    ca = base64.b64encode(sim_tls.ca_pem).decode()
    kc = write_kubeconfig(
        tmp_path / "kc", sim_tls.url, cluster_extra=f"certificate-authority-data: {ca}\nproxy-url: {proxy.url}"
    )
    r = watch(kc, {"NO_PROXY": "*", "HTTPS_PROXY": "http://127.0.0.1:9"})
    assert r.returncode == 0 and r.stdout.startswith("Replaced "), r.stderr
    assert proxy.methods() and set(proxy.methods()) == {"CONNECT"}
    assert {t for _, t in proxy.requests} == {f"127.0.0.1:{sim_tls.port}"}
    assert sim_tls.request_log


def test_proxy_url_carries_plain_http_and_its_user_as_basic_auth(sim, proxy, tmp_path):
    proxy_url = proxy.url.replace("http://", "http://alice:s%40cret@")
    kc = write_kubeconfig(tmp_path / "kc", sim.url, cluster_extra=f"proxy-url: {proxy_url}")
    r = watch(kc)
    assert r.returncode == 0 and r.stdout.startswith("Replaced "), r.stderr
    assert set(proxy.methods()) == {"GET"} and len(proxy.requests) == len(sim.request_log)
    expected = "Basic " + base64.b64encode(b"alice:s@cret").decode()
    assert {h.get("Proxy-Authorization") for h in proxy.headers} == {expected}
    assert "s@cret" not in r.stdout + r.stderr


@pytest.mark.parametrize(
    "proxy_url,says",
    [
        ("ftp://proxy.tld", 'proxy-url: unsupported scheme "ftp", must be http, https, or socks5'),
        ("socks5://127.0.0.1:1080", "a socks5 proxy is not supported by kubectl informer"),
    ],
)
def test_a_proxy_url_client_go_refuses_or_we_cannot_use_is_one_line(sim, tmp_path, proxy_url, says):
    kc = write_kubeconfig(tmp_path / "kc", sim.url, cluster_extra=f"proxy-url: {proxy_url}")
    assert_refused(watch(kc), 1, contains=(f'error: cluster "sim" in {kc}: ', says))
    assert list(sim.request_log) == []


# --- insecure-skip-tls-verify with a CA ----------------------------------------------------


@pytest.mark.parametrize("ca", ["certificate-authority-data", "certificate-authority"])
def test_insecure_with_a_ca_is_refused_in_client_gos_words(sim_tls, tmp_path, ca):
    ca_file = tmp_path / "ca.crt"
    ca_file.write_bytes(sim_tls.ca_pem)
    value = base64.b64encode(sim_tls.ca_pem).decode() if ca.endswith("-data") else str(ca_file)
    kc = write_kubeconfig(tmp_path / "kc", sim_tls.url, cluster_extra=f"insecure-skip-tls-verify: true\n{ca}: {value}")
    line = (
        f'error: specifying a root certificates file with the insecure flag is not allowed (cluster "sim" in '
        f"{kc} sets insecure-skip-tls-verify and a certificate-authority)"
    )
    run = run_cli if ca.endswith("-data") else watch  # the real command once, its code in-process once
    args = ("watch", "pods", "--kubeconfig", kc, "-o", "text", "--max-events", "1")
    assert_refused(run(*args) if run is run_cli else watch(kc), 1, line)
    assert list(sim_tls.request_log) == []


# --- a malformed watch ERROR ---------------------------------------------------------------


@pytest.mark.parametrize(
    "status,says",
    [
        ({"kind": "Status", "code": "abc", "message": "m"}, "code 'abc' is not a number (int32)"),
        ({"kind": "Status", "code": [410]}, "code [410] is not a number (int32)"),
        ({"kind": "Status", "code": 1 << 40}, "code 1099511627776 is not a number (int32)"),
        ({"kind": "Status", "code": 500, "message": {"x": 1}}, "message {'x': 1} is not a string"),
        ({"kind": "Status", "code": 500, "details": "x"}, "details 'x' is not an object"),
        (
            {"kind": "Status", "code": 500, "details": {"causes": "x"}},
            "causes 'x' is not a list of causes (reason, message, field)",
        ),
        (
            {"kind": "Status", "code": 429, "details": {"retryAfterSeconds": "soon"}},
            "retryAfterSeconds 'soon' is not a number (int32)",
        ),
        (["not", "a", "status"], "it is list, not an object"),
        (None, "it is null, not an object"),
    ],
)
def test_a_malformed_watch_error_is_said_in_words(status, says):
    class OneError:
        def __init__(self):
            self.events = [WatchEvent("ERROR", status)]

        def __iter__(self):
            return iter(self.events)

        def stop(self):
            pass

    r = Reflector(None, Indexer())
    w = OneError()
    with pytest.raises(ApiError) as e:
        r.handle_watch(0.0, w, iter(w), Indexer(), threading.Event())
    assert e.value.status == 500
    assert e.value.message == f"the watch's ERROR event is not a valid Status: {says}"


def test_a_well_formed_status_still_reads_as_before():
    e = ApiError.from_status(
        {
            "kind": "Status",
            "code": 410,
            "reason": "Expired",
            "message": "too old",
            "details": {"causes": [{"reason": "X"}], "retryAfterSeconds": 2},
        }
    )
    assert (e.status, e.reason, e.message, e.details, e.retry_after) == (
        410,
        "Expired",
        "too old",
        [{"reason": "X"}],
        2.0,
    )
    assert ApiError.from_status({"kind": "Status"}, code=503).status == 503
