"""An in-memory ListerWatcher, like client-go's ``FakeControllerSource``.

Tests, the e2e test and the engine benchmark drive the Reflector through it
without a network. It keeps one resource-version counter, a bounded history
of changes (so a watch from an RV older than the history gets 410, as from
the API server's watch cache), consistent paged lists, the WatchList stream
(``sendInitialEvents`` ended by the ``k8s.io/initial-events-end`` bookmark),
and fault injection: expired watches, dropped watches, ERROR events, and
429 / refused connections on the next list or watch.
"""

from __future__ import annotations

import contextlib
import itertools
import random
import threading
from collections import OrderedDict, deque
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from kubectl_informer.cache.keys import meta_namespace_key_func
from kubectl_informer.cache.listwatch import (
    ADDED,
    BOOKMARK,
    DELETED,
    ERROR,
    INITIAL_EVENTS_END_ANNOTATION,
    MODIFIED,
    ListOptions,
    WatchEvent,
)
from kubectl_informer.clock import Clock
from kubectl_informer.core.apierrors import ApiError


def expired_error(message: str = "too old resource version") -> ApiError:
    return ApiError(410, "Expired", message)


def too_large_error(requested: int, current: int) -> ApiError:
    return ApiError(
        504,
        "Timeout",
        f"Too large resource version: {requested}, current: {current}",
        details=[{"reason": "ResourceVersionTooLarge", "message": "Too large resource version"}],
    )


def too_many_requests_error() -> ApiError:
    return ApiError(429, "TooManyRequests", "too many requests, please try again later", retry_after=1)


