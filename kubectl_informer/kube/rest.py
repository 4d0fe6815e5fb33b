"""GET requests, raw bytes out.

Through a ``light.LightClient`` (the common kubeconfigs: ``http.client``,
see light_http.py), else the kubernetes client's ``ApiClient`` (urllib3),
reused for what it is good at (TLS, proxies, bearer tokens refreshed by
exec/in-cluster hooks, basic auth), skipping its model classes: the body
comes back as bytes (the rest client never preloads) and the caller decodes
it with orjson. Both responses offer the same few methods (``read1``,
``release_conn``, ``shutdown``...).
"""

from __future__ import annotations

import html
import http.client
import re
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import urlsplit

import orjson

from kubectl_informer.kube.errors import ApiError, RedirectError, one_line
from kubectl_informer.kube.light import LightClient
from kubectl_informer.kube.limits import MAX_ERROR_BODY, MAX_FRAME, MAX_LIST_BODY, TooLargeError
from kubectl_informer.kube.request_limits import Timeout, limits
from kubectl_informer.kube.stream_decode import StringInterner, decode_list_chunks

ACCEPT_JSON = "application/json"

# The decoder for whole bodies. orjson: bench/cluster.py measures it against
# json.loads on a 10,000-pod list (swap this to reproduce).
loads = orjson.loads


def status_error(resp: Any, body: bytes | None = None) -> ApiError:
    """Turn a non-2xx response into an ApiError carrying the API's Status."""
    if body is None:
        try:
            body = read_at_most(resp, MAX_ERROR_BODY)
        except Exception:  # noqa: BLE001  a body we cannot read still has a status line
            body = b""
    retry_after = _retry_after(resp)
    status = None
    if body:
        try:
            decoded = orjson.loads(body)
            if isinstance(decoded, dict) and decoded.get("kind") == "Status":
                status = decoded
        except orjson.JSONDecodeError:
            pass
    if status is not None:
        return ApiError.from_status(
            status, retry_after=retry_after, code=resp.status, what=f"the body of the {resp.status} answer"
        )
    # Not a Status (a proxy's HTML page, an empty 500): its title or text, one line.
    text = one_line(_plain_text(body.decode("utf-8", "replace")), 200) if body else ""
    reason = _REASONS.get(resp.status, resp.reason or "")
    return ApiError(
        resp.status, reason, text or f"{resp.status} {resp.reason or reason}".strip(), retry_after=retry_after
    )


# Patterns of error pages only: compiled (and cached by re) by the first one, not at import.
_TITLE = r"(?is)<title[^>]*>(.*?)</title>"
_TAG = r"<[^>]*>"


def _plain_text(text: str) -> str:
    """An HTML error page (a proxy's, a load balancer's) as the words a user
    needs: its <title>, else its text without tags."""
    if "<" not in text[:200]:
        return text
    m = re.search(_TITLE, text)
    if m and m.group(1).strip():
        return html.unescape(m.group(1))
    return html.unescape(re.sub(_TAG, " ", text))


_REASONS = {
    400: "BadRequest",
    401: "Unauthorized",
    403: "Forbidden",
    404: "NotFound",
    405: "MethodNotAllowed",
    409: "Conflict",
    410: "Expired",
    422: "Invalid",
    429: "TooManyRequests",
    500: "InternalError",
    503: "ServiceUnavailable",
    504: "Timeout",
}


def read_at_most(resp: Any, limit: int) -> bytes:
    """The body's first ``limit`` bytes, without reading what follows (an
    error page that never ends is cut there; the caller closes the
    connection, which cannot serve another request then)."""
    parts: list[bytes] = []
    got = 0
    while got < limit:
        piece = resp.read1(min(_READ, limit - got))
        if not piece:
            break
        parts.append(piece)
        got += len(piece)
    else:
        resp.close()  # the rest is never read
    return b"".join(parts)


def read_capped(resp: Any, limit: int, what: str, where: str) -> bytes:
    """The whole body, refused past ``limit`` bytes (TooLargeError: ``what``
    at ``where``), for a document that must be read whole."""
    body = read_at_most(resp, limit + 1)
    if len(body) > limit:
        raise TooLargeError(what, limit, where)
    return body


