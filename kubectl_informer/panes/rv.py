"""The ResourceVersion pane: the reflector's RV over time.

The reflector's whole contract with the API server is a ResourceVersion: it
lists at one, watches from it, advances it on every event and bookmark, and
when the server says the RV is too old (410 Gone) it must relist. This pane
draws that RV as a step chart with a mark for each of those moments.

RVs are opaque strings to clients; etcd (and our simulated server) makes
them integers, so the chart is numeric when every RV shown parses as one and
falls back to marking each change otherwise.
"""

from __future__ import annotations

from collections import deque

from kubectl_informer.core.durations import format_short as fmt_secs
from kubectl_informer.core.trace import TraceEvent
from kubectl_informer.core.trace_kinds import (
    EXPERIMENT,
    LIST_DONE,
    LIST_START,
    RELIST,
    RV_ADVANCE,
    WATCH_BOOKMARK,
    WATCH_END,
    WATCH_EVENT,
    WATCH_START,
)
from kubectl_informer.panes.state import DispatchState, thinned

# Points closer together than this share one slot (the last wins), so a
# burst of 20,000 events/s costs one slot per 0.1 s, not one per event.
BUCKET = 0.1


MAX_POINTS = 4096


MAX_MARKS = 512


MIN_WINDOW = 10.0  # seconds: a young run still gets a readable axis


MAX_WINDOW = 600.0


# Experiments (key x) that act on the list and watch: marked on the chart.
RV_EXPERIMENTS = frozenset(("close-watch", "forget-rv", "expired-storm", "compaction", "drop-watches"))


_WATCH = frozenset((WATCH_EVENT,))


