"""The light client's HTTP: the standard library's ``http.client``, pooled
and retried as urllib3 does it for the kubernetes client.

urllib3 is itself built on ``http.client`` (its connections are
``http.client.HTTPConnection``s, its responses read through
``http.client.HTTPResponse``), so the bytes on the wire are the same; what
urllib3 adds on top -- a pool of kept-alive connections, three quick retries
of a request that got no answer, TLS set up from a kubeconfig -- is the
little this module does. Importing urllib3 costs about 30 ms of CPU and
4 MiB of memory (it loads ``importlib.metadata`` and ``logging``) before the
first request, more than kubeconfig and discovery together; see
docs/clusters.md.
"""

from __future__ import annotations

import contextlib
import http.client
import os
import socket
import ssl
import threading
import weakref
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

# Errors of a request that got no answer (refused, reset, DNS, TLS, a
# kept-alive connection the server had closed): retried, as urllib3 retries them.
_NO_ANSWER = (OSError, http.client.HTTPException)


def tls_context(cfg: Any) -> ssl.SSLContext:
    """The TLS settings urllib3's ``create_urllib3_context`` and
    ``ssl_wrap_socket`` give the kubernetes client's pool: TLS 1.2 or newer,
    the server verified against the kubeconfig's CA (the system's when it
    names none) unless ``insecure-skip-tls-verify``, a client certificate
    when there is one, HTTP/1.1 by ALPN."""
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.minimum_version = ssl.TLSVersion.TLSv1_2
    ctx.options |= ssl.OP_NO_COMPRESSION | ssl.OP_NO_TICKET
    ctx.post_handshake_auth = True
    ctx.hostname_checks_common_name = False
    if cfg.verify_ssl:
        ctx.check_hostname = True
        ctx.verify_mode = ssl.CERT_REQUIRED
        if cfg.ssl_ca_cert:
            ctx.load_verify_locations(cfg.ssl_ca_cert)
        else:
            ctx.load_default_certs()
    else:
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE
    if cfg.cert_file:
        ctx.load_cert_chain(cfg.cert_file, cfg.key_file)
    ctx.set_alpn_protocols(["http/1.1"])
    return ctx


class _HTTPSConnection(http.client.HTTPSConnection):
    """An HTTPS connection that checks the certificate against (and sends
    as SNI) ``tls-server-name`` when the kubeconfig sets one."""

    def __init__(
        self, host: str, port: int, timeout: float | None, context: ssl.SSLContext, server_hostname: str | None
    ) -> None:
        super().__init__(host, port, timeout=timeout, context=context)
        self._tls_context = context
        self._server_hostname = server_hostname or host

    def connect(self) -> None:
        http.client.HTTPConnection.connect(self)
        self.sock = self._tls_context.wrap_socket(self.sock, server_hostname=self._server_hostname)


