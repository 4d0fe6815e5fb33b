"""The simulated Kubernetes API server: real HTTP on loopback.

Enough of the API for the real ``kubectl`` and the kubernetes Python client:
discovery (``/version``, ``/api``, ``/apis``, group versions with short
names), and for every served type create, get, list, watch, update (PUT),
patch (merge; strategic merge treated as merge; JSON patch; server-side
apply) and delete, with kube-apiserver's resourceVersion, paging and
WatchList rules (see ``store.py``), Table responses (``tables.py``), request
bodies in JSON, YAML or protobuf (``negotiation.py``), the ``status`` and
``scale`` subresources, server-side dry-run and SelfSubjectAccessReview.
``/api`` and ``/apis`` answer in the aggregated form (apidiscovery.k8s.io/v2,
one document with every resource) to a client whose Accept asks for it, as
kube-apiserver v1.30+ does; ``aggregated_discovery=False`` makes a server of
an older kind, which answers only the plain form.

Watch streams are chunked JSON lines, one chunk per event, flushed as sent.

Why this module is long: it is one HTTP handler, the API server's request routing
(verbs, subresources, discovery, watch streams); its helpers already live in
``negotiation``, ``tables``, ``scale``, ``pod_proxy`` and ``openapi``.
"""

from __future__ import annotations

import contextlib
import hmac
import logging
import secrets
import select
import shutil
import socket
import ssl
import tempfile
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import ModuleType
from typing import Any
from urllib.parse import urlsplit

import orjson

from kubectl_informer.core.apierrors import ApiError
from kubectl_informer.core.go_json import go_json, go_json_line
from kubectl_informer.core.selectors import Matcher, parse_field_selector, parse_label_selector
from kubectl_informer.sim import kubeconfig as _kubeconfig
from kubectl_informer.sim import (
    metadata as _metadata,  # registers PartialObjectMetadata
)
from kubectl_informer.sim import negotiation, pod_proxy
from kubectl_informer.sim.apply import server_side_apply
from kubectl_informer.sim.faults import Faults
from kubectl_informer.sim.patches import json_patch, merge_patch
from kubectl_informer.sim.query_params import as_text, parse_query, query_bool, query_int64
from kubectl_informer.sim.resources import (
    NAMESPACES,
    SELF_SUBJECT_ACCESS_REVIEWS,
    SUBRESOURCE_VERBS,
    Registry,
    ResourceDef,
)
from kubectl_informer.sim.store import Store
from kubectl_informer.sim.watchcache import (
    BLOCK_TIMEOUT,
    Event,
    Watcher,
    bookmark_line,
    is_bookmark,
    is_close,
    watch_line,
)

log = logging.getLogger(__name__)


def _scale() -> ModuleType:
    # The scale subresource's module (and tables, under it): kubectl scale's, not every start's.
    from kubectl_informer.sim import scale

    return scale


SIM_VERSION = {
    "major": "1",
    "minor": "32",
    "gitVersion": "v1.32.0-kubectl-informer-sim",
    "gitCommit": "sim",
    "gitTreeState": "clean",
    "buildDate": "2026-01-01T00:00:00Z",
    "goVersion": "go1.23.0",
    "compiler": "gc",
    "platform": "linux/amd64",
}

# Initial watch events are written in chunks of about this many bytes (live
# events go one per chunk, flushed at once).
_INITIAL_CHUNK = 256 * 1024

_LIST_SLICE = 400

# The simulator's own endpoint (no real API server has it): the exact watch
# cache of one resource, ``?resource=pods``, as JSON; GET only.
DEBUG_WATCHCACHE_PATH = ["debug", "informer", "watchcache"]

_PATCH_TYPES = {
    "application/merge-patch+json": "merge",
    "application/strategic-merge-patch+json": "strategic",
    "application/json-patch+json": "json",
    "application/apply-patch+yaml": "apply",
}
_OBJECT_TYPES = ("application/json", "application/yaml", "application/vnd.kubernetes.protobuf")


def _unsupported_media_type(accepted: tuple[str, ...]) -> ApiError:
    return ApiError(
        415,
        "UnsupportedMediaType",
        f"the body of the request was in an unknown format - accepted media types include: {', '.join(accepted)}",
    )


