"""Header: what is being watched, how, and whether the watch is healthy.

Static facts come from ``RunInfo`` (set by the CLI); live ones from events:
``informer.start`` (the FIFO and initial-list mode actually running),
``informer.synced``, ``watch.start``/``watch.end``/``watch.event``/
``watch.bookmark``, ``watch.skipped``, ``list.*``, ``relist`` and ``rv.advance``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from kubectl_informer.core.profiles import initial_list_label
from kubectl_informer.core.run_info import RunInfo
from kubectl_informer.core.trace import TraceEvent
from kubectl_informer.core.trace_kinds import (
    EXPERIMENT,
    INFORMER_START,
    INFORMER_SYNCED,
    LIST_DONE,
    REFLECTOR_BACKOFF,
    RELIST,
    RUN_RESTART,
    RV_ADVANCE,
    STORE_ADD,
    STORE_DELETE,
    STORE_UPDATE,
    WATCH_BOOKMARK,
    WATCH_END,
    WATCH_EVENT,
    WATCH_SKIPPED,
    WATCH_START,
)
from kubectl_informer.panes.progress import ListProgress
from kubectl_informer.panes.rv import RVState
from kubectl_informer.panes.state import PaneState


@dataclass
class FeedStats:
    """How the app is keeping up with the trace, shown in the header."""

    absorbed: int = 0
    per_s: float = 0.0
    buffered: int = 0
    dropped: int = 0
    paused: bool = False
    behind: bool = False  # the UI could not keep up last frame (pressure.py)
    summarised: int = 0  # rows let go underived while behind
    events_summarised: int = 0  # events taken in as summaries while behind (no rows)


_STORE_KINDS = frozenset((STORE_ADD, STORE_UPDATE, STORE_DELETE))


class HeaderState(PaneState):
    KINDS = (
        frozenset(
            (
                INFORMER_START,
                INFORMER_SYNCED,
                WATCH_START,
                WATCH_END,
                WATCH_EVENT,
                WATCH_BOOKMARK,
                WATCH_SKIPPED,
                LIST_DONE,
                RELIST,
                RV_ADVANCE,
                REFLECTOR_BACKOFF,
                RUN_RESTART,
            )
        )
        | ListProgress.KINDS
        | frozenset(RVState.HANDLERS)
    )

    def __init__(self) -> None:
        super().__init__()
        self.info = RunInfo()
        self.fifo: str | None = None
        self.watch_list: bool | None = None
        self.synced = False
        self.synced_items: int | None = None
        self.synced_after: float | None = None
        self.watching_since: float | None = None
        self.watch_ended: str | None = None  # reason or error of the last watch.end
        self.last_event: float | None = None
        self.watch_events = 0
        self.skipped = 0  # watch events the reflector could not understand (watch.skipped)
        # The reflector's RV and relists, kept by the RV pane's own state so
        # the header and the RV pane never say two things (they did for
        # seconds in `--demo disconnect`).
        self.reflector = RVState()
        self._own_reflector = True
        self._kinds = self.KINDS
        self.last_time = 0.0
        self.trouble: str | None = None  # the last failure the reflector backs off from
        self.retry_at: float | None = None
        self.backoff: float | None = None  # the reflector's current back-off delay
        self.progress = ListProgress()
        # informer.synced still waiting in the buffer (the feed loop looked
        # ahead while the UI was behind): the informer has synced.
        self.synced_ahead: TraceEvent | None = None
        self.restarts = 0  # run.restart events seen (the last one's count)

    def share_reflector(self, rv: RVState) -> None:
        """Read the reflector's RV and relists from ``rv`` (the RV pane's
        state, fed by its owner) instead of feeding a second copy."""
        self.reflector = rv
        self._own_reflector = False
        self._kinds = self.KINDS - {EXPERIMENT}  # the RV chart's marks only

    @property
    def rv(self) -> str:
        """The reflector's last synced resourceVersion ("" before any)."""
        return self.reflector.synced_rv or ""

    @property
    def relists(self) -> int:
        return self.reflector.counts["relist"]

    @property
    def last_relist(self) -> str | None:
        return self.reflector.last_relist

    def feed(self, ev: TraceEvent) -> None:
        kind = ev.kind
        if kind not in self.KINDS:
            return
        f = ev.raw_fields  # store events pass through (ListProgress): derive nothing of theirs
        self.last_time = ev.time
        if kind in ListProgress.KINDS:
            self.progress.feed(ev)
        if kind in RVState.HANDLERS and self._own_reflector:
            self.reflector.feed(ev)
        if kind in (WATCH_EVENT, WATCH_BOOKMARK):
            self.last_event = ev.time
            self.watch_events += 1
        elif kind == WATCH_SKIPPED:
            self.skipped += 1
        elif kind == WATCH_START:
            self.watching_since = ev.time
            self.watch_ended = None
        elif kind == WATCH_END:
            self.watching_since = None
            self.watch_ended = str(f.get("error") or f.get("reason") or "ended")
        elif kind == LIST_DONE:
            self.trouble = str(f["error"]) if f.get("error") else None
        elif kind == REFLECTOR_BACKOFF:
            if f.get("error"):
                self.trouble = str(f["error"])
            self.backoff = float(f.get("delay") or 0.0)
            self.retry_at = ev.time + self.backoff
        elif kind == INFORMER_SYNCED:
            self.synced = True
            self.synced_ahead = None
            self.synced_items = f.get("items")
            self.synced_after = f.get("duration")
        elif kind == INFORMER_START:
            self.synced_ahead = None
            self.fifo = f.get("fifo")
            self.watch_list = f.get("watch_list")
            self.synced = False
        elif kind == RUN_RESTART:
            # A restart within the UI: what runs from now on.
            self.info = replace(
                self.info,
                resource=str(f.get("resource") or self.info.resource),
                namespace=f.get("namespace"),
                profile=str(f.get("client_go") or self.info.profile),
                fifo=str(f.get("fifo") or self.info.fifo),
                initial_list=initial_list_label(bool(f.get("watch_list"))),
            )
            self.restarts = int(f.get("restarts") or 0)
        self.version += 1

    def tls_note(self) -> str | None:
        """Said once, in the header, instead of a warning per request."""
        return None if self.info.tls_verify else "⚠ TLS unverified"

    def feed_all(self, events) -> None:
        # The hot path: watch events and applied deltas are most of a flood,
        # and need a count each, not a call (``feed`` does what they would).
        kinds = self._kinds
        feed = self.feed
        progress = self.progress
        fast = self._own_reflector is False
        watched = 0
        last = None
        watch_t = 0.0
        for ev in events:
            kind = ev[2]
            if kind not in kinds:
                continue
            if fast and kind == WATCH_EVENT:
                watched += 1
                last = ev
                watch_t = ev[1]
                if progress.watch_list and progress.listed is None:
                    progress.items += 1
            elif kind in _STORE_KINDS:
                last = ev
                if progress.listed is not None:
                    progress.applied += 1
                self.version += 1
            else:
                feed(ev)
                last = ev
        if watched:
            self.watch_events += watched
            self.version += 1
            # A bookmark fed after the last of them is newer still.
            self.last_event = watch_t if self.last_event is None else max(self.last_event, watch_t)
        if last is not None:
            self.last_time = last[1]
