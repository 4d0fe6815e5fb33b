"""TARGETs through the real CLI: URLs, and pod/deploy through the simulated
API server's pods/proxy (which relays to loopback pod IPs); every bad target
is one line and kubectl's exit code."""

import json
import os
import ssl
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from kubectl_informer.attach.target import ResolveError, TargetError, parse_target, pick_port, selector_of
from kubectl_informer.sim.demo import start_demo
from kubectl_informer.sim.tls import make_self_signed
from tests.kube.fake_apiserver import FakeAPIServer, Reply
from tests.ports import free_port
from tests.security.in_process import run_in_process

from .pages import client_go_page

pytestmark = pytest.mark.e2e

SCRIPT = Path(sys.executable).parent / "kubectl-informer"
LAT = [0, 0, 0, 1, 4, 8, 10, 10, 10, 10]


def cli(*args, timeout=30, real=False):
    """``kubectl-informer ARGS`` without a KUBECONFIG. The CLI's code in this
    process (tests/security/in_process.py) for the many targets and refusals;
    ``real``: the real command (the pods-proxy reading does, once per target kind)."""
    if not real:
        return run_in_process(*args)
    env = dict(os.environ)
    env.pop("KUBECONFIG", None)
    return subprocess.run([str(SCRIPT), *args], capture_output=True, text=True, timeout=timeout, env=env)


class Page(ThreadingHTTPServer):
    """A metrics endpoint on loopback answering ``body`` (status, content type)."""

    def __init__(
        self, body: str, status: int = 200, ctype: str = "text/plain; version=0.0.4", tls=None, token: str | None = None
    ):
        page = self

        class H(BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def do_GET(self):
                page.paths.append(self.path)
                page.auth.append(self.headers.get("Authorization"))
                status, data = page.status, page.body.encode()
                if page.token and self.headers.get("Authorization") != f"Bearer {page.token}":
                    status, data = 401, b"Unauthorized\n"  # as kube-rbac-proxy answers
                self.send_response(status)
                self.send_header("Content-Type", page.ctype)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        super().__init__(("127.0.0.1", 0), H)
        if tls:
            ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            ctx.load_cert_chain(*tls)
            self.socket = ctx.wrap_socket(self.socket, server_side=True)
        self.body, self.status, self.ctype, self.token = body, status, ctype, token
        self.paths, self.auth = [], []
        self.daemon_threads = True
        threading.Thread(target=self.serve_forever, daemon=True).start()

    @property
    def port(self):
        return self.server_address[1]

    def close(self):
        self.shutdown()
        self.server_close()


def controller_pod(name, port, ready=True, ip="127.0.0.1", port_name="metrics"):
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "default", "labels": {"app": "my-controller"}},
        "spec": {
            "containers": [
                {
                    "name": "manager",
                    "image": "controller:latest",
                    "ports": [{"containerPort": port, "name": port_name}, {"containerPort": 9443, "name": "webhook"}],
                }
            ]
        },
        "status": {
            "phase": "Running",
            "podIP": ip,
            "conditions": [{"type": "Ready", "status": "True" if ready else "False"}],
        },
    }


@pytest.fixture(scope="module")
def cluster():
    demo = start_demo("quiet")
    # pod/sim-itself is the server itself, reached through its pods/proxy,
    # which passes no credentials on: served as anonymous for these pages.
    demo.server.anonymous = True
    page = Page(client_go_page(depth=3, adds=42, retries=1, latency_cum=LAT, work_cum=LAT))
    store = demo.server.store
    store.create("pods", controller_pod("my-controller-0", page.port, ready=False))
    store.create("pods", controller_pod("my-controller-1", page.port))
    store.create(
        "deployments",
        {
            "metadata": {"name": "my-controller", "namespace": "default"},
            "spec": {
                "selector": {"matchLabels": {"app": "my-controller"}},
                "template": {"metadata": {"labels": {"app": "my-controller"}}},  # as kube-apiserver requires
            },
        },
    )
    store.create("pods", controller_pod("sim-itself", demo.server.port, port_name="http"))
    yield demo, page
    page.close()
    demo.stop()


def one_scrape(*args, real=False):
    r = cli("attach", *args, "-o", "json", "--count", "1", real=real)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout.splitlines()[0])


def test_pod_and_deploy_through_pods_proxy_read_the_page(cluster):
    demo, page = cluster
    kc = demo.kubeconfig_path
    got = one_scrape("pod/my-controller-1", "--kubeconfig", kc, real=True)
    q = got["queues"]["deployment"]
    assert (q["depth"], q["adds_total"], q["retries_total"]) == (3, 42, 1)
    assert got["target"].startswith("pod/my-controller-1 ")
    assert page.paths[-1] == "/metrics"
    # deploy/ picks the ready pod, not my-controller-0.
    got = one_scrape("deploy/my-controller", "--kubeconfig", kc, "-n", "default", real=True)
    assert got["target"].startswith("pod/my-controller-1 of deploy/my-controller")
    # Only GETs reached the API server.
    assert {m for m, _, _ in demo.server.request_log} == {"GET"}
    assert any("/pods/my-controller-1:" in p and p.endswith("/proxy/metrics") for _, p, _ in demo.server.request_log)