def _retry_after(resp: Any) -> float | None:
    value = resp.headers.get("Retry-After") if resp.headers is not None else None
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        return None  # an HTTP-date: the API server never sends one


_RETRY_AFTER = re.compile(r"[+-]?[0-9]+")
_DRAIN = 2 << 10  # readAndCloseResponseBody: a small body is read out before the next try


def check_wait(status: int, retry_after: str | None) -> int | None:
    """client-go's checkWait: the seconds a 429 or 5xx answer asks to wait
    (its Retry-After header, an integer as strconv.Atoi reads it), or None
    when the request is not to be retried (another status, no header, an
    HTTP-date)."""
    if status != 429 and status < 500:
        return None
    if retry_after is None or not _RETRY_AFTER.fullmatch(retry_after):
        return None
    return int(retry_after)


def get(
    api_client: Any,
    path: str,
    query: Iterable[tuple[str, Any]] = (),
    *,
    timeout: Timeout = None,
    accept: str = ACCEPT_JSON,
    verb: str = "get",
) -> Any:
    """GET ``path`` and return the open response (body not read).

    A 429 or 5xx answer with a Retry-After header is retried after that many
    seconds, at most MAX_RETRIES times, as client-go's rest client does for
    every request (``withRetry.IsNextRetry``, ``checkWait``): each retry is
    traced (``request.retry``) and waited on the client's clock
    (``set_retries``). Raises ApiError for a non-2xx answer (body read and
    released), ConnectionRefusedError when nothing listens, ConnectionError
    for other transport failures (DNS, TLS, reset).
    """
    lim = limits(api_client)
    attempts = 0
    query = list(query)
    while True:
        if lim.aborted:
            raise ConnectionAbortedError(f"{path}: the run is stopping")
        try:
            resp = _send(api_client, path, query, timeout, accept)
        except OSError:
            if lim.aborted:  # abort_requests cut it while it waited for its answer: a reset, by our hand
                raise ConnectionAbortedError(f"{path}: the run is stopping") from None
            raise
        if 200 <= resp.status <= 299:
            return resp
        attempts += 1
        headers = resp.headers
        seconds = check_wait(resp.status, headers.get("Retry-After") if headers is not None else None)
        if seconds is None or attempts > lim.max_retries:
            try:
                err = status_error(resp)
            finally:
                resp.release_conn()
            raise err
        reason = _drain(resp)
        lim.retried(resp.status, attempts, max(0, seconds), path, verb, reason)


def _send(api_client: Any, path: str, query: list, timeout: Any, accept: str) -> Any:
    """One try: the open response of any status but a redirect."""
    url, send = _prepare(api_client, path, query, timeout, accept)
    try:
        resp = send()
    except Exception as e:
        err = _send_error(e, url)
        if err is None:
            raise
        raise err from None
    if 300 <= resp.status <= 399:
        location = resp.headers.get("Location") or "" if resp.headers is not None else ""
        resp.release_conn()
        raise RedirectError(_origin(url), resp.status, location)
    return resp


def _drain(resp: Any) -> str:
    """Read a retried answer's small body and release its connection
    (readAndCloseResponseBody); returns its Status reason, if it is one."""
    reason = ""
    try:
        body = read_at_most(resp, _DRAIN)
        decoded = orjson.loads(body) if body else None
        if isinstance(decoded, dict) and isinstance(decoded.get("reason"), str):
            # The server's word: printable characters only (a Status reason is one CamelCase word).
            reason = one_line("".join(ch for ch in decoded["reason"] if ch.isprintable()), 80)
    except Exception:  # noqa: BLE001 - only the reason is wanted; the body may be anything
        pass
    finally:
        resp.release_conn()
    return reason


