"""The simulated API server's watch cache: stored entries, the events of a
resource's window and history, and the watchers reading from it.

As kube-apiserver's cacher: per resource a *window* of the last
``watch_cache_size`` events (a watch from an RV older than it gets 410 "too
old resource version"), a longer *history* (etcd's MVCC revisions until
compaction) for Exact lists and continue tokens, and watchers, each with its
own queue, fed under the store's lock so every watcher sees events in RV order.
An entry keeps its object as serialized JSON bytes, so a list is a join.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from typing import Any, Callable

import orjson

from kubectl_informer.cache.listwatch import INITIAL_EVENTS_END_ANNOTATION
from kubectl_informer.sim.resources import ResourceDef

ADDED, MODIFIED, DELETED, BOOKMARK = "ADDED", "MODIFIED", "DELETED", "BOOKMARK"


class Entry:
    """One stored object version: its JSON bytes and what selectors read."""

    __slots__ = ("key", "namespace", "name", "rv", "raw", "labels", "fields")

    def __init__(self, key: str, namespace: str, name: str, rv: int, raw: bytes, labels: dict, fields: dict):
        self.key, self.namespace, self.name, self.rv = key, namespace, name, rv
        self.raw, self.labels, self.fields = raw, labels, fields

    def obj(self) -> dict:
        """A fresh decoded copy (callers may mutate it)."""
        return orjson.loads(self.raw)


class Event:
    """A committed change; ``entry`` is the new state (for DELETED, the last
    state stamped with the deletion's RV), ``prev`` the state before."""

    __slots__ = ("type", "rv", "entry", "prev", "_line", "t")

    def __init__(self, type: str, rv: int, entry: Entry, prev: Entry | None):
        self.type, self.rv, self.entry, self.prev = type, rv, entry, prev
        self._line: bytes | None = None
        self.t = 0.0  # when recorded (the store's clock): history older than history_seconds is compacted

    def line(self, type: str | None = None) -> bytes:
        """The watch-stream line, cached for the event's own type."""
        if type is None or type == self.type:
            if self._line is None:
                self._line = watch_line(self.type, self.entry.raw)
            return self._line
        return watch_line(type, self.entry.raw)


def watch_line(type: str, raw: bytes) -> bytes:
    return b'{"type":"' + type.encode() + b'","object":' + raw + b"}\n"


class Bookmark:
    __slots__ = ("rv",)

    def __init__(self, rv: int):
        self.rv = rv


_CLOSE = object()


class Watcher:
    """One watch stream's queue. The store pushes under its lock; the HTTP
    handler thread pops, filters and writes."""

    def __init__(self, state: "ResourceState", namespace: str | None, label_match, field_match,
                 bookmarks: bool, max_queue: int):
        self.state = state
        self.rdef = state.rdef
        self.namespace = namespace or None
        self.label_match = label_match
        self.field_match = field_match
        self.bookmarks = bookmarks
        self.max_queue = max_queue
        self._items: deque = deque()
        self._cond = threading.Condition(threading.Lock())
        self.closed = False
        self.close_reason = ""   # "dropped", "abrupt", "slow", "stopped", "reload"
        self.last_rv = 0         # highest RV written to the client

    # -- producer side (store lock held) --
    def push(self, item) -> None:
        with self._cond:
            if self.closed:
                return
            if len(self._items) >= self.max_queue:
                # kube-apiserver closes a watcher that cannot keep up.
                self.closed, self.close_reason = True, "slow"
                self._items.append(_CLOSE)
            else:
                self._items.append(item)
            self._cond.notify()

    def close(self, reason: str) -> None:
        with self._cond:
            if not self.closed:
                self.closed, self.close_reason = True, reason
                self._items.append(_CLOSE)
                self._cond.notify()

    # -- consumer side --
    def next(self, timeout: float | None):
        """The next item, ``None`` on timeout, ``_CLOSE`` once closed."""
        with self._cond:
            if not self._items:
                self._cond.wait(timeout)
            if not self._items:
                return None
            return self._items.popleft()

    def pending(self) -> int:
        with self._cond:
            return len(self._items)

    def matches(self, e: Entry | None) -> bool:
        if e is None:
            return False
        if self.namespace is not None and e.namespace != self.namespace:
            return False
        if self.label_match is not None and not self.label_match(e.labels):
            return False
        if self.field_match is not None and not self.field_match(e.fields):
            return False
        return True

    def filter(self, ev: Event) -> str | None:
        """The type to send for ``ev`` (selectors turn MODIFIED into ADDED or
        DELETED when an object enters or leaves the selection), or None."""
        if ev.type != MODIFIED:
            return ev.type if self.matches(ev.entry) else None
        now_in, was_in = self.matches(ev.entry), self.matches(ev.prev)
        if now_in and was_in:
            return MODIFIED
        if now_in:
            return ADDED
        if was_in:
            return DELETED
        return None


class ResourceState:
    def __init__(self, rdef: ResourceDef, window: int, history_limit: int,
                 history_seconds: float | None = None, now: Callable[[], float] = time.monotonic):
        self.rdef = rdef
        self.history_seconds = history_seconds
        self.now = now
        self.objects: dict[str, Entry] = {}
        self._sorted: list[str] | None = []
        self.window: deque[Event] = deque()
        self.window_size = window
        self.window_start = 0      # every event with rv > window_start is in the window
        self.evicted = False       # has the window dropped an event since it (re)started?
        self.history: deque[Event] = deque()
        self.history_limit = history_limit
        self.history_floor = 0     # states at rv >= history_floor can be rebuilt
        self.watchers: set[Watcher] = set()
        self.listeners: list[Callable[[ResourceDef, Event], None]] = []  # the store's, shared

    def sorted_keys(self) -> list[str]:
        if self._sorted is None:
            self._sorted = sorted(self.objects)
        return self._sorted

    def keys_changed(self) -> None:
        self._sorted = None

    def record(self, ev: Event) -> None:
        self.window.append(ev)
        while len(self.window) > self.window_size:
            gone = self.window.popleft()
            gone._line = None  # no new watch replays it: history keeps the entries, not the wire line
            self.window_start = gone.rv
            self.evicted = True
        history = self.history
        history.append(ev)
        while len(history) > self.history_limit:
            self.history_floor = history.popleft().rv
        if self.history_seconds is not None:
            # etcd compaction, as kube-apiserver asks for it every 5 minutes:
            # revisions older than that are gone (Exact lists from them: 410).
            ev.t = now = self.now()
            oldest = now - self.history_seconds
            while history[0].t < oldest:
                self.history_floor = history.popleft().rv
        for w in list(self.watchers):
            w.push(ev)
        for fn in self.listeners:
            fn(self.rdef, ev)

    def too_old_below(self) -> int:
        """The lowest RV a watch may start from. As kube-apiserver's watch
        cache: the RV it started at until an event is evicted, then one less
        than the oldest event it still holds."""
        if self.evicted and self.window:
            return self.window[0].rv - 1
        return self.window_start

    def snapshot_at(self, rv: int) -> dict[str, Entry]:
        """The objects as they were at ``rv`` (caller checked history_floor)."""
        objs = dict(self.objects)
        for ev in reversed(self.history):
            if ev.rv <= rv:
                break
            if ev.prev is None:
                objs.pop(ev.entry.key, None)
            else:
                objs[ev.entry.key] = ev.prev
        return objs


def bookmark_object(rdef: ResourceDef, rv: int, initial_end: bool = False) -> dict:
    meta: dict[str, Any] = {"resourceVersion": str(rv)}
    if initial_end:
        meta["annotations"] = {INITIAL_EVENTS_END_ANNOTATION: "true"}
    return {"kind": rdef.kind, "apiVersion": rdef.api_version, "metadata": meta}


def bookmark_line(rdef: ResourceDef, rv: int, initial_end: bool = False) -> bytes:
    return watch_line(BOOKMARK, orjson.dumps(bookmark_object(rdef, rv, initial_end)))


def is_bookmark(item) -> bool:
    return isinstance(item, Bookmark)


def is_close(item) -> bool:
    return item is _CLOSE
