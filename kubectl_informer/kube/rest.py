"""GET requests over the kubernetes client's HTTP stack, raw bytes out.

We reuse ``ApiClient`` for what it is good at (TLS, proxies, bearer tokens
refreshed by exec/in-cluster hooks, basic auth) and skip its model classes:
the body comes back as bytes (the rest client never preloads) and the caller
decodes it with orjson.
"""

from __future__ import annotations

from typing import Any, Iterable

import orjson
import urllib3

from .decode import loads_list
from .stream_decode import StringInterner, decode_list_chunks
from .errors import ApiError, one_line

ACCEPT_JSON = "application/json"

# The decoder for whole bodies. orjson: bench/cluster.py measures it against
# json.loads on a 10,000-pod list (swap this to reproduce).
loads = orjson.loads


def status_error(resp: Any, body: bytes | None = None) -> ApiError:
    """Turn a non-2xx response into an ApiError carrying the API's Status."""
    if body is None:
        try:
            body = resp.data
        except Exception:  # a body we cannot read still has a status line
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
        if not status.get("code"):
            status = {**status, "code": resp.status}
        return ApiError.from_status(status, retry_after=retry_after)
    # Not a Status (a proxy's HTML page, an empty 500): keep the first line.
    text = one_line(body.decode("utf-8", "replace"), 200) if body else ""
    reason = _REASONS.get(resp.status, resp.reason or "")
    return ApiError(resp.status, reason, text or f"{resp.status} {resp.reason or reason}".strip(),
                    retry_after=retry_after)


_REASONS = {400: "BadRequest", 401: "Unauthorized", 403: "Forbidden", 404: "NotFound", 405: "MethodNotAllowed",
            409: "Conflict", 410: "Expired", 422: "Invalid", 429: "TooManyRequests", 500: "InternalError",
            503: "ServiceUnavailable", 504: "Timeout"}


def _retry_after(resp: Any) -> float | None:
    value = resp.headers.get("Retry-After") if resp.headers is not None else None
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        return None  # an HTTP-date: the API server never sends one


def get(api_client: Any, path: str, query: Iterable[tuple[str, Any]] = (), *,
        timeout: float | tuple[float, float] | None = None, accept: str = ACCEPT_JSON) -> urllib3.BaseHTTPResponse:
    """GET ``path`` and return the open urllib3 response (body not read).

    Raises ApiError for a non-2xx answer (body read and released),
    ConnectionRefusedError when nothing listens, ConnectionError for other
    transport failures (DNS, TLS, reset).
    """
    method, url, headers, _body, _post = api_client.param_serialize(
        "GET", path, query_params=list(query) or None, header_params={"Accept": accept},
        auth_settings=["BearerToken"])
    try:
        rest = api_client.call_api(method, url, headers, _request_timeout=timeout)
    except urllib3.exceptions.MaxRetryError as e:
        raise _transport_error(e.reason or e, url) from None
    except urllib3.exceptions.HTTPError as e:
        raise _transport_error(e, url) from None
    except Exception as e:  # the client wraps TLS errors in ApiException(status=0)
        if getattr(e, "status", None) == 0:
            raise ConnectionError(f"{url}: {one_line(getattr(e, 'reason', e), 200)}") from None
        raise
    resp = rest.response
    if not 200 <= resp.status <= 299:
        try:
            err = status_error(resp)
        finally:
            resp.release_conn()
        raise err
    return resp


def _transport_error(e: BaseException, url: str) -> OSError:
    cause = e.__cause__ or e.__context__
    if isinstance(cause, ConnectionRefusedError) or "Connection refused" in str(e):
        err: OSError = ConnectionRefusedError(111, f"connection refused: {_origin(url)}")
        return err
    return ConnectionError(f"{_origin(url)}: {one_line(e, 200)}")


def _origin(url: str) -> str:
    parts = urllib3.util.parse_url(url)
    return f"{parts.scheme}://{parts.netloc}"


def get_json(api_client: Any, path: str, query: Iterable[tuple[str, Any]] = (), *,
             timeout: float | tuple[float, float] | None = None, is_list: bool = False) -> Any:
    """GET and decode the body (``loads``, orjson); a List (``is_list``)
    through ``decode.loads_list``, which keeps big lists fast and small."""
    resp = get(api_client, path, query, timeout=timeout)
    try:
        body = resp.data
    except urllib3.exceptions.HTTPError as e:
        raise ConnectionError(f"reading {path}: {one_line(e, 200)}") from None
    finally:
        resp.release_conn()
    try:
        return loads_list(body, loads) if is_list else loads(body)
    except ValueError as e:  # orjson.JSONDecodeError and json.JSONDecodeError both are
        raise ConnectionError(f"{path}: the server's answer is not JSON ({one_line(e, 120)})") from None


# Bytes read from a List body at a time: each chunk's items are decoded
# before the next is read (stream_decode.py).
LIST_CHUNK = 256 * 1024


def get_list(api_client: Any, path: str, query: Iterable[tuple[str, Any]] = (), *,
             timeout: float | tuple[float, float] | None = None, accept: str = ACCEPT_JSON,
             interner: StringInterner | None = None, progress=None) -> Any:
    """GET a List and decode it while it arrives (``stream_decode``), never
    holding the whole body; ``progress(bytes, items)`` after each chunk."""
    resp = get(api_client, path, query, timeout=timeout, accept=accept)
    try:
        return decode_list_chunks(resp.stream(LIST_CHUNK, decode_content=True), interner, progress)
    except urllib3.exceptions.HTTPError as e:
        raise ConnectionError(f"reading {path}: {one_line(e, 200)}") from None
    except ValueError as e:  # orjson.JSONDecodeError and json.JSONDecodeError both are
        raise ConnectionError(f"{path}: the server's answer is not JSON ({one_line(e, 120)})") from None
    finally:
        resp.release_conn()
