"""A hostile API server: real HTTP on 127.0.0.1 that answers discovery as a
v1.32 cluster and then misbehaves on ``pods`` in one chosen way.

Each behaviour is a name in BEHAVIOURS. A one-item list (``limit=1``, the
RBAC probe a restart within the UI sends) is answered normally unless the
behaviour is about the start of a run, so that what is tested is the
informer's own list and watch; a fresh run sends no probe. Every request is
recorded (``srv.requests``) with its headers.
"""

from __future__ import annotations

import json
import socket
import struct
import threading
import time
from collections.abc import Callable
from typing import Any

from .fake_apiserver import FakeAPIServer, Raw, Reply, Request, serve_discovery, status

PODS = "/api/v1/namespaces/default/pods"
TOKEN = "hostile-test-token-0123456789"
HTML_503 = (
    b"<html><head><title>503 Service Temporarily Unavailable</title></head>\n<body>\n"
    b"<center><h1>503 Service Temporarily Unavailable</h1></center>\n<hr><center>nginx</center>\n"
    b"</body></html>\n"
)


def pod(name: str, rv: int, **extra: Any) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "default", "resourceVersion": str(rv), "uid": f"uid-{name}"},
        "status": {"phase": "Running"},
        **extra,
    }


def pod_list(items: list, rv: int = 10, cont: str = "") -> dict:
    md: dict[str, Any] = {"resourceVersion": str(rv)}
    if cont:
        md["continue"] = cont
    return {"kind": "PodList", "apiVersion": "v1", "metadata": md, "items": items}


def _probe(req: Request) -> bool:
    return req.query.get("limit") == "1" or req.query.get("timeoutSeconds") == "1"


def _send_head(
    h, status_code: int = 200, length: int | None = None, chunked: bool = False, ctype: str = "application/json"
) -> None:
    h.send_response(status_code)
    h.send_header("Content-Type", ctype)
    if chunked:
        h.send_header("Transfer-Encoding", "chunked")
    elif length is not None:
        h.send_header("Content-Length", str(length))
    h.end_headers()


def _chunk(h, data: bytes) -> None:
    h.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
    h.wfile.flush()


def _json(h, doc: Any, status_code: int = 200) -> None:
    body = json.dumps(doc).encode()
    _send_head(h, status_code, len(body))
    h.wfile.write(body)


def _watch_lines(h, lines: list[bytes], hold: float) -> None:
    """A chunked watch stream of ``lines``, then held open ``hold`` seconds."""
    _send_head(h, chunked=True)
    for line in lines:
        _chunk(h, line)
    time.sleep(hold)
    h.wfile.write(b"0\r\n\r\n")


def _event(etype: str, obj: Any) -> bytes:
    return json.dumps({"type": etype, "object": obj}).encode() + b"\n"


def _reset(h) -> None:
    """Close with RST instead of FIN (SO_LINGER 0), as a dying proxy does."""
    h.wfile.flush()
    h.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    h.connection.close()
    h.close_connection = True