def _prepare(
    api_client: Any, path: str, query: Iterable[tuple[str, Any]], timeout: Any, accept: str
) -> tuple[str, Callable[[], Any]]:
    """The URL, and a call that sends the GET and returns the open
    response: through a ``LightClient``, or the kubernetes client's
    ``ApiClient`` (with its auth hooks: exec plugins, in-cluster token refresh)."""
    if isinstance(api_client, LightClient):
        url = api_client.url(path, query)
        return url, lambda: api_client.get(url, accept, timeout)
    method, url, headers, _body, _post = api_client.param_serialize(
        "GET", path, query_params=list(query) or None, header_params={"Accept": accept}, auth_settings=["BearerToken"]
    )
    impersonate = getattr(api_client.configuration, "impersonate", ())
    if impersonate:
        from urllib3 import HTTPHeaderDict  # loaded with the kubernetes client: one header line per group

        headers = HTTPHeaderDict(headers)
        for name, value in impersonate:
            headers.add(name, value)
    return url, lambda: api_client.call_api(method, url, headers, _request_timeout=timeout).response


def _urllib3_errors() -> Any:
    """urllib3's exceptions module when something loaded it (the kubernetes
    client does): only then can a response or an error come from urllib3."""
    return sys.modules.get("urllib3.exceptions")


def _send_error(e: Exception, url: str) -> OSError | None:
    """The one-line error for a request that got no answer, or None to let
    ``e`` through."""
    u3 = _urllib3_errors()
    if u3 is not None and isinstance(e, u3.MaxRetryError):
        return _transport_error(e.reason or e, url)
    if isinstance(e, (OSError, http.client.HTTPException)) or (u3 is not None and isinstance(e, u3.HTTPError)):
        return _transport_error(e, url)
    if getattr(e, "status", None) == 0:  # the kubernetes client wraps TLS errors in ApiException(status=0)
        return ConnectionError(f"{url}: {one_line(getattr(e, 'reason', e), 200)}")
    return None


def _broken_body_errors() -> tuple[type[BaseException], ...]:
    """What reading a body that breaks off raises: urllib3's errors (the
    kubernetes client's responses) and ConnectionError (the light client's)."""
    u3 = _urllib3_errors()
    return (u3.HTTPError, ConnectionError) if u3 is not None else (ConnectionError,)


def _cause(e: BaseException) -> str:
    """The innermost OSError's words ("Connection reset by peer"), else the text."""
    for arg in getattr(e, "args", ()):
        if isinstance(arg, OSError) and arg.strerror:
            return arg.strerror
    if isinstance(e, OSError) and e.strerror:
        return e.strerror
    return one_line(e, 160)


def _transport_error(e: BaseException, url: str) -> OSError:
    cause = e.__cause__ or e.__context__
    if (
        isinstance(e, ConnectionRefusedError)
        or isinstance(cause, ConnectionRefusedError)
        or "Connection refused" in str(e)
    ):
        err: OSError = ConnectionRefusedError(111, f"connection refused: {_origin(url)}")
        return err
    return ConnectionError(f"{_origin(url)}: {one_line(e, 200)}")


