"""The Server pane: the API server's side of our watch, its watch cache.

The API server answers list and watch from a watch cache per resource: a
bounded *window* of its most recent events (oldest to newest resourceVersion
kept), and watchers, each reading the window from its own position. A
watcher whose position falls behind the window's oldest event cannot go on:
its watch ends with 410 "too old resource version" and client-go relists.

Two sources, never both in one run:

- the built-in simulator (``server.window``): its window exactly, every
  watcher's position with ours marked, bookmarks sent, how long ours has
  before it falls out at the current rate, initialisations;
- a real API server's ``/metrics`` (``server.metrics``): the watch cache's
  resourceVersion against ours (the lag), events received and dispatched per
  second, initialisations, consistent reads served from the cache and their
  fallback to etcd, the read-wait p99 (estimated from histogram buckets),
  open watches, objects stored; or, where /metrics is refused
  (``server.forbidden``), the RBAC rule that would allow it.

And, from either, what the server did to our watch: 410s (``watch.end``
expired), "Too large resource version" answers and cache re-initialisations.
The ``server.*`` events are rare (at most every 500 ms), so each handler
keeps the last event's fields and a few counters: no per-event scan.
"""

from __future__ import annotations

from collections import deque

from kubectl_informer.core.trace import TraceEvent
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
_METRIC_INTS = ("lag", "initialisations", "consistent_reads_cache", "consistent_reads_fallback",
                "open_watches", "objects")


def _optional(value, typ):
    """``value`` as ``typ``, None kept; a value of another JSON type (a
    list, a word) raises, so the event is counted bad."""
    if value is None:
        return None
    if isinstance(value, (bool, list, dict)) or (typ is int and isinstance(value, float)):
        raise ValueError(f"bad figure {value!r}")
    return typ(value)


class ServerState(DispatchState):
    """What the last ``server.*`` events said, and what the server did to our watch."""

    HANDLERS = {SERVER_WINDOW: "_window", SERVER_METRICS: "_metrics", SERVER_FORBIDDEN: "_forbidden",
                SERVER_REINIT: "_reinit", SERVER_TOO_LARGE: "_too_large", WATCH_END: "_watch_end",
                RELIST: "_relist"}

    def __init__(self) -> None:
        super().__init__()
        self.source: str | None = None        # "sim" | "metrics"
        self.resource = ""
        self.window: dict | None = None       # the last server.window's fields
        self.window_at: float | None = None
        self.watchers: list[Watcher] = []
        self.metrics: dict | None = None      # the last server.metrics's fields
        self.metrics_at: float | None = None
        self.scrapes = 0
        self.forbidden: dict | None = None    # the last server.forbidden's fields (cleared by a scrape)
        self.reinits = 0
        self.reinit_at: float | None = None
        self.too_large = 0
        self.too_large_last: tuple[str, str] | None = None  # (requested, current)
        self.gone = 0                          # our watches ended 410 (too old)
        self.gone_rv = ""                      # the RV the last one had reached
        self.gone_at: float | None = None
        self.relists = 0
        # (time, words, bad): 410s, relists, too-large answers, re-inits, refusals, newest last.
        self.happenings: deque[tuple[float, str, bool]] = deque(maxlen=MAX_HAPPENINGS)

    # -- handlers -------------------------------------------------------
    def _window(self, ev: TraceEvent) -> None:
        f = ev.fields
        watchers = [parse_watcher(w) for w in list(f.get("watchers") or ())[:MAX_WATCHERS]]
        window = dict(f)  # the figures drawn, typed here: a bad one is a bad event, not a crash in render
        window.update(capacity=int(f.get("capacity")), events=int(f.get("events")), turnover=float(f.get("turnover")),
                      initialisations=int(f.get("initialisations") or 0),
                      bookmarks_sent=int(f.get("bookmarks_sent") or 0),
                      ours_seconds_left=_optional(f.get("ours_seconds_left"), float))
        self.source, self.resource = "sim", str(f.get("resource") or self.resource)
        self.window, self.window_at, self.watchers = window, ev.time, watchers

    def _metrics(self, ev: TraceEvent) -> None:
        f = ev.fields
        metrics = dict(f)  # typed here, as the window's figures are
        for name in _METRIC_FLOATS:
            metrics[name] = _optional(f.get(name), float)
        for name in _METRIC_INTS:
            metrics[name] = _optional(f.get(name), int)
        self.source, self.resource = "metrics", str(f.get("resource") or self.resource)
        self.metrics, self.metrics_at = metrics, ev.time
        self.scrapes += 1
        self.forbidden = None

    def _forbidden(self, ev: TraceEvent) -> None:
        self.source = self.source or "metrics"
        self.forbidden = dict(ev.fields)
        self.happenings.append((ev.time, f"/metrics refused ({ev.fields.get('status', '?')})", True))

    def _reinit(self, ev: TraceEvent) -> None:
        self.reinits += 1
        self.reinit_at = ev.time
        self.happenings.append((ev.time, f"watch cache re-initialised ({ev.fields.get('initialisations', '?')} "
                                         "so far): every watch ended", True))

    def _too_large(self, ev: TraceEvent) -> None:
        f = ev.fields
        self.too_large += 1
        self.too_large_last = (str(f.get("requested_rv", "")), str(f.get("current_rv", "")))
        req, cur = self.too_large_last
        self.happenings.append((ev.time, f"Too large resource version: asked {req}, server at {cur or '?'}", True))

    def _watch_end(self, ev: TraceEvent):
        if not ev.fields.get("expired"):
            return False
        self.gone += 1
        self.gone_rv = str(ev.fields.get("resource_version") or "")
        self.gone_at = ev.time
        w = self.window
        where = f" (window {w.get('oldest_rv', '')}-{w.get('newest_rv', '')})" if w is not None else ""
        self.happenings.append((ev.time, f"410 Gone: ours at RV {self.gone_rv} fell out{where}", True))

    def _relist(self, ev: TraceEvent) -> None:
        self.relists += 1
        self.happenings.append((ev.time, f"our informer relisted ({ev.fields.get('reason', '?')})", False))

    # -- views ----------------------------------------------------------
    def ours(self) -> Watcher | None:
        for w in self.watchers:
            if w.ours:
                return w
        return None

    def seconds_left(self, now: float | None) -> float | None:
        """Seconds before our position falls out of the window, counted
        down from the last window event (None: no events flow, or no window)."""
        if self.window is None:
            return None
        left = self.window.get("ours_seconds_left")
        if left is None:
            return None
        spent = (now - self.window_at) if now is not None and self.window_at is not None else 0.0
        return max(0.0, float(left) - max(0.0, spent))

    def position(self, rv: str) -> float | None:
        """Where ``rv`` is in the window: 0 at its oldest event, 1 at its
        newest, below 0 fallen out; None when an RV is not a number."""
        if self.window is None:
            return None
        lo, hi, at = (rv_number(self.window.get("oldest_rv")), rv_number(self.window.get("newest_rv")),
                      rv_number(rv))
        if lo is None or hi is None or at is None:
            return None
        if hi <= lo:
            return 1.0 if at >= hi else -1.0
        if at < lo:
            return -1.0
        # Clamped so a wild RV (a hand-edited recording) cannot overflow a float.
        return min((at - lo) / (hi - lo), 2.0) if at - lo < 10**300 else 2.0

    def behind(self, rv: str) -> int | None:
        """Events (RVs) ``rv`` is behind the window's newest."""
        if self.window is None:
            return None
        hi, at = rv_number(self.window.get("newest_rv")), rv_number(rv)
        return None if hi is None or at is None else max(0, hi - at)