@pytest.mark.parametrize(
    "target, message",
    [
        ("pod/nope", 'error: pods "nope" not found in namespace "default"'),
        ("deploy/nope", 'error: deployments.apps "nope" not found in namespace "default"'),
        (
            "pod/my-controller-1:grpc",
            'error: no such port: pod/my-controller-1 declares no port named "grpc" '
            "(ports: {port}/metrics, 9443/webhook)",
        ),
        (
            "pod/my-controller-1:{free}",
            "error: no such port: nothing answers on pod/my-controller-1:{free} "
            "(error trying to reach service: dial tcp 127.0.0.1:{free}: connect: "
            "connection refused; declared ports: {port}/metrics, 9443/webhook)",
        ),
        (
            "pod/sim-itself:http --path /version",
            "error: pod/sim-itself:{sim} did not answer Prometheus text (Content-Type application/json): ",
        ),
        ("pod/sim-itself:http", "error: not found (HTTP 404) at pod/sim-itself:{sim}/metrics: "),
        (
            "pod/sim-itself",
            "error: pod/sim-itself declares several ports ({sim}/http, 9443/webhook) and none is "
            "named metrics: name one, e.g. pod/sim-itself:{sim}\n",
        ),
    ],
)
def test_bad_pod_targets_are_one_line_exit_1(cluster, target, message):
    demo, page = cluster
    free = free_port()
    fmt = dict(port=page.port, free=free, sim=demo.server.port)
    r = cli("attach", *target.format(**fmt).split(), "--kubeconfig", demo.kubeconfig_path, "-o", "text")
    assert r.returncode == 1
    assert r.stdout == ""
    assert r.stderr.count("\n") == 1 and r.stderr.startswith(message.format(**fmt)), r.stderr


def test_forbidden_proxy_names_the_rbac_rule():
    # The simulator has no RBAC: this API server answers as kube-apiserver does
    # when the user may get pods but not pods/proxy.
    api = FakeAPIServer().start()
    try:
        api.routes["/api/v1/namespaces/team/pods/ctl"] = controller_pod("ctl", 8080)
        api.routes["/api/v1/namespaces/team/pods/ctl:8080/proxy/metrics"] = Reply(
            403,
            {
                "kind": "Status",
                "apiVersion": "v1",
                "status": "Failure",
                "reason": "Forbidden",
                "code": 403,
                "message": 'pods "ctl" is forbidden: User "dev" cannot get resource "pods/proxy" in API group "" '
                'in the namespace "team"',
            },
        )
        kc = Path(os.environ.get("TMPDIR", "/tmp")) / f"attach-403-{os.getpid()}.kubeconfig"
        kc.write_text(f"""apiVersion: v1
kind: Config
clusters: [{{name: c, cluster: {{server: "{api.url}"}}}}]
users: [{{name: u, user: {{token: t}}}}]
contexts: [{{name: x, context: {{cluster: c, user: u, namespace: team}}}}]
current-context: x
""")
        r = cli("attach", "pod/ctl", "--kubeconfig", str(kc), "-o", "text")
        kc.unlink()
        assert r.returncode == 1
        assert r.stderr.startswith(
            "error: forbidden (HTTP 403) proxying to pod/ctl:8080: you need get on "
            'pods/proxy in namespace team (RBAC rule: apiGroups [""], resources '
            '["pods/proxy"], verbs ["get"])\n'
        ), r.stderr
        assert [r.method for r in api.requests] == ["GET", "GET"]
    finally:
        api.stop()


@pytest.mark.parametrize(
    "status, body, ctype, message",
    [
        (
            401,
            "Unauthorized\n",
            "text/plain",
            "error: unauthorized (HTTP 401) at {url}: the endpoint wants a bearer token",
        ),
        (
            403,
            "Forbidden (user=system:serviceaccount:x:y, verb=get, resource=, subresource=)\n",
            "text/plain",
            "error: forbidden (HTTP 403) at {url}: the token's identity may not read it",
        ),
        (404, "404 page not found\n", "text/plain", "error: not found (HTTP 404) at {url}: no metrics at this path"),
        (
            200,
            "<html><body>Sign in</body></html>",
            "text/html",
            "error: {url} did not answer Prometheus text (Content-Type text/html): invalid metric name",
        ),
    ],
)
def test_bad_url_targets_are_one_line_exit_1(status, body, ctype, message):
    page = Page(body, status, ctype)
    try:
        url = f"http://127.0.0.1:{page.port}/metrics"
        r = cli("attach", url, "-o", "json", "--token", "s3cret")
        assert r.returncode == 1 and r.stdout == ""
        assert r.stderr.count("\n") == 1 and r.stderr.startswith(message.format(url=url)), r.stderr
        assert page.auth == ["Bearer s3cret"]
    finally:
        page.close()


