"""Port of client-go's ``util/workqueue``: Queue, DelayingQueue,
RateLimitingQueue, the rate limiters and the queue metrics.

May import ``core`` and ``clock`` only; none of click, textual, rich or kubernetes.
"""

from kubectl_informer.workqueue.delaying import DelayingQueue
from kubectl_informer.workqueue.metrics import QueueMetrics, Summary
from kubectl_informer.workqueue.queue import Queue
from kubectl_informer.workqueue.rate_limiters import (
    BucketRateLimiter,
    ItemExponentialFailureRateLimiter,
    ItemFastSlowRateLimiter,
    MaxOfRateLimiter,
    RateLimiter,
    default_controller_rate_limiter,
    default_item_based_rate_limiter,
    parse_rate_limiter,
)
from kubectl_informer.workqueue.rate_limiting import RateLimitingQueue

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
