"""The API server's side of the watch, polled for the Server pane (key s).

One thread per run, one GET at a time, stopped with the run:

- against the built-in simulator (a ``--demo`` run): every ``SIM_INTERVAL``
  seconds, ``GET /debug/informer/watchcache?resource=...``, the simulator's
  own endpoint (no real API server has it) reporting its watch cache exactly;
  a ``server.window`` event when a figure changed, ``server.reinit`` when the
  cache re-initialised;
- against a real cluster: every ``--server-scrape`` seconds (default 10),
  ``GET /metrics`` (kube/apiserver_metrics.py): a ``server.metrics`` event,
  rates taken between two scrapes; a 401 or 403 is said once as
  ``server.forbidden`` with the RBAC rule that would allow it, and the
  scraper backs off (``FORBIDDEN_BACKOFF``, doubling); any other failure
  backs off too, silently (the reflector's own errors say what is wrong).

One poller serves every informer of the run (``queue deployments --owns
replicasets``, ``watch deploy,rs,pods``): a ``Target`` per informer, each with
its resource and its informer's last synced RV; one window GET per resource
on the simulator, one /metrics GET for all of them on a real server.

Which watcher in the simulator's list is ours, per informer: the one whose
User-Agent is the one our client sends and whose start resourceVersion is the
one that informer's last watch (or WatchList stream) asked for, as the trace
says (its ``informer`` field tells the informers apart; a one-informer run
has none); both are what the plugin really sent.

No countdown to a 410 is computed: kube-apiserver's window grows and shrinks
with the age of its events (``resizeCacheLocked``), so how long ours stays in
cannot be told from its size now.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from kubectl_informer.clock import Clock, RealClock
from kubectl_informer.core.apierrors import ApiError
from kubectl_informer.core.trace import TraceEvent, Tracer, informer_of
from kubectl_informer.core.trace_kinds import (
    LIST_START,
    SERVER_FORBIDDEN,
    SERVER_METRICS,
    SERVER_REINIT,
    SERVER_WINDOW,
    WATCH_START,
)
from kubectl_informer.kube.apiserver_metrics import METRICS_RULE, ResourceFigures
from kubectl_informer.kube.limits import TooLargeError

SIM_INTERVAL = 0.5
DEFAULT_SCRAPE = 10.0
FORBIDDEN_BACKOFF = 300.0  # after a 401/403: the first wait, doubled each time up to MAX_BACKOFF
MAX_BACKOFF = 3600.0
# A poll that failed (a reset, a timeout, a page that does not parse) is tried
# again sooner than a refusal: its wait doubles up to this many intervals (the
# simulator: 2 s; /metrics: 40 s), so the pane recovers soon after the server.
FAILURE_BACKOFF_INTERVALS = 4
WINDOW_PATH = "/debug/informer/watchcache"
MAX_WINDOW_BODY = 1 << 20  # the simulator reports at most 100 watchers: a few KB
_WATCHER_LIMIT = 100


@dataclass
class Target:
    """One informer's resource. ``informer``: the name its trace events
    carry (None in a one-informer run); ``ours_rv()``: its last synced RV."""

    group: str
    resource: str
    informer: str | None = None
    ours_rv: Callable[[], str] = lambda: ""

    @property
    def qualified(self) -> str:
        return f"{self.resource}.{self.group}" if self.group else self.resource


class _Seen:
    """One target's state between polls."""

    __slots__ = ("window", "initialisations", "previous")

    def __init__(self) -> None:
        self.window: tuple | None = None
        self.initialisations: int | None = None
        self.previous: tuple[float, float | None, float | None] | None = None


