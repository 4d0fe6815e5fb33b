"""RateLimitingQueue: client-go's ``rate_limiting_queue.go``.

A DelayingQueue that asks a rate limiter how long a failed item should wait
before it is retried. Workers call ``add_rate_limited`` on failure and
``forget`` on success (or when giving up); ``forget`` only clears the
limiter's memory of the item, the worker still calls ``done``.
"""

from __future__ import annotations

from collections.abc import Hashable

from kubectl_informer.clock import Clock
from kubectl_informer.core.trace import Tracer
from kubectl_informer.core.trace_kinds import QUEUE_FORGET, QUEUE_RATE_LIMITED
from kubectl_informer.workqueue.delaying import DelayingQueue
from kubectl_informer.workqueue.queue import _key
from kubectl_informer.workqueue.rate_limiters import (
    RateLimiter,
    default_controller_rate_limiter,
)

__all__ = ["RateLimitingQueue"]


class RateLimitingQueue(DelayingQueue):
    """``workqueue.NewRateLimitingQueue(rate_limiter)``; the default limiter
    is ``default_controller_rate_limiter`` on the queue's clock."""

    def __init__(
        self,
        rate_limiter: RateLimiter | None = None,
        *,
        name: str | None = None,
        clock: Clock | None = None,
        tracer: Tracer | None = None,
    ) -> None:
        super().__init__(name=name, clock=clock, tracer=tracer)
        self.rate_limiter = rate_limiter if rate_limiter is not None else default_controller_rate_limiter(self._clock)

    def add_rate_limited(self, item: Hashable) -> None:
        """Re-add ``item`` after the delay the rate limiter chooses."""
        delay = self.rate_limiter.when(item)
        if self._tracer.enabled:
            self._tracer.emit(
                QUEUE_RATE_LIMITED, _key(item), delay=delay, requeues=self.rate_limiter.num_requeues(item)
            )
        self.add_after(item, delay)

    def forget(self, item: Hashable) -> None:
        """Stop tracking ``item``'s failures (its back-off starts over)."""
        if self._tracer.enabled:
            # Forgetting an item that never failed changes nothing: not traced.
            requeues = self.rate_limiter.num_requeues(item)
            if requeues:
                self._tracer.emit(QUEUE_FORGET, _key(item), requeues=requeues)
        self.rate_limiter.forget(item)

    def num_requeues(self, item: Hashable) -> int:
        return self.rate_limiter.num_requeues(item)
