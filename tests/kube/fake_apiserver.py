"""A small HTTP server answering with recorded API server responses.

For the parts of ``kube/`` that need an answer the simulated server does not
give (403 on discovery, a proxy's HTML 500, a malformed watch line, an
aggregated API that is down). Requests are recorded so tests can assert on
the query strings the client sent.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl, urlsplit


@dataclass
class Request:
    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]


@dataclass
class Stream:
    """A watch response: events written one chunk each, then (optionally)
    held open until ``release`` is set."""

    events: list[Any]
    chunked: bool = True
    release: threading.Event | None = None
    split: bool = False  # write each event in two pieces, across chunks

    def encode(self) -> list[bytes]:
        out = []
        for ev in self.events:
            data = ev if isinstance(ev, bytes) else json.dumps(ev).encode() + b"\n"
            if self.split and len(data) > 4:
                out += [data[: len(data) // 2], data[len(data) // 2 :]]
            else:
                out.append(data)
        return out


@dataclass
class Raw:
    """A route that writes the response itself: ``fn(handler, request)`` gets
    the BaseHTTPRequestHandler (``wfile``, ``connection``) to misbehave at the
    byte level: trickle, reset, stall."""

    fn: Callable[[Any, Request], None]


Handler = Callable[[Request], Any]


@dataclass
class Reply:
    status: int = 200
    body: Any = None  # dict/list -> JSON, bytes as is
    headers: dict[str, str] = field(default_factory=dict)


class FakeAPIServer:
    def __init__(self, host: str = "127.0.0.1", tls: Any = None) -> None:
        self.routes: dict[str, Any] = {}
        self.requests: list[Request] = []
        server = self

        class _H(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                parts = urlsplit(self.path)
                req = Request(
                    "GET",
                    parts.path,
                    dict(parse_qsl(parts.query, keep_blank_values=True)),
                    {k.lower(): v for k, v in self.headers.items()},
                )
                server.requests.append(req)
                route = server.routes.get(parts.path)
                if callable(route):
                    route = route(req)
                if route is None:
                    route = Reply(
                        404,
                        {
                            "kind": "Status",
                            "apiVersion": "v1",
                            "status": "Failure",
                            "message": "the server could not find the requested resource",
                            "reason": "NotFound",
                            "code": 404,
                        },
                    )
                if isinstance(route, Raw):
                    try:
                        route.fn(self, req)
                    except OSError:
                        self.close_connection = True  # the client hung up
                elif isinstance(route, Stream):
                    self._stream(route)
                else:
                    if not isinstance(route, Reply):
                        route = Reply(200, route)
                    self._reply(route)

            def _reply(self, r: Reply) -> None:
                body = r.body if isinstance(r.body, bytes) else json.dumps(r.body).encode()
                self.send_response(r.status)
                self.send_header("Content-Type", "application/json")
                for k, v in r.headers.items():
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def _stream(self, s: Stream) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                if s.chunked:
                    self.send_header("Transfer-Encoding", "chunked")
                else:
                    self.send_header("Connection", "close")
                    self.close_connection = True
                self.end_headers()
                try:
                    for piece in s.encode():
                        if s.chunked:
                            self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
                        else:
                            self.wfile.write(piece)
                        self.wfile.flush()
                    if s.release is not None:
                        s.release.wait(10)
                    if s.chunked:
                        self.wfile.write(b"0\r\n\r\n")
                except OSError:
                    pass  # the client hung up (stop())

        self._httpd = ThreadingHTTPServer((host, 0), _H)
        self._httpd.handle_error = lambda request, address: None  # a client hanging up is no news here
        self._httpd.daemon_threads = True
        self._scheme = "http"
        if tls is not None:  # an ssl.SSLContext (server side)
            self._httpd.socket = tls.wrap_socket(self._httpd.socket, server_side=True)
            self._scheme = "https"
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"{self._scheme}://{host}:{port}"

    def start(self) -> FakeAPIServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def requests_to(self, path: str) -> list[Request]:
        return [r for r in self.requests if r.path == path]


def status(code: int, reason: str, message: str, **details: Any) -> dict:
    st = {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": message,
        "reason": reason,
        "code": code,
    }
    if details:
        st["details"] = details
    return st


def _res(name: str, kind: str, namespaced: bool, short: tuple = (), singular: str = "", verbs: tuple = None) -> dict:
    r = {
        "name": name,
        "singularName": singular,
        "namespaced": namespaced,
        "kind": kind,
        "verbs": list(verbs or ("create", "delete", "get", "list", "patch", "update", "watch")),
    }
    if short:
        r["shortNames"] = list(short)
    return r


# Recorded from a kind v1.32 cluster, trimmed to what discovery reads.
CORE_V1 = {
    "kind": "APIResourceList",
    "groupVersion": "v1",
    "resources": [
        _res("bindings", "Binding", True, verbs=("create",)),
        _res("configmaps", "ConfigMap", True, ("cm",), "configmap"),
        _res("events", "Event", True, ("ev",), "event"),
        _res("namespaces", "Namespace", False, ("ns",), "namespace"),
        _res("nodes", "Node", False, ("no",), "node"),
        _res("pods", "Pod", True, ("po",), "pod"),
        _res("pods/log", "Pod", True, verbs=("get",)),
        _res("pods/status", "Pod", True, verbs=("get", "patch", "update")),
        _res("secrets", "Secret", True, (), "secret"),
        _res("services", "Service", True, ("svc",), "service"),
    ],
}
API_GROUPS = {
    "kind": "APIGroupList",
    "apiVersion": "v1",
    "groups": [
        {
            "name": "apps",
            "versions": [{"groupVersion": "apps/v1", "version": "v1"}],
            "preferredVersion": {"groupVersion": "apps/v1", "version": "v1"},
        },
        {
            "name": "events.k8s.io",
            "versions": [{"groupVersion": "events.k8s.io/v1", "version": "v1"}],
            "preferredVersion": {"groupVersion": "events.k8s.io/v1", "version": "v1"},
        },
        {
            "name": "batch",
            "versions": [
                {"groupVersion": "batch/v1", "version": "v1"},
                {"groupVersion": "batch/v1beta1", "version": "v1beta1"},
            ],
            "preferredVersion": {"groupVersion": "batch/v1", "version": "v1"},
        },
        {
            "name": "example.com",
            "versions": [
                {"groupVersion": "example.com/v1", "version": "v1"},
                {"groupVersion": "example.com/v1alpha1", "version": "v1alpha1"},
            ],
            "preferredVersion": {"groupVersion": "example.com/v1", "version": "v1"},
        },
        {
            "name": "metrics.k8s.io",
            "versions": [{"groupVersion": "metrics.k8s.io/v1beta1", "version": "v1beta1"}],
            "preferredVersion": {"groupVersion": "metrics.k8s.io/v1beta1", "version": "v1beta1"},
        },
    ],
}
GROUP_VERSIONS = {
    "/apis/apps/v1": {
        "kind": "APIResourceList",
        "groupVersion": "apps/v1",
        "resources": [
            _res("deployments", "Deployment", True, ("deploy",), "deployment"),
            _res("deployments/scale", "Scale", True, verbs=("get", "patch", "update")),
            _res("replicasets", "ReplicaSet", True, ("rs",), "replicaset"),
        ],
    },
    "/apis/events.k8s.io/v1": {
        "kind": "APIResourceList",
        "groupVersion": "events.k8s.io/v1",
        "resources": [_res("events", "Event", True, ("ev",), "event")],
    },
    "/apis/batch/v1": {
        "kind": "APIResourceList",
        "groupVersion": "batch/v1",
        "resources": [_res("cronjobs", "CronJob", True, ("cj",), "cronjob"), _res("jobs", "Job", True, (), "job")],
    },
    "/apis/batch/v1beta1": {
        "kind": "APIResourceList",
        "groupVersion": "batch/v1beta1",
        "resources": [_res("cronjobs", "CronJob", True, ("cj",), "cronjob")],
    },
    # A CRD: empty singularName as older servers send, a kind unlike the plural,
    # and a resource only in the non-preferred version.
    "/apis/example.com/v1": {
        "kind": "APIResourceList",
        "groupVersion": "example.com/v1",
        "resources": [_res("widgets", "Widget", True, ("wd",)), _res("clusterwidgets", "ClusterWidget", False)],
    },
    "/apis/example.com/v1alpha1": {
        "kind": "APIResourceList",
        "groupVersion": "example.com/v1alpha1",
        "resources": [_res("widgets", "Widget", True, ("wd",)), _res("gadgets", "Gadget", True)],
    },
}


def serve_discovery(srv: FakeAPIServer, metrics_down: bool = True) -> None:
    srv.routes["/api"] = {
        "kind": "APIVersions",
        "versions": ["v1"],
        "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": "x:6443"}],
    }
    srv.routes["/api/v1"] = CORE_V1
    srv.routes["/apis"] = API_GROUPS
    srv.routes.update(GROUP_VERSIONS)
    if metrics_down:  # an aggregated API whose backend is down, as often in real clusters
        srv.routes["/apis/metrics.k8s.io/v1beta1"] = Reply(
            503, status(503, "ServiceUnavailable", "the server is currently unable to handle the request")
        )


def kubeconfig(
    server: str,
    context: str = "fake",
    namespace: str | None = None,
    token: str | None = None,
    exec_cmd: list[str] | None = None,
) -> dict:
    user: dict[str, Any] = {}
    if token:
        user["token"] = token
    if exec_cmd:
        user["exec"] = {
            "apiVersion": "client.authentication.k8s.io/v1",
            "command": exec_cmd[0],
            "args": exec_cmd[1:],
            "interactiveMode": "Never",
        }
    ctx: dict[str, Any] = {"cluster": f"{context}-cluster", "user": f"{context}-user"}
    if namespace:
        ctx["namespace"] = namespace
    return {
        "apiVersion": "v1",
        "kind": "Config",
        "current-context": context,
        "clusters": [{"name": f"{context}-cluster", "cluster": {"server": server}}],
        "contexts": [{"name": context, "context": ctx}],
        "users": [{"name": f"{context}-user", "user": user}],
    }