class RVState(DispatchState):
    HANDLERS = {
        LIST_START: "_list_start",
        LIST_DONE: "_list_done",
        WATCH_START: "_watch_start",
        WATCH_EVENT: "_watch_event",
        WATCH_BOOKMARK: "_watch_bookmark",
        WATCH_END: "_watch_end",
        RV_ADVANCE: "_rv_advance",
        RELIST: "_relist",
        EXPERIMENT: "_experiment",
    }

    def __init__(self) -> None:
        super().__init__()
        self.points: deque[tuple[float, str]] = deque(maxlen=MAX_POINTS)
        self._bucket: int | None = None
        self.marks: deque[tuple[float, str, str]] = deque(maxlen=MAX_MARKS)
        self.list_rv: str | None = None
        self.watch_rv: str | None = None
        self.synced_rv: str | None = None
        self.watch_open = False
        self.watch_end_reason: str | None = None
        self.listing = False
        self.list_asked: str | None = None  # the RV the current list asked for
        self.counts = {"list": 0, "watch": 0, "bookmark": 0, "relist": 0, "gone": 0}
        self.relist_reasons: dict[str, int] = {}
        self.last_relist: str | None = None  # the newest relist's reason
        # A 410 on the watch is followed by a relist with reason expired:
        # count that as one 410, not two.
        self._gone_pending = False
        self._kinds = frozenset(self._handlers)

    def feed_all(self, events) -> None:
        # The hot path: watch events are most of a flood, and a run of them
        # within one chart slot leaves what its last one alone leaves.
        handled = self._handlers
        feed = self.feed
        start = -1  # the index of the current run of watch events
        for i, ev in enumerate(events):
            kind = ev[2]
            if kind == WATCH_EVENT:
                if start < 0:
                    start = i
                continue
            if start >= 0:
                self._watch_run(events, start, i)
                start = -1
            if kind in handled:
                feed(ev)
        if start >= 0:
            self._watch_run(events, start, len(events))

    def summarise(self, stretch) -> None:
        """A stretch the UI could not take in event by event (feed.py): of
        each run of watch events only the last (the RV it leaves); the
        chart gets one point for the run."""
        self.feed_all(thinned(stretch.only(self._kinds), self._handlers, _WATCH))

    def _watch_run(self, events, start: int, end: int) -> None:
        first, last = events[start], events[end - 1]
        one_slot = int(first[1] / BUCKET) == int(last[1] / BUCKET)
        if self.listing or not one_slot or last[4].get("resource_version") in (None, ""):
            for i in range(start, end):  # as fed one by one
                self.feed(events[i])
            return
        self.feed(last)
        self.version += end - start - 1

    # -- handlers -------------------------------------------------------
    def _point(self, t: float, rv) -> None:
        if rv is None or rv == "":
            return
        rv = str(rv)
        b = int(t / BUCKET)
        if b == self._bucket and self.points:
            self.points[-1] = (t, rv)
        else:
            self._bucket = b
            self.points.append((t, rv))

    def _mark(self, t: float, what: str, text: str) -> None:
        self.counts[what] = self.counts.get(what, 0) + 1
        self.marks.append((t, what, text))

    def _list_start(self, ev: TraceEvent) -> None:
        self.listing = True
        asked = ev.fields.get("resource_version")
        self.list_asked = None if asked is None else str(asked)

    def _list_done(self, ev: TraceEvent) -> None:
        f = ev.fields
        rv = f.get("resource_version")
        self.listing = False
        if f.get("error"):
            self._mark(ev.time, "list", f"list failed: {f['error']}")
            return
        self.list_rv = None if rv is None else str(rv)
        self._point(ev.time, rv)
        how = "watch-list" if f.get("watch_list") else "list"
        extra = f" items={f['items']}" if f.get("items") is not None else ""
        if f.get("duration") is not None:
            extra += f" in {fmt_secs(f['duration'])}"
        if self.list_asked == "" and (not f.get("watch_list") or self.counts["list"]):
            # A first WatchList stream always asks ""; otherwise "" means the
            # last RV was given up (410, too large, forgotten): read from etcd.
            extra += ' (asked rv "": a consistent read)'
        self._mark(ev.time, "list", f"{how} done at rv {rv}{extra}")

    def _watch_start(self, ev: TraceEvent) -> None:
        rv = ev.fields.get("resource_version")
        self.watch_open = True
        self.watch_end_reason = None
        self.watch_rv = None if rv in (None, "") else str(rv)
        self._mark(ev.time, "watch", f"watch from rv {rv if rv not in (None, '') else '(latest)'}")

    def _watch_event(self, ev: TraceEvent) -> None:
        if self.listing:
            # A WatchList stream's initial events carry each object's own RV,
            # in no order; the reflector's RV is the closing bookmark's.
            return
        rv = ev.fields.get("resource_version")
        if rv not in (None, ""):
            # The reflector's last synced RV is now the event's (rv.advance
            # says so only for lists and bookmarks).
            self.watch_rv = self.synced_rv = str(rv)
            self._point(ev.time, rv)

    def _watch_bookmark(self, ev: TraceEvent) -> None:
        rv = ev.fields.get("resource_version")
        if self.listing:
            self._mark(ev.time, "bookmark", f"bookmark at rv {rv}: initial events end")
            return
        if rv not in (None, ""):
            self.watch_rv = str(rv)
            self._point(ev.time, rv)
        self._mark(ev.time, "bookmark", f"bookmark at rv {rv}")

    def _watch_end(self, ev: TraceEvent) -> None:
        f = ev.fields
        reason, error = f.get("reason"), f.get("error")
        self.watch_open = False
        self.watch_end_reason = str(error or reason or "ended")
        if f.get("expired") is True:
            self._gone_pending = True
            self._mark(ev.time, "gone", f"410 Gone: watch at rv {f.get('resource_version', self.watch_rv)} expired")

    def _rv_advance(self, ev: TraceEvent) -> None:
        new = ev.fields.get("new")
        if new not in (None, ""):
            self.synced_rv = str(new)
            self._point(ev.time, new)

    def _relist(self, ev: TraceEvent) -> None:
        reason = str(ev.fields.get("reason") or "unknown")
        self.relist_reasons[reason] = self.relist_reasons.get(reason, 0) + 1
        self.last_relist = reason
        if reason == "expired" and not self._gone_pending:
            # e.g. a LIST at a too-old RV: a 410 that never showed as a watch end
            self._mark(ev.time, "gone", "410 Gone: resource version expired")
        self._gone_pending = False
        self._mark(ev.time, "relist", f"relist: {reason}")

    def _experiment(self, ev: TraceEvent):
        name = str(ev.fields.get("name"))
        if name not in RV_EXPERIMENTS:
            return False
        self._mark(ev.time, "experiment", f"experiment {name}: {ev.fields.get('detail', '')}")

    # -- views ----------------------------------------------------------
    def window(self, now: float | None) -> tuple[float, float]:
        """The time span the chart shows, ending at ``now``."""
        end = now if now is not None else (self.last_time or 0.0)
        firsts = [q[0][0] for q in (self.points, self.marks) if q]
        start = min(firsts) if firsts else end
        if end - start < MIN_WINDOW:
            start = end - MIN_WINDOW
        elif end - start > MAX_WINDOW:
            start = end - MAX_WINDOW
        return start, end
