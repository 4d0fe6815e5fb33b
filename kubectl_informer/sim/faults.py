"""Fault injection for the simulated API server.

Faults are what a real cluster does to a client now and then: watches that
end or are cut, 410 / 429 / 500 answers, streams that stall, slow answers,
and an API server that does not support WatchList. Tests and scenarios set
them; the HTTP handler consults them on every request. Durations are real
seconds: the server runs on wall time.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kubectl_informer.core.apierrors import ApiError

if TYPE_CHECKING:
    from kubectl_informer.sim.resources import ResourceDef
    from kubectl_informer.sim.store import Store

_REASONS = {
    400: ("BadRequest", "bad request (injected)"),
    403: ("Forbidden", "forbidden (injected)"),
    404: ("NotFound", "the server could not find the requested resource (injected)"),
    409: ("Conflict", "conflict (injected)"),
    410: ("Expired", "too old resource version (injected)"),
    429: ("TooManyRequests", "too many requests, please try again later (injected)"),
    500: ("InternalError", "Internal error occurred: injected failure"),
    503: ("ServiceUnavailable", "the server is currently unable to handle the request (injected)"),
    415: ("UnsupportedMediaType", "the body of the request was in an unknown format (injected)"),
    504: ("Timeout", "the server was unable to return a response in the time allotted (injected)"),
}


BURST_ANNOTATION = "sim.kubectl-informer/burst"


def status_error(status: int, message: str | None = None) -> ApiError:
    reason, default = _REASONS.get(status, ("InternalError", f"injected HTTP {status}"))
    return ApiError(status, reason, message or default, retry_after=1 if status == 429 else None)


@dataclass
class _Failure:
    """Requests to fail: how many more, with which status, for which verb and resource."""

    status: int
    count: int
    verb: str | None
    resource: str | None
    message: str | None


class Faults:
    """The server's fault switches. Verbs: get, list, watch, create, update,
    patch, delete (and None for any)."""

    def __init__(self, store: Store, watch_list: bool = True):
        self._store = store
        self._lock = threading.Lock()
        self._failures: list[_Failure] = []
        self._stall_until = 0.0
        self._delay = 0.0
        self._lag = 0.0
        self._lag_resource: str | None = None
        # The store's clock: a watch event's commit time (Event.t) is on it.
        self.now = getattr(store, "_now", None) or time.monotonic
        self._delay_verb: str | None = None
        self.watch_list_enabled = watch_list
        self._watch_list_default = watch_list
        # "reject": 422 as a server with the WatchList gate off; "ignore": treat
        # sendInitialEvents as unknown, as servers before 1.27 did.
        self.watch_list_mode = "reject"
        self.injected = 0  # failures answered so far

    # -- switches --
    def drop_watches(self, resource: str | ResourceDef | None = None, abrupt: bool = False) -> int:
        """End every open watch now (``abrupt``: cut the connection instead of
        ending the stream). Returns how many."""
        return self._store.drop_watches(resource, abrupt=abrupt)

    def expired_storm(self, resource: str, count: int = 3) -> int:
        """A 410 storm: the next ``count`` watches of ``resource`` answer 410
        Expired and the open ones are ended now, so each client relists that
        many times in a row. Returns how many watches were ended."""
        self.fail_next(
            410, count=count, verb="watch", resource=resource, message="too old resource version (injected: 410 storm)"
        )
        return self.drop_watches(resource)

    def compact(self, resource: str | ResourceDef) -> tuple[int, int]:
        """etcd compaction at the current RV, with the watch cache of
        ``resource`` emptied and its watches ended: a client whose last RV is
        older than the compaction gets 410 on its re-watch and relists; one
        that is up to date watches on. Returns (compacted RV, watches ended)."""
        store = self._store
        with store.lock:  # no write may slip between the cut and the compaction
            ended = store.drop_watches(resource)
            rv = store.compact()
            store.expire_watch_cache(resource)
        return rv, ended

    def burst(self, resource: str | ResourceDef, namespace: str | None, name: str, count: int = 20) -> int:
        """``count`` updates to one object back to back (an annotation bumped
        each time). Returns how many were made (fewer if it went away)."""
        done = 0
        for _ in range(count):
            if not self._bump(resource, namespace, name):
                break
            done += 1
        return done

    def _bump(self, resource: str | ResourceDef, namespace: str | None, name: str, attempts: int = 5) -> bool:
        """One update; a conflict with the scenario's own writes is retried."""
        for _ in range(attempts):
            try:
                obj = self._store.get(resource, namespace, name)
                ann = obj["metadata"].setdefault("annotations", {})
                ann[BURST_ANNOTATION] = str(int(ann.get(BURST_ANNOTATION, "0")) + 1)
                self._store.update(resource, obj)
                return True
            except ApiError as e:
                if e.status != 409:
                    return False  # gone meanwhile
        return False

    def fail_next(
        self,
        status: int,
        count: int = 1,
        verb: str | None = None,
        resource: str | None = None,
        message: str | None = None,
    ) -> None:
        """Answer the next ``count`` requests (of ``verb`` on ``resource``, if
        given) with a Status of ``status``. A 410 on a watch arrives as an
        ERROR event on an open stream, as kube-apiserver sends it."""
        if count < 1:
            raise ValueError("count must be >= 1")
        if resource is not None:
            resource = self._store.resource(resource).qualified
        with self._lock:
            self._failures.append(_Failure(int(status), int(count), verb, resource, message))

    def clear(self) -> None:
        """Remove every pending failure, stall and delay; WatchList back to
        what the server started with."""
        with self._lock:
            self._failures.clear()
            self._stall_until = 0.0
            self._delay = 0.0
            self._delay_verb = None
            self._lag = 0.0
            self.watch_list_enabled = self._watch_list_default
            self.watch_list_mode = "reject"

    def stall_watches(self, seconds: float) -> None:
        """Hold every watch stream's events for ``seconds`` (then they flow)."""
        with self._lock:
            self._stall_until = time.monotonic() + max(0.0, seconds)

    def lag_watches(self, seconds: float, resource: str | None = None) -> None:
        """Hold each watch event of ``resource`` (None: every resource) until
        ``seconds`` after it was committed, as a busy API server or a slow
        network delivers a watch late while writes answer at once; 0 turns it
        off. A client's cache then trails its own writes (``--demo stale``)."""
        with self._lock:
            self._lag = max(0.0, seconds)
            self._lag_resource = resource

    def watch_lag(self, resource: str) -> float:
        lag = self._lag
        if lag and self._lag_resource in (None, resource):
            return lag
        return 0.0

    def delay(self, seconds: float, verb: str | None = None) -> None:
        """Delay every response (of ``verb``) by ``seconds``; 0 turns it off."""
        with self._lock:
            self._delay = max(0.0, seconds)
            self._delay_verb = verb

    def set_watch_list(self, enabled: bool, mode: str = "reject") -> None:
        """Turn WatchList (sendInitialEvents) support on or off."""
        if mode not in ("reject", "ignore"):
            raise ValueError('watch-list mode must be "reject" or "ignore"')
        with self._lock:
            self.watch_list_enabled = bool(enabled)
            self.watch_list_mode = mode

    @property
    def watch_list(self) -> bool:
        return self.watch_list_enabled

    @watch_list.setter
    def watch_list(self, enabled: bool) -> None:
        self.set_watch_list(enabled)

    # -- what the handler asks --
    def take_failure(self, verb: str, resource: str | None) -> ApiError | None:
        with self._lock:
            for f in self._failures:
                if f.verb not in (None, verb):
                    continue
                if f.resource is not None and resource is not None and f.resource != resource:
                    continue
                f.count -= 1
                if f.count <= 0:
                    self._failures.remove(f)
                self.injected += 1
                return status_error(f.status, f.message)
        return None

    def pending_failures(self) -> int:
        with self._lock:
            return sum(f.count for f in self._failures)

    def response_delay(self, verb: str) -> float:
        with self._lock:
            if self._delay and self._delay_verb in (None, verb):
                return self._delay
        return 0.0

    def stall_remaining(self) -> float:
        return max(0.0, self._stall_until - time.monotonic())