def make_object(
    name: str,
    namespace: str | None = "default",
    kind: str = "Pod",
    labels: dict[str, Any] | None = None,
    phase: str | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """A small API-shaped object for tests and benchmarks."""
    meta: dict[str, Any] = {"name": name, "uid": f"uid-{namespace or ''}-{name}"}
    if namespace:
        meta["namespace"] = namespace
    if labels:
        meta["labels"] = dict(labels)
    obj: dict[str, Any] = {"apiVersion": "v1", "kind": kind, "metadata": meta}
    if phase is not None:
        obj["status"] = {"phase": phase}
    obj.update(extra)
    return obj


class FakeWatch:
    """One open watch: an iterable of WatchEvents fed by the source.

    Iteration ends when the source drops or expires the watch, when
    ``stop()`` is called, or when ``timeout_seconds`` pass on the source's
    clock (as the API server ends a watch at its timeout)."""

    def __init__(self, source: FakeSource, deadline: float | None):
        self._source = source
        self._cond = threading.Condition(threading.Lock())
        self._events: deque[WatchEvent] = deque()
        self._closed = False  # no more events will be added; drain then end
        self._stopped = False  # consumer asked to stop: end at once
        self._deadline = deadline
        self._bookmarks = False

    # --- producer side (the source, under its lock) ---
    def _push(self, ev: WatchEvent) -> None:
        with self._cond:
            if self._closed:
                return
            self._events.append(ev)
            if len(self._events) == 1:
                self._cond.notify()

    def _push_many(self, evs: list[WatchEvent]) -> None:
        with self._cond:
            if self._closed:
                return
            self._events.extend(evs)
            self._cond.notify()

    def _close(self, final: WatchEvent | None = None) -> None:
        with self._cond:
            if self._closed:
                return
            if final is not None:
                self._events.append(final)
            self._closed = True
            self._cond.notify_all()

    # --- consumer side ---
    def stop(self) -> None:
        with self._cond:
            self._stopped = True
            self._closed = True
            self._cond.notify_all()
        self._source._forget(self)

    @property
    def stopped(self) -> bool:
        return self._stopped

    def __iter__(self) -> Iterator[WatchEvent]:
        return self

    def __next__(self) -> WatchEvent:
        # A stateful iterator (not a generator) so that the reflector can
        # leave the loop at the initial-events-end bookmark and go on
        # reading the same stream as its watch.
        cond = self._cond
        events = self._events
        with cond:
            while not events:
                if self._stopped or self._closed:
                    self._source._forget(self)
                    raise StopIteration
                clock = self._source.clock
                if self._deadline is not None and clock is not None:
                    remaining = self._deadline - clock.now()
                    if remaining <= 0:
                        self._closed = True
                        continue
                    clock.wait_on(cond, remaining)
                else:
                    cond.wait()
            if self._stopped:
                self._source._forget(self)
                raise StopIteration
            return events.popleft()


class FakeSource:
    """In-memory API collection with watch semantics close to kube-apiserver.

    ``history`` bounds the change log a watch can resume from (the watch
    cache size); a watch from an older RV gets an ERROR 410 event.
    ``watch_list`` False makes a ``sendInitialEvents`` watch close at once
    with no events, as a server without WatchList support appears to the
    reflector. ``honor_limit`` False ignores ``limit`` (a watch cache
    serving RV "0"). ``copy_objects`` False stores caller objects as given
    (the caller promises not to mutate them; benchmarks use it).
    """

    def __init__(
        self,
        clock: Clock | None = None,
        history: int = 1000,
        watch_list: bool = True,
        honor_limit: bool = True,
        copy_objects: bool = True,
        key_func: Callable[[Any], str] = meta_namespace_key_func,
    ) -> None:
        self.clock = clock
        self.watch_list = watch_list
        self.honor_limit = honor_limit
        self.copy_objects = copy_objects
        self._key = key_func
        self._lock = threading.RLock()
        self._items: dict[str, dict[str, Any]] = {}
        self._rv = 0
        self._history: deque[tuple[int, WatchEvent]] = deque(maxlen=max(1, history))
        # Events older than this RV are gone: a watch from before it gets 410.
        self._compacted_rv = 0
        self._watches: list[FakeWatch] = []
        self._snapshots: OrderedDict[str, tuple[int, list[dict[str, Any]]]] = OrderedDict()
        self._snap_ids = itertools.count(1)
        self._faults: list[tuple[str | None, BaseException]] = []
        # Call log for tests: ("list"|"watch", ListOptions).
        self.calls: list[tuple[str, ListOptions]] = []

    # ------------------------------------------------------------------ state
    @property
    def resource_version(self) -> str:
        return str(self._rv)

    def objects(self) -> dict[str, dict[str, Any]]:
        with self._lock:
            return dict(self._items)

    def get(self, key: str) -> dict[str, Any] | None:
        return self._items.get(key)

    def __len__(self) -> int:
        return len(self._items)

    def open_watches(self) -> int:
        with self._lock:
            return len(self._watches)

    def _stamp(self, obj: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        if self.copy_objects:
            obj = dict(obj)
            obj["metadata"] = dict(obj.get("metadata") or {})
        self._rv += 1
        obj["metadata"]["resourceVersion"] = str(self._rv)
        return self._key(obj), obj

    def _record(self, ev: WatchEvent) -> None:
        if len(self._history) == self._history.maxlen:
            self._compacted_rv = self._history[0][0]
        self._history.append((self._rv, ev))
        for w in self._watches:
            w._push(ev)

    def add(self, obj: dict[str, Any]) -> dict[str, Any]:
        with self._lock:
            key, obj = self._stamp(obj)
            self._items[key] = obj
            self._record(WatchEvent(ADDED, obj))
            return obj

    def modify(self, obj: dict[str, Any]) -> dict[str, Any]:
        with self._lock:
            key, obj = self._stamp(obj)
            self._items[key] = obj
            self._record(WatchEvent(MODIFIED, obj))
            return obj

    def update(self, obj: dict[str, Any]) -> dict[str, Any]:
        return self.modify(obj)

    def delete(self, obj: dict[str, Any] | str) -> dict[str, Any] | None:
        """Delete by object or key; the DELETED event carries the last state
        at a new RV, as the API server sends it."""
        with self._lock:
            key = obj if isinstance(obj, str) else self._key(obj)
            old = self._items.pop(key, None)
            if old is None:
                return None
            gone = dict(old)
            gone["metadata"] = dict(old["metadata"])
            self._rv += 1
            gone["metadata"]["resourceVersion"] = str(self._rv)
            self._record(WatchEvent(DELETED, gone))
            return gone

    def bulk_add(self, objs: Iterable[dict[str, Any]]) -> None:
        """Add many objects without watch history (seeding before a run)."""
        with self._lock:
            for obj in objs:
                key, obj = self._stamp(obj)
                self._items[key] = obj
            self._compacted_rv = self._rv

    def bookmark(self) -> None:
        """Send a BOOKMARK at the current RV to every open watch that asked
        for bookmarks."""
        with self._lock:
            ev = WatchEvent(BOOKMARK, {"kind": "Bookmark", "metadata": {"resourceVersion": str(self._rv)}})
            for w in self._watches:
                if getattr(w, "_bookmarks", False):
                    w._push(ev)

    def churn(
        self,
        ops: int,
        rng: random.Random | None = None,
        prefix: str = "obj",
        namespace: str = "default",
        max_objects: int = 50,
    ) -> None:
        """``ops`` random adds, modifies and deletes over at most
        ``max_objects`` names: the churn the e2e test runs under faults."""
        rng = rng or random.Random()
        for _ in range(ops):
            name = f"{prefix}-{rng.randrange(max_objects)}"
            key = f"{namespace}/{name}" if namespace else name
            with self._lock:
                cur = self._items.get(key)
                if cur is None:
                    self.add(make_object(name, namespace, phase="Pending", labels={"app": prefix}))
                elif rng.random() < 0.25:
                    self.delete(key)
                else:
                    new = dict(cur)
                    new["status"] = {
                        "phase": rng.choice(["Pending", "Running", "Succeeded"]),
                        "n": rng.randrange(1 << 30),
                    }
                    self.modify(new)

    # ----------------------------------------------------------------- faults
    def fail_next(self, err: BaseException, verb: str | None = None, count: int = 1) -> None:
        """Raise ``err`` from the next ``count`` calls of ``verb`` ("list",
        "watch", or None for either)."""
        if verb not in (None, "list", "watch"):
            raise ValueError(f"verb must be list, watch or None, not {verb!r}")
        with self._lock:
            for _ in range(count):
                self._faults.append((verb, err))

    def _take_fault(self, verb: str) -> BaseException | None:
        with self._lock:
            for i, (v, err) in enumerate(self._faults):
                if v is None or v == verb:
                    del self._faults[i]
                    return err
        return None

    def drop_watches(self) -> None:
        """End every open watch cleanly, as a proxy or server restart does."""
        with self._lock:
            watches, self._watches = self._watches, []
        for w in watches:
            w._close()

    def send_error(self, err: ApiError) -> None:
        """Send an ERROR event carrying ``err``'s Status to every open watch;
        the server closes the stream after it."""
        with self._lock:
            watches, self._watches = self._watches, []
        for w in watches:
            w._close(WatchEvent(ERROR, err.to_status()))

    def compact(self) -> None:
        """Forget the change history: any watch from an RV before now gets 410."""
        with self._lock:
            self._history.clear()
            self._compacted_rv = self._rv

    def expire_watches(self) -> None:
        """Compact, then end every open watch with ERROR 410 Expired."""
        self.compact()
        self.send_error(expired_error())

    # ------------------------------------------------------------ ListWatcher
    def _check_rv(self, rv_str: str | None) -> int | None:
        """The numeric RV asked for, or None for "" / "0" (any)."""
        if not rv_str or rv_str == "0":
            return None
        try:
            rv = int(rv_str)
        except ValueError:
            raise ApiError(400, "BadRequest", f"invalid resource version {rv_str!r}") from None
        if rv > self._rv:
            raise too_large_error(rv, self._rv)
        return rv

    def list(self, options: ListOptions) -> dict[str, Any]:
        self.calls.append(("list", options))
        err = self._take_fault("list")
        if err is not None:
            raise err
        with self._lock:
            if options.continue_:
                snap = self._snapshots.get(options.continue_)
                if snap is None:
                    raise expired_error("the provided continue parameter is too old")
                rv, rest = snap
                del self._snapshots[options.continue_]
            else:
                self._check_rv(options.resource_version)
                rv = self._rv
                rest = list(self._items.values())
            limit = options.limit if (self.honor_limit and options.limit) else None
            meta: dict[str, Any] = {"resourceVersion": str(rv)}
            if limit is not None and len(rest) > limit:
                page, rest = rest[:limit], rest[limit:]
                token = f"c{next(self._snap_ids)}"
                self._snapshots[token] = (rv, rest)
                while len(self._snapshots) > 64:
                    self._snapshots.popitem(last=False)
                meta["continue"] = token
                meta["remainingItemCount"] = len(rest)
            else:
                page = rest
            return {"kind": "List", "apiVersion": "v1", "metadata": meta, "items": page}

    def watch(self, options: ListOptions) -> FakeWatch:
        self.calls.append(("watch", options))
        err = self._take_fault("watch")
        if err is not None:
            raise err
        with self._lock:
            deadline = None
            if options.timeout_seconds and self.clock is not None:
                deadline = self.clock.now() + options.timeout_seconds
            w = FakeWatch(self, deadline)
            w._bookmarks = options.allow_watch_bookmarks
            initial: list[WatchEvent] = []
            if options.send_initial_events:
                if not self.watch_list:
                    w._close()
                    return w
                self._check_rv(options.resource_version)
                initial = [WatchEvent(ADDED, o) for o in self._items.values()]
                initial.append(
                    WatchEvent(
                        BOOKMARK,
                        {
                            "kind": "Bookmark",
                            "metadata": {
                                "resourceVersion": str(self._rv),
                                "annotations": {INITIAL_EVENTS_END_ANNOTATION: "true"},
                            },
                        },
                    )
                )
            else:
                rv = self._check_rv(options.resource_version)
                if rv is None:
                    # "" / "0": the current state as ADDED events, then changes.
                    initial = [WatchEvent(ADDED, o) for o in self._items.values()]
                elif rv < self._compacted_rv:
                    w._close(
                        WatchEvent(
                            ERROR, expired_error(f"too old resource version: {rv} ({self._compacted_rv})").to_status()
                        )
                    )
                    return w
                else:
                    initial = [ev for (erv, ev) in self._history if erv > rv]
            if initial:
                w._push_many(initial)
            self._watches.append(w)
            return w

    def _forget(self, w: FakeWatch) -> None:
        with self._lock, contextlib.suppress(ValueError):
            self._watches.remove(w)
