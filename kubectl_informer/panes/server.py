"""The Server pane: the API server's side of our watches, its watch cache.

The API server answers list and watch from a watch cache per resource: a
bounded *window* of its most recent events (oldest to newest resourceVersion
kept), and watchers, each reading the window from its own position. A
watcher whose position falls behind the window's oldest event cannot go on:
its watch ends with 410 "too old resource version" and client-go relists.

Units: resourceVersions are etcd revisions, one counter for every resource
of the cluster, so "RV 1,204 behind" is a difference of revisions, not a
count of this resource's events (other resources' writes move it too, and on
a real server the cache's RV also moves on etcd's progress notifications: a
quiet, healthy informer shows a growing difference until its next bookmark).

Two sources, never both in one run:

- the built-in simulator (``server.window``): each resource's window
  exactly, every watcher's position with ours marked, bookmarks sent,
  initialisations;
- a real API server's ``/metrics`` (``server.metrics``): each resource's
  watch-cache RV against ours, events received and dispatched per second,
  capacity, watchers it terminated, initialisations, consistent reads served
  from the cache, answered by etcd, failed, the read-wait p99 (estimated
  from histogram buckets), open watches, objects stored; or, where /metrics
  is refused (``server.forbidden``), the RBAC rule that would allow it.

With several informers (``queue deployments --owns replicasets``) every
figure is kept per resource, the first seen (the queue's) drawn in full, and
"ours" is each informer's own watch. And, from either source, what the
server did to our watches: 410s (``watch.end`` expired), "Too large resource
version" answers and cache re-initialisations. The ``server.*`` events are
rare (at most every 500 ms per resource), so each handler keeps the last
event's fields and a few counters: no per-event scan.
"""

from __future__ import annotations

from collections import deque

from kubectl_informer.core.trace import TraceEvent, informer_of
from kubectl_informer.core.trace_kinds import (
    RELIST,
    SERVER_FORBIDDEN,
    SERVER_METRICS,
    SERVER_REINIT,
    SERVER_TOO_LARGE,
    SERVER_WINDOW,
    WATCH_END,
)
from kubectl_informer.panes.state import DispatchState

MAX_WATCHERS = 64  # watchers kept from one window event (a server's list is not ours to trust)
MAX_HAPPENINGS = 32  # what the server did to our watch, newest last


class Watcher:
    """One watcher of the window: its id, the RV it has reached, events sent to it."""

    __slots__ = ("id", "rv", "sent", "ours")

    def __init__(self, id: str, rv: str, sent: int, ours: bool) -> None:
        self.id, self.rv, self.sent, self.ours = id, rv, sent, ours

    def __repr__(self) -> str:
        return f"Watcher({self.id!r}, rv={self.rv!r}, sent={self.sent}, ours={self.ours})"


def parse_watcher(text: str) -> Watcher:
    """``"<id> rv=<rv> sent=<n>"`` with `` ours`` on ours (the contract's
    shape); anything else is a bad event (ValueError)."""
    parts = str(text).split()
    if not parts or "=" in parts[0]:
        raise ValueError(f"bad watcher {text!r}")
    rv, sent, ours = "", 0, False
    for part in parts[1:]:
        if part == "ours":
            ours = True
        elif part.startswith("rv="):
            rv = part[3:]
        elif part.startswith("sent="):
            sent = int(part[5:])
        else:
            raise ValueError(f"bad watcher {text!r}")
    return Watcher(parts[0], rv, sent, ours)


def rv_number(rv) -> int | None:
    """A resourceVersion as a number where it is one (the simulator's and
    etcd's are); None otherwise (RVs are opaque to clients)."""
    try:
        n = int(str(rv))
    except ValueError:
        return None
    return n if n >= 0 else None


_METRIC_FLOATS = ("events_received_per_s", "events_dispatched_per_s", "read_wait_p99")
_METRIC_INTS = (
    "rv_behind",
    "initialisations",
    "consistent_reads_cache",
    "consistent_reads_fallback",
    "consistent_reads_failed",
    "capacity",
    "terminated_watchers",
    "open_watches",
    "objects",
)
MAX_RESOURCES = 16  # resources kept (a run watches a few; a recording is not ours to trust)


