"""``pods/proxy`` for the simulator: GET (and HEAD) of
``/api/v1/namespaces/NS/pods/[SCHEME:]NAME[:PORT]/proxy/PATH``.

The real API server dials the pod's ``status.podIP`` on PORT (the first
declared container port when none is given) and relays the answer; a dial
that fails is a 503 ``error trying to reach service: dial tcp IP:PORT: ...``
and a pod with no IP a 400 ``address not allowed``. Simulated pods have no
network, so this relays only to pods whose ``status.podIP`` is a loopback
address, that is to something listening on this machine (a test's or a
walkthrough's metrics endpoint standing behind a simulated pod); any other
IP answers the 503 an unreachable pod gets. Credentials are not forwarded,
as the API server does not forward them. Other verbs answer 405.
"""

from __future__ import annotations

import http.client
import ipaddress
import ssl
from typing import TYPE_CHECKING

from kubectl_informer.core.apierrors import ApiError

if TYPE_CHECKING:
    from kubectl_informer.sim.server import _Handler

TIMEOUT = 5.0


def matches(parts: list[str]) -> bool:
    """``parts``: the URL path split on ``/``."""
    return (
        len(parts) >= 6 and parts[:3] == ["api", "v1", "namespaces"] and parts[4] == "pods" and parts[6:7] == ["proxy"]
    )


def _split(spec: str) -> tuple[str, str, str]:
    """``[scheme:]name[:port]`` -> (scheme, name, port)."""
    bits = spec.split(":")
    scheme = ""
    if len(bits) == 3 or (len(bits) == 2 and bits[0] in ("http", "https")):
        scheme, bits = bits[0], bits[1:]
    return scheme or "http", bits[0], bits[1] if len(bits) > 1 else ""


def serve(handler: _Handler, parts: list[str], query: str) -> None:
    """Answer one proxied request on ``handler`` (the sim's request handler)."""
    if handler.command not in ("GET", "HEAD"):
        raise ApiError(405, "MethodNotAllowed", "the simulated API server proxies GET and HEAD only")
    namespace = parts[3]
    scheme, name, port = _split(parts[5])
    pod = handler.sim.store.get("pods", namespace, name)  # 404 NotFound as the API server says it
    ip = (pod.get("status") or {}).get("podIP") or ""
    if not port:
        ports = [
            p.get("containerPort")
            for c in (pod.get("spec") or {}).get("containers") or ()
            for p in c.get("ports") or ()
        ]
        port = str(ports[0]) if ports else "80"
    if not ip:
        raise ApiError(400, "BadRequest", "address not allowed")
    if not port.isdigit():
        raise ApiError(503, "ServiceUnavailable", f'error trying to reach service: invalid port "{port}"')
    if not _loopback(ip):
        raise ApiError(
            503,
            "ServiceUnavailable",
            f"error trying to reach service: dial tcp {ip}:{port}: the "
            f"simulated API server reaches only pods whose podIP is a "
            f"loopback address",
        )
    path = "/" + "/".join(parts[7:]) + (f"?{query}" if query else "")
    if handler.path.split("?", 1)[0].endswith("/") and not path.endswith("/"):
        path += "/"
    status, ctype, body = _relay(scheme, ip, int(port), handler.command, path, handler.headers.get("Accept"))
    handler._send(status, body, ctype)


def _loopback(ip: str) -> bool:
    try:
        return ipaddress.ip_address(ip).is_loopback
    except ValueError:
        return False


def _relay(scheme: str, ip: str, port: int, method: str, path: str, accept: str | None) -> tuple[int, str, bytes]:
    if scheme == "https":
        # The API server does not verify a pod's serving certificate either.
        ctx = ssl.create_default_context()
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE
        conn: http.client.HTTPConnection = http.client.HTTPSConnection(ip, port, timeout=TIMEOUT, context=ctx)
    else:
        conn = http.client.HTTPConnection(ip, port, timeout=TIMEOUT)
    try:
        conn.request(method, path, headers={"Accept": accept} if accept else {})
        resp = conn.getresponse()
        body = resp.read()
        return resp.status, resp.getheader("Content-Type") or "text/plain", body
    except ConnectionRefusedError:
        raise ApiError(
            503,
            "ServiceUnavailable",
            f"error trying to reach service: dial tcp {ip}:{port}: connect: connection refused",
        ) from None
    except (OSError, http.client.HTTPException) as e:
        raise ApiError(503, "ServiceUnavailable", f"error trying to reach service: {e}") from None
    finally:
        conn.close()