class ServerPoller:
    """``run(stop_event)`` polls until the event is set (a Run thread).
    ``mode``: "sim" or "metrics"; ``targets``: one per informer, the
    queue's (or the only) one first; or ``group``/``resource``/``ours_rv``
    for one informer."""

    def __init__(
        self,
        api_client: Any,
        tracer: Tracer,
        group: str = "",
        resource: str = "",
        mode: str = "metrics",
        interval: float | None = None,
        clock: Clock | None = None,
        ours_rv: Callable[[], str] = lambda: "",
        targets: list[Target] | None = None,
    ) -> None:
        if mode not in ("sim", "metrics"):
            raise ValueError(f"mode must be sim or metrics, not {mode!r}")
        self.api_client, self.tracer, self.mode = api_client, tracer, mode
        self.targets = list(targets) if targets else [Target(group, resource, None, ours_rv)]
        self.interval = interval if interval is not None else (SIM_INTERVAL if mode == "sim" else DEFAULT_SCRAPE)
        self.clock = clock or RealClock()
        self.user_agent = str(getattr(api_client, "user_agent", "") or "")
        self._last_start: dict[str | None, str] = {}  # per informer: the RV its last watch asked for
        self._lock = threading.Lock()
        self._seen = {id(t): _Seen() for t in self.targets}
        self._forbidden: int | None = None
        self._backoff = 0.0
        self.polls = 0
        # From now on, before the informers' first watch: which watcher is ours.
        self._unsubscribe = tracer.subscribe(self._on_event)

    # -- our watches, as the trace says they started -----------------------------------------
    def _on_event(self, ev: TraceEvent) -> None:
        kind = ev.kind
        if kind == WATCH_START or (kind == LIST_START and ev.fields.get("watch_list")):
            with self._lock:
                self._last_start[informer_of(ev)] = ev.fields.get("resource_version") or ""

    def run(self, stop_event: threading.Event) -> None:
        try:
            wait = self.interval
            while not self.clock.wait_event(stop_event, wait):
                wait = self.poll_once()
        finally:
            self._unsubscribe()

    def poll_once(self) -> float:
        """One round of GETs and what they say; returns the seconds until the next."""
        self.polls += 1
        try:
            if self.mode == "sim":
                for target in self.targets:
                    self._poll_window(target)
            else:
                self._poll_metrics()
        except ApiError as e:
            return self._refused(e)
        except (OSError, TooLargeError, ValueError):
            return self._backed_off()
        self._backoff = 0.0
        return self.interval

    def _backed_off(self) -> float:
        cap = self.interval * FAILURE_BACKOFF_INTERVALS
        self._backoff = min(cap, max(self.interval, self._backoff * 2 or self.interval))
        return self._backoff

    def _refused(self, e: ApiError) -> float:
        if e.status not in (401, 403) or self.mode != "metrics":
            return self._backed_off()
        if self._forbidden != e.status:  # said once (again only if the answer changes)
            self._forbidden = e.status
            self.tracer.emit(
                SERVER_FORBIDDEN,
                None,
                source="metrics",
                status=e.status,
                rule=METRICS_RULE,
                message=_one_line(e.message or e.reason or f"HTTP {e.status}"),
            )
        self._backoff = min(MAX_BACKOFF, max(FORBIDDEN_BACKOFF, self._backoff * 2))
        return self._backoff

    # -- the simulator ----------------------------------------------------------------------
    def _poll_window(self, target: Target) -> None:
        from kubectl_informer.kube.rest import get_json

        doc = get_json(self.api_client, WINDOW_PATH, [("resource", target.qualified)], max_bytes=MAX_WINDOW_BODY)
        if not isinstance(doc, dict) or doc.get("kind") != "WatchCacheWindow":
            raise ValueError("not a watch cache window")
        fields = window_fields(doc, self.user_agent, self._start(target.informer))
        seen = self._seen[id(target)]
        inits = fields["initialisations"]
        if seen.initialisations is not None and inits > seen.initialisations:
            self.tracer.emit(SERVER_REINIT, None, resource=fields["resource"], initialisations=inits)
        seen.initialisations = inits
        key = tuple(v if not isinstance(v, list) else tuple(v) for v in fields.values())
        if key != seen.window:
            seen.window = key
            self.tracer.emit(SERVER_WINDOW, None, **fields)

    def _start(self, informer: str | None) -> str | None:
        with self._lock:
            return self._last_start.get(informer)

    # -- a real API server ------------------------------------------------------------------------
    def _poll_metrics(self) -> None:
        from kubectl_informer.kube.apiserver_metrics import scrape_all

        every = scrape_all(self.api_client, [(t.group, t.resource) for t in self.targets])
        now = self.clock.now()
        self._forbidden = None
        for target in self.targets:
            self.tracer.emit(
                SERVER_METRICS,
                None,
                **metrics_fields(every[(target.group, target.resource)], target, self._seen[id(target)], now),
            )