def _origin(url: str) -> str:
    """scheme://host:port: an origin has no user or password (credentials)."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc.rpartition('@')[2]}"


_READ = 256 * 1024


def _pieces(resp: Any, path: str, deadline: float | None, started: float, max_bytes: int, what: str) -> Iterator[bytes]:
    """The body, piece by piece as it arrives (``read1``: whatever is there,
    never waiting to fill a buffer): a request timeout is a deadline for all
    of it, so a server sending a byte a second never trips a per-read timeout;
    past ``max_bytes`` it is refused (TooLargeError)."""
    got = 0
    while True:
        piece = resp.read1(_READ)
        if not piece:
            return
        got += len(piece)
        if got > max_bytes:
            raise TooLargeError(what, max_bytes, f"reading {path}")
        yield piece
        now = time.monotonic()
        if deadline is not None and now > deadline:
            raise TimeoutError(
                f"{path}: the request timed out after {now - started:.1f}s "
                f"({got} bytes received; see --request-timeout)"
            )


@contextmanager
def _body(
    api_client: Any,
    path: str,
    query: Iterable[tuple[str, Any]],
    timeout: Any,
    accept: str,
    max_bytes: int,
    what: str,
    headers: dict | None = None,
    verb: str = "get",
) -> Iterator[Iterator[bytes]]:
    """GET ``path`` and hand out its body's pieces, bounded by the client's
    request timeout and closed by ``abort_requests``; a body cut short closes
    its connection, which must never serve another request. ``headers``,
    when given, receives the answer's Content-Type."""
    lim = limits(api_client)
    if lim.aborted:
        raise ConnectionAbortedError(f"{path}: the run is stopping")
    started = time.monotonic()
    deadline = None if lim.timeout is None else started + lim.timeout
    resp = get(api_client, path, query, timeout=lim.bound(timeout), accept=accept, verb=verb)
    if headers is not None:
        headers["Content-Type"] = (resp.headers.get("Content-Type") if resp.headers is not None else None) or ""
    lim.track(resp)
    complete = False
    try:
        yield _pieces(resp, path, deadline, started, max_bytes, what)
        complete = True
    except TooLargeError as e:
        if not e.where:
            e = TooLargeError(e.what, e.limit, f"reading {path}")
        raise e from None
    except _broken_body_errors() as e:  # reset or cut mid-body
        if lim.aborted:
            raise ConnectionAbortedError(f"{path}: the run is stopping") from None
        raise ConnectionResetError(f"reading {path}: the connection broke mid-answer ({_cause(e)})") from None
    except (ValueError, AttributeError) as e:
        if lim.aborted:  # a read on a response closed by abort()
            raise ConnectionAbortedError(f"reading {path}: {one_line(e, 200)}") from None
        # orjson.JSONDecodeError and json.JSONDecodeError both are ValueErrors
        raise ConnectionError(f"{path}: the server's answer is not JSON ({one_line(e, 120)})") from None
    finally:
        lim.untrack(resp)
        if not complete:
            resp.close()
        resp.release_conn()
    if lim.aborted:
        raise ConnectionAbortedError(f"{path}: the run is stopping")


@contextmanager
def get_body(
    api_client: Any, path: str, *, accept: str, max_bytes: int, what: str = "the answer"
) -> Iterator[Iterator[bytes]]:
    """GET ``path`` and hand out its body's pieces as they arrive (a text
    body read line by line, never held whole), at most ``max_bytes`` of them;
    bounded and aborted as every request of the client is."""
    with _body(api_client, path, (), None, accept, max_bytes, what) as pieces:
        yield pieces


def get_json(
    api_client: Any,
    path: str,
    query: Iterable[tuple[str, Any]] = (),
    *,
    timeout: Timeout = None,
    max_bytes: int = MAX_FRAME,
) -> Any:
    """GET and decode the body (``loads``, orjson): one document, held
    whole, so at most ``max_bytes`` (a List read this way passes MAX_LIST_BODY)."""
    with _body(api_client, path, query, timeout, ACCEPT_JSON, max_bytes, "the answer") as pieces:
        return loads(b"".join(pieces))


def get_document(
    api_client: Any,
    path: str,
    *,
    accept: str,
    timeout: Timeout = None,
    max_bytes: int = MAX_FRAME,
) -> tuple[Any, str]:
    """GET one document as ``accept`` asks (discovery offers several forms
    and says in its Content-Type which one it chose); returns it decoded and
    that Content-Type."""
    headers: dict = {}
    with _body(api_client, path, (), timeout, accept, max_bytes, "the answer", headers) as pieces:
        return loads(b"".join(pieces)), headers.get("Content-Type", "")


def get_list(
    api_client: Any,
    path: str,
    query: Iterable[tuple[str, Any]] = (),
    *,
    timeout: Timeout = None,
    accept: str = ACCEPT_JSON,
    interner: StringInterner | None = None,
    progress: Callable[[int, int], None] | None = None,
    max_bytes: int = MAX_LIST_BODY,
) -> Any:
    """GET a List and decode it while it arrives (``stream_decode``), never
    holding the whole body; ``progress(bytes, items)`` after each piece.
    A body beyond ``max_bytes``, or one object in it beyond MAX_FRAME, is
    refused (TooLargeError)."""
    with _body(api_client, path, query, timeout, accept, max_bytes, "the list", verb="list") as pieces:
        return decode_list_chunks(pieces, interner, progress)
