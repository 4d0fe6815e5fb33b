"""Retrying the first requests of a run when the failure is transient.

client-go's clients retry a 429 or a 5xx (an API server restarting, an
overloaded aggregator, a proxy's 503 page) with back-off, and its informers
keep listing until they succeed; a 401, a 403 or a 404 will not get better by
asking again. ``retry_transient`` applies the same split to the requests a
run makes before its informer starts (discovery and the RBAC probe): each
transient failure is reported with the delay before the next try, anything
else is raised at once.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TypeVar

from kubectl_informer.core.durations import format_short
from kubectl_informer.core.printable import printable
from kubectl_informer.kube.errors import ApiError, one_line

T = TypeVar("T")

TRANSIENT_STATUS = frozenset((429, 500, 502, 503, 504))
# The Reflector's back-off (800ms doubling to 30s), without its jitter, so
# what is printed is what happens.
INITIAL_DELAY = 0.8
MAX_DELAY = 30.0


def is_transient(err: BaseException) -> bool:
    """A 429/5xx answer (also as a DiscoveryError carrying it), or a body cut
    short (connection reset mid-answer)."""
    status = getattr(err, "status", None)
    if isinstance(err, ApiError) or status is not None:
        return status in TRANSIENT_STATUS
    return isinstance(err, ConnectionResetError)


def describe(err: BaseException) -> str:
    if isinstance(err, ApiError):
        return one_line(f"the server answered {err.status} {err.reason}: {err.message}", 200)
    return one_line(err, 200)


def report_to_stderr(err: BaseException, delay: float, attempt: int) -> None:
    try:
        # The server's own words (an error body, a proxy's page): shown printable.
        sys.stderr.write(f"retrying in {format_short(delay)} (attempt {attempt + 1}): {printable(describe(err))}\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


def retry_transient(
    fn: Callable[[], T],
    report: Callable[[BaseException, float, int], None] | None = None,
    sleep: Callable[[float], object] = time.sleep,
    retry_after: bool = True,
) -> T:
    """``fn()`` until it returns or fails with a non-transient error. Waits
    INITIAL_DELAY doubling to MAX_DELAY between tries (or a 429's
    Retry-After, when longer); the wait is a plain sleep, so Ctrl-C ends it."""
    delay = INITIAL_DELAY
    attempt = 1
    while True:
        try:
            return fn()
        except Exception as err:  # classified below
            if not is_transient(err):
                raise
            wait = delay
            hinted = getattr(err, "retry_after", None)
            if retry_after and isinstance(hinted, (int, float)) and hinted > wait:
                wait = min(float(hinted), MAX_DELAY)
            (report or report_to_stderr)(err, wait, attempt)
            sleep(wait)
            delay = min(delay * 2, MAX_DELAY)
            attempt += 1