def metrics_fields(f: ResourceFigures, target: Target, seen: _Seen, now: float) -> dict[str, Any]:
    """The ``server.metrics`` event's fields from one resource's figures
    (``f``, kube/apiserver_metrics.ResourceFigures); rates against the
    previous scrape that ``seen`` keeps."""
    from kubectl_informer.kube.apiserver_metrics import p99_from_buckets

    received_rate = dispatched_rate = None
    if seen.previous is not None:
        t0, r0, d0 = seen.previous
        received_rate = _rate(r0, f.events_received, now - t0)
        dispatched_rate = _rate(d0, f.events_dispatched, now - t0)
    seen.previous = (now, f.events_received, f.events_dispatched)
    p99, bucket = p99_from_buckets(f.read_wait_buckets)
    ours = str(target.ours_rv() or "")
    out = dict(
        source="metrics",
        resource=target.qualified,
        cache_rv=f.cache_rv,
        ours_rv=ours,
        rv_behind=_rv_behind(f.cache_rv, ours),
        events_received_per_s=received_rate,
        events_dispatched_per_s=dispatched_rate,
        initialisations=f.initialisations,
        consistent_reads_cache=f.consistent_reads_cache,
        consistent_reads_fallback=f.consistent_reads_fallback,
        consistent_reads_failed=f.consistent_reads_failed,
        read_wait_p99=p99,
        read_wait_p99_estimated=True,
        read_wait_bucket=bucket,
        capacity=f.capacity,
        terminated_watchers=f.terminated_watchers,
        open_watches=f.open_watches,
        objects=f.objects,
        series=f.shape,
    )
    if target.informer is not None:
        out["informer"] = target.informer
    return out


def _one_line(text: str, limit: int = 300) -> str:
    return " ".join(str(text).split())[:limit]


def _rate(before: float | None, after: float | None, seconds: float) -> float | None:
    """Per second between two scrapes; None when either is missing, no time
    passed, or the counter went back (the API server restarted)."""
    if before is None or after is None or seconds <= 0 or after < before:
        return None
    return (after - before) / seconds


# apiserver_watch_cache_resource_version keeps the 15 least significant digits (RecordResourceVersion).
_RV_MODULUS = 10**15


def _rv_behind(cache_rv: str, ours: str) -> int | None:
    """The cache's RV minus ours, in etcd revisions (global across
    resources: not a count of this resource's events); None when either is
    not a number. Ours is cut to the gauge's 15 digits first."""
    try:
        return int(cache_rv) - int(ours) % _RV_MODULUS
    except ValueError:
        return None


def _ours(watchers: list[dict], user_agent: str, start: str | None) -> dict | None:
    """Our watcher: our User-Agent and the start RV our last watch asked for
    (the newest such); with no start seen, the only watcher with our User-Agent."""
    mine = [w for w in watchers if user_agent and w.get("userAgent") == user_agent]
    if start is not None:
        matching = [w for w in mine if w.get("startRV") == start]
        return max(matching, key=lambda w: w.get("id", 0)) if matching else None
    return mine[0] if len(mine) == 1 else None


def window_fields(doc: dict, user_agent: str, start: str | None) -> dict:
    """The ``server.window`` event's fields from the simulator's report."""
    watchers = [w for w in (doc.get("watchers") or [])[:_WATCHER_LIMIT] if isinstance(w, dict)]
    ours = _ours(watchers, user_agent, start)
    turnover = float(doc.get("turnover") or 0.0)
    lines = [f"{w.get('id')} rv={w.get('rv')} sent={w.get('sent')}" + (" ours" if w is ours else "") for w in watchers]
    return {
        "source": "sim",
        "resource": str(doc.get("resource") or ""),
        "oldest_rv": str(doc.get("oldestRV")),
        "newest_rv": str(doc.get("newestRV")),
        "capacity": int(doc.get("capacity") or 0),
        "events": int(doc.get("events") or 0),
        "turnover": round(turnover, 2),
        "initialisations": int(doc.get("initialisations") or 0),
        "bookmarks_sent": int(doc.get("bookmarksSent") or 0),
        "watchers": lines,
        "ours_rv": str(ours.get("rv")) if ours is not None else "",
    }
