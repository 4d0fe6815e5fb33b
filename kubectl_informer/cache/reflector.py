"""The Reflector: keeps a store in step with the API through LIST and WATCH.

A port of client-go's ``tools/cache/reflector.go``. It lists (paged, or as
a WatchList stream), replaces the store with the result, then watches from
the listed resource version and applies every event to the store. It keeps
the last resource version it synced to so that a broken watch resumes
where it stopped and a relist never goes back in time.

Why this module is long: it mirrors client-go's ``reflector.go`` (list, watch-list,
watch and their back-off are one state machine there too), so a Go reader finds each
rule where client-go keeps it.
"""

from __future__ import annotations

import random
import re
import threading
from collections.abc import Callable, Iterator
from typing import Any, Protocol

from kubectl_informer.cache.keys import deletion_handling_meta_namespace_key_func
from kubectl_informer.cache.listwatch import (
    ADDED,
    BOOKMARK,
    DELETED,
    ERROR,
    INITIAL_EVENTS_END_ANNOTATION,
    MODIFIED,
    ListerWatcher,
    ListOptions,
    Watch,
    WatchEvent,
)
from kubectl_informer.cache.pager import DEFAULT_PAGE_SIZE, ListPager
from kubectl_informer.clock import Clock, RealClock
from kubectl_informer.core.apierrors import (
    ApiError,
    is_expired,
    is_too_large_resource_version,
    is_too_many_requests,
)
from kubectl_informer.core.trace import NULL_TRACER, Tracer
from kubectl_informer.core.trace_kinds import (
    LIST_DONE,
    LIST_PAGE,
    LIST_PROGRESS,
    LIST_START,
    REFLECTOR_BACKOFF,
    RELIST,
    RV_ADVANCE,
    SERVER_TOO_LARGE,
    WATCH_BOOKMARK,
    WATCH_END,
    WATCH_EVENT,
    WATCH_SKIPPED,
    WATCH_START,
)

# kube-apiserver's wording: "Too large resource version: 12, current: 10".
_TOO_LARGE = re.compile(r"Too large resource version: (\d+), current: (\d+)")

# The watch event types that carry an object to apply (a tuple: ``in`` compares
# by identity, then ==, so a server's odd unhashable type cannot raise).
_OBJECT_EVENTS = (MODIFIED, ADDED, DELETED)


class WatchStore(Protocol):
    """What a watch's events are applied to: the informer's queue, or a
    WatchList stream's temporary store."""

    def add(self, obj: Any) -> None: ...
    def update(self, obj: Any) -> None: ...
    def delete(self, obj: Any) -> None: ...


class ReflectorStore(WatchStore, Protocol):
    """client-go's ``ReflectorStore``: a list replaces it whole, a resync
    re-queues what it knows. A ``bookmark(rv)`` method, when it has one, is
    told each bookmark's resourceVersion."""

    def replace(self, items: list[Any], resource_version: str) -> None: ...
    def resync(self) -> None: ...


# An open watch and the iterator its events are read from.
OpenWatch = tuple[Watch, Iterator[WatchEvent]]

# Watches time out in [MIN_WATCH_TIMEOUT, 2*MIN_WATCH_TIMEOUT) to spread
# reconnections of many clients over time.
MIN_WATCH_TIMEOUT = 300.0


class _StopRequested(Exception):
    """The reflector's stop event was set while it was watching."""


class ContinueLoopError(Exception):
    """A paged list whose server hands back a continue token it sent before."""


class VeryShortWatchError(Exception):
    """A watch closed in under a second with no events: the server most
    likely refused what was asked (for a WatchList stream: unsupported)."""


