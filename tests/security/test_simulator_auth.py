"""The simulated API server authenticates (docs/security.md, "The simulator
authenticates"): a random token per run, written only into its 0600
kubeconfig, is required on every request (401 otherwise, kube-apiserver's
Status), and a request whose Host is not the loopback address and port it
serves is refused (421), against DNS rebinding. ``--demo`` uses the token
internally; it is never printed."""

from __future__ import annotations

import base64
import http.client
import json
import signal
import ssl
import stat

import pytest

from kubectl_informer.sim.server import SimServer
from tests.security.cli_process import Child, child_env
from tests.security.in_process import run_in_process

UNAUTHORIZED = {
    "kind": "Status",
    "apiVersion": "v1",
    "metadata": {},
    "status": "Failure",
    "message": "Unauthorized",
    "reason": "Unauthorized",
    "code": 401,
}


def get(
    port: int,
    headers: dict,
    ca: bytes | None = None,
    path: str = "/api/v1/namespaces/default/pods",
    host: str | None = None,
) -> tuple[int, dict]:
    if ca is None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    else:
        conn = http.client.HTTPSConnection(
            "127.0.0.1", port, timeout=10, context=ssl.create_default_context(cadata=ca.decode())
        )
    conn.putrequest("GET", path, skip_host=host is not None)
    if host is not None:
        conn.putheader("Host", host)
    for k, v in headers.items():
        conn.putheader(k, v)
    conn.endheaders()
    resp = conn.getresponse()
    body = json.loads(resp.read() or b"null")
    conn.close()
    return resp.status, body


def assert_guarded(port: int, token: str, ca: bytes | None = None) -> None:
    bearer = {"Authorization": f"Bearer {token}"}
    for headers in (
        {},
        {"Authorization": f"Bearer {token}x"},
        {"Authorization": f"Bearer {token[:-1]}"},
        {"Authorization": "Bearer "},
        {"Authorization": "Basic YWRtaW46YWRtaW4="},
        {"Authorization": token},
    ):
        assert get(port, headers, ca) == (401, UNAUTHORIZED), headers
        assert get(port, headers, ca, path="/version")[0] == 401
    assert get(port, bearer, ca)[0] == 200
    assert get(port, bearer, ca, host=f"localhost:{port}")[0] == 200
    for host in (f"evil.example:{port}", "evil.example", f"127.0.0.1:{port + 1}", f"127.0.0.2:{port}", ""):
        status, body = get(port, bearer, ca, host=host)
        assert (status, body["code"], body["kind"]) == (421, 421, "Status"), host


@pytest.mark.parametrize("tls", [False, True], ids=["http", "https"])
def test_every_request_needs_the_runs_token_and_its_own_host(tls):
    a, b = SimServer(tls=tls).start(), SimServer(tls=tls).start()
    try:
        assert len(a.token) >= 40 and a.token != b.token  # secrets.token_urlsafe(32): per run
        assert_guarded(a.port, a.token, a.ca_pem)
        assert get(a.port, {"Authorization": f"Bearer {b.token}"}, a.ca_pem)[0] == 401
    finally:
        a.stop()
        b.stop()


def test_the_sim_command_writes_its_token_only_into_its_private_kubeconfig(tmp_path):
    """The real ``sim``: HTTPS (kubectl sends a token only over TLS), the
    token in the 0600 kubeconfig and nowhere in what it prints, nor in a
    run's -o json and recording against it."""
    kc = tmp_path / "sim.kubeconfig"
    child = Child(["sim", "--write-kubeconfig", str(kc), "--scenario", "quiet"], child_env(tmp_path))
    try:
        child.wait_line(lambda line: "Ctrl-C" in line)
        assert stat.S_IMODE(kc.stat().st_mode) == 0o600
        config = json.loads(kc.read_text())
        cluster, user = config["clusters"][0]["cluster"], config["users"][0]["user"]
        token, ca = user["token"], base64.b64decode(cluster["certificate-authority-data"])
        port = int(cluster["server"].rsplit(":", 1)[1])
        assert cluster["server"] == f"https://127.0.0.1:{port}"
        assert_guarded(port, token, ca)
        rec = tmp_path / "rec.ndjson"
        r = run_in_process(
            "watch", "pods", "--kubeconfig", str(kc), "-o", "json", "--max-events", "3", "--record", str(rec)
        )
        assert r.returncode == 0 and r.stdout, r.stderr
        assert token not in r.stdout + r.stderr + rec.read_text()
    finally:
        code, err = child.signal(signal.SIGTERM)
    assert code == 143 and token not in "".join(child.seen) + err


def test_a_demo_run_uses_its_token_and_never_shows_it(tmp_path, monkeypatch):
    marker = "demo-token-0123456789-abcdefghij"
    monkeypatch.setattr("kubectl_informer.sim.server.secrets.token_urlsafe", lambda n=None: marker)
    rec = tmp_path / "rec.ndjson"
    r = run_in_process(
        "watch", "pods", "--demo", "quiet", "-o", "json", "--max-events", "5", "--debug", "--record", str(rec)
    )
    assert r.returncode == 0 and '"items":' in r.stdout, r.stderr  # listed: its token was sent
    assert marker not in r.stdout + r.stderr + rec.read_text()
