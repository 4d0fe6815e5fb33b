"""Rate limiters: client-go's ``default_rate_limiters.go``.

A rate limiter answers "how long should this item wait before it is retried"
(``when``), counts the retries it has answered for (``num_requeues``), and
stops tracking an item on ``forget`` (success or giving up). Durations are
float seconds.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Hashable
from typing import Protocol, TypeVar

from kubectl_informer.clock import Clock, RealClock
from kubectl_informer.core.durations import format_duration, parse_duration

__all__ = [
    "RateLimiter",
    "ItemExponentialFailureRateLimiter",
    "ItemFastSlowRateLimiter",
    "BucketRateLimiter",
    "MaxOfRateLimiter",
    "default_controller_rate_limiter",
    "default_item_based_rate_limiter",
    "parse_rate_limiter",
]


class RateLimiter(Protocol):
    def when(self, item: Hashable) -> float: ...

    def forget(self, item: Hashable) -> None: ...

    def num_requeues(self, item: Hashable) -> int: ...


class _PerItemFailures:
    """Failure counts per item, for the per-item limiters: ``num_requeues``
    reads an item's count, ``forget`` drops it. Subclasses count in ``when``."""

    def __init__(self) -> None:
        self._failures: dict[Hashable, int] = {}
        self._lock = threading.Lock()

    def num_requeues(self, item: Hashable) -> int:
        with self._lock:
            return self._failures.get(item, 0)

    def forget(self, item: Hashable) -> None:
        with self._lock:
            self._failures.pop(item, None)


class ItemExponentialFailureRateLimiter(_PerItemFailures):
    """``base * 2**failures``, capped at ``max``: per-item back-off."""

    def __init__(self, base: float, max: float) -> None:  # client-go's names
        self.base = float(base)
        self.max = float(max)
        super().__init__()

    def when(self, item: Hashable) -> float:
        with self._lock:
            exp = self._failures.get(item, 0)
            self._failures[item] = exp + 1
        # 2.0**exp overflows a float past 1023; anything that large is capped.
        if exp > 1023:
            return self.max
        backoff = self.base * (2.0**exp)
        return self.max if backoff > self.max else backoff

    def __repr__(self) -> str:
        return f"exponential:{format_duration(self.base)},{format_duration(self.max)}"


class ItemFastSlowRateLimiter(_PerItemFailures):
    """``fast`` for the first ``max_fast_attempts`` failures, then ``slow``."""

    def __init__(self, fast: float, slow: float, max_fast_attempts: int) -> None:
        self.fast = float(fast)
        self.slow = float(slow)
        self.max_fast_attempts = int(max_fast_attempts)
        super().__init__()

    def when(self, item: Hashable) -> float:
        with self._lock:
            n = self._failures.get(item, 0) + 1
            self._failures[item] = n
        return self.fast if n <= self.max_fast_attempts else self.slow

    def __repr__(self) -> str:
        return f"fastslow:{format_duration(self.fast)},{format_duration(self.slow)},{self.max_fast_attempts}"


class BucketRateLimiter:
    """An overall token bucket (``golang.org/x/time/rate``): ``qps`` tokens a
    second, at most ``burst`` saved up, starting full. ``when`` reserves one
    token and returns how long until it is available; reservations queue up,
    so a burst of failures is spread out at ``qps``. Not per item:
    ``num_requeues`` is 0 and ``forget`` does nothing, as in client-go.

    Time is the limiter's ``clock``.
    """

    def __init__(self, qps: float, burst: int, *, clock: Clock | None = None) -> None:
        # x/time/rate would answer "never" (an infinite delay) for these;
        # nothing useful comes of that here, so refuse them up front.
        if not qps > 0 or math.isinf(qps):
            raise ValueError(f"bucket rate limiter: qps must be a positive number, got {qps}")
        if int(burst) < 1:
            raise ValueError(f"bucket rate limiter: burst must be at least 1, got {burst}")
        self.qps = float(qps)
        self.burst = int(burst)
        self._clock = clock or RealClock()
        self._tokens = float(self.burst)
        self._last: float | None = None
        self._lock = threading.Lock()

    def _advance(self, now: float) -> float:
        if self._last is None:
            # x/time/rate starts at the zero time: the bucket is full.
            return float(self.burst)
        last = min(self._last, now)
        tokens = self._tokens + (now - last) * self.qps
        return min(tokens, float(self.burst))

    def tokens(self) -> float:
        """Tokens available now (negative: reservations outstanding)."""
        with self._lock:
            return self._advance(self._clock.now())

    def when(self, item: Hashable) -> float:
        with self._lock:
            now = self._clock.now()
            tokens = self._advance(now) - 1.0
            self._tokens = tokens
            self._last = now
        return -tokens / self.qps if tokens < 0 else 0.0

    def num_requeues(self, item: Hashable) -> int:
        return 0

    def forget(self, item: Hashable) -> None:
        pass

    def __repr__(self) -> str:
        return f"bucket:{self.qps:g},{self.burst}"