def _status_ok() -> dict:
    return {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success"}


def _named(name: str, field_match: Matcher | None) -> Matcher:
    """A watch of one object: the request's field selector (if any) and metadata.name."""

    def matches(fields: dict) -> bool:
        return fields.get("metadata.name") == name and (field_match is None or field_match(fields))

    return matches


def _forbidden_list_option(field: str, detail: str, with_cause: bool = False) -> ApiError:
    """The 422 ListOptions validation answers for a parameter a watch may not combine as sent."""
    message = f"Forbidden: {detail}"
    causes = [{"reason": "FieldValueForbidden", "field": field, "message": message}] if with_cause else None
    return ApiError(422, "Invalid", f'ListOptions.meta.k8s.io "" is invalid: {field}: {message}', causes)


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    allow_reuse_address = True
    request_queue_size = 128

    def __init__(self, addr: tuple[str, int], handler: type[BaseHTTPRequestHandler], sim: SimServer):
        self.sim = sim
        super().__init__(addr, handler)

    def handle_error(self, request: object, client_address: object) -> None:
        # a dropped client is not an error worth a traceback
        log.debug("connection error from %s", client_address, exc_info=True)


class SimServer:
    """The simulated API server (see module doc). ``start()`` binds and serves
    in a background thread; ``url`` is then set."""

    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = 0,
        tls: bool = False,
        watch_cache_size: int | None = None,
        watch_list: bool = True,
        *,
        store: Store | None = None,
        bookmark_interval: float = 60.0,
        too_large_wait: float = BLOCK_TIMEOUT,
        history_limit: int = 10_000,
        default_watch_timeout: float = 1800.0,
        tokens: frozenset[str] | None = None,
        aggregated_discovery: bool = True,
        anonymous: bool = False,
        client_ca: str | None = None,
    ):
        self.host = host
        self.aggregated_discovery = aggregated_discovery
        self.port = port
        self.tls = tls
        self.store = store or Store(
            watch_cache_size=watch_cache_size, history_limit=history_limit, too_large_wait=too_large_wait
        )
        self.faults = Faults(self.store, watch_list=watch_list)
        self.bookmark_interval = bookmark_interval
        self.default_watch_timeout = default_watch_timeout
        # Every request must bear a token (401 otherwise, as kube-apiserver with
        # token authentication and no anonymous access answers): by default the
        # run's own, random, written only into its kubeconfig (write_kubeconfig),
        # so that no other local user can read or change this cluster.
        self.token = secrets.token_urlsafe(32)
        self.tokens = frozenset({self.token}) if tokens is None else frozenset(tokens)
        # For tests of other credentials (basic auth, client certificates): a
        # request bearing no token is served, as kube-apiserver's
        # --anonymous-auth serves one no authenticator recognised; a wrong
        # token is still 401.
        self.anonymous = anonymous
        self.url = ""
        self.ca_pem: bytes | None = None
        self.request_log: deque = deque(maxlen=2000)  # (method, path, status), for tests and debugging
        # (method, path, the Impersonate-* headers as (name, value) pairs) of each request that had one:
        # tests check what the client asked to be, on the server's side.
        self.impersonation_log: deque = deque(maxlen=200)
        # For tests of client certificates: a CA file whose certificates the TLS
        # handshake asks for (not required); client_cert_log says, per request,
        # whether one was presented.
        self.client_ca = client_ca
        self.client_cert_log: deque = deque(maxlen=200)
        self._httpd: _HTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._conns: set[socket.socket] = set()
        self._conns_lock = threading.Lock()
        self._tmpdir: str | None = None
        self._stopped = threading.Event()

    # ------------------------------------------------------------ lifecycle
    def start(self) -> SimServer:
        self._httpd = _HTTPServer((self.host, self.port), _Handler, self)
        self.port = self._httpd.server_address[1]
        scheme = "http"
        if self.tls:
            from kubectl_informer.sim.tls import make_self_signed

            self._tmpdir = tempfile.mkdtemp(prefix="kubectl-informer-sim-tls-")
            try:
                cert, key = make_self_signed(self._tmpdir, self.host)
            except Exception:
                self._httpd.server_close()
                shutil.rmtree(self._tmpdir, ignore_errors=True)
                raise
            ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            ctx.load_cert_chain(cert, key)
            ctx.set_alpn_protocols(["http/1.1"])
            if self.client_ca:
                ctx.verify_mode = ssl.CERT_OPTIONAL
                ctx.load_verify_locations(self.client_ca)
            with open(cert, "rb") as f:
                self.ca_pem = f.read()
            # Handshake in the handler thread, not in the accept loop.
            self._httpd.socket = ctx.wrap_socket(self._httpd.socket, server_side=True, do_handshake_on_connect=False)
            scheme = "https"
        self.url = f"{scheme}://{self.host}:{self.port}"
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.1}, name="sim-apiserver", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving: end every watch, close every connection."""
        if self._httpd is None or self._stopped.is_set():
            return
        self._stopped.set()
        self._httpd.shutdown()
        self.store.close_all()
        with self._conns_lock:
            conns = list(self._conns)
        for c in conns:
            with contextlib.suppress(OSError):
                c.shutdown(socket.SHUT_RDWR)
        self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        if self._tmpdir:
            shutil.rmtree(self._tmpdir, ignore_errors=True)

    def __enter__(self) -> SimServer:
        return self.start() if self._httpd is None else self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def write_kubeconfig(
        self, path: str, context: str = "sim", namespace: str = "default", token: str | None = None
    ) -> str:
        """The kubeconfig for this server at ``path`` (0600), carrying its
        token (``token`` to carry another, for a server given ``tokens``)."""
        if not self.url:
            raise RuntimeError("start the server before writing its kubeconfig")
        return _kubeconfig.write_kubeconfig(path, self.url, context, namespace, self.ca_pem, token or self.token)

    def authority_ok(self, host_header: str | None) -> bool:
        """Whether a request's Host names this server: its loopback address
        (or ``localhost``) and port. Any other name reached it through a DNS
        answer that points at loopback (DNS rebinding: a web page's script
        talking to a local port under its own origin); it is refused."""
        if not host_header:
            return False
        host = f"[{self.host}]" if ":" in self.host else self.host
        default = 443 if self.tls else 80
        names = {host, "localhost"}
        allowed = {f"{n}:{self.port}" for n in names}
        if self.port == default:
            allowed |= names
        return host_header.strip().lower() in allowed

    def active_connections(self) -> int:
        with self._conns_lock:
            return len(self._conns)

    def _track(self, conn: socket.socket, add: bool) -> None:
        with self._conns_lock:
            if add:
                self._conns.add(conn)
            else:
                self._conns.discard(conn)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "kubectl-informer-sim"
    sys_version = ""
    server: _HTTPServer

    # ------------------------------------------------------------ plumbing
    def setup(self) -> None:
        # Headers and body go out in separate writes: without NODELAY, Nagle
        # and the client's delayed ACK add 40 ms to every small response.
        with contextlib.suppress(OSError):
            self.request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        super().setup()
        self.sim = self.server.sim
        self.sim._track(self.connection, True)

    def finish(self) -> None:
        try:
            super().finish()
        except OSError:
            pass
        finally:
            self.sim._track(self.connection, False)

    def log_message(self, format: str, *args: Any) -> None:  # stdlib's signature
        pass

    def _send(
        self, code: int, body: bytes | list[bytes], ctype: str = "application/json", headers: dict | None = None
    ) -> None:
        parts = body if isinstance(body, list) else [body]
        # Logged before the answer goes out: a client that has its answer finds its request in the log.
        self.sim.request_log.append((self.command, self.path, code))
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(sum(len(p) for p in parts)))
        self.send_header("Cache-Control", "no-cache, private")
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        if self.command != "HEAD":
            for p in parts:
                self.wfile.write(p)

    def _send_json(self, code: int, obj: object) -> None:
        self._send(code, orjson.dumps(obj))

    def _send_error(self, err: ApiError) -> None:
        headers = {}
        if err.retry_after:
            headers["Retry-After"] = str(int(err.retry_after))
        self._send(err.status, go_json_line(err.to_status()), headers=headers)

    def _content_type(self) -> str:
        return (self.headers.get("Content-Type") or "application/json").split(";")[0].strip().lower()

    def _read_body(self, accepted: tuple[str, ...] = _OBJECT_TYPES) -> Any:
        if not self._body:
            return None
        if self._content_type() not in accepted:
            raise _unsupported_media_type(accepted)
        return negotiation.decode_body(self._content_type(), self._body)

    def _send_rendered(self, code: int, rdef: ResourceDef, obj: dict) -> None:
        """One object, as the request's Accept asks (a Table row, or itself)."""
        r = self.rendering
        self._send_json(code, obj if r.transform is None else r.transform.object(rdef, obj, self.query, self.sim.store))

    def do_GET(self) -> None:
        self._dispatch()

    def do_HEAD(self) -> None:
        self._dispatch()

    def do_POST(self) -> None:
        self._dispatch()

    def do_PUT(self) -> None:
        self._dispatch()

    def do_PATCH(self) -> None:
        self._dispatch()

    def do_DELETE(self) -> None:
        self._dispatch()

    # ------------------------------------------------------------ routing
    def _dispatch(self) -> None:
        try:
            # Read the whole body first, whatever the answer: bytes left unread
            # would be parsed as the next request on this keep-alive connection.
            self._body = self._read_request_body()
            if not self.sim.authority_ok(self.headers.get("Host")):
                # 421 Misdirected Request: this server does not answer for the
                # name the client used (RFC 9110 15.5.20).
                raise ApiError(
                    421,
                    "MisdirectedRequest",
                    f"the request's Host header does not name this server ({self.sim.host}:{self.sim.port}); refused",
                )
            self._authenticate()
            self._note_client()
            self._route()
        except ApiError as e:
            self._send_error(e)
        except (BrokenPipeError, ConnectionResetError, ssl.SSLError):
            self.close_connection = True
        except Exception:  # a bug here must answer 500 in Status form, not kill the connection
            log.exception("sim server error")
            self._send_error(
                ApiError(
                    500,
                    "InternalError",
                    "Internal error occurred: the simulated API server could not handle this request",
                )
            )

    def _authenticate(self) -> None:
        auth = self.headers.get("Authorization") or ""
        given = auth[len("Bearer ") :].encode() if auth.startswith("Bearer ") else b""
        if not given and self.sim.anonymous:
            return
        # Compared in constant time: how long a refusal takes says nothing of the token.
        if not any(hmac.compare_digest(given, t.encode()) for t in self.sim.tokens) or not given:
            raise ApiError(401, "Unauthorized", "Unauthorized")

    def _note_client(self) -> None:
        """What tests check on the server's side: the Impersonate-* headers, a client certificate."""
        pairs = tuple((k, v) for k, v in self.headers.items() if k.lower().startswith("impersonate-"))
        if pairs:
            self.sim.impersonation_log.append((self.command, self.path, pairs))
        if self.sim.client_ca:
            self.sim.client_cert_log.append(bool(self.connection.getpeercert()))

    def _read_request_body(self) -> bytes:
        if "chunked" in (self.headers.get("Transfer-Encoding") or "").lower():
            return self._read_chunked()  # kubectl create --raw -f streams its file
        try:
            n = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            n = -1
        if n < 0:
            self.close_connection = True
            raise ApiError(400, "BadRequest", "invalid Content-Length")
        return self.rfile.read(n) if n else b""

    def _read_chunked(self, limit: int = 64 << 20) -> bytes:
        parts: list[bytes] = []
        total = 0
        while True:
            line = self.rfile.readline(1024)
            try:
                size = int(line.split(b";")[0].strip(), 16)
            except ValueError:
                self.close_connection = True
                raise ApiError(400, "BadRequest", "invalid chunked request body") from None
            if size == 0:
                while self.rfile.readline(1024) not in (b"\r\n", b"\n", b""):
                    pass  # trailers
                return b"".join(parts)
            total += size
            if total > limit:
                self.close_connection = True
                raise ApiError(413, "RequestEntityTooLarge", "the request body is too large")
            parts.append(self.rfile.read(size))
            self.rfile.readline(1024)

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """The stdlib's answer to a request it cannot parse, as a Status (not HTML)."""
        self.close_connection = True
        reason = {
            400: "BadRequest",
            404: "NotFound",
            405: "MethodNotAllowed",
            414: "RequestURITooLong",
            431: "RequestHeaderFieldsTooLarge",
            501: "NotImplemented",
        }.get(code, "BadRequest")
        with contextlib.suppress(OSError):
            self._send(code, go_json_line(ApiError(code, reason, message or reason).to_status()))

    def _route(self) -> None:
        url = urlsplit(self.path)
        self.query_all = parse_query(url.query)
        self.query = {k: v[0] for k, v in self.query_all.items()}
        parts = [p for p in url.path.split("/") if p]
        reg = self.sim.store.registry
        method = self.command
        if method in ("GET", "HEAD"):
            if parts == ["version"]:
                return self._send_json(200, SIM_VERSION)
            if parts and parts[0] in ("healthz", "readyz", "livez"):
                return self._send(200, b"ok", "text/plain; charset=utf-8")
            if (
                parts in (["api"], ["apis"])
                and self.sim.aggregated_discovery
                and negotiation.wants_aggregated(self.headers.get("Accept") or "")
            ):
                return self._send(
                    200,
                    orjson.dumps(reg.aggregated(core=parts == ["api"])),
                    negotiation.AGGREGATED_DISCOVERY,
                    {"Vary": "Accept"},
                )
            if parts == ["api"]:
                return self._send_json(
                    200,
                    {
                        "kind": "APIVersions",
                        "versions": ["v1"],
                        "serverAddressByClientCIDRs": [
                            {"clientCIDR": "0.0.0.0/0", "serverAddress": f"{self.sim.host}:{self.sim.port}"}
                        ],
                    },
                )
            if parts == ["apis"]:
                return self._send_json(200, reg.group_list())
            if len(parts) == 2 and parts[0] == "apis":
                doc = reg.group(parts[1])
                if doc is None:
                    raise ApiError(404, "NotFound", "the server could not find the requested resource")
                return self._send_json(200, doc)
            if parts == ["api", "v1"] or (len(parts) == 3 and parts[0] == "apis"):
                g, v = ("", "v1") if parts[0] == "api" else (parts[1], parts[2])
                doc = reg.resource_list(g, v)
                if doc is None:
                    raise ApiError(404, "NotFound", "the server could not find the requested resource")
                return self._send_json(200, doc)
            if parts == DEBUG_WATCHCACHE_PATH:
                return self._debug_watchcache()
            if parts[:1] == ["openapi"]:
                return self._openapi(reg, parts)
        if pod_proxy.matches(parts):
            return pod_proxy.serve(self, parts, url.query)
        if len(parts) >= 3 and parts[:2] == ["api", "v1"]:
            return self._resource_request("", "v1", parts[2:])
        if len(parts) >= 4 and parts[0] == "apis":
            return self._resource_request(parts[1], parts[2], parts[3:])
        raise ApiError(404, "NotFound", "the server could not find the requested resource")

    def _resource_request(self, group: str, version: str, rest: list[str]) -> None:
        reg = self.sim.store.registry
        watch_path = False
        if rest and rest[0] == "watch":  # the deprecated /watch/ prefix
            watch_path, rest = True, rest[1:]
        namespace = None
        if (
            len(rest) >= 3
            and rest[0] == "namespaces"
            and not (len(rest) == 3 and rest[2] in NAMESPACES.subresources and group == "")
        ):
            namespace, rest = rest[1], rest[2:]
        if not rest or len(rest) > 3:
            raise ApiError(404, "NotFound", "the server could not find the requested resource")
        rdef = reg.by_path(group, version, rest[0])
        if rdef is None or (namespace is not None and not rdef.namespaced):
            raise ApiError(404, "NotFound", "the server could not find the requested resource")
        name = rest[1] if len(rest) >= 2 else None
        sub = rest[2] if len(rest) == 3 else None
        if sub is not None and sub not in rdef.subresources:
            raise ApiError(404, "NotFound", "the server could not find the requested resource")
        method = self.command
        if name is None:
            verb = {"GET": "list", "HEAD": "list", "POST": "create", "DELETE": "deletecollection"}.get(method)
            if verb == "list" and (watch_path or query_bool(self.query, "watch")):
                verb = "watch"
        else:
            verb = {"GET": "get", "HEAD": "get", "PUT": "update", "PATCH": "patch", "DELETE": "delete"}.get(method)
            if verb == "get" and (watch_path or query_bool(self.query, "watch")):
                verb = "watch"
        allowed = SUBRESOURCE_VERBS[sub] if sub else rdef.verbs
        if verb is None or verb not in allowed:
            raise ApiError(405, "MethodNotAllowed", "the server does not allow this method on the requested resource")
        self.dry_run = self._dry_run(verb)
        accept = self.headers.get("Accept")
        if accept and accept.strip() not in ("application/json", "*/*"):
            # Tables (kubectl get) register with negotiation when first asked
            # for, not at every start: the plugin asks for plain JSON.
            from kubectl_informer.sim import tables  # noqa: F401  imported to register the Table transforms
        self.rendering = negotiation.negotiate(accept) if verb in ("get", "list", "watch") else negotiation.PLAIN
        faults = self.sim.faults
        delay = faults.response_delay(verb)
        if delay:
            time.sleep(delay)
        failure = faults.take_failure(verb, rdef.qualified)
        if failure is not None:
            if verb == "watch" and failure.status == 410:
                return self._watch_error(failure)
            raise failure
        getattr(self, f"_do_{verb}")(rdef, namespace, name, sub)

    # ------------------------------------------------------------ verbs
    def _selectors(self, rdef: ResourceDef) -> tuple[Matcher | None, Matcher | None]:
        """A list's or watch's selectors, after its integers: kube-apiserver's
        query conversion refuses a timeoutSeconds, then a limit, that ParseInt
        refuses before a selector is parsed (a list's timeoutSeconds too)."""
        query_int64(self.query, "timeoutSeconds")
        query_int64(self.query, "limit")
        lm = parse_label_selector(self.query.get("labelSelector"))
        fm = parse_field_selector(self.query.get("fieldSelector"), rdef.field_names, rdef.kind)
        return lm, fm

    def _dry_run(self, verb: str) -> bool:
        vals = [v for v in self.query_all.get("dryRun", []) if v]
        if not vals:
            return False
        if verb in ("get", "list", "watch") or any(v != "All" for v in vals):
            bad = next((v for v in vals if v != "All"), vals[0])
            raise ApiError(400, "BadRequest", f'Invalid dryRun value: "{bad}": supported values: "All"')
        return True

    def _manager(self) -> str:
        """The field manager of a write: ``fieldManager``, else the client's
        User-Agent up to its first "/", as kube-apiserver derives it."""
        given = as_text(self.query.get("fieldManager") or "")
        return given or (self.headers.get("User-Agent") or "unknown").split("/")[0][:128]

    def _openapi(self, reg: Registry, parts: list[str]) -> None:
        """The OpenAPI documents kubectl asks for (the plugin never does: the
        module is loaded by the first ask, not by every start)."""
        from kubectl_informer.sim import openapi

        if parts == ["openapi", "v2"]:
            # An empty document: kubectl (older ones validate with v2) then
            # finds no schema for a kind and leaves validation to the server.
            if "protobuf" in (self.headers.get("Accept") or ""):
                return self._send(200, b"", "application/octet-stream")
            return self._send_json(200, openapi.v2_document())
        if parts == ["openapi", "v3"]:
            return self._send_json(200, openapi.root_document(reg))
        if len(parts) >= 4 and parts[:2] == ["openapi", "v3"]:
            g, v = ("", parts[3]) if parts[2] == "api" else (parts[3], parts[4] if len(parts) > 4 else "")
            doc = openapi.gv_document(reg, g, v)
            if doc is not None:
                return self._send_json(200, doc)
        raise ApiError(404, "NotFound", "the server could not find the requested resource")

    def _debug_watchcache(self) -> None:
        """The watch cache's window and watchers for ``?resource=``
        (store.watch_cache_figures): what the plugin's Server pane shows
        when its target is this simulator."""
        name = self.query.get("resource") or ""
        if not name or len(name) > 253:
            raise ApiError(400, "BadRequest", "resource is required: ?resource=pods")
        self._send_json(200, self.sim.store.watch_cache_figures(name))

    def _do_get(self, rdef: ResourceDef, namespace: str | None, name: str, sub: str | None) -> None:
        if sub == "scale":
            return self._send_json(200, _scale().to_scale(self.sim.store.get(rdef, namespace, name)))
        if self.rendering.transform is not None:
            return self._send_rendered(200, rdef, self.sim.store.get(rdef, namespace, name))
        e = self.sim.store.get_entry(rdef, namespace, name)
        self._send(200, e.raw)

    def _do_list(self, rdef: ResourceDef, namespace: str | None, name: str | None, sub: str | None) -> None:
        lm, fm = self._selectors(rdef)
        q = self.query
        if "sendInitialEvents" in q:
            raise ApiError(
                422,
                "Invalid",
                'ListOptions.meta.k8s.io "" is invalid: sendInitialEvents: Forbidden: '
                "sendInitialEvents is forbidden for list",
            )
        limit = max(query_int64(q, "limit") or 0, 0)  # a negative limit lists everything, as 0 does
        entries, rv, cont, remaining = self.sim.store.list_entries(
            rdef,
            namespace,
            lm,
            fm,
            q.get("resourceVersion", ""),
            q.get("resourceVersionMatch", ""),
            limit,
            q.get("continue", ""),
        )
        if self.rendering.transform is not None and not _metadata.is_partial(self.rendering):
            list_meta: dict[str, str | int] = {"resourceVersion": str(rv)}
            if cont:
                list_meta["continue"] = cont
            if remaining is not None:
                list_meta["remainingItemCount"] = remaining
            return self._send_json(
                200, self.rendering.transform.list(rdef, [e.obj() for e in entries], list_meta, q, self.sim.store)
            )
        meta = f'"resourceVersion":"{rv}"'
        if cont:
            meta += f',"continue":"{cont}"'
        if remaining is not None:
            meta += f',"remainingItemCount":{remaining}'
        head = (
            f'{{"kind":"{rdef.list_kind}","apiVersion":"{rdef.api_version}","metadata":{{{meta}}},"items":['
        ).encode()
        raws = [e.raw for e in entries]
        if _metadata.is_partial(self.rendering):  # from each object's bytes, kept (a 100k list stays fast)
            head, raws = _metadata.list_head(meta), [_metadata.partial(r) for r in raws]
        # Items are joined in slices of a few hundred: one huge join would
        # allocate the whole body (150 MB for 50k pods) at once.
        parts = [head]
        for i in range(0, len(raws), _LIST_SLICE):
            if i:
                parts.append(b",")
            parts.append(b",".join(raws[i : i + _LIST_SLICE]))
        parts.append(b"]}")
        self._send(200, parts)

    def _object_body(self, rdef: ResourceDef) -> dict:
        body = self._read_body()
        if not isinstance(body, dict):
            raise ApiError(400, "BadRequest", "the body of the request must be an object")
        kind, api_version = body.get("kind"), body.get("apiVersion")
        if api_version not in (None, "", rdef.api_version):
            raise ApiError(
                400,
                "BadRequest",
                f"the API version in the data ({api_version}) does not match the "
                f"expected API version ({rdef.api_version})",
            )
        if kind and kind != rdef.kind:
            raise ApiError(400, "BadRequest", f"kind {kind} does not match the resource {rdef.resource}")
        return body

    def _do_create(self, rdef: ResourceDef, namespace: str | None, name: str | None, sub: str | None) -> None:
        body = self._object_body(rdef)
        if rdef is SELF_SUBJECT_ACCESS_REVIEWS:
            body["status"] = {"allowed": True, "reason": "the simulated API server allows every request"}
            body.setdefault("metadata", {})["creationTimestamp"] = None
            return self._send_json(201, body)
        self._send_json(
            201, self.sim.store.create(rdef, body, namespace, dry_run=self.dry_run, manager=self._manager())
        )

    def _do_update(self, rdef: ResourceDef, namespace: str | None, name: str, sub: str | None) -> None:
        if sub == "scale":
            return self._set_scale(rdef, namespace, name, self._read_body())
        body = self._object_body(rdef)
        meta = body.setdefault("metadata", {})
        if not isinstance(meta, dict):
            raise ApiError(400, "BadRequest", "metadata must be an object")
        if meta.get("name") and meta["name"] != name:
            raise ApiError(
                400,
                "BadRequest",
                f"the name of the object ({meta['name']}) does not match the name on the URL ({name})",
            )
        meta["name"] = name
        if namespace:
            meta["namespace"] = namespace
        self._send_json(
            200, self.sim.store.update(rdef, body, subresource=sub or "", dry_run=self.dry_run, manager=self._manager())
        )

    def _set_scale(self, rdef: ResourceDef, namespace: str | None, name: str, scale_obj: Any) -> None:
        store = self.sim.store
        want = _scale().replicas_of(scale_obj, rdef.kind, name)
        rv = ((scale_obj or {}).get("metadata") or {}).get("resourceVersion")
        with store.lock:
            obj = store.get(rdef, namespace, name)
            if rv:
                obj["metadata"]["resourceVersion"] = rv
            obj.setdefault("spec", {})["replicas"] = want
            new = store.update(rdef, obj, subresource="", dry_run=self.dry_run, manager=self._manager())
        self._send_json(200, _scale().to_scale(new))

    def _do_patch(self, rdef: ResourceDef, namespace: str | None, name: str, sub: str | None) -> None:
        # The PATCH route takes only the patch media types: anything else is
        # refused before PatchResource reads a body, in go-restful's words.
        ptype = _PATCH_TYPES.get(self._content_type())
        if ptype is None:
            raise ApiError(415, "UnsupportedMediaType", "415: Unsupported Media Type")
        body = self._read_body(tuple(_PATCH_TYPES))
        store = self.sim.store
        if ptype == "apply":
            code, obj = server_side_apply(
                store,
                rdef,
                namespace,
                name,
                body,
                self.query.get("fieldManager", ""),
                query_bool(self.query, "force"),
                self.dry_run,
            )
            return self._send_json(code, obj)
        if sub == "scale":
            current = _scale().to_scale(store.get(rdef, namespace, name))
            new = json_patch(current, body) if ptype == "json" else merge_patch(current, body)
            return self._set_scale(rdef, namespace, name, new)
        self._send_json(
            200,
            store.patch(
                rdef, namespace, name, body, ptype, subresource=sub or "", dry_run=self.dry_run, manager=self._manager()
            ),
        )

    def _do_delete(self, rdef: ResourceDef, namespace: str | None, name: str, sub: str | None) -> None:
        opts = self._read_body()
        opts = opts if isinstance(opts, dict) else {}
        if "dryRun" in opts and opts["dryRun"]:
            self.query_all["dryRun"] = list(opts["dryRun"])
            self.dry_run = self._dry_run("delete")
        grace = opts.get("gracePeriodSeconds", self.query.get("gracePeriodSeconds"))
        try:
            grace = None if grace in (None, "") else int(grace)
        except (TypeError, ValueError):
            raise ApiError(400, "BadRequest", f"invalid gracePeriodSeconds {grace!r}") from None
        pre = opts.get("preconditions") or {}
        obj = self.sim.store.delete(
            rdef,
            namespace,
            name,
            pre.get("resourceVersion"),
            pre.get("uid"),
            grace_period=grace,
            dry_run=self.dry_run,
            propagation=self._propagation(opts),
        )
        self._send_json(200, obj)

    def _propagation(self, opts: dict) -> str | None:
        """DeleteOptions' propagationPolicy (or the older orphanDependents), validated as kube-apiserver does."""
        policy = opts.get("propagationPolicy", self.query.get("propagationPolicy"))
        orphan = opts.get("orphanDependents", self.query.get("orphanDependents"))
        if policy not in (None, "", "Orphan", "Background", "Foreground"):
            raise ApiError(
                422,
                "Invalid",
                f'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: '
                f'Unsupported value: {go_json(policy)}: supported values: "Foreground", '
                '"Background", "Orphan", "nil"',
            )
        if policy and orphan not in (None, ""):
            raise ApiError(
                422,
                "Invalid",
                'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: '
                'Invalid value: "' + policy + '": orphanDependents and '
                "deletionPropagation cannot be both set",
            )
        if not policy and orphan not in (None, ""):
            return "Orphan" if orphan is True or str(orphan).lower() == "true" else "Background"
        return policy or None

    def _do_deletecollection(self, rdef: ResourceDef, namespace: str | None, name: str | None, sub: str | None) -> None:
        self._read_body()
        lm, fm = self._selectors(rdef)
        self.sim.store.delete_collection(rdef, namespace, lm, fm)
        self._send_json(200, _status_ok())

    # ------------------------------------------------------------ watch
    def _start_chunked(self) -> None:
        self.sim.request_log.append((self.command, self.path, 200))  # before the answer, as _send
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Transfer-Encoding", "chunked")
        self.send_header("Cache-Control", "no-cache, private")
        self.end_headers()
        self.wfile.flush()

    def _chunk(self, data: bytes) -> None:
        if data:
            self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))

    def _end_chunked(self) -> None:
        self.wfile.write(b"0\r\n\r\n")

    def _watch_error(self, err: ApiError) -> None:
        # kube-apiserver answers a watch it cannot serve from the cache (too old,
        # too large) with 200 and a single ERROR event.
        self._start_chunked()
        self._chunk(watch_line("ERROR", go_json(err.to_status()).encode()))
        self._end_chunked()

    def _do_watch(self, rdef: ResourceDef, namespace: str | None, name: str | None, sub: str | None) -> None:
        q = self.query
        store = self.sim.store
        lm, fm = self._selectors(rdef)
        if name is not None:  # watch of one object: a field selector on its name
            fm = _named(name, fm)
        allow_bookmarks = query_bool(q, "allowWatchBookmarks")
        send_initial = self._send_initial_events()
        timeout = self._watch_timeout()
        try:
            w, initial, end_rv = store.start_watch(
                rdef,
                namespace,
                lm,
                fm,
                q.get("resourceVersion", ""),
                allow_bookmarks,
                send_initial,
                self._encoder(rdef),
                user_agent=self.headers.get("User-Agent") or "",
            )
        except ApiError as e:
            if e.status in (410, 504):
                return self._watch_error(e)
            raise
        try:
            self._stream(rdef, w, initial, end_rv, timeout)
        finally:
            store.stop_watch(w)

    def _send_initial_events(self) -> bool | None:
        """The watch's sendInitialEvents (None when not asked), defaulted and
        checked as kube-apiserver v1.36 does (``SetListOptionsDefaults``, then
        ``ValidateListOptions``): with the WatchList feature on, a watch from
        resourceVersion "" or "0" that names neither sendInitialEvents nor a
        resourceVersionMatch is one (its state, then an initial-events-end
        bookmark when bookmarks are allowed); one that names sendInitialEvents
        needs resourceVersionMatch NotOlderThan. A server without the feature
        rejects it or, one that predates it, ignores it (and the
        resourceVersionMatch that came with it)."""
        q, faults = self.query, self.sim.faults
        raw = q.get("sendInitialEvents")
        match = q.get("resourceVersionMatch", "")
        if raw is None and not match and faults.watch_list_enabled and q.get("resourceVersion", "") in ("", "0"):
            return True
        send_initial = None if raw is None else query_bool(q, "sendInitialEvents")
        if send_initial is not None and not faults.watch_list_enabled:
            if faults.watch_list_mode == "reject":
                raise _forbidden_list_option(
                    "sendInitialEvents",
                    "sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled",
                    with_cause=True,
                )
            return None
        if send_initial is None:
            if match:
                raise _forbidden_list_option(
                    "resourceVersionMatch",
                    "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided",
                )
            return None
        if match != "NotOlderThan":
            raise _forbidden_list_option(
                "resourceVersionMatch", "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan"
            )
        return send_initial

    def _watch_timeout(self) -> float:
        """timeoutSeconds, whole seconds: 0 or unset is the server's own
        timeout, and a negative one has passed already (the watch ends at
        once), as kube-apiserver's ListResource reads it."""
        timeout = query_int64(self.query, "timeoutSeconds") or 0
        return self.sim.default_watch_timeout if timeout == 0 else float(timeout)

    def _encoder(self, rdef: ResourceDef) -> Callable[[bytes], bytes] | None:
        """How a watch event's object is written: None for as stored, else
        a function of its JSON bytes (a Table row, ...)."""
        t = self.rendering.transform
        if t is None:
            return None
        store, q = self.sim.store, self.query
        return lambda raw: orjson.dumps(t.object(rdef, orjson.loads(raw), q, store))

    def _write_initial(self, rdef: ResourceDef, w: Watcher, initial: Iterable[bytes], end_rv: int | None) -> None:
        """The initial events (a WatchList's, a watch from "0"), in the asked
        kind too, in chunks; then a WatchList's initial-events-end bookmark."""
        initial_line = _metadata.watch_line if _metadata.is_partial(self.rendering) else bytes
        buf, size = [], 0
        for line in initial:
            line = initial_line(line)
            w.sent += 1
            buf.append(line)
            size += len(line)
            if size >= _INITIAL_CHUNK:
                self._chunk(b"".join(buf))
                buf, size = [], 0
        if end_rv is not None:
            buf.append(bookmark_line(rdef, end_rv, initial_end=True))
            with self.sim.store.lock:
                w.state.bookmarks_sent += 1
        self._chunk(b"".join(buf))

    def _stream(
        self, rdef: ResourceDef, w: Watcher, initial: Iterable[bytes], end_rv: int | None, timeout: float
    ) -> None:
        sim, store, faults = self.sim, self.sim.store, self.sim.faults
        enc = self._encoder(rdef)
        self._start_chunked()
        self._write_initial(rdef, w, initial, end_rv)
        start = time.monotonic()
        deadline = start + max(0.0, timeout)
        interval = sim.bookmark_interval
        next_bookmark = start + interval if (w.bookmarks and interval > 0) else None
        while not sim._stopped.is_set():
            now = time.monotonic()
            if now >= deadline:
                break
            if next_bookmark is not None and now >= next_bookmark:
                store.bookmark(w)
                next_bookmark = now + interval
            wait = deadline - now
            if next_bookmark is not None:
                wait = min(wait, next_bookmark - now)
            item = w.next(min(wait, 0.5))
            if item is None:
                if self._client_gone():
                    self.close_connection = True
                    return
                continue
            # A stall holds this event (and the queue behind it) until it ends
            # or the watch is closed.
            while (stall := faults.stall_remaining()) > 0 and not w.closed and not sim._stopped.is_set():
                time.sleep(min(stall, 0.05))
            # A lag holds each event until its commit time plus the lag.
            lag = faults.watch_lag(rdef.resource) if type(item) is Event else 0.0
            while lag and (hold := item.t + lag - faults.now()) > 0 and not w.closed and not sim._stopped.is_set():
                time.sleep(min(hold, 0.05))
            if is_close(item):
                if w.close_reason in ("abrupt", "stopped"):
                    self._cut()
                    return
                break
            if is_bookmark(item):
                # cacheWatcher.process: a bookmark only when newer than the watch's start.
                if item.rv > w.floor and item.rv >= w.last_rv:
                    self._chunk(bookmark_line(rdef, item.rv))
                    w.last_rv = max(w.last_rv, item.rv)
                    with store.lock:
                        w.state.bookmarks_sent += 1
                continue
            if item.rv <= w.last_rv:
                continue  # already in the initial state sent to this watcher
            t = w.filter(item)
            w.last_rv = item.rv
            if t is not None:
                self._chunk(item.line(t) if enc is None else watch_line(t, enc(item.entry.raw)))
                w.sent += 1
        self._end_chunked()

    def _client_gone(self) -> bool:
        """Has the client closed a quiet watch? (Otherwise the handler would
        only notice at its next write, which on a quiet resource may be the
        watch's timeout, half an hour later.)"""
        conn = self.connection
        try:
            readable, _, _ = select.select([conn], [], [], 0)
            if not readable:
                return False
            if isinstance(conn, ssl.SSLSocket):
                conn.setblocking(False)
                try:
                    return conn.recv(1) == b""
                except (ssl.SSLWantReadError, BlockingIOError):
                    return False
                finally:
                    conn.setblocking(True)
            return conn.recv(1, socket.MSG_PEEK) == b""
        except (OSError, ValueError):
            return True

    def _cut(self) -> None:
        self.close_connection = True
        with contextlib.suppress(OSError):
            self.connection.shutdown(socket.SHUT_RDWR)


__all__ = ["SimServer", "SIM_VERSION"]