class BackoffManager:
    """The reflector's back-off up to client-go 1.35,
    ``wait.NewExponentialBackoffManager(800ms, 30s, 2m, 2.0, 1.0, clock)``:
    each back-off doubles up to the cap, with up to 100% jitter added, and
    starts over after ``reset`` seconds without one (every call moves the
    time it measures from)."""

    def __init__(
        self,
        clock: Clock,
        initial: float = 0.8,
        cap: float = 30.0,
        reset: float = 120.0,
        factor: float = 2.0,
        jitter: float = 1.0,
        rng: random.Random | None = None,
    ) -> None:
        self.clock = clock
        self.initial = initial
        self.cap = cap
        self.reset = reset
        self.factor = factor
        self.jitter = jitter
        self._rng = rng or random.Random()
        self._duration = initial
        self._capped = False
        self._last: float | None = None

    def next(self) -> float:
        now = self.clock.now()
        if self._last is None or now - self._last > self.reset:
            self._duration = self.initial
            self._capped = False
        self._last = now
        return self._step()

    def _step(self) -> float:
        """``wait.Backoff.Step``: this delay (jittered), the next one doubled up to the cap."""
        d = self._duration
        if not self._capped:
            self._duration = d * self.factor
            if self._duration > self.cap:
                self._duration = self.cap
                self._capped = True
        if self.jitter > 0:
            d = d + self._rng.random() * self.jitter * d
        return d


class DelayWithReset(BackoffManager):
    """The reflector's back-off from client-go 1.36,
    ``wait.Backoff{800ms, x2, jitter 1.0, cap 30s}.DelayWithReset(clock, 2m)``
    (``backoffManager.Step``): the same steps, but it starts over once
    ``reset`` seconds have passed since it last started over (or was made),
    whether or not it backed off in between; only a start-over moves that
    time. So a reflector failing without pause drops back to 800ms every
    2 minutes, where the older manager stays at the cap."""

    def __init__(self, clock: Clock, **kw: Any) -> None:
        super().__init__(clock, **kw)
        self._started = clock.now()

    def next(self) -> float:
        now = self.clock.now()
        if now - self._started > self.reset:
            self._duration = self.initial
            self._capped = False
            self._started = now
        return self._step()


def _default_watch_error_handler(reflector: Reflector, err: BaseException) -> None:
    # client-go logs here; our trace already carries the error.
    pass


