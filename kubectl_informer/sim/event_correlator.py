"""client-go's ``record.EventCorrelator`` (tools/record/events_cache.go), which
every component recording core/v1 Events through ``tools/record`` runs before
it writes one (kube-controller-manager's controllers among them):

- ``EventAggregator``: events about one object from one source with the same
  type and reason but a 10th distinct message within 10 minutes become one
  event, "(combined from similar events): <message>";
- ``eventLogger``: an event equal to one already written (same source,
  object, type, reason and message) is not created again: the first one's
  ``count`` goes up and its ``lastTimestamp`` moves (a patch);
- ``EventSourceObjectSpamFilter``: per source and object, a token bucket of 25
  that refills one token every 5 minutes; an event without a token is dropped.

``EventCorrelator.correlate(event)`` says what to write: (None, None) to
drop it, (event, None) to create it, (event, name) to patch the event ``name``.
Times come from a ``Clock`` (a FakeClock in tests)."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from kubectl_informer.clock import Clock, RealClock

AGGREGATE_MAX_EVENTS = 10  # defaultAggregateMaxEvents
AGGREGATE_INTERVAL = 600.0  # defaultAggregateIntervalInSeconds
SPAM_BURST = 25  # defaultSpamBurst
SPAM_QPS = 1.0 / 300.0  # defaultSpamQPS
COMBINED = "(combined from similar events): "


def _obj_key(e: dict) -> tuple:
    src, io = e.get("source") or {}, e.get("involvedObject") or {}
    return (
        src.get("component", ""),
        src.get("host", ""),
        io.get("kind", ""),
        io.get("namespace", ""),
        io.get("name", ""),
        io.get("uid", ""),
        io.get("apiVersion", ""),
        e.get("type", ""),
    )


def event_key(e: dict) -> tuple:
    """getEventKey: everything that makes two events the same one (fieldPath and message included)."""
    io = e.get("involvedObject") or {}
    return _obj_key(e) + (io.get("fieldPath", ""), e.get("reason", ""), e.get("message", ""))


def aggregate_key(e: dict) -> tuple:
    """EventAggregatorByReasonFunc's aggregate key (the message is the local key)."""
    return _obj_key(e) + (e.get("reason", ""), e.get("reportingComponent", ""), e.get("reportingInstance", ""))


@dataclass
class _Aggregate:
    messages: set = field(default_factory=set)
    last: float = float("-inf")


@dataclass
class _Bucket:
    tokens: float
    at: float


class EventCorrelator:
    """One component's correlator (a broadcaster's, in client-go)."""

    def __init__(self, clock: Clock | None = None):
        self.clock = clock or RealClock()
        self._lock = threading.Lock()
        self._aggregates: dict[tuple, _Aggregate] = {}
        self._seen: dict[tuple, str] = {}  # key -> the name of the event written for it
        self._buckets: dict[tuple, _Bucket] = {}

    def correlate(self, event: dict) -> tuple[dict | None, str | None]:
        with self._lock:
            now = self.clock.now()
            event, key = self._aggregate(event, now)
            name = self._seen.get(key)
            if not self._spam_ok(event, now):
                return None, None
            return event, name

    def written(self, event: dict, key_event: dict | None = None) -> None:
        """UpdateState: remember the event written, by its key (or ``key_event``'s)."""
        with self._lock:
            self._seen[self._key_of(key_event or event)] = event["metadata"]["name"]

    def _key_of(self, event: dict) -> tuple:
        agg = aggregate_key(event)
        return agg if event.get("message", "").startswith(COMBINED) else event_key(event)

    def _aggregate(self, event: dict, now: float) -> tuple[dict, tuple]:
        """EventAggregate: the event as is under its own key, or the combined one under the aggregate key."""
        akey = aggregate_key(event)
        rec = self._aggregates.get(akey)
        if rec is None or now - rec.last > AGGREGATE_INTERVAL:
            rec = _Aggregate()
        rec.messages.add(event.get("message", ""))
        rec.last = now
        self._aggregates[akey] = rec
        if len(rec.messages) < AGGREGATE_MAX_EVENTS:
            return event, event_key(event)
        rec.messages.pop()  # PopAny
        combined = {**event, "message": COMBINED + event.get("message", ""), "count": 1}
        return combined, akey

    def _spam_ok(self, event: dict, now: float) -> bool:
        """TryAccept on the source and object's token bucket."""
        key = _obj_key(event)
        b = self._buckets.get(key)
        if b is None:
            b = self._buckets[key] = _Bucket(SPAM_BURST, now)
        b.tokens = min(SPAM_BURST, b.tokens + (now - b.at) * SPAM_QPS)
        b.at = now
        if b.tokens < 1:
            return False
        b.tokens -= 1
        return True