def _optional(value, typ):
    """``value`` as ``typ``, None kept; a value of another JSON type (a
    list, a word) raises, so the event is counted bad."""
    if value is None:
        return None
    if isinstance(value, (bool, list, dict)) or (typ is int and isinstance(value, float)):
        raise ValueError(f"bad figure {value!r}")
    return typ(value)


class ServerState(DispatchState):
    """What the last ``server.*`` events said per resource, and what the server did to our watches."""

    HANDLERS = {
        SERVER_WINDOW: "_window",
        SERVER_METRICS: "_metrics",
        SERVER_FORBIDDEN: "_forbidden",
        SERVER_REINIT: "_reinit",
        SERVER_TOO_LARGE: "_too_large",
        WATCH_END: "_watch_end",
        RELIST: "_relist",
    }
    # One API server serves every informer of the run: one pane, fed every
    # informer's events (feed.py), shows each informer's watch.
    FOLLOWS_INFORMER = False

    def __init__(self) -> None:
        super().__init__()
        self.source: str | None = None  # "sim" | "metrics"
        self.order: list[str] = []  # resources in the order first reported: the queue's first
        self.windows: dict[str, dict] = {}  # per resource: the last server.window's fields
        self.watchers_of: dict[str, list[Watcher]] = {}
        self.window_at: float | None = None
        self.metrics_of: dict[str, dict] = {}  # per resource: the last server.metrics's fields
        self.metrics_at: float | None = None
        self.scrapes = 0
        self.forbidden: dict | None = None  # the last server.forbidden's fields (cleared by a scrape)
        self.reinits = 0
        self.reinit_at: float | None = None
        self.too_large = 0
        self.too_large_last: tuple[str, str] | None = None  # (requested, current)
        self.gone = 0  # our watches ended 410 (too old)
        self.gone_rv = ""  # the RV the last one had reached
        self.gone_at: float | None = None
        self.relists = 0
        # (time, words, bad): 410s, relists, too-large answers, re-inits, refusals, newest last.
        self.happenings: deque[tuple[float, str, bool]] = deque(maxlen=MAX_HAPPENINGS)

    # -- the first resource's figures (the queue's, or the only one) -------------------
    @property
    def resource(self) -> str:
        return self.order[0] if self.order else ""

    @property
    def window(self) -> dict | None:
        return self.windows.get(self.resource)

    @property
    def watchers(self) -> list[Watcher]:
        return self.watchers_of.get(self.resource, [])

    @property
    def metrics(self) -> dict | None:
        return self.metrics_of.get(self.resource)

    def _seen(self, resource: str) -> str:
        if resource not in self.order:
            if len(self.order) >= MAX_RESOURCES:
                raise ValueError("too many resources")
            self.order.append(resource)
        return resource

    # -- handlers -------------------------------------------------------
    def _window(self, ev: TraceEvent) -> None:
        f = ev.fields
        watchers = [parse_watcher(w) for w in list(f.get("watchers") or ())[:MAX_WATCHERS]]
        window = dict(f)  # the figures drawn, typed here: a bad one is a bad event, not a crash in render
        window.update(
            capacity=int(f.get("capacity")),
            events=int(f.get("events")),
            turnover=float(f.get("turnover")),
            initialisations=int(f.get("initialisations") or 0),
            bookmarks_sent=int(f.get("bookmarks_sent") or 0),
        )
        window.pop("ours_seconds_left", None)  # an old recording's countdown from a fixed window: not shown
        resource = self._seen(str(f.get("resource") or ""))
        self.source = "sim"
        self.windows[resource], self.watchers_of[resource], self.window_at = window, watchers, ev.time

    def _metrics(self, ev: TraceEvent) -> None:
        f = ev.fields
        metrics = dict(f)  # typed here, as the window's figures are
        if "rv_behind" not in f:
            metrics["rv_behind"] = f.get("lag")  # a recording from before the field was named for its unit
        metrics.pop("lag", None)
        for name in _METRIC_FLOATS:
            metrics[name] = _optional(f.get(name) if name in f else None, float)
        for name in _METRIC_INTS:
            metrics[name] = _optional(metrics.get(name), int)
        metrics["ours_rv"] = str(f.get("ours_rv") or "")
        resource = self._seen(str(f.get("resource") or ""))
        self.source = "metrics"
        self.metrics_of[resource] = metrics
        if resource == self.resource:  # one scrape reports every resource: counted once
            self.metrics_at = ev.time
            self.scrapes += 1
        self.forbidden = None

    def _forbidden(self, ev: TraceEvent) -> None:
        self.source = self.source or "metrics"
        self.forbidden = dict(ev.fields)
        self.happenings.append((ev.time, f"/metrics refused ({ev.fields.get('status', '?')})", True))

    def _reinit(self, ev: TraceEvent) -> None:
        self.reinits += 1
        self.reinit_at = ev.time
        self.happenings.append(
            (
                ev.time,
                f"watch cache of {ev.fields.get('resource') or '?'} re-initialised "
                f"({ev.fields.get('initialisations', '?')} so far): every watch ended",
                True,
            )
        )

    def _too_large(self, ev: TraceEvent) -> None:
        f = ev.fields
        self.too_large += 1
        self.too_large_last = (str(f.get("requested_rv", "")), str(f.get("current_rv", "")))
        req, cur = self.too_large_last
        self.happenings.append((ev.time, f"Too large resource version: asked {req}, server at {cur or '?'}", True))

    def _whose(self, ev: TraceEvent) -> tuple[str, str]:
        """The resource an informer's event is about, and how to name it in
        a happening ("ours", or "ours (replicasets.apps)" with several)."""
        informer = informer_of(ev)
        if informer is None:
            return self.resource, "ours"
        return informer, f"ours ({informer})"

    def _watch_end(self, ev: TraceEvent):
        if not ev.fields.get("expired"):
            return False
        resource, name = self._whose(ev)
        self.gone += 1
        self.gone_rv = str(ev.fields.get("resource_version") or "")
        self.gone_at = ev.time
        w = self.windows.get(resource)
        where = f" (window {w.get('oldest_rv', '')}-{w.get('newest_rv', '')})" if w is not None else ""
        self.happenings.append((ev.time, f"410 Gone: {name} at RV {self.gone_rv} fell out{where}", True))

    def _relist(self, ev: TraceEvent) -> None:
        self.relists += 1
        _, name = self._whose(ev)
        who = "our informer" if name == "ours" else f"our {name[6:-1]} informer"
        self.happenings.append((ev.time, f"{who} relisted ({ev.fields.get('reason', '?')})", False))

    # -- views ----------------------------------------------------------
    def ours(self, resource: str | None = None) -> Watcher | None:
        """Our informer's watcher in ``resource``'s window (the first resource's by default)."""
        for w in self.watchers_of.get(self.resource if resource is None else resource, ()):
            if w.ours:
                return w
        return None

    def position(self, rv: str, resource: str | None = None) -> float | None:
        """Where ``rv`` is in the resource's window: 0 at its oldest event,
        1 at its newest, below 0 fallen out; None when an RV is not a number."""
        window = self.windows.get(self.resource if resource is None else resource)
        if window is None:
            return None
        lo, hi, at = (rv_number(window.get("oldest_rv")), rv_number(window.get("newest_rv")), rv_number(rv))
        if lo is None or hi is None or at is None:
            return None
        if hi <= lo:
            return 1.0 if at >= hi else -1.0
        if at < lo:
            return -1.0
        # Clamped so a wild RV (a hand-edited recording) cannot overflow a float.
        return min((at - lo) / (hi - lo), 2.0) if at - lo < 10**300 else 2.0

    def rv_behind(self, rv: str, resource: str | None = None) -> int | None:
        """The window's newest RV minus ``rv``: etcd revisions (global across
        resources), not a count of this resource's events."""
        window = self.windows.get(self.resource if resource is None else resource)
        if window is None:
            return None
        hi, at = rv_number(window.get("newest_rv")), rv_number(rv)
        return None if hi is None or at is None else max(0, hi - at)
