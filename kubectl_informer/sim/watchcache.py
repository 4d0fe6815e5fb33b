"""The simulated API server's watch cache: stored entries, the events of a
resource's window and history, and the watchers reading from it.

As kube-apiserver's cacher: per resource a *window* of the last
``watch_cache_size`` events (a watch from an RV older than it gets 410 "too
old resource version"), a longer *history* (etcd's MVCC revisions until
compaction) for Exact lists and continue tokens, and watchers, each with its
own queue, fed under the store's lock so every watcher sees events in RV order.
An entry keeps its object as serialized JSON bytes, so a list is a join.

The window is the cacher's cyclic buffer: its capacity grows (doubled while
full and its oldest event is younger than ``EVENT_FRESH_SECONDS``) and shrinks
(halved while full and its newest quarter is older than that), between a lower
and an upper bound, as watchCache.resizeCacheLocked does; kube-apiserver's
bounds (100 and 102,400) are the default, and a scenario that needs a small
window fixes both (``Store.set_watch_cache_size``).

Each resource's cache has its own resourceVersion (watchCache.resourceVersion):
the RV of its newest event, or of the last progress notification from etcd,
which moves it up to etcd's revision (global: other resources' writes move it)
without an event. Lists served from the cache and bookmarks carry it. A cache
being re-initialised serves no watch (429 "storage is (re)initializing") and
restarts its window at the RV it re-listed at. ``window_figures`` is what the
sim-only debug endpoint reports (see server.py).
"""

from __future__ import annotations

import bisect
import itertools
import math
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any, TypeGuard

import orjson

from kubectl_informer.cache.listwatch import INITIAL_EVENTS_END_ANNOTATION
from kubectl_informer.core.selectors import Matcher
from kubectl_informer.sim.resources import ResourceDef

ADDED, MODIFIED, DELETED, BOOKMARK = "ADDED", "MODIFIED", "DELETED", "BOOKMARK"

# watchCache's eventFreshDuration: a full buffer of events younger than this grows.
EVENT_FRESH_SECONDS = 75.0
# kube-apiserver's bounds for the buffer (defaultLowerBoundCapacity, defaultUpperBoundCapacity).
LOWER_BOUND_CAPACITY, UPPER_BOUND_CAPACITY = 100, 100 * 1024
# kube-apiserver's wait for its cache to reach a resourceVersion (cacher's blockTimeout).
BLOCK_TIMEOUT = 3.0
# etcd's default --watch-progress-notify-interval: an idle watch gets a progress notification this often.
PROGRESS_NOTIFY_SECONDS = 600.0
# The turnover rate is measured over this many seconds.
TURNOVER_SECONDS = 10.0
_WATCHER_IDS = itertools.count(1)


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

    __slots__ = ("type", "rv", "entry", "prev", "_line", "_windowed", "t")

    def __init__(self, type: str, rv: int, entry: Entry, prev: Entry | None):
        self.type, self.rv, self.entry, self.prev = type, rv, entry, prev
        self._line: bytes | None = None
        self._windowed = True  # its line is cached only while the window may replay it
        self.t = 0.0  # when recorded (the store's clock): history older than history_seconds is compacted

    def line(self, type: str | None = None) -> bytes:
        """The watch-stream line, cached for the event's own type while the
        event is in the window. A watch handler calls this without the
        store's lock, so the window may evict the event meanwhile: ``_line``
        is read once, never re-read after the eviction cleared it."""
        if type is not None and type != self.type:
            return watch_line(type, self.entry.raw)
        line = self._line
        if line is None:
            line = watch_line(self.type, self.entry.raw)
            if self._windowed:  # a watcher behind the window writes it without keeping it
                self._line = line
        return line

    def leave_window(self) -> None:
        """No new watch replays it: history keeps the entries, not the wire line."""
        self._windowed = False
        self._line = None


def watch_line(type: str, raw: bytes) -> bytes:
    return b'{"type":"' + type.encode() + b'","object":' + raw + b"}\n"