class Reflector:
    def __init__(
        self,
        lw: ListerWatcher,
        store: ReflectorStore,
        resync_period: float = 0.0,
        page_size: int | None = None,
        should_resync: Callable[[], bool] | None = None,
        use_watch_list: bool = False,
        name: str = "reflector",
        *,
        clock: Clock | None = None,
        tracer: Tracer | None = None,
        watch_error_handler: Callable[[Reflector, BaseException], None] | None = None,
        min_watch_timeout: float = MIN_WATCH_TIMEOUT,
        rng: random.Random | None = None,
        delay_with_reset: bool = False,
    ) -> None:
        self.lw = lw
        self.store = store
        self.resync_period = float(resync_period or 0.0)
        self.page_size = page_size
        self.should_resync = should_resync
        self.use_watch_list = use_watch_list
        self.name = name
        self.clock = clock or RealClock()
        self.tracer = tracer or NULL_TRACER
        self.watch_error_handler = watch_error_handler or _default_watch_error_handler
        # client-go never honours less than 5 minutes.
        self.min_watch_timeout = max(MIN_WATCH_TIMEOUT, float(min_watch_timeout))
        self._rng = rng or random.Random()
        # client-go 1.36 replaced the deprecated back-off manager (DelayWithReset).
        self.backoff = (DelayWithReset if delay_with_reset else BackoffManager)(self.clock, rng=self._rng)
        self._lock = threading.Lock()
        self._last_sync_rv = ""
        self._rv_unavailable = False
        self._paginated_result = False
        self._page_start = 0.0
        # Why the next ListAndWatch relists (None before the first list).
        self._relist_reason: str | None = None
        self._current_watch: Watch | None = None
        # Set by forget_resource_version (an experiment): the watch loop ends
        # the watch and relists at "" at its next turn.
        self._forget_requested = False
        self._stop_event: threading.Event | None = None
        self._stopper: threading.Thread | None = None
        self._resync_error: BaseException | None = None
        self._store_bookmark: Callable[[str], None] | None = getattr(store, "bookmark", None)
        # A ListerWatcher that reads big lists in chunks reports progress here.
        self._progress = _ListProgress()
        if hasattr(lw, "list_progress"):
            lw.list_progress = self._on_list_progress

    # ------------------------------------------------------------ public API
    def last_sync_resource_version(self) -> str:
        return self._last_sync_rv

    def close_watch(self) -> bool:
        """End the open watch now, as a server or proxy closing it would: the
        watch loop re-watches from the last synced RV. False: none was open."""
        w = self._current_watch
        if w is None:
            return False
        w.stop()
        return True

    def forget_resource_version(self) -> bool:
        """Act as client-go does once a LIST at the last RV answered 410: mark
        the last RV unavailable, end the watch and relist at "" (a consistent
        read). Returns whether a watch was open to end."""
        with self._lock:
            self._forget_requested = True
        return self.close_watch()

    def _take_forget(self) -> bool:
        with self._lock:
            if not self._forget_requested:
                return False
            self._forget_requested = False
            self._rv_unavailable = True
            return True

    def run(self, stop_event: threading.Event) -> None:
        """ListAndWatch until ``stop_event`` is set, backing off between
        attempts as client-go's ``wait.BackoffUntil`` (sliding)."""
        while not stop_event.is_set():
            failed: BaseException | None = None
            try:
                self.list_and_watch(stop_event)
            except Exception as err:  # noqa: BLE001 - reported, then retried
                failed = err
                self.watch_error_handler(self, err)
            if stop_event.is_set():
                break
            if self._wait_backoff(stop_event, failed):
                break

    def _wait_backoff(self, stop_event: threading.Event, err: BaseException | None = None) -> bool:
        """Wait out the next back-off (traced with its delay and the error
        that caused it); True when stopped meanwhile."""
        delay = self.backoff.next()
        if err is not None:
            self.tracer.emit(REFLECTOR_BACKOFF, None, delay=delay, error=_err_str(err))
        else:
            self.tracer.emit(REFLECTOR_BACKOFF, None, delay=delay)
        return self.clock.wait_event(stop_event, delay)

    def list_and_watch(self, stop_event: threading.Event) -> None:
        """List (or stream the initial list), then watch until the watch
        fails in a way that needs a relist. Raises when the list fails."""
        self._ensure_stopper(stop_event)
        if stop_event.is_set():
            return
        if self._relist_reason is not None:
            self.tracer.emit(RELIST, None, reason=self._relist_reason)
        self._relist_reason = "error"
        opened: OpenWatch | None = None
        fallback = not self.use_watch_list
        if self.use_watch_list:
            try:
                opened = self._watch_list(stop_event)
                if opened is None:
                    return  # stopped
            except Exception as err:  # noqa: BLE001 - client-go falls back to LIST on any error
                self.tracer.emit(
                    LIST_DONE,
                    None,
                    resource_version="",
                    items=0,
                    duration=0.0,
                    watch_list=True,
                    error=f"{err}; falling back to LIST",
                )
                fallback = True
                opened = None
        if fallback:
            self._list(stop_event)
            if stop_event.is_set():
                return
        cancel = threading.Event()
        resync = self._start_resync(stop_event, cancel)
        try:
            self._watch(opened, stop_event)
        finally:
            cancel.set()
            if resync is not None:
                resync.join(timeout=1.0)

    # ------------------------------------------------------------ RV tracking
    def _set_last_sync_rv(self, rv: str, source: str) -> None:
        old = self._last_sync_rv
        self._last_sync_rv = rv
        if self.tracer.enabled and old != rv:
            self.tracer.emit(RV_ADVANCE, None, old=old, new=rv, source=source)

    def _watch_ended(
        self, rv: str, reason: str | None = None, err: BaseException | None = None, watch_list: bool | None = None
    ) -> None:
        """watch.end with the facts readers need: ``expired`` says a 410 ended
        it (so the reflector relists), not the error's wording."""
        fields: dict[str, Any] = {"resource_version": rv, "expired": err is not None and is_expired(err)}
        if reason is not None:
            fields["reason"] = reason
        if err is not None:
            fields["error"] = _err_str(err)
        if watch_list is not None:
            fields["watch_list"] = watch_list
        self.tracer.emit(WATCH_END, None, **fields)

    def _set_rv_unavailable(self, value: bool) -> None:
        with self._lock:
            self._rv_unavailable = value

    def relist_resource_version(self) -> str:
        """ "" after an expired / too-large failure (a consistent read),
        "0" for the first list (servable from the watch cache), else the
        last synced RV (never older than what was seen)."""
        with self._lock:
            if self._rv_unavailable:
                return ""
            if self._last_sync_rv == "":
                return "0"
            return self._last_sync_rv

    def rewatch_resource_version(self) -> str:
        with self._lock:
            if self._rv_unavailable:
                return ""
            return self._last_sync_rv

    # ------------------------------------------------------------------ list
    def _effective_page_size(self, rv: str) -> int | None:
        if self.page_size is not None:
            return self.page_size if self.page_size > 0 else None
        if self._paginated_result:
            return DEFAULT_PAGE_SIZE
        if rv not in ("", "0"):
            # A relist at a specific RV unpaged can be served from the watch
            # cache; paged it would go to etcd.
            return None
        return DEFAULT_PAGE_SIZE

    def _paged_list(self, rv: str) -> tuple[list[Any], str, bool]:
        """client-go's ``pager.ListWithAlloc``: pages follow ``continue``; an
        expired continue token falls back to one full list at ``rv``."""
        pager = ListPager(self.lw.list, page_size=self._effective_page_size(rv) or 0, on_page=self._on_page)
        self._page_start = self.clock.now()
        self._progress = _ListProgress(start=self._page_start)
        result, paginated = pager.list(ListOptions(resource_version=rv))
        meta = result.get("metadata") or {}
        return result.get("items") or [], meta.get("resourceVersion") or "", paginated

    def _on_page(self, page: dict[str, Any], options: ListOptions, fallback: bool) -> None:
        now = self.clock.now()
        start, self._page_start = self._page_start, now
        progress = self._progress
        page_bytes = progress.page_bytes
        progress.page_done(len(page.get("items") or ()))
        meta = page.get("metadata") or {}
        cont = meta.get("continue") or ""
        if self.tracer.enabled:
            self._trace_page(meta, page, now - start, page_bytes, fallback)
        if cont:
            if cont in progress.continues:
                raise ContinueLoopError(
                    f"the server sent continue token {cont[:40]!r} a second time "
                    f"after {progress.items} items: the paged list would never end"
                )
            progress.continues.add(cont)

    def _trace_page(
        self, meta: dict[str, Any], page: dict[str, Any], duration: float, page_bytes: int, fallback: bool
    ) -> None:
        fields: dict[str, Any] = {
            "resource_version": meta.get("resourceVersion") or "",
            "items": len(page.get("items") or ()),
            "duration": duration,
            "watch_list": False,
            "continue": meta.get("continue") or "",
        }
        if page_bytes:
            fields["bytes"] = page_bytes
        if fallback:
            # The continue token expired: this is the pager's full list at the requested RV.
            fields["full_list_if_expired"] = True
        self.tracer.emit(LIST_PAGE, None, **fields)

    def _on_list_progress(self, nbytes: int, items: int) -> None:
        """A chunk of a list page arrived: trace the list's progress, at most
        every PROGRESS_EVERY seconds (a 100k-object list is one long page)."""
        p = self._progress
        now = self.clock.now()
        p.page_bytes = nbytes
        if not self.tracer.enabled or now - p.last_emit < PROGRESS_EVERY:
            return
        p.last_emit = now
        self.tracer.emit(
            LIST_PROGRESS, None, pages=p.pages, items=p.items + items, bytes=p.bytes + nbytes, elapsed=now - p.start
        )

    def _list(self, stop_event: threading.Event) -> None:
        rv = self.relist_resource_version()
        start = self.clock.now()
        self.tracer.emit(LIST_START, None, resource_version=rv, watch_list=False)
        try:
            items, list_rv, paginated = self._paged_list(rv)
        except ApiError as err:
            if not (is_expired(err) or is_too_large_resource_version(err)):
                self._emit_list_failed(start, err)
                raise
            # The RV we asked for is gone or not there yet: a consistent
            # list at "" always makes progress.
            self._trace_too_large(err, rv)
            self._set_rv_unavailable(True)
            self.tracer.emit(RELIST, None, reason="expired" if is_expired(err) else "too_large")
            rv = self.relist_resource_version()
            self.tracer.emit(LIST_START, None, resource_version=rv, watch_list=False)
            try:
                items, list_rv, paginated = self._paged_list(rv)
            except Exception as err2:
                self._emit_list_failed(start, err2)
                raise
        except Exception as err:
            self._emit_list_failed(start, err)
            raise
        if stop_event.is_set():
            return
        # Only a paginated answer to RV "0" says the watch cache is off.
        if rv == "0" and paginated:
            self._paginated_result = True
        self._set_rv_unavailable(False)
        self.store.replace(items, list_rv)
        self._set_last_sync_rv(list_rv, "list")
        self.tracer.emit(
            LIST_DONE,
            None,
            resource_version=list_rv,
            items=len(items),
            duration=self.clock.now() - start,
            watch_list=False,
            **{"continue": ""},
        )

    def _trace_too_large(self, err: BaseException, asked: str) -> None:
        """The server said "Too large resource version": what it said it
        was asked and where it is (its message names both), for the Server pane."""
        if not is_too_large_resource_version(err):
            return
        m = _TOO_LARGE.search(getattr(err, "message", "") or "")
        self.tracer.emit(
            SERVER_TOO_LARGE, None, requested_rv=m.group(1) if m else asked, current_rv=m.group(2) if m else ""
        )

    def _emit_list_failed(self, start: float, err: BaseException) -> None:
        self.tracer.emit(
            LIST_DONE,
            None,
            resource_version="",
            items=0,
            duration=self.clock.now() - start,
            watch_list=False,
            error=str(err) or type(err).__name__,
        )

    # ------------------------------------------------------------- watch-list
    def _retriable_with_side_effects(self, err: BaseException, stop_event: threading.Event) -> bool:
        if isinstance(err, ConnectionRefusedError) or is_too_many_requests(err):
            self._wait_backoff(stop_event, err)
            return True
        if is_expired(err) or is_too_large_resource_version(err):
            # Start the stream again at the most recent RV.
            self._trace_too_large(err, self._last_sync_rv)
            self._set_rv_unavailable(True)
            return True
        return False

    def _watch_list(self, stop_event: threading.Event) -> OpenWatch | None:
        """Stream the initial state as watch events ended by the
        initial-events-end bookmark; replace the store once. Returns the
        still-open watch, or None when stopped."""
        while True:
            if stop_event.is_set():
                return None
            rv = self.rewatch_resource_version()
            temp: dict[str, Any] = {}
            opts = ListOptions(
                resource_version=rv,
                allow_watch_bookmarks=True,
                send_initial_events=True,
                resource_version_match="NotOlderThan",
                timeout_seconds=self._watch_timeout(),
            )
            start = self.clock.now()
            self.tracer.emit(LIST_START, None, resource_version=rv, watch_list=True)
            try:
                w = self.lw.watch(opts)
            except Exception as err:
                self._watch_ended(rv, err=err, watch_list=True)
                if self._retriable_with_side_effects(err, stop_event):
                    continue
                raise
            it = iter(w)
            try:
                received, list_rv = self.handle_list_watch(start, w, it, _TempStore(temp), stop_event)
            except _StopRequested:
                w.stop()
                return None
            except Exception as err:
                w.stop()
                self._watch_ended(rv, err=err, watch_list=True)
                if self._retriable_with_side_effects(err, stop_event):
                    continue
                raise
            if received:
                break
            self._watch_ended(rv, reason="closed before initial-events-end", watch_list=True)
            # Ended before the bookmark: ask again from the start.
        self._set_rv_unavailable(False)
        self.store.replace(list(temp.values()), list_rv)
        self._set_last_sync_rv(list_rv, "list")
        self.tracer.emit(
            LIST_DONE,
            None,
            resource_version=list_rv,
            items=len(temp),
            duration=self.clock.now() - start,
            watch_list=True,
            **{"continue": ""},
        )
        return w, it

    # ----------------------------------------------------------------- watch
    def _watch_timeout(self) -> int:
        return int(self.min_watch_timeout * (self._rng.random() + 1.0))

    def _watch(self, opened: OpenWatch | None, stop_event: threading.Event) -> None:
        tracer = self.tracer
        while True:
            if stop_event.is_set() or (self._forget_requested and self._take_forget()):
                if opened is not None:
                    opened[0].stop()
                if not stop_event.is_set():
                    self._relist_reason = "forgotten"
                return
            start = self.clock.now()
            if opened is None:
                rv = self._last_sync_rv
                opts = ListOptions(
                    resource_version=rv, timeout_seconds=self._watch_timeout(), allow_watch_bookmarks=True
                )
                try:
                    w = self.lw.watch(opts)
                    opened = w, iter(w)
                except Exception as err:
                    if isinstance(err, ConnectionRefusedError) or is_too_many_requests(err):
                        self._watch_ended(rv, err=err)
                        if self._wait_backoff(stop_event, err):
                            return
                        continue
                    self._watch_ended(rv, err=err)
                    raise
            tracer.emit(WATCH_START, None, resource_version=self._last_sync_rv)
            w, it = opened
            failed: BaseException | None = None
            try:
                self.handle_watch(start, w, it, self.store, stop_event)
            except _StopRequested:
                w.stop()
                self._watch_ended(self._last_sync_rv, reason="stopped")
                return
            except Exception as e:  # noqa: BLE001 - classified below
                failed = e
            w.stop()
            opened = None
            if self._forget_requested and self._take_forget():
                self._watch_ended(self._last_sync_rv, reason="closed")
                self._relist_reason = "forgotten"
                return
            if failed is None:
                # A clean close (timeout, dropped connection): watch again
                # from where we are, no relist.
                self._watch_ended(self._last_sync_rv, reason="closed")
                continue
            self._watch_ended(self._last_sync_rv, err=failed)
            if is_too_many_requests(failed):
                if self._wait_backoff(stop_event, failed):
                    return
                continue
            self._trace_too_large(failed, self._last_sync_rv)
            self._relist_reason = _relist_reason(failed)
            return

    def handle_watch(
        self, start: float, w: Watch, it: Iterator[WatchEvent], store: WatchStore, stop_event: threading.Event
    ) -> bool:
        """client-go's handleWatch: apply a watch's events to ``store``, each
        advancing the last synced RV, until it ends. Returns whether an
        initial-events-end bookmark came."""
        return self.handle_any_watch(start, (w, it), store, stop_event, exit_on_initial_end=False, main=True)[0]

    def handle_list_watch(
        self, start: float, w: Watch, it: Iterator[WatchEvent], store: WatchStore, stop_event: threading.Event
    ) -> tuple[bool, str]:
        """client-go's handleListWatch: collect a WatchList stream's initial
        events into a temporary ``store`` until the initial-events-end
        bookmark; returns (whether it came, the last RV seen). The last synced
        RV and the real store's bookmarks are left alone."""
        return self.handle_any_watch(start, (w, it), store, stop_event, exit_on_initial_end=True, main=False)

    def _enter_watch(self, opened: OpenWatch, stop_event: threading.Event) -> Iterator[WatchEvent]:
        """The watch becomes the current one (``close_watch`` and the stopper
        end it); ended at once when already stopped. Returns its events."""
        w, it = opened
        self._current_watch = w
        if stop_event.is_set():
            w.stop()
            raise _StopRequested()
        return it

    def handle_any_watch(
        self,
        start: float,
        opened: OpenWatch,
        store: WatchStore,
        stop_event: threading.Event,
        exit_on_initial_end: bool,
        main: bool,
    ) -> tuple[bool, str]:
        """client-go's handleAnyWatch, under handle_watch and handle_list_watch.
        Returns (initial-events-end bookmark came, last RV seen). Raises
        ApiError for an ERROR event, _StopRequested when stopped."""
        it = self._enter_watch(opened, stop_event)
        tracer = self.tracer
        add, update, delete = store.add, store.update, store.delete
        forward_bookmark = self._store_bookmark if main else None
        received, last_rv, count = False, "", 0
        try:
            for ev in it:
                if stop_event.is_set():
                    raise _StopRequested()
                etype, obj = ev.type, ev.object
                if etype == ERROR:
                    raise ApiError.from_status(obj, what="the watch's ERROR event")
                try:
                    rv = obj["metadata"].get("resourceVersion") or ""
                except (KeyError, TypeError, AttributeError):
                    # Skipped, as client-go does, but said (client-go logs it).
                    tracer.emit(WATCH_SKIPPED, None, type=str(etype), reason="no metadata")
                    continue
                if etype in _OBJECT_EVENTS:
                    if tracer.enabled:  # said before the FIFO acts on it: the watch event comes first
                        meta = obj["metadata"]
                        ns, name = meta.get("namespace"), meta.get("name")
                        tracer.emit(WATCH_EVENT, f"{ns}/{name}" if ns else name, type=etype, resource_version=rv)
                    if etype == MODIFIED:
                        update(obj)
                    elif etype == ADDED:
                        add(obj)
                    else:
                        delete(obj)
                elif etype == BOOKMARK:
                    received = self._on_bookmark(obj, rv, forward_bookmark) or received
                else:
                    tracer.emit(WATCH_SKIPPED, None, type=str(etype), reason="unknown type")
                    continue
                last_rv = rv
                if main:  # _set_last_sync_rv inlined; an event's own watch.event already says the RV moved
                    old = self._last_sync_rv
                    self._last_sync_rv = rv
                    if etype == BOOKMARK and old != rv and tracer.enabled:
                        tracer.emit(RV_ADVANCE, None, old=old, new=rv, source="bookmark")
                count += 1
                if exit_on_initial_end and received:
                    return True, last_rv
        finally:
            self._current_watch = None
        self._check_watch_end(start, count, stop_event)
        return received, last_rv

    def _on_bookmark(self, obj: dict[str, Any], rv: str, forward_bookmark: Callable[[str], None] | None) -> bool:
        """A BOOKMARK event: whether it ends a WatchList's initial events;
        any other goes to the store (the main watch only)."""
        received = False
        ann = obj["metadata"].get("annotations") or {}
        if ann.get(INITIAL_EVENTS_END_ANNOTATION) == "true":
            received = True
        elif forward_bookmark is not None:
            forward_bookmark(rv)
        if self.tracer.enabled:
            self.tracer.emit(WATCH_BOOKMARK, None, resource_version=rv)
        return received

    def _check_watch_end(self, start: float, count: int, stop_event: threading.Event) -> None:
        """After a watch's events: a resync's failure, a stop, or a watch that
        closed at once with nothing (client-go's very short watch) is raised."""
        if self._resync_error is not None:
            err, self._resync_error = self._resync_error, None
            raise err
        if stop_event.is_set():
            raise _StopRequested()
        if count == 0 and self.clock.now() - start < 1.0:
            raise VeryShortWatchError(
                f"very short watch: {self.name}: the watch closed in less than a second with no items received"
            )

    # ---------------------------------------------------------------- resync
    def _start_resync(self, stop_event: threading.Event, cancel: threading.Event) -> threading.Thread | None:
        if self.resync_period <= 0:
            return None

        def loop() -> None:
            while True:
                if self.clock.wait_event(cancel, self.resync_period) or stop_event.is_set():
                    return
                if self.should_resync is None or self.should_resync():
                    try:
                        self.store.resync()
                    except Exception as err:  # noqa: BLE001 - ends the watch, as client-go's resyncerrc
                        self._resync_error = err
                        w = self._current_watch
                        if w is not None:
                            w.stop()
                        return

        t = threading.Thread(target=loop, name=f"{self.name}-resync", daemon=True)
        t.start()
        return t

    # ------------------------------------------------------------------ stop
    def _ensure_stopper(self, stop_event: threading.Event) -> None:
        """A watch blocks in its iterator; one thread per stop event stops
        the current watch when the event is set."""
        if self._stop_event is stop_event and self._stopper is not None:
            return
        self._stop_event = stop_event

        def wait_and_stop() -> None:
            stop_event.wait()
            w = self._current_watch
            if w is not None:
                w.stop()

        self._stopper = threading.Thread(target=wait_and_stop, name=f"{self.name}-stopper", daemon=True)
        self._stopper.start()