def test_connection_refused_is_one_line_exit_1():
    url = f"http://127.0.0.1:{free_port()}/metrics"
    r = cli("attach", url, "-o", "text")
    assert (r.returncode, r.stderr) == (
        1,
        f"error: cannot reach {url}: connection refused (is your kubectl port-forward running?)\n",
    )


@pytest.mark.parametrize(
    "args",
    [
        ["svc/x"],
        ["127.0.0.1:8080"],
        ["{url}", "--count", "2"],
        ["{url}", "-o", "text", "--resource", "pods"],
        ["{url}", "--interval", "0s"],
    ],
    ids=["svc", "no-kind", "count-in-tui", "resource-headless", "interval-0"],
)
def test_usage_errors_are_one_line_exit_2(args):
    url = f"http://127.0.0.1:{free_port()}/metrics"
    r = cli("attach", *(a.format(url=url) for a in args))
    assert r.returncode == 2 and r.stderr.startswith("error: ") and r.stderr.count("\n") == 1, (args, r.stderr)


def test_parse_target_and_port_rules():
    assert parse_target("deployments.apps/x:metrics").kind == "deploy"
    assert parse_target("po/x:8080").port == "8080"
    with pytest.raises(TargetError):
        parse_target("pod/x:")
    pod = controller_pod("p", 8080)
    assert pick_port("p", pod, None) == (8080, "metrics")
    assert pick_port("p", pod, "webhook") == (9443, "webhook")
    assert pick_port("p", pod, "7000") == (7000, "")  # undeclared numbers are allowed, as port-forward does
    assert (
        selector_of(
            {
                "spec": {
                    "selector": {
                        "matchLabels": {"b": "2", "a": "1"},
                        "matchExpressions": [
                            {"key": "tier", "operator": "In", "values": ["x", "y"]},
                            {"key": "gone", "operator": "DoesNotExist"},
                        ],
                    }
                }
            }
        )
        == "a=1,b=2,!gone,tier in (x,y)"  # LabelSelectorAsSelector's requirements, sorted by key
    )
    assert selector_of({"spec": {"selector": None}}) == ""  # labels.Nothing(): kubectl lists every pod
    bad = {"metadata": {"name": "web"}, "spec": {"selector": {"matchExpressions": [{"key": "a", "operator": "In"}]}}}
    with pytest.raises(ResolveError, match="^deploy/web: invalid label selector: values: Invalid value"):
        selector_of(bad)


def test_https_and_a_bearer_token_as_behind_kube_rbac_proxy(tmp_path):
    cert, key = make_self_signed(str(tmp_path))
    page = Page(
        client_go_page(depth=1, adds=7, retries=0, latency_cum=LAT, work_cum=LAT), tls=(cert, key), token="s3cret"
    )
    (tmp_path / "token").write_text("s3cret\n")
    url = f"https://127.0.0.1:{page.port}/metrics"
    auths = (
        [],
        ["--certificate-authority", cert],
        ["--certificate-authority", cert, "--token-file", str(tmp_path / "token")],
        ["--insecure-skip-tls-verify", "--token", "s3cret"],
    )
    try:
        untrusted, no_token, *good = [cli("attach", url, "-o", "json", "--count", "1", *auth) for auth in auths]
    finally:
        page.close()
    assert untrusted.returncode == 1 and untrusted.stderr.startswith(
        f"error: TLS error talking to {url}: certificate verify failed (pass --certificate-authority FILE"
    ), untrusted.stderr
    assert no_token.returncode == 1 and no_token.stderr.startswith(f"error: unauthorized (HTTP 401) at {url}"), (
        no_token.stderr
    )
    for r in good:
        assert r.returncode == 0, r.stderr
        assert json.loads(r.stdout)["queues"]["deployment"]["adds_total"] == 7


def test_a_pod_whose_containers_are_not_all_ready_is_not_ready_as_kubectl_shows_it():
    from kubectl_informer.attach.target import is_ready

    ready = {"type": "Ready", "status": "True"}
    pod = {"status": {"conditions": [ready], "containerStatuses": [{"name": "c", "ready": True}]}}
    assert is_ready(pod)
    pod["status"]["containerStatuses"] = [{"name": "c", "ready": False}]  # kubectl: READY 0/1
    assert not is_ready(pod)
    assert not is_ready({"status": {"conditions": [{"type": "Ready", "status": "False"}]}})
    assert not is_ready({"metadata": {"deletionTimestamp": "x"}, "status": {"conditions": [ready]}})
