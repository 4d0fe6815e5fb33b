"""Port of client-go's ``util/workqueue``: Queue, DelayingQueue,
RateLimitingQueue, the rate limiters and the queue metrics."""

from .delaying import DelayingQueue
from .metrics import QueueMetrics, Summary
from .queue import Queue
from .rate_limiters import (
    BucketRateLimiter,
    ItemExponentialFailureRateLimiter,
    ItemFastSlowRateLimiter,
    MaxOfRateLimiter,
    RateLimiter,
    default_controller_rate_limiter,
    default_item_based_rate_limiter,
    parse_rate_limiter,
)
from .rate_limiting import RateLimitingQueue

__all__ = [
    "Queue",
    "DelayingQueue",
    "RateLimitingQueue",
    "RateLimiter",
    "ItemExponentialFailureRateLimiter",
    "ItemFastSlowRateLimiter",
    "BucketRateLimiter",
    "MaxOfRateLimiter",
    "default_controller_rate_limiter",
    "default_item_based_rate_limiter",
    "parse_rate_limiter",
    "QueueMetrics",
    "Summary",
]
