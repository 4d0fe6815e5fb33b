"""pods/proxy in the simulator: relays GETs to loopback pod IPs, answers the
API server's errors otherwise, never forwards credentials."""

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

BASE = "/api/v1/namespaces/default/pods"


@pytest.fixture
def backend():
    seen = []

    class H(BaseHTTPRequestHandler):
        def log_message(self, *a):
            pass

        def do_GET(self):
            seen.append((self.path, self.headers.get("Authorization"), self.headers.get("Accept")))
            body = b"up 1\n"
            self.send_response(200)
            self.send_header("Content-Type", "text/plain; version=0.0.4")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    srv = ThreadingHTTPServer(("127.0.0.1", 0), H)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    yield srv.server_address[1], seen
    srv.shutdown()
    srv.server_close()


def make(sim, name, ip, port):
    sim.store.create(
        "pods",
        {
            "metadata": {"name": name, "namespace": "default"},
            "spec": {"containers": [{"name": "c", "image": "x", "ports": [{"containerPort": port}]}]},
            "status": {"phase": "Running", "podIP": ip} if ip else {"phase": "Pending"},
        },
    )


def test_relays_get_to_a_loopback_pod_with_path_and_query(sim, client, backend):
    port, seen = backend
    make(sim, "ctl", "127.0.0.1", port)
    conn = client._conn()
    conn.request("GET", f"{BASE}/ctl:{port}/proxy/metrics?x=1", headers={**client.auth, "Accept": "text/plain"})
    resp = conn.getresponse()
    assert (resp.status, resp.read(), resp.getheader("Content-Type")) == (200, b"up 1\n", "text/plain; version=0.0.4")
    conn.close()
    assert seen == [("/metrics?x=1", None, "text/plain")]  # credentials stay at the API server
    # No port: the first declared container port, as the API server picks it.
    status, body = client.get(f"{BASE}/ctl/proxy/metrics")
    assert (status, body) == (200, "up 1\n")


def test_the_api_servers_errors(sim, client, backend):
    port, _ = backend
    make(sim, "far", "10.244.0.9", port)
    make(sim, "pending", None, port)
    make(sim, "ctl", "127.0.0.1", port)
    status, body = client.get(f"{BASE}/nope:{port}/proxy/metrics")
    assert status == 404 and body["message"] == 'pods "nope" not found'
    status, body = client.get(f"{BASE}/pending:{port}/proxy/metrics")
    assert (status, body["reason"], body["message"]) == (400, "BadRequest", "address not allowed")
    status, body = client.get(f"{BASE}/far:{port}/proxy/metrics")
    assert status == 503 and body["message"].startswith(f"error trying to reach service: dial tcp 10.244.0.9:{port}")
    status, body = client.request("POST", f"{BASE}/ctl:{port}/proxy/metrics", body={})[:2]
    assert status == 405


def test_nothing_listening_is_a_503_dial_error(sim, client):
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        free = s.getsockname()[1]
    make(sim, "ctl", "127.0.0.1", free)
    status, body = client.get(f"{BASE}/ctl:{free}/proxy/metrics")
    assert (status, body["reason"]) == (503, "ServiceUnavailable")
    assert body["message"] == f"error trying to reach service: dial tcp 127.0.0.1:{free}: connect: connection refused"
