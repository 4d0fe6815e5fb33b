"""The failures a run can meet that the user can act on, each in one line:
an API error, a server that cannot be reached, a bad certificate, a bare 403;
and the two exceptions that carry them (``RunError``, ``UsageRunError``), here
rather than in ``runner.py`` so that the command line can name them without
importing the run's machinery (a usage error, ``--help`` and ``version`` stay
light: see cli/main.py)."""

from __future__ import annotations

import contextlib
import errno
from collections.abc import Iterator
from typing import Any

import click


class RunError(Exception):
    """A failure caused by the user's input or environment: one line, no traceback."""


class UsageRunError(click.UsageError):
    """A flag that only the cluster's answer shows to be wrong (``-n`` with a
    cluster-scoped resource): still a usage error, exit 2."""

    def __init__(self, message: str) -> None:
        super().__init__(message)


def describe_error(err: BaseException, server: str = "") -> str | None:
    """A one-line message for failures the user can act on, or None."""
    from kubectl_informer.core.apierrors import ApiError

    if isinstance(err, ApiError):
        if err.status == 403:
            return err.message or "forbidden (HTTP 403): check your RBAC permissions to list and watch"
        if err.status == 401:
            return "unauthorized (HTTP 401): your credentials were rejected" + (
                f": {err.message}" if err.message else ""
            )
        text = err.message or err.reason or "request failed"
        return f"the server answered {err.status}{' ' + err.reason if err.reason else ''}: {text}"
    from kubectl_informer.core.redact import redact_url

    where = f" at {redact_url(server)}" if server else ""
    from kubectl_informer.kube.errors import RedirectError
    from kubectl_informer.kube.limits import TooLargeError

    if isinstance(err, (RedirectError, TooLargeError)):
        return str(err)
    if isinstance(err, TimeoutError) and "--request-timeout" in str(err):
        return f"the API server{where} did not answer in time: {err}"
    try:
        import urllib3.exceptions as u3

        if isinstance(err, (u3.MaxRetryError, u3.NewConnectionError, u3.ProtocolError, u3.TimeoutError)):
            return f"cannot reach the API server{where}: {_short_reason(err)}"
        if isinstance(err, u3.SSLError):
            return f"TLS error talking to the API server{where}: {_short_reason(err)}"
    except ImportError:  # pragma: no cover - kubernetes depends on urllib3
        pass
    if isinstance(err, OSError) and is_network_error(err):  # refused, reset, timed out, DNS, TLS
        return f"cannot reach the API server{where}: {_short_reason(err)}"
    return None


def verifies_tls(target: Any, server: str) -> bool:
    """False for an https server whose certificate is not checked
    (insecure-skip-tls-verify): the header says it, where urllib3 would warn
    on every request."""
    cfg = getattr(getattr(target, "api_client", None), "configuration", None)
    return not (server.startswith("https:") and getattr(cfg, "verify_ssl", True) is False)


# What a socket says when the server cannot be reached; a full disk or an
# I/O error on a file is no reason to blame the API server.
_NETWORK_ERRNOS = frozenset(
    getattr(errno, n)
    for n in (
        "ECONNREFUSED",
        "ECONNRESET",
        "ECONNABORTED",
        "ETIMEDOUT",
        "EHOSTUNREACH",
        "ENETUNREACH",
        "ENETDOWN",
        "EHOSTDOWN",
        "EADDRNOTAVAIL",
        "ENOTCONN",
    )
    if hasattr(errno, n)
)


def is_network_error(err: OSError) -> bool:
    import socket
    import ssl

    if isinstance(err, (ConnectionError, TimeoutError, socket.gaierror, socket.herror, ssl.SSLError)):
        return True
    return err.errno in _NETWORK_ERRNOS and not err.filename


def _short_reason(err: BaseException) -> str:
    reason = getattr(err, "reason", None)
    if isinstance(reason, BaseException):
        err = reason
    text = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
    for marker in (
        "Connection refused",
        "timed out",
        "Name or service not known",
        "No route to host",
        "certificate verify failed",
    ):
        if marker.lower() in text.lower():
            return marker.lower() if marker != "Connection refused" else "connection refused"
    return text[:200]


@contextlib.contextmanager
def _naming_a_bare_403(verb: str, resource: str, namespace: str | None) -> Iterator[None]:
    """A 403 without the API server's message (a proxy's) still says what was
    refused, as the API server's own message does."""
    from kubectl_informer.core.apierrors import ApiError

    try:
        yield
    except ApiError as e:
        if e.status != 403 or " cannot " in (e.message or ""):  # the API server names them itself
            raise
        where = f'in the namespace "{namespace}"' if namespace else "at the cluster scope"
        raise ApiError(
            403,
            "Forbidden",
            f'{resource} is forbidden: cannot {verb} resource "{resource}" {where}'
            + (f" ({e.message})" if e.message else ""),
        ) from None