def resized_capacity(
    capacity: int, oldest_age: float, quarter_age: float, lower: int, upper: int, fresh: float = EVENT_FRESH_SECONDS
) -> int:
    """watchCache.resizeCacheLocked's rule for a full buffer about to take an
    event: ``oldest_age`` is how old its oldest event is, ``quarter_age`` the
    one a quarter of the capacity from the newest end. Doubled (up to
    ``upper``) while the oldest is younger than ``fresh``; else halved (down
    to ``lower``) once that newest quarter is older than ``fresh``."""
    if oldest_age < fresh:
        return max(capacity, min(capacity * 2, upper))
    if quarter_age > fresh:
        return min(capacity, max(capacity // 2, lower))
    return capacity


def retry_after_for_unready_cache(downtime: float) -> int:
    """The Retry-After of the 429 a re-initialising cache answers a watch
    with (calculateRetryAfterForUnreadyCache): e^(0.06 s⁻¹ × downtime),
    between 1 and 30 seconds."""
    return int(min(30.0, max(1.0, math.exp(0.06 * max(0.0, downtime)))))


class Bookmark:
    __slots__ = ("rv",)

    def __init__(self, rv: int):
        self.rv = rv


_CLOSE = object()


class Watcher:
    """One watch stream's queue. The store pushes under its lock; the HTTP
    handler thread pops, filters and writes."""

    def __init__(
        self,
        state: ResourceState,
        namespace: str | None,
        label_match: Matcher | None,
        field_match: Matcher | None,
        bookmarks: bool,
        max_queue: int,
        user_agent: str = "",
        start_rv: str = "",
    ):
        self.id = next(_WATCHER_IDS)
        self.user_agent = user_agent[:256]  # what the client sent: how a client finds its own watcher
        self.start_rv = start_rv  # the resourceVersion the watch asked for, as sent
        self.sent = 0  # events written to this watcher's stream (not bookmarks)
        self.state = state
        self.rdef = state.rdef
        self.namespace = namespace or None
        self.label_match = label_match
        self.field_match = field_match
        self.bookmarks = bookmarks
        self.max_queue = max_queue
        self._items: deque[Event | Bookmark | object] = deque()
        self._cond = threading.Condition(threading.Lock())
        self.closed = False
        self.close_reason = ""  # "dropped", "abrupt", "slow", "stopped", "reload"
        self.last_rv = 0  # highest RV written to the client
        # The RV the cacher's watcher processes from (cacheWatcher.process): an
        # event or bookmark at or below it is never sent.
        self.floor = 0

    # -- producer side (store lock held) --
    def push(self, item: Event | Bookmark) -> None:
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

    def close(self, reason: str, drop_pending: bool = False) -> None:
        """End the watch. ``drop_pending``: the events still queued are
        dropped, as the cacher does to a watcher it terminates for being
        too slow (its buffer is discarded with it)."""
        with self._cond:
            if not self.closed:
                self.closed, self.close_reason = True, reason
                if drop_pending:
                    self._items.clear()
                self._items.append(_CLOSE)
                self._cond.notify()

    # -- consumer side --
    def next(self, timeout: float | None) -> Any:  # Event | Bookmark | the _CLOSE sentinel | None
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
        return self.field_match is None or bool(self.field_match(e.fields))

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
    def __init__(
        self,
        rdef: ResourceDef,
        window: int | None,
        history_limit: int,
        history_seconds: float | None = None,
        now: Callable[[], float] = time.monotonic,
    ):
        """``window``: a fixed capacity (both bounds), or None for
        kube-apiserver's: 100 events, growing up to 102,400."""
        self.rdef = rdef
        self.history_seconds = history_seconds
        self.now = now
        self.objects: dict[str, Entry] = {}
        self._sorted: list[str] | None = []
        self.window: deque[Event] = deque()
        if window is None:
            self.window_size, self.lower_capacity, self.upper_capacity = (
                LOWER_BOUND_CAPACITY,
                LOWER_BOUND_CAPACITY,
                UPPER_BOUND_CAPACITY,
            )
        else:
            self.window_size = self.lower_capacity = self.upper_capacity = window
        self.window_start = 0  # every event with rv > window_start is in the window
        self.evicted = False  # has the window dropped an event since it (re)started?
        self.rv = 0  # the cache's resourceVersion (watchCache.resourceVersion)
        self.history: deque[Event] = deque()
        self.history_limit = history_limit
        self.history_floor = 0  # states at rv >= history_floor can be rebuilt
        self.watchers: set[Watcher] = set()
        self.listeners: list[Callable[[ResourceDef, Event], None]] = []  # the store's, shared
        self.ready = True  # False while the cache re-initialises
        self.down_since = 0.0  # when it last stopped being ready (the 429's Retry-After grows with it)
        self.initialisations = 1  # watchCache.Replace calls: the first list, then each re-initialisation
        self.bookmarks_sent = 0
        self.progress_notifications = 0  # progress notifications that moved the cache's RV
        self.received = 0  # events that entered the window
        self._entered: deque[float] = deque(maxlen=4096)  # when they entered (the turnover rate)

    def sorted_keys(self) -> list[str]:
        if self._sorted is None:
            self._sorted = sorted(self.objects)
        return self._sorted

    def keys_changed(self) -> None:
        self._sorted = None

    def record(self, ev: Event) -> None:
        ev.t = now = self.now()
        if self.ready:  # a cache re-initialising keeps no window: it restarts at its list's RV
            self._resize(now)
            self.window.append(ev)
            self.rv = ev.rv
            self.received += 1
            self._entered.append(now)
            self.shrink_window()
        history = self.history
        history.append(ev)
        while len(history) > self.history_limit:
            self.history_floor = history.popleft().rv
        if self.history_seconds is not None:
            # etcd compaction, as kube-apiserver asks for it every 5 minutes:
            # revisions older than that are gone (Exact lists from them: 410).
            oldest = now - self.history_seconds
            while history[0].t < oldest:
                self.history_floor = history.popleft().rv
        for w in list(self.watchers):
            w.push(ev)
        for fn in self.listeners:
            fn(self.rdef, ev)

    def _resize(self, now: float) -> None:
        """watchCache.resizeCacheLocked, before an event goes in."""
        window = self.window
        if len(window) < self.window_size or self.window_size == 0:
            return
        oldest_age = now - window[0].t
        quarter_age = now - window[(len(window) - self.window_size // 4) % self.window_size].t
        new = resized_capacity(self.window_size, oldest_age, quarter_age, self.lower_capacity, self.upper_capacity)
        if new != self.window_size:
            self.window_size = new
            self.shrink_window()

    def shrink_window(self) -> None:
        """Evict the oldest events beyond ``window_size``."""
        while len(self.window) > self.window_size:
            gone = self.window.popleft()
            gone.leave_window()
            self.window_start = gone.rv
            self.evicted = True

    def restart_window(self, rv: int) -> None:
        """The cache (re)listed at ``rv`` (watchCache.Replace): an empty window
        that serves watches from ``rv`` on, and the cache's RV is ``rv``."""
        for ev in self.window:
            ev.leave_window()
        self.window.clear()
        self.window_start = self.rv = rv
        self.evicted = False

    def progress(self, rv: int) -> bool:
        """A progress notification from etcd at revision ``rv``
        (watchCache.UpdateResourceVersion): the cache's RV moves up to it
        without an event. A cache re-initialising has no watch on etcd."""
        if not self.ready or rv <= self.rv:
            return False
        self.rv = rv
        self.progress_notifications += 1
        return True

    def turnover(self) -> float:
        """Events per second that entered the window over the last TURNOVER_SECONDS."""
        since = self.now() - TURNOVER_SECONDS
        n = len(self._entered) - bisect.bisect_right(self._entered, since)
        return n / TURNOVER_SECONDS

    def window_figures(self, max_watchers: int = 100) -> dict:
        """The window as the debug endpoint reports it (caller holds the
        store's lock): RVs as strings, as the API writes them; at most
        ``max_watchers`` watchers, the oldest first. Only what the cacher
        itself knows: no forecast of when a position falls out (that depends
        on how fast events come: a full window of events younger than 75 s
        grows instead of evicting, up to its upper bound)."""
        rvs = [ev.rv for ev in self.window]
        newest = rvs[-1] if rvs else self.window_start
        watchers = sorted(self.watchers, key=lambda w: w.id)
        oldest_age = round(self.now() - self.window[0].t, 3) if self.window else None
        return {
            "kind": "WatchCacheWindow",
            "resource": self.rdef.qualified,
            "ready": self.ready,
            "oldestRV": str(self.too_old_below()),
            "newestRV": str(newest),
            "cacheRV": str(self.rv),
            "capacity": self.window_size,
            "lowerBound": self.lower_capacity,
            "upperBound": self.upper_capacity,
            "freshSeconds": EVENT_FRESH_SECONDS,
            "oldestAge": oldest_age,
            "events": len(rvs),
            "turnover": self.turnover(),
            "received": self.received,
            "initialisations": self.initialisations,
            "bookmarksSent": self.bookmarks_sent,
            "progressNotifications": self.progress_notifications,
            "watchersTotal": len(watchers),
            "watchers": [
                {"id": w.id, "userAgent": w.user_agent, "startRV": w.start_rv, "rv": str(w.last_rv), "sent": w.sent}
                for w in watchers[:max_watchers]
            ],
        }

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


def is_bookmark(item: object) -> TypeGuard[Bookmark]:
    return isinstance(item, Bookmark)


def is_close(item: object) -> bool:
    return item is _CLOSE
