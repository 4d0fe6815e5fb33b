"""The common kubeconfigs without importing the kubernetes client.

Importing ``kubernetes.config`` loads most of the kubernetes client (its
package imports the API models' machinery, pydantic, oauthlib, dateutil...):
about 0.15 s of a start-up that is otherwise 0.1 s. Most kubeconfigs need
none of it: a server, a CA (or ``insecure-skip-tls-verify``), and a bearer
token or a client certificate. For those, ``LightClient`` sends what the
kubernetes client's ``RESTClientObject`` would (same TLS settings, same
headers, same query encoding, same retries) over ``light_http``, without
urllib3 either. Exec credential plugins are run by ``exec_plugin`` for
either client; impersonation is kube.config's (headers on either client).
Everything else -- auth providers, basic auth, proxies, any key we do not
know, in-cluster -- raises
``Unsupported`` and goes through the kubernetes client's loader.
"""

from __future__ import annotations

import atexit
import base64
import contextlib
import os
import ssl
import threading
from collections.abc import Iterable
from typing import Any
from urllib.parse import quote

from kubectl_informer.kube import light_http

# A request that got no answer is sent again this many times: urllib3's
# Retry(total=3), which the kubernetes client's pool gets from kube.config.
RETRIES = 3

# The keys the light path reads; a cluster or user with any other key (for
# example "exec", "auth-provider", "proxy-url", "username", "as") is left to
# the kubernetes client.
CLUSTER_KEYS = frozenset(
    (
        "server",
        "certificate-authority",
        "certificate-authority-data",
        "insecure-skip-tls-verify",
        "tls-server-name",
        "extensions",
    )
)
USER_KEYS = frozenset(
    (
        "token",
        "tokenFile",
        "client-certificate",
        "client-certificate-data",
        "client-key",
        "client-key-data",
        "extensions",
        "exec",
    )
)  # impersonation: kube.config's, on either client


class LightConfig:
    """What ``rest`` and ``discovery`` read of a client's configuration (the
    names are the kubernetes client's ``Configuration`` attributes)."""

    def __init__(self, host: str) -> None:
        self.host = host
        self.verify_ssl = True
        self.ssl_ca_cert: str | None = None
        self.cert_file: str | None = None
        self.key_file: str | None = None
        self.tls_server_name: str | None = None
        self.authorization: str | None = None  # the Authorization header's value
        self.exec_auth: Any = None  # an exec_plugin.ExecAuthenticator: asked for the header instead
        # The Impersonate-* headers (kube.overrides.impersonation), sent with every request.
        self.impersonate: tuple[tuple[str, bytes], ...] = ()


class LightClient:
    """GETs as the kubernetes client's ``RESTClientObject`` sends them (same
    headers, query encoding, TLS settings and retries), through
    ``light_http``'s pooled ``http.client`` connections instead of urllib3."""

    def __init__(self, cfg: LightConfig, user_agent: str, retries: int = RETRIES) -> None:
        self.configuration = cfg
        self.user_agent = user_agent
        self.retries = retries
        self._pools: dict[tuple[str, str, int], light_http.Pool] = {}
        self._lock = threading.Lock()
        self._tls: tuple[ssl.SSLContext, str | None] | None = None
        self.in_flight = light_http.InFlight()

    def url(self, path: str, query: Iterable[tuple[str, Any]]) -> str:
        """The URL as the kubernetes client's ``param_serialize`` writes it."""
        pairs = [f"{k}={quote(_query_value(v))}" for k, v in query]
        return self.configuration.host + path + ("?" + "&".join(pairs) if pairs else "")

    def get(
        self, url: str, accept: str, timeout: float | tuple[float | None, float | None] | None
    ) -> light_http.Response:
        """The open response (body not read), as the kubernetes client's
        ``call_api`` returns it. A request that got no answer raises its
        OSError (``ConnectionRefusedError``, ``ssl.SSLError``...) or
        ``http.client.HTTPException`` after the retries."""
        headers = {"Accept": accept, "User-Agent": self.user_agent}
        auth, creds = self.configuration.exec_auth, None
        if auth is not None:
            # No credentials, no request: a plugin that fails raises here.
            creds = auth.credentials()
            if creds.token:
                headers["authorization"] = f"Bearer {creds.token}"
        elif self.configuration.authorization:
            headers["authorization"] = self.configuration.authorization
        sent: dict[str, str] | light_http.Headers = headers
        if self.configuration.impersonate:
            sent = light_http.Headers([*headers.items(), *self.configuration.impersonate])
        t: tuple[float | None, float | None] = (
            timeout if isinstance(timeout, tuple) else (timeout or None, timeout or None)
        )
        origin, target = light_http.split(url)
        resp = self._pool(origin).request(target, sent, t, self.retries, self.in_flight)
        if auth is not None and resp.status == 401:
            auth.invalidate(creds)  # client-go runs the plugin again for the next request
        return resp

    def _pool(self, origin: tuple[str, str, int]) -> light_http.Pool:
        with self._lock:
            pool = self._pools.get(origin)
            if pool is None:
                pool = self._pools[origin] = light_http.Pool(*origin, self._tls_context, light_http.pool_size())
            return pool

    def _tls_context(self) -> tuple[ssl.SSLContext, str | None]:
        """Built once, at the first https connection (loading CAs is slow)."""
        with self._lock:
            if self._tls is None:
                cfg = self.configuration
                self._tls = (light_http.tls_context(cfg), cfg.tls_server_name)
            return self._tls

    def close(self) -> None:
        with self._lock:
            pools = list(self._pools.values())
        for pool in pools:
            pool.clear()