class InFlight:
    """The connections of one client's requests from the moment they are
    taken until their answer is released, so that stopping a run can cut a
    request still waiting for its headers (a server that accepted it and
    says nothing) as well as one reading its body."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        # Weak: a connection dropped after an error (urllib3 forgets it) goes by itself.
        self._conns: weakref.WeakSet = weakref.WeakSet()
        self.aborted = False

    def started(self, conn: http.client.HTTPConnection) -> None:
        with self._lock:
            if not self.aborted:
                self._conns.add(conn)
                return
        raise ConnectionAbortedError("the run is stopping")

    def connected(self) -> None:
        """After connecting: an abort that came meanwhile found no socket to cut."""
        if self.aborted:
            raise ConnectionAbortedError("the run is stopping")

    def finished(self, conn: http.client.HTTPConnection) -> None:
        with self._lock:
            self._conns.discard(conn)

    def abort(self) -> None:
        with self._lock:
            self.aborted = True  # first: a request connecting now sees it in connected()
            conns = list(self._conns)
        for conn in conns:
            sock = conn.sock
            if sock is not None:
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)


class Pool:
    """Kept-alive connections to one server, at most ``maxsize`` idle (the
    kubernetes client keeps five per CPU)."""

    def __init__(self, scheme: str, host: str, port: int, tls: Any, maxsize: int) -> None:
        self.scheme, self.host, self.port = scheme, host, port
        self._tls = tls  # () -> (SSLContext, server name) for https
        self._idle: list[http.client.HTTPConnection] = []
        self._lock = threading.Lock()
        self.maxsize = maxsize

    def _connection(self, connect_timeout: float | None) -> http.client.HTTPConnection:
        with self._lock:
            if self._idle:
                return self._idle.pop()
        if self.scheme == "https":
            ctx, server_name = self._tls()
            return _HTTPSConnection(self.host, self.port, connect_timeout, ctx, server_name)
        return http.client.HTTPConnection(self.host, self.port, timeout=connect_timeout)

    def put(self, conn: http.client.HTTPConnection) -> None:
        with self._lock:
            if len(self._idle) < self.maxsize:
                self._idle.append(conn)
                return
        conn.close()

    def clear(self) -> None:
        with self._lock:
            idle, self._idle = self._idle, []
        for conn in idle:
            conn.close()

    def request(
        self,
        target: str,
        headers: dict[str, str] | Headers,
        timeout: tuple[float | None, float | None],
        retries: int,
        in_flight: InFlight | None = None,
    ) -> Response:
        """GET ``target``; a request that got no answer is sent again, on a
        new connection, at most ``retries`` times (urllib3's ``Retry(total=3)``
        under the kubernetes client), then its error is raised."""
        connect_timeout, read_timeout = timeout
        in_flight = in_flight or InFlight()
        for attempt in range(retries + 1):
            conn = self._connection(connect_timeout)
            in_flight.started(conn)
            sent = False
            try:
                if conn.sock is None:
                    conn.connect()
                in_flight.connected()
                conn.sock.settimeout(read_timeout)
                sock = conn.sock
                conn.request("GET", target, headers=headers)  # type: ignore[arg-type]  # Headers reads as the Mapping http.client iterates, with a name repeated
                sent = True
                resp = conn.getresponse()
            except _NO_ANSWER as e:
                conn.close()
                in_flight.finished(conn)
                # A server that took the request and let its time pass is not
                # asked again (client-go's deadline covers the whole request).
                if attempt == retries or in_flight.aborted or (sent and isinstance(e, TimeoutError)):
                    raise
                continue
            return Response(self, conn, resp, sock, in_flight)
        raise AssertionError("unreachable")


class Response:
    """What ``rest`` and ``listwatch`` use of a urllib3 response, over an
    ``http.client`` one: ``status``, ``reason``, ``headers``, ``data``,
    ``read1``, and ``shutdown``/``close``/``release_conn``."""

    chunked = False  # http.client undoes the chunking: read1 serves both kinds

    def __init__(
        self,
        pool: Pool,
        conn: http.client.HTTPConnection,
        resp: http.client.HTTPResponse,
        sock: socket.socket,
        in_flight: InFlight,
    ) -> None:
        self._pool, self._resp, self._sock = pool, resp, sock
        self._conn: http.client.HTTPConnection | None = conn  # None once closed or given back
        self._in_flight = in_flight
        self.status = resp.status
        self.reason = resp.reason
        self.headers = resp.headers

    @property
    def data(self) -> bytes:
        try:
            return self._resp.read()
        except _NO_ANSWER as e:
            raise ConnectionError(f"Connection broken: {e!r}", e) from None

    def read1(self, n: int) -> bytes:
        """Whatever has arrived, up to ``n`` bytes; b"" at the end. A body
        cut short (a reset, or the connection closed before its
        Content-Length) raises ConnectionError, as urllib3 does."""
        try:
            data = self._resp.read1(n)
        except _NO_ANSWER as e:
            raise ConnectionError(f"Connection broken: {e!r}", e) from None
        if not data and n:
            if self._resp.length:
                raise ConnectionError(f"Connection broken: {self._resp.length} bytes of the body never came")
            self._resp.close()  # read to its end: the connection can serve the next request
        return data

    def supports_chunked_reads(self) -> bool:
        return False

    def set_read_timeout(self, seconds: float) -> None:
        """The longest the next read may wait (a watch's time left)."""
        with contextlib.suppress(OSError):
            self._sock.settimeout(max(seconds, 0.001))

    def shutdown(self) -> None:
        """Unblock a read in progress on another thread."""
        with contextlib.suppress(OSError):
            self._sock.shutdown(socket.SHUT_RDWR)

    def close(self) -> None:
        conn, self._conn = self._conn, None
        self._resp.close()
        if conn is not None:
            conn.close()
            self._in_flight.finished(conn)

    def release_conn(self) -> None:
        """Give the connection back for the next request if its answer was
        read to the end, else close it (it must never serve another)."""
        conn, self._conn = self._conn, None
        if conn is None:
            return
        self._in_flight.finished(conn)
        if self._resp.isclosed() and not self._resp.will_close and conn.sock is not None:
            self._pool.put(conn)
        else:
            self._resp.close()
            conn.close()


class Headers(list):
    """Request headers as (name, value) pairs, a name possibly repeated
    (``Impersonate-Group``, one line per group), in the shape ``http.client``'s
    ``request`` reads: iterating gives the names, ``items()`` every pair."""

    def __iter__(self) -> Iterator[str]:
        return (name for name, _ in list.__iter__(self))

    def items(self) -> list[tuple[str, str]]:
        return list(list.__iter__(self))


def split(url: str) -> tuple[tuple[str, str, int], str]:
    """((scheme, host, port), path and query) of an absolute URL."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    port = parts.port or (443 if scheme == "https" else 80)
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return (scheme, parts.hostname or "", port), target


def pool_size() -> int:
    return (os.cpu_count() or 1) * 5
