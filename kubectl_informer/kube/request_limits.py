"""What every request of one client shares (client-go keeps it on its
``rest.Config`` and ``rest.Request``): the ``--request-timeout`` bound, the
Retry-After retries (how many, on which clock, traced where) and the
requests in flight, so that stopping a run closes them instead of waiting on
a server that trickles or stalls. ``rest.py`` reads it on every request."""

from __future__ import annotations

import contextlib
import threading
from typing import Any, TypeAlias

from kubectl_informer.clock import Clock, RealClock
from kubectl_informer.core.trace_kinds import REQUEST_RETRY

# client-go's rest.Request maxRetries: a 429/5xx with Retry-After is sent again at most this many times.
MAX_RETRIES = 10

# A request's timeout as urllib3 and the light client take it: one number for
# both, or (connect, read), either None for none; None: no timeout at all.
Timeout: TypeAlias = float | tuple[float | None, float | None] | None


class RequestLimits:
    """What ``--request-timeout`` sets for one ApiClient (kubectl's flag: a
    single request's whole time, 0 for none), and the requests in flight, so
    that stopping the run can close them instead of waiting on a server that
    trickles or stalls."""

    def __init__(self, timeout: float | None = None) -> None:
        self.timeout = timeout or None
        self._lock = threading.Lock()
        self._open: set = set()
        self.aborted = False
        self._aborted = threading.Event()
        # The Retry-After retries: how many, on which clock, traced where (set_retries).
        self.max_retries = MAX_RETRIES
        self.clock: Clock = RealClock()
        self.tracer: Any = None

    def retried(self, status: int, attempt: int, delay: int, path: str, verb: str, reason: str) -> None:
        """Trace a retry and wait its delay on the clock (cut short by abort())."""
        if self.tracer is not None:
            self.tracer.emit(
                REQUEST_RETRY,
                None,
                status=status,
                attempt=attempt,
                delay=float(delay),
                path=path,
                verb=verb,
                reason=reason,
            )
        if delay > 0:
            self.clock.wait_event(self._aborted, delay)

    def bound(self, timeout: Timeout) -> Timeout:
        """``timeout`` (connect, read) capped by the request timeout."""
        t = self.timeout
        if t is None:
            return timeout
        if timeout is None:
            return (t, t)
        if isinstance(timeout, tuple):
            connect, read = timeout
            return (t if connect is None else min(connect, t), t if read is None else min(read, t))
        return min(timeout, t)

    def track(self, resp: Any) -> None:
        with self._lock:
            self._open.add(resp)
            aborted = self.aborted
        if aborted:
            _shutdown(resp)

    def untrack(self, resp: Any) -> None:
        with self._lock:
            self._open.discard(resp)

    def abort(self) -> None:
        """Close every request in flight, and any started from now on."""
        with self._lock:
            self.aborted = True
            self._aborted.set()
            open_ = list(self._open)
        for resp in open_:
            _shutdown(resp)


def _shutdown(resp: Any) -> None:
    with contextlib.suppress(Exception):  # a response already closed has nothing to unblock
        resp.shutdown()  # unblocks a read in progress on another thread


def limits(api_client: Any) -> RequestLimits:
    """The client's RequestLimits (none set: no timeout, nothing aborted)."""
    lim = getattr(api_client, "_kubectl_informer_limits", None)
    if lim is None:
        lim = RequestLimits()
        with contextlib.suppress(AttributeError):  # a client with __slots__: limits for this call only
            api_client._kubectl_informer_limits = lim
    return lim


def set_request_timeout(api_client: Any, seconds: float | None) -> None:
    limits(api_client).timeout = seconds or None


def set_retries(
    api_client: Any, *, clock: Clock | None = None, tracer: Any = None, max_retries: int = MAX_RETRIES
) -> None:
    """Where the client's Retry-After retries wait (``clock``) and are traced
    (``tracer``), and how many there may be (client-go's ``MaxRetries``; 0: none)."""
    lim = limits(api_client)
    lim.clock = clock or RealClock()
    lim.tracer = tracer
    lim.max_retries = max(0, int(max_retries))


def abort_requests(api_client: Any) -> None:
    """Cut every request of this client in flight (even one still waiting for
    its headers, with the light client) and refuse new ones."""
    limits(api_client).abort()
    in_flight = getattr(api_client, "in_flight", None)  # light_http.InFlight, both clients
    if in_flight is not None:
        in_flight.abort()