def _query_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


class Unsupported(Exception):
    """The kubeconfig needs the kubernetes client's loader."""


def light_config(
    cluster: dict, cluster_dir: str, user: dict | None, user_dir: str, exec_auth: Any = None
) -> LightConfig:
    """The configuration of a context whose cluster and user use only the
    keys above; ``Unsupported`` otherwise. Precedence and file handling follow
    the kubernetes client's ``KubeConfigLoader``: ``token`` before
    ``tokenFile``, ``-data`` before the file, client certificates and the CA
    only for https servers, relative paths against the kubeconfig file that
    holds the entry (kubectl's rule). ``exec_auth`` is the user's exec plugin
    (``exec_plugin.ExecAuthenticator``, already run once): its token is asked
    for each request, its client certificate used for TLS. Raises
    OSError/ValueError for unusable values (the caller words them)."""
    user = user or {}
    if not isinstance(cluster, dict) or not isinstance(user, dict):
        raise Unsupported()
    if set(cluster) - CLUSTER_KEYS or set(user) - USER_KEYS or not cluster.get("server"):
        raise Unsupported()
    if user.get("exec") and exec_auth is None and not _other_credentials(user):
        raise Unsupported()
    cfg = LightConfig(str(cluster["server"]).rstrip("/"))
    token = user.get("token") or (_read(user_dir, user["tokenFile"]) if user.get("tokenFile") else None)
    if token:
        cfg.authorization = f"Bearer {token}"
    if cfg.host.startswith("https"):
        cfg.ssl_ca_cert = _file_or_data(cluster, "certificate-authority", cluster_dir)
        cfg.cert_file = _file_or_data(user, "client-certificate", user_dir)
        cfg.key_file = _file_or_data(user, "client-key", user_dir)
    if exec_auth is not None:
        cfg.exec_auth = exec_auth
        creds = exec_auth.credentials()
        if creds.cert_pem and cfg.host.startswith("https"):
            cfg.cert_file, cfg.key_file = temp_file(creds.cert_pem.encode()), temp_file(creds.key_pem.encode())
    if "insecure-skip-tls-verify" in cluster:
        cfg.verify_ssl = not cluster["insecure-skip-tls-verify"]
    if "tls-server-name" in cluster:
        cfg.tls_server_name = cluster["tls-server-name"]
    return cfg


def _other_credentials(user: dict) -> bool:
    """A token or certificate in the kubeconfig: client-go then never runs
    the exec plugin."""
    return any(user.get(k) for k in ("token", "tokenFile", "client-certificate", "client-certificate-data"))


def _read(base: str, path: str) -> str:
    with open(os.path.normpath(os.path.join(base, path))) as f:
        return f.read().strip()  # a token file's trailing newline is not part of the token (kubectl trims it)


def _file_or_data(entry: dict, key: str, base: str) -> str | None:
    """A file holding ``key``: its ``-data`` (base64) written to a private
    temporary file, else the named file (which must exist)."""
    data = entry.get(f"{key}-data")
    if data:
        return temp_file(base64.standard_b64decode(data.encode() if isinstance(data, str) else data))
    if key in entry:
        path = os.path.normpath(os.path.join(base, entry[key]))
        if not os.path.isfile(path):
            raise FileNotFoundError(f"File does not exist: {path}")
        return path
    return None


_temp_files: dict[bytes, str] = {}


def temp_file(content: bytes) -> str:
    """One file (mode 0600) per distinct content, removed at exit, as the
    kubernetes client does for its ``-data`` entries."""
    if content in _temp_files and os.path.isfile(_temp_files[content]):
        return _temp_files[content]
    import tempfile  # only -data entries need it: not loaded before the first request otherwise

    if not _temp_files:
        atexit.register(_remove_temp_files)
    fd, name = tempfile.mkstemp(prefix="kubectl-informer-")
    with os.fdopen(fd, "wb") as f:
        f.write(content)
    _temp_files[content] = name
    return name


def _remove_temp_files() -> None:
    for name in _temp_files.values():
        with contextlib.suppress(OSError):
            os.remove(name)
    _temp_files.clear()