class MaxOfRateLimiter:
    """Asks every limiter and takes the longest wait (and the most requeues)."""

    def __init__(self, *limiters: RateLimiter) -> None:
        self.limiters = list(limiters)

    def when(self, item: Hashable) -> float:
        ret = 0.0
        # Every limiter must be asked: each records the failure.
        for limiter in self.limiters:
            d = limiter.when(item)
            if d > ret:
                ret = d
        return ret

    def num_requeues(self, item: Hashable) -> int:
        ret = 0
        for limiter in self.limiters:  # a loop, not a generator: once per processed item
            n = limiter.num_requeues(item)
            if n > ret:
                ret = n
        return ret

    def forget(self, item: Hashable) -> None:
        for limiter in self.limiters:
            limiter.forget(item)

    def __repr__(self) -> str:
        return "max(" + ", ".join(repr(lim) for lim in self.limiters) + ")"


def default_controller_rate_limiter(clock: Clock | None = None) -> MaxOfRateLimiter:
    """client-go's ``DefaultControllerRateLimiter``: per-item exponential
    5 ms .. 1000 s, max'd with an overall 10 qps / burst 100 bucket (which only
    matters when many items fail at once)."""
    return MaxOfRateLimiter(
        ItemExponentialFailureRateLimiter(0.005, 1000.0),
        BucketRateLimiter(10, 100, clock=clock),
    )


def default_item_based_rate_limiter() -> ItemExponentialFailureRateLimiter:
    """client-go's ``DefaultItemBasedRateLimiter``: exponential 1 ms .. 1000 s."""
    return ItemExponentialFailureRateLimiter(0.001, 1000.0)


_SPEC_HELP = "expected default, exponential:BASE,MAX, fastslow:FAST,SLOW,ATTEMPTS or bucket:QPS,BURST"


class _SpecError(ValueError):
    """A part of a rate limiter spec that is wrong; parse_rate_limiter says which spec."""


def _dur(s: str) -> float:
    try:
        return parse_duration(s)
    except ValueError as e:
        raise _SpecError(str(e)) from None


_N = TypeVar("_N", int, float)


def _number(s: str, name: str, kind: Callable[[str], _N], what: str = "a number") -> _N:
    try:
        return kind(s)
    except ValueError:
        raise _SpecError(f'{name} must be {what}, got "{s}"') from None


def _arity(args: list[str], n: int, usage: str) -> None:
    if len(args) != n:
        raise _SpecError(f"expected {usage}")


def _default(args: list[str], clock: Clock | None) -> RateLimiter:
    if args:
        raise _SpecError("default takes no arguments")
    return default_controller_rate_limiter(clock)


def _exponential(args: list[str], clock: Clock | None) -> RateLimiter:
    _arity(args, 2, "exponential:BASE,MAX, e.g. exponential:5ms,1000s")
    base, mx = _dur(args[0]), _dur(args[1])
    if base <= 0:
        raise _SpecError("BASE must be greater than 0")
    if mx < base:
        raise _SpecError("MAX must be at least BASE")
    return ItemExponentialFailureRateLimiter(base, mx)


def _fastslow(args: list[str], clock: Clock | None) -> RateLimiter:
    _arity(args, 3, "fastslow:FAST,SLOW,ATTEMPTS, e.g. fastslow:5ms,10s,3")
    fast, slow = _dur(args[0]), _dur(args[1])
    attempts = _number(args[2], "ATTEMPTS", int, "a whole number")
    if attempts < 0:
        raise _SpecError("ATTEMPTS must not be negative")
    return ItemFastSlowRateLimiter(fast, slow, attempts)


def _bucket(args: list[str], clock: Clock | None) -> RateLimiter:
    _arity(args, 2, "bucket:QPS,BURST, e.g. bucket:10,100")
    qps = _number(args[0], "QPS", float)
    burst = _number(args[1], "BURST", int, "a whole number")
    if not qps > 0 or math.isinf(qps):
        raise _SpecError("QPS must be greater than 0")
    if burst < 1:
        raise _SpecError("BURST must be at least 1")
    return BucketRateLimiter(qps, burst, clock=clock)


_BUILDERS = {"default": _default, "exponential": _exponential, "fastslow": _fastslow, "bucket": _bucket}


def parse_rate_limiter(spec: str, clock: Clock | None = None) -> RateLimiter:
    """Build a rate limiter from a CLI spec:

    ``default``, ``exponential:5ms,1000s``, ``fastslow:5ms,10s,3``,
    ``bucket:10,100``. ValueError with a one-line message on bad input.
    """
    kind, _, args_s = (spec or "").strip().partition(":")
    args = [a.strip() for a in args_s.split(",")] if args_s else []
    build = _BUILDERS.get(kind.strip().lower())
    try:
        if build is None:
            raise _SpecError(_SPEC_HELP)
        return build(args, clock)
    except _SpecError as e:
        raise ValueError(f'invalid rate limiter "{spec}": {e}') from None
