"""A user and password in a URL are never shown (docs/security.md,
"Credentials never printed"): a kubeconfig's ``server:
http://user:PASSWORD@127.0.0.1:PORT`` in ``-o json``'s run.info, a
recording and its replay, an error line; an ``attach`` URL's in its error
line and in every ``-o json`` line. The password is short on purpose: the
remembered-credential guard (core/redact.py) skips values under 6
characters, the URL rule does not."""

from __future__ import annotations

import json
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kubectl_informer.core.redact import redact_url
from tests.security.conftest import assert_refused, write_kubeconfig
from tests.security.in_process import run_in_process

PASSWORD = "Pw9Q"


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_password_in_the_server_url_is_never_shown(sim, tmp_path):
    server = f"http://admin:{PASSWORD}@127.0.0.1:{sim.port}"
    kc = write_kubeconfig(tmp_path / "kc", server)
    rec = tmp_path / "rec.ndjson"
    r = run_in_process(
        "watch",
        "pods",
        "--kubeconfig",
        kc,
        "-o",
        "json",
        "--max-events",
        "3",
        "--record",
        str(rec),
        "--server-scrape",
        "0",
    )
    assert r.returncode == 0, r.stderr
    info = json.loads(r.stdout.splitlines()[0])["fields"]
    assert info["server"] == f"http://<redacted>@127.0.0.1:{sim.port}"
    assert PASSWORD not in r.stdout + r.stderr + rec.read_text()
    # A recording made elsewhere (or before this rule) holding the password.
    lines = rec.read_text().splitlines()
    head = json.loads(lines[0])
    head["fields"]["server"] = server
    head["fields"]["args"] = ["watch", "pods", "--server", server]
    old = tmp_path / "old.ndjson"
    old.write_text("\n".join([json.dumps(head)] + lines[1:]) + "\n")
    for output in ("json", "text"):
        r = run_in_process("replay", str(old), "-o", output, "--no-wait")
        assert r.returncode == 0 and r.stdout, r.stderr
        assert PASSWORD not in r.stdout + r.stderr
    assert f"http://<redacted>@127.0.0.1:{sim.port}" in r.stdout or output == "text"
    # An error line naming the server: HOST:PORT, as kubectl names it (Go's url.URL.Host).
    port = closed_port()
    kc = write_kubeconfig(tmp_path / "kc2", f"http://admin:{PASSWORD}@127.0.0.1:{port}")
    line = assert_refused(
        run_in_process("watch", "pods", "--kubeconfig", kc, "-o", "json", "--request-timeout", "5s"), 1
    )
    assert line == (
        f"error: the connection to the server 127.0.0.1:{port} was refused - did you specify the right host or port?"
    )


class _Metrics(BaseHTTPRequestHandler):
    """A controller's metrics page: answers once, then 500."""

    def do_GET(self) -> None:  # the stdlib's name
        self.server.hits += 1
        ok = self.server.hits == 1
        body = b'workqueue_depth{name="q"} 1\n' if ok else b"boom"
        self.send_response(200 if ok else 500)
        self.send_header("Content-Type", "text/plain; version=0.0.4")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args) -> None:
        pass


def test_a_password_in_an_attach_url_is_never_shown():
    srv = ThreadingHTTPServer(("127.0.0.1", 0), _Metrics)
    srv.hits = 0
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        url = f"http://admin:{PASSWORD}@127.0.0.1:{srv.server_port}/metrics"
        r = run_in_process("attach", url, "-o", "json", "--count", "2", "--interval", "0.1s")
        assert r.returncode == 0, r.stderr
        first, second = (json.loads(line) for line in r.stdout.splitlines())
        assert first["target"] == f"http://<redacted>@127.0.0.1:{srv.server_port}/metrics"
        assert "answered HTTP 500" in second["error"]
        assert PASSWORD not in r.stdout + r.stderr
    finally:
        srv.shutdown()
        srv.server_close()
    port = closed_port()
    line = assert_refused(
        run_in_process("attach", f"http://admin:{PASSWORD}@127.0.0.1:{port}/metrics", "-o", "json", "--count", "1"), 1
    )
    assert line == (
        f"error: cannot reach http://<redacted>@127.0.0.1:{port}/metrics: connection refused "
        "(is your kubectl port-forward running?)"
    )


# RFC 3986 userinfo never holds "[" or "]" (urlsplit refuses them); any other character may come.
_USERINFO_CHARS = st.characters(blacklist_characters="/?#@[]", blacklist_categories=("Zs", "Zl", "Zp", "Cc"))


@given(
    user=st.text(_USERINFO_CHARS, min_size=1, max_size=20),
    password=st.text(_USERINFO_CHARS, max_size=20),
    at_in_password=st.booleans(),
    path=st.sampled_from(["", "/", "/metrics?a=b@c", "/x#y@z"]),
)
def test_redact_url_drops_any_userinfo_and_keeps_the_rest(user, password, at_in_password, path):
    """urlsplit's reading: the userinfo runs to the last "@" of the authority."""
    secret = f"{user}:{password}@x" if at_in_password else f"{user}:{password}"
    url = f"https://{secret}@example.test:6443{path}"
    shown = redact_url(url)
    assert shown == f"https://<redacted>@example.test:6443{path}"
    a, b = urlsplit(shown), urlsplit(url)
    assert (a.hostname, a.port, a.path, a.query, a.fragment) == (b.hostname, b.port, b.path, b.query, b.fragment)
    assert redact_url(f"see {url} and http://h:1/p") == f"see {shown} and http://h:1/p"


def test_a_url_typed_without_its_scheme_is_quoted_without_its_password():
    from kubectl_informer.attach.target import TargetError, parse_target

    for typed in ("admin:Pw9Q@127.0.0.1:9100/metrics", "admin:Pw9Q@host"):
        with pytest.raises(TargetError) as e:
            parse_target(typed)
        assert "Pw9Q" not in str(e.value)