PROGRESS_EVERY = 0.1  # seconds between list.progress events


class _ListProgress:
    """How far the current list has come: pages and items done, bytes read."""

    __slots__ = ("start", "pages", "items", "bytes", "page_bytes", "last_emit", "continues")

    def __init__(self, start: float = 0.0):
        self.start = start
        self.pages = self.items = self.bytes = self.page_bytes = 0
        self.last_emit = start
        self.continues: set[str] = set()  # tokens seen: one that comes back would loop forever

    def page_done(self, items: int) -> None:
        self.pages += 1
        self.items += items
        self.bytes += self.page_bytes
        self.page_bytes = 0


class _TempStore:
    """The WatchList stream's temporary store: objects by key, in order."""

    __slots__ = ("_d",)

    def __init__(self, d: dict[str, Any]) -> None:
        self._d = d

    def add(self, obj: Any) -> None:
        self._d[deletion_handling_meta_namespace_key_func(obj)] = obj

    update = add

    def delete(self, obj: Any) -> None:
        self._d.pop(deletion_handling_meta_namespace_key_func(obj), None)


def _err_str(err: BaseException) -> str:
    """What went wrong, in words for the retry lines and the header: the
    API server's status and message, or what happened to the connection;
    never an exception's class name (client-go logs the error's text)."""
    if isinstance(err, ApiError):
        return f"{err.status} {err.reason}: {err.message}".strip()
    text = " ".join(str(err).split())
    for kinds, words in _ERROR_WORDS:
        if isinstance(err, kinds):
            return f"{words}: {text}" if text and words not in text.lower() else words
    return text[:300] or "failed without a message"


# Errors of the connection, by what happened to it (OSError subclasses are
# the standard library's; http.client's fit under these too).
_ERROR_WORDS: tuple[tuple[type | tuple[type, ...], str], ...] = (
    (TimeoutError, "timed out"),
    (ConnectionRefusedError, "connection refused"),
    (ConnectionResetError, "connection reset by the server"),
    ((ConnectionAbortedError, BrokenPipeError), "connection closed"),
    (ConnectionError, "connection failed"),
)


def _relist_reason(err: BaseException) -> str:
    """Why a watch that ended in ``err`` leads to a relist (the relist event's reason)."""
    if is_expired(err):
        return "expired"  # relist at the last RV: "not older than" still holds
    if is_too_large_resource_version(err):
        return "too_large"
    if isinstance(err, VeryShortWatchError):
        return "watch_closed"
    return "error"