class Hostile:
    def __init__(self, behaviour: str, redirect_to: str = "") -> None:
        self.behaviour = behaviour
        self.redirect_to = redirect_to
        self.stop = threading.Event()
        self.srv = FakeAPIServer().start()
        serve_discovery(self.srv)
        self.failures_left = 2  # for the transient ones: this many, then fine
        getattr(self, f"_install_{behaviour}", self._install_pods)()

    # -- helpers
    def _serve_pods(self, on_list: Callable | None = None, on_watch: Callable | None = None) -> None:
        def handle(h, req: Request) -> None:
            if req.query.get("watch") == "true":
                (on_watch or self._quiet_watch)(h, req)
            else:
                (on_list or self._normal_list)(h, req)

        self.srv.routes[PODS] = Raw(handle)

    def _normal_list(self, h, req: Request) -> None:
        _json(h, pod_list([pod("web-1", 5), pod("web-2", 6)]))

    def _quiet_watch(self, h, req: Request) -> None:
        # An open watch with nothing to say, ended at the run's end or after 30s.
        _send_head(h, chunked=True)
        self.stop.wait(0.2 if _probe(req) else 30)
        h.wfile.write(b"0\r\n\r\n")

    def _install_pods(self) -> None:
        self._serve_pods()

    # -- watch streams
    def _install_malformed_json(self) -> None:
        def watch(h, req):
            if _probe(req):
                return self._quiet_watch(h, req)
            _watch_lines(h, [_event("ADDED", pod("web-3", 11)), b'{"type": "MODIFIED", "object": {oops\n'], 0.5)

        self._serve_pods(on_watch=watch)

    def _install_unknown_event_type(self) -> None:
        def watch(h, req):
            if _probe(req):
                return self._quiet_watch(h, req)
            _watch_lines(h, [_event("SURPRISE", pod("web-9", 11)), _event("ADDED", pod("web-3", 12))], 30)

        self._serve_pods(on_watch=watch)

    def _install_no_metadata(self) -> None:
        def watch(h, req):
            if _probe(req):
                return self._quiet_watch(h, req)
            _watch_lines(
                h, [_event("ADDED", {"kind": "Pod"}), _event("MODIFIED", None), _event("ADDED", pod("web-3", 12))], 30
            )

        self._serve_pods(on_watch=watch)

    def _install_huge_object(self) -> None:
        big = pod("huge", 11, data={"blob": "x" * (10 * 1024 * 1024)})

        def watch(h, req):
            if _probe(req):
                return self._quiet_watch(h, req)
            _watch_lines(h, [_event("ADDED", big)], 30)

        self._serve_pods(on_watch=watch)

    def _install_stalled_watch(self) -> None:
        def watch(h, req):
            _send_head(h, chunked=True)  # headers, then nothing at all, connection kept
            self.stop.wait(0.2 if _probe(req) else 60)

        self._serve_pods(on_watch=watch)

    # -- lists
    def _install_endless_continue(self) -> None:
        def lst(h, req):
            if _probe(req):
                return self._normal_list(h, req)
            _json(h, pod_list([pod(f"p-{time.monotonic_ns()}", 7)], cont="same-token-forever"))

        self._serve_pods(on_list=lst)

    def _install_reset_mid_list(self) -> None:
        body = json.dumps(pod_list([pod(f"web-{i}", i) for i in range(200)])).encode()

        def lst(h, req):
            if _probe(req):
                return self._normal_list(h, req)
            _send_head(h, length=len(body))
            h.wfile.write(body[: len(body) // 2])
            _reset(h)

        self._serve_pods(on_list=lst)

    def _install_slow_loris(self) -> None:
        self._slow(lambda req: not _probe(req))

    def _install_slow_loris_start(self) -> None:
        self._slow(lambda req: True)

    def _slow(self, applies: Callable[[Request], bool]) -> None:
        body = json.dumps(pod_list([pod("web-1", 5)])).encode()

        def lst(h, req):
            if not applies(req):
                return self._normal_list(h, req)
            _send_head(h, length=len(body))
            for i in range(len(body)):  # one byte a second
                if self.stop.wait(1.0 if i else 0.0):
                    return
                h.wfile.write(body[i : i + 1])
                h.wfile.flush()

        self._serve_pods(on_list=lst)

    # -- the start of a run
    def _install_html_503_at_start(self) -> None:
        def api(req):
            if self.failures_left > 0:
                self.failures_left -= 1
                return Reply(503, HTML_503, {"Content-Type": "text/html"})
            return {"kind": "APIVersions", "versions": ["v1"]}

        self.srv.routes["/api"] = api
        self._serve_pods()

    def _install_html_500_on_list(self) -> None:
        def lst(h, req):
            if self.failures_left > 0:
                self.failures_left -= 1
                body = b"<html><body><h1>500 Internal Server Error</h1></body></html>"
                _send_head(h, 500, len(body), ctype="text/html")
                h.wfile.write(body)
                return
            self._normal_list(h, req)

        self._serve_pods(on_list=lst)

    def _install_unauthorized(self) -> None:
        self.srv.routes["/api"] = Reply(401, status(401, "Unauthorized", "Unauthorized"))

    def _install_forbidden(self) -> None:
        self.srv.routes[PODS] = Reply(
            403,
            status(
                403,
                "Forbidden",
                'pods is forbidden: User "jane" cannot list resource "pods" in API group "" in the namespace "default"',
                kind="pods",
            ),
        )

    def _install_redirect(self) -> None:
        def moved(h, req):
            h.send_response(302)
            h.send_header("Location", self.redirect_to + req.path)
            h.send_header("Content-Length", "0")
            h.end_headers()

        self.srv.routes["/api"] = Raw(moved)

    def close(self) -> None:
        self.stop.set()
        self.srv.stop()


BEHAVIOURS = (
    "malformed_json",
    "unknown_event_type",
    "no_metadata",
    "huge_object",
    "stalled_watch",
    "endless_continue",
    "reset_mid_list",
    "slow_loris",
    "slow_loris_start",
    "html_503_at_start",
    "html_500_on_list",
    "unauthorized",
    "forbidden",
    "redirect",
)


def kubeconfig_for(url: str) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Config",
        "current-context": "hostile",
        "clusters": [{"name": "c", "cluster": {"server": url}}],
        "contexts": [{"name": "hostile", "context": {"cluster": "c", "user": "u", "namespace": "default"}}],
        "users": [{"name": "u", "user": {"token": TOKEN}}],
    }
