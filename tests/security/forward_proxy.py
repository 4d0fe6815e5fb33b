"""A forward HTTP proxy on 127.0.0.1 for the transport tests: CONNECT
tunnels (https) and absolute-form GETs (http), every request counted.

Whatever host a request names, the proxy connects to 127.0.0.1 at its
port, as if the name resolved there: a server behind the proxy can be named
by a host that is not loopback (loopback is never proxied from the
environment) without DNS or /etc/hosts. An absolute-form GET is sent on
with ``Host`` set to that address (the simulator serves loopback only) and
``Connection: close``; its answer is piped back as it comes (watches
stream), then both connections close.
"""

from __future__ import annotations

import selectors
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit


def _pipe(a: socket.socket, b: socket.socket) -> None:
    """Bytes both ways until either side closes."""
    sel = selectors.DefaultSelector()
    sel.register(a, selectors.EVENT_READ, b)
    sel.register(b, selectors.EVENT_READ, a)
    try:
        while True:
            for key, _ in sel.select(timeout=30):
                data = key.fileobj.recv(65536)
                if not data:
                    return
                key.data.sendall(data)
    except OSError:
        return
    finally:
        sel.close()


class ForwardProxy:
    def __init__(self) -> None:
        self.requests: list[tuple[str, str]] = []  # (method, target as the client sent it)
        self.headers: list[dict[str, str]] = []
        self._lock = threading.Lock()
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:
                pass

            def _record(self) -> None:
                with proxy._lock:
                    proxy.requests.append((self.command, self.path))
                    proxy.headers.append(dict(self.headers.items()))

            def do_CONNECT(self) -> None:
                self._record()
                port = int(self.path.rpartition(":")[2])
                upstream = socket.create_connection(("127.0.0.1", port))
                self.send_response(200, "Connection established")
                self.end_headers()
                self.wfile.flush()
                _pipe(self.connection, upstream)
                upstream.close()
                self.close_connection = True

            def do_GET(self) -> None:
                self._record()
                url = urlsplit(self.path)
                if not url.scheme:  # origin-form: not a proxy request
                    self.send_error(400, "absolute-form expected")
                    return
                port = url.port or 80
                upstream = socket.create_connection(("127.0.0.1", port))
                target = (url.path or "/") + (f"?{url.query}" if url.query else "")
                head = [f"GET {target} HTTP/1.1", f"Host: 127.0.0.1:{port}", "Connection: close"]
                head += [
                    f"{k}: {v}"
                    for k, v in self.headers.items()
                    if k.lower() not in ("host", "connection", "proxy-connection", "proxy-authorization")
                ]
                upstream.sendall(("\r\n".join(head) + "\r\n\r\n").encode("latin-1"))
                _pipe(self.connection, upstream)
                upstream.close()
                self.close_connection = True

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self._thread = threading.Thread(
            target=self.server.serve_forever, name="proxy process_request_thread", daemon=True
        )

    def start(self) -> ForwardProxy:
        self._thread.start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def methods(self) -> list[str]:
        with self._lock:
            return [m for m, _ in self.requests]
