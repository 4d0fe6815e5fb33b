"""A tiny raw HTTP client for the simulator's tests: no kubernetes client in
between, so tests see exactly what the server sends."""

from __future__ import annotations

import http.client
import json
import ssl
from urllib.parse import urlencode, urlsplit


class RawClient:
    def __init__(self, url: str, ca_pem: bytes | None = None, timeout: float = 10.0, token: str | None = None):
        """``token``: the simulator's (SimServer.token), sent as a bearer token."""
        u = urlsplit(url)
        self.auth = {"Authorization": f"Bearer {token}"} if token else {}
        self.host, self.port, self.https = u.hostname, u.port, u.scheme == "https"
        self.timeout = timeout
        self.ctx = None
        if self.https:
            self.ctx = ssl.create_default_context(cadata=ca_pem.decode())

    def _conn(self):
        if self.https:
            return http.client.HTTPSConnection(self.host, self.port, timeout=self.timeout, context=self.ctx)
        return http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)

    def request(self, method: str, path: str, body=None, ctype: str = "application/json", **params):
        if params:
            path += ("&" if "?" in path else "?") + urlencode({k: v for k, v in params.items() if v is not None})
        conn = self._conn()
        data = None if body is None else json.dumps(body).encode()
        headers = dict(self.auth, **({"Content-Type": ctype} if data is not None else {}))
        conn.request(method, path, body=data, headers=headers)
        resp = conn.getresponse()
        raw = resp.read()
        conn.close()
        try:
            obj = json.loads(raw) if raw else None
        except ValueError:
            obj = raw.decode()
        return resp.status, obj, dict(resp.getheaders())

    def get(self, path: str, **params):
        status, obj, _ = self.request("GET", path, **params)
        return status, obj

    def watch(self, path: str, **params) -> WatchStream:
        params["watch"] = "true"
        path += ("&" if "?" in path else "?") + urlencode({k: v for k, v in params.items() if v is not None})
        conn = self._conn()
        conn.request("GET", path, headers=self.auth)
        resp = conn.getresponse()
        return WatchStream(conn, resp)


class WatchStream:
    def __init__(self, conn, resp):
        self.conn, self.resp = conn, resp
        self.status = resp.status

    def next(self):
        """The next event dict, or None when the stream ended cleanly."""
        line = self.resp.readline()
        if not line:
            return None
        return json.loads(line)

    def take(self, n: int) -> list[dict]:
        out = []
        for _ in range(n):
            ev = self.next()
            if ev is None:
                break
            out.append(ev)
        return out

    def rest(self) -> list[dict]:
        out = []
        while (ev := self.next()) is not None:
            out.append(ev)
        return out

    def close(self):
        self.conn.close()
