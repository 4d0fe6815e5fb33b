"""The light kubeconfig path (kube/light.py): which kubeconfigs take it, and
that it talks to a server as the kubernetes client would (TLS, client
certificates, tokens, query strings), without importing the kubernetes client."""

import base64
import ssl
import subprocess
import sys
from pathlib import Path

import pytest
import urllib3  # noqa: F401 - named by the filterwarnings mark
import yaml

from kubectl_informer.cache.listwatch import ListOptions
from kubectl_informer.kube import config as kconfig
from kubectl_informer.kube import rest
from kubectl_informer.kube.config import load_kube, new_api_client
from kubectl_informer.kube.discovery import Resource
from kubectl_informer.kube.errors import KubeConfigError
from kubectl_informer.kube.light import LightClient, LightConfig
from kubectl_informer.kube.listwatch import KubeListerWatcher
from kubectl_informer.sim.tls import make_self_signed

from .fake_apiserver import FakeAPIServer, kubeconfig

PODS = Resource("", "v1", "pods", "Pod", True)
POD_LIST = {"kind": "PodList", "apiVersion": "v1", "metadata": {"resourceVersion": "1"}, "items": []}


@pytest.fixture(autouse=True)
def no_ambient_config(monkeypatch, tmp_path):
    monkeypatch.delenv("KUBECONFIG", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("KUBERNETES_SERVICE_HOST", raising=False)


def write(path, doc):
    path.write_text(yaml.safe_dump(doc))
    return str(path)


def list_pods(fake, target):
    fake.routes["/api/v1/pods"] = POD_LIST
    return KubeListerWatcher(target.api_client, PODS).list(ListOptions())


def test_token_kubeconfig_never_imports_the_kubernetes_client_nor_urllib3(fake, tmp_path):
    path = write(tmp_path / "kc", kubeconfig(fake.url, token="s3cret"))
    code = (
        "import sys\nfrom kubectl_informer.kube.config import load_kube\n"
        "from kubectl_informer.kube.listwatch import KubeListerWatcher\n"
        "from kubectl_informer.kube.discovery import Resource\n"
        "from kubectl_informer.cache.listwatch import ListOptions\n"
        f"t = load_kube(kubeconfig={path!r})\n"
        "KubeListerWatcher(t.api_client, Resource('', 'v1', 'pods', 'Pod', True)).list(ListOptions())\n"
        "print(type(t.api_client).__name__, sorted(m for m in sys.modules\n"
        "                                          if m.split('.')[0] in ('kubernetes', 'urllib3')))\n"
    )
    fake.routes["/api/v1/pods"] = POD_LIST
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "LightClient []", out.stderr
    assert fake.requests_to("/api/v1/pods")[-1].headers.get("authorization") == "Bearer s3cret"


@pytest.mark.parametrize(
    "user",
    [
        {"auth-provider": {"name": "oidc", "config": {"id-token": "x", "idp-issuer-url": "https://x"}}},
        {"username": "u", "password": "p"},
    ],
)
def test_anything_else_goes_through_the_kubernetes_client(fake, tmp_path, user):
    doc = kubeconfig(fake.url)
    doc["users"][0]["user"] = user
    t = load_kube(kubeconfig=write(tmp_path / "kc", doc))
    assert not isinstance(t.api_client, LightClient)
    assert type(t.api_client).__module__.startswith("kubernetes.client")


def test_an_exec_plugin_is_run_for_the_light_client(fake, tmp_path):
    """Exec plugins are ours (kube/exec_plugin.py) for either client: a user
    with only ``exec`` stays on the light one, its token from the plugin."""
    plugin = tmp_path / "plugin.sh"
    plugin.write_text(
        '#!/bin/sh\necho \'{"apiVersion":"client.authentication.k8s.io/v1","kind":'
        '"ExecCredential","status":{"token":"from-plugin"}}\'\n'
    )
    plugin.chmod(0o700)
    doc = kubeconfig(fake.url)
    doc["users"][0]["user"] = {
        "exec": {"apiVersion": "client.authentication.k8s.io/v1", "command": str(plugin), "interactiveMode": "Never"}
    }
    t = load_kube(kubeconfig=write(tmp_path / "kc", doc))
    assert isinstance(t.api_client, LightClient)
    fake.routes["/api/v1/pods"] = POD_LIST
    list_pods(fake, t)
    assert fake.requests_to("/api/v1/pods")[-1].headers.get("authorization") == "Bearer from-plugin"


def test_proxy_url_goes_through_the_kubernetes_client(fake, tmp_path):
    doc = kubeconfig(fake.url, token="t")
    doc["clusters"][0]["cluster"]["proxy-url"] = "http://127.0.0.1:1"
    t = load_kube(kubeconfig=write(tmp_path / "kc", doc))
    assert not isinstance(t.api_client, LightClient) and t.api_client.configuration.proxy == "http://127.0.0.1:1"


def test_token_file_relative_to_its_kubeconfig_and_trimmed(fake, tmp_path):
    (tmp_path / "conf").mkdir()
    (tmp_path / "conf" / "token").write_text("from-file\n")
    doc = kubeconfig(fake.url)
    doc["users"][0]["user"] = {"tokenFile": "token"}
    t = load_kube(kubeconfig=write(tmp_path / "conf" / "kc", doc))
    list_pods(fake, t)
    assert fake.requests_to("/api/v1/pods")[-1].headers.get("authorization") == "Bearer from-file"


def test_query_string_and_headers_as_the_kubernetes_client_sends_them(fake):
    query = [
        ("labelSelector", "app in (a,b),tier!=x"),
        ("fieldSelector", "spec.nodeName=n/1"),
        ("watch", True),
        ("allowWatchBookmarks", False),
        ("limit", 500),
        ("timeoutSeconds", 1.5),
        ("continue", "eyJ+/="),
    ]
    light = LightClient(LightConfig(fake.url), kconfig.USER_AGENT)
    cfg = type.__call__(__import__("kubernetes").client.Configuration)
    cfg.host = fake.url
    theirs = new_api_client(cfg)
    _, their_url, _, _, _ = theirs.param_serialize("GET", "/api/v1/pods", query_params=query)
    assert light.url("/api/v1/pods", query) == their_url
    fake.routes["/api/v1/pods"] = POD_LIST
    for client in (light, theirs):
        assert rest.get_json(client, "/api/v1/pods", query) == POD_LIST
    a, b = fake.requests_to("/api/v1/pods")
    assert a.query == b.query and a.query["labelSelector"] == "app in (a,b),tier!=x"
    for h in ("accept", "user-agent"):
        assert a.headers.get(h) == b.headers.get(h), h


# --------------------------------------------------------------------------- TLS


@pytest.fixture(scope="module")
def certs(tmp_path_factory):
    d = tmp_path_factory.mktemp("certs")
    (d / "server").mkdir()
    (d / "client").mkdir()
    return make_self_signed(str(d / "server")), make_self_signed(str(d / "client"))


def tls_server(certs, client_certs: bool) -> FakeAPIServer:
    (server_cert, server_key), (client_cert, _) = certs
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(server_cert, server_key)
    if client_certs:
        ctx.verify_mode = ssl.CERT_REQUIRED
        ctx.load_verify_locations(client_cert)
    return FakeAPIServer(tls=ctx).start()


def b64(path):
    return base64.b64encode(open(path, "rb").read()).decode()


def test_client_certificate_data_and_a_relative_ca_file(tmp_path, certs):
    (server_cert, _), (client_cert, client_key) = certs
    srv = tls_server(certs, client_certs=True)
    try:
        (tmp_path / "ca.crt").write_bytes(Path(server_cert).read_bytes())
        doc = kubeconfig(srv.url)
        doc["clusters"][0]["cluster"]["certificate-authority"] = "ca.crt"
        doc["users"][0]["user"] = {"client-certificate-data": b64(client_cert), "client-key-data": b64(client_key)}
        t = load_kube(kubeconfig=write(tmp_path / "kc", doc))
        assert isinstance(t.api_client, LightClient)
        assert list_pods(srv, t)["kind"] == "PodList"
        # Without the client certificate the server refuses the handshake: one line.
        doc["users"][0]["user"] = {"token": "t"}
        t = load_kube(kubeconfig=write(tmp_path / "kc2", doc))
        with pytest.raises(ConnectionError) as e:
            list_pods(srv, t)
        assert srv.url in str(e.value) and "\n" not in str(e.value)
    finally:
        srv.stop()


@pytest.mark.filterwarnings("ignore::urllib3.exceptions.InsecureRequestWarning")
@pytest.mark.parametrize(
    "cluster, ok",
    [
        ({}, False),  # the self-signed CA is not trusted
        ({"insecure-skip-tls-verify": True}, True),
        ({"certificate-authority-data": "CA", "tls-server-name": "localhost"}, True),  # a SAN of the certificate
        ({"certificate-authority-data": "CA", "tls-server-name": "other.example"}, False),
    ],
)
def test_server_verification(tmp_path, certs, cluster, ok):
    (server_cert, _), _ = certs
    srv = tls_server(certs, client_certs=False)
    try:
        doc = kubeconfig(srv.url, token="t")
        doc["clusters"][0]["cluster"].update({k: b64(server_cert) if v == "CA" else v for k, v in cluster.items()})
        t = load_kube(kubeconfig=write(tmp_path / "kc", doc))
        assert isinstance(t.api_client, LightClient)
        if ok:
            assert list_pods(srv, t)["kind"] == "PodList"
        else:
            with pytest.raises(ConnectionError, match="certificate verify failed|match"):
                list_pods(srv, t)
    finally:
        srv.stop()


def test_unusable_values_are_one_line(tmp_path):
    doc = kubeconfig("https://127.0.0.1:1", token="t")
    doc["clusters"][0]["cluster"]["certificate-authority"] = "missing.crt"
    with pytest.raises(KubeConfigError) as e:
        load_kube(kubeconfig=write(tmp_path / "kc", doc))
    assert str(e.value) == f'invalid kubeconfig for context "fake": File does not exist: {tmp_path / "missing.crt"}'
    doc = kubeconfig("https://127.0.0.1:1", token="t")
    doc["clusters"][0]["cluster"]["certificate-authority-data"] = "!!x"
    with pytest.raises(
        KubeConfigError, match="field clusters.0..cluster.certificate-authority-data is not valid base64 data"
    ):
        load_kube(kubeconfig=write(tmp_path / "kc", doc))
