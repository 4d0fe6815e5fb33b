"""SharedIndexInformer: one reflector and cache, many handlers.

A port of client-go's ``shared_informer.go`` and the parts of
``controller.go`` it runs (the pop loop and ``processDeltas``). The
reflector fills a FIFO (DeltaFIFO, or RealFIFO for client-go 1.33+); one
thread pops it, applies each delta to the indexer and hands a notification
to every listener. Each listener has its own thread and an unbounded
buffer, so a slow handler delays only itself.

Resync follows client-go exactly: a handler asks for a period (minimum
1 s); before the informer starts a shorter period lowers the informer's
resync check period, after it starts the period is raised to the check
period; with a check period of 0 no handler resyncs. On each check tick
only the listeners that are due get the Sync updates (updates whose old
and new resourceVersion are equal).

Why this module is long: it mirrors client-go's ``shared_informer.go``, which keeps the
informer, its processor and the per-listener buffers together; splitting them would
hide the resync rules that tie them.
"""

from __future__ import annotations

import inspect
import threading
import time
from queue import Empty, SimpleQueue
from typing import Any, Callable

from kubectl_informer.cache.delta_fifo import (
    ADDED,
    BOOKMARK,
    DELETED,
    REPLACED,
    REPLACED_ALL,
    SYNC,
    SYNC_ALL,
    UPDATED,
    DeltaFIFO,
    DeltaType,
    FIFOClosedError,
)
from kubectl_informer.cache.keys import (
    DeletedFinalStateUnknown,
    deletion_handling_meta_namespace_key_func,
    meta_namespace_key_func,
)
from kubectl_informer.cache.real_fifo import RealFIFO
from kubectl_informer.cache.reflector import Reflector
from kubectl_informer.cache.store import Indexer
from kubectl_informer.clock import Clock, RealClock
from kubectl_informer.core.profiles import fifo_label, initial_list_label
from kubectl_informer.core.trace import NULL_TRACER, Tracer
from kubectl_informer.core.trace_kinds import (
    HANDLER_ADD,
    HANDLER_DELETE,
    HANDLER_ERROR,
    HANDLER_LANE,
    HANDLER_REGISTER,
    HANDLER_UPDATE,
    INFORMER_BOOKMARK,
    INFORMER_ERROR,
    INFORMER_START,
    INFORMER_SYNCED,
    RESYNC_TICK,
    STORE_ADD,
    STORE_DELETE,
    STORE_UPDATE,
)

MINIMUM_RESYNC_PERIOD = 1.0

# client-go flags no listener as slow; its FIFOs log "slow event handlers
# blocking the queue" when more than 10 items wait and one takes 100 ms or
# more. A listener is flagged on the same two figures, on its own buffer.
SLOW_PENDING = 10
SLOW_CALL = 0.1
# A listener reports its buffer and pace at most this often (clock seconds),
# besides after every slow call and once when it goes idle.
LANE_SAMPLE_EVERY = 0.25


def is_slow(pending: int, call_seconds: float) -> bool:
    """The slow-handler flag: a backlog, and calls too long to work it off."""
    return pending > SLOW_PENDING and call_seconds >= SLOW_CALL

# Notification kinds (small tuples travel through the listener buffers).
_ADD, _UPDATE, _DELETE = 0, 1, 2
_HANDLER_EVENTS = (HANDLER_ADD, HANDLER_UPDATE, HANDLER_DELETE)
# DeltaType -> its plain str (Enum.value is a slow descriptor on a hot path).
_DELTA_NAME = {t: str(t.value) for t in DeltaType}


class ResourceEventHandler:
    """What a handler implements; every method defaults to doing nothing."""

    def on_add(self, obj: Any, is_in_initial_list: bool) -> None:
        pass

    def on_update(self, old: Any, new: Any) -> None:
        pass

    def on_delete(self, obj: Any) -> None:
        pass


class ResourceEventHandlerFuncs(ResourceEventHandler):
    """A handler from up to three functions. ``add`` may take ``(obj)`` as
    client-go's AddFunc or ``(obj, is_in_initial_list)``."""

    def __init__(self, add: Callable | None = None, update: Callable | None = None,
                 delete: Callable | None = None):
        self.add = add
        self.update = update
        self.delete = delete
        self._add_wants_initial = False
        if add is not None:
            try:
                params = [p for p in inspect.signature(add).parameters.values()
                          if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
                self._add_wants_initial = len(params) >= 2 or any(
                    p.kind == p.VAR_POSITIONAL for p in inspect.signature(add).parameters.values())
            except (TypeError, ValueError):
                pass

    def on_add(self, obj: Any, is_in_initial_list: bool) -> None:
        if self.add is not None:
            if self._add_wants_initial:
                self.add(obj, is_in_initial_list)
            else:
                self.add(obj)

    def on_update(self, old: Any, new: Any) -> None:
        if self.update is not None:
            self.update(old, new)

    def on_delete(self, obj: Any) -> None:
        if self.delete is not None:
            self.delete(obj)


_STOP = ()  # put by stop() to wake a listener's thread


def determine_resync_period(desired: float, check: float) -> float:
    """client-go's determineResyncPeriod: 0 stays 0; no resync at all when
    the informer does not resync; never below the check period."""
    if desired == 0:
        return 0.0
    if check == 0:
        return 0.0
    return max(desired, check)


def _rv(obj: Any) -> str:
    try:
        return obj["metadata"]["resourceVersion"]
    except (KeyError, TypeError):
        if isinstance(obj, DeletedFinalStateUnknown):
            return _rv(obj.obj)
        return ""


class ProcessorListener:
    """Relays notifications to one handler on its own thread through an
    unbounded buffer (client-go's processorListener; its two goroutines and
    ring buffer become one thread and a C queue). Also the registration
    handle ``add_event_handler`` returns."""

    def __init__(self, name: str, handler: ResourceEventHandler, requested_resync_period: float,
                 resync_period: float, now: float, upstream_has_synced: Callable[[], bool],
                 tracer: Tracer = NULL_TRACER, clock: Clock | None = None):
        self.name = name
        self.handler = handler
        self.requested_resync_period = requested_resync_period
        self.resync_period = resync_period
        self.next_resync = now + resync_period
        self._upstream_has_synced = upstream_has_synced
        self._tracer = tracer
        # client-go's unbounded ring buffer between its two goroutines: a C
        # queue, so adding and taking a notification cost no Python-level
        # lock or Condition.
        self._buf: SimpleQueue = SimpleQueue()
        self._stopped = False
        # Initial-list adds given and handled: each counter has one writer
        # (the informer's thread, the listener's), so neither needs a lock.
        self._initial_added = 0
        self._initial_handled = 0
        self._thread: threading.Thread | None = None
        self.delivered = 0
        self.errors = 0
        # The lane's pace, measured only while someone reads the trace.
        self._clock = clock or RealClock()
        # Read twice per notification while traced: no Python frame for the real clock.
        self._now = time.monotonic if type(self._clock) is RealClock else self._clock.now
        self.last_call = 0.0
        self._next_sample = 0.0
        self._unreported = False  # calls finished since the last handler.lane

    # --- registration ---
    def has_synced(self) -> bool:
        """The informer has synced and every initial-list add was handled."""
        return self._initial_added == self._initial_handled and self._upstream_has_synced()

    def buffered(self) -> int:
        return self._buf.qsize()

    # --- producer side ---
    def add(self, notification: tuple) -> None:
        if notification[0] == _ADD and notification[2]:
            self._initial_added += 1
        self._buf.put(notification)

    # --- resync bookkeeping (under the processor's lock) ---
    def should_resync(self, now: float) -> bool:
        return self.resync_period != 0 and now >= self.next_resync

    def determine_next_resync(self, now: float) -> None:
        self.next_resync = now + self.resync_period

    # --- thread ---
    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name=f"listener-{self.name}", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        self._stopped = True
        self._buf.put(_STOP)  # wakes the thread if it waits

    def join(self, timeout: float | None = None) -> None:
        if self._thread is not None:
            self._thread.join(timeout)

    def stats(self) -> dict[str, Any]:
        """The lane as the Handlers pane shows it (experiments, tests)."""
        pending = self._buf.qsize()
        return dict(listener=self.name, requested=self.requested_resync_period, effective=self.resync_period,
                    pending=pending, handled=self.delivered, call=self.last_call, errors=self.errors,
                    slow=is_slow(pending, self.last_call))

    def _sample(self, call: float, now: float) -> None:
        """Report the lane after a call: at most every LANE_SAMPLE_EVERY,
        but after every slow call; what is left unreported is reported
        when the listener goes idle (``_wait``). ``_run`` inlines the
        common case (a quick call, not yet time)."""
        self.last_call = call
        self._next_sample = now + LANE_SAMPLE_EVERY
        self._report(call)

    def _report(self, call: float) -> None:
        self._unreported = False
        pending = self._buf.qsize()
        self._tracer.emit(HANDLER_LANE, None, listener=self.name, pending=pending, handled=self.delivered,
                          call=round(call, 6), slow=is_slow(pending, call))

    def _wait(self) -> tuple:
        """The next notification, the buffer being empty. With calls left
        unreported, wait a sample period first and report the idle lane,
        so the last figures shown are never a stale backlog."""
        if self._unreported and self._tracer.enabled:
            rest = min(max(self._next_sample - self._now(), 0.0), LANE_SAMPLE_EVERY)
            if rest:
                try:
                    return self._buf.get(timeout=rest)
                except Empty:
                    pass
            if not self._stopped:
                self._report(self.last_call)
        return self._buf.get()

    def _run(self) -> None:
        buf = self._buf
        get, qsize = buf.get, buf.qsize
        handler = self.handler
        on_add, on_update, on_delete = handler.on_add, handler.on_update, handler.on_delete
        tracer = self._tracer
        now = self._now
        while not self._stopped:
            # Idle with a lane report owed (traced runs only): _wait.
            n = get() if not self._unreported or qsize() else self._wait()
            if self._stopped or n is _STOP:
                return
            kind = n[0]
            started = now() if tracer.enabled else None
            try:
                if kind == _UPDATE:
                    on_update(n[1], n[2])
                elif kind == _ADD:
                    on_add(n[1], n[2])
                else:
                    on_delete(n[1])
            except Exception as err:  # noqa: BLE001 - client-go skips the item and goes on
                self.errors += 1
                self._tracer.emit(HANDLER_ERROR, None, listener=self.name, error=f"{type(err).__name__}: {err}")
            finally:
                if kind == _ADD and n[2]:
                    self._initial_handled += 1
            self.delivered += 1
            if started is not None:
                ended = now()
                if ended < self._next_sample and ended - started < SLOW_CALL:
                    self.last_call = ended - started
                    self._unreported = True  # the idle report carries it
                else:
                    self._sample(ended - started, ended)

    def __repr__(self) -> str:
        return f"ProcessorListener({self.name!r}, resync_period={self.resync_period})"


class SharedProcessor:
    """Fans notifications out to listeners; tracks which are due a resync."""

    def __init__(self, clock: Clock, tracer: Tracer):
        self.clock = clock
        self.tracer = tracer
        self._lock = threading.Lock()
        # listener -> whether it is due the current resync's Sync updates
        self.listeners: dict[ProcessorListener, bool] = {}
        # Every listener, for the common non-sync distribution (a tuple
        # rebuilt on change, read without the lock).
        self._all: tuple[ProcessorListener, ...] = ()
        self.started = False
        self.check_period = 0.0

    def add_listener(self, listener: ProcessorListener) -> None:
        with self._lock:
            self.listeners[listener] = True
            self._all = tuple(self.listeners)
            if self.started:
                listener.start()

    def run(self) -> None:
        with self._lock:
            for listener in self.listeners:
                listener.start()
            self.started = True

    def stop(self) -> None:
        with self._lock:
            listeners = list(self.listeners)
            self.listeners = {}
            self._all = ()
            self.started = False
        for listener in listeners:
            listener.stop()
        for listener in listeners:
            listener.join(5.0)

    def distribute(self, notification: tuple, sync: bool) -> list[ProcessorListener]:
        """Give ``notification`` to every listener, or for a sync only to
        the listeners due a resync. Returns who got it."""
        if not sync:
            got = self._all
            for listener in got:
                listener.add(notification)
            return got
        got = [listener for listener, syncing in self.listeners.copy().items() if syncing]
        for listener in got:
            listener.add(notification)
        return got

    def should_resync(self) -> bool:
        """Called by the reflector every check period: mark the listeners
        whose period has come, and say whether any did."""
        with self._lock:
            now = self.clock.now()
            due = []
            for listener in self.listeners:
                s = listener.should_resync(now)
                self.listeners[listener] = s
                if s:
                    due.append(listener.name)
                    listener.determine_next_resync(now)
        self.tracer.emit(RESYNC_TICK, None, due=due, check_period=self.check_period)
        return bool(due)

    def resync_check_period_changed(self, check: float) -> None:
        with self._lock:
            self.check_period = check
            for listener in self.listeners:
                listener.resync_period = determine_resync_period(listener.requested_resync_period, check)


class SharedIndexInformer:
    def __init__(self, lw, resync_period: float = 0, indexers: dict | None = None, *,
                 clock: Clock | None = None, tracer: Tracer | None = None, fifo: str = "delta",
                 atomic_events: bool = False, use_watch_list: bool = False, page_size: int | None = None,
                 name: str = "informer", emit_bookmarks: bool | None = None):
        if fifo not in ("delta", "real"):
            raise ValueError(f'fifo must be "delta" or "real", not {fifo!r}')
        if atomic_events and fifo != "real":
            raise ValueError("atomic events need the RealFIFO")
        self.lw = lw
        self.clock = clock or RealClock()
        self.tracer = tracer or NULL_TRACER
        self.name = name
        self.fifo_kind = fifo
        self.atomic_events = atomic_events
        self.emit_bookmarks = atomic_events if emit_bookmarks is None else emit_bookmarks
        self.use_watch_list = use_watch_list
        self.page_size = page_size
        self.indexer = Indexer(deletion_handling_meta_namespace_key_func, indexers)
        self.default_event_handler_resync_period = float(resync_period or 0.0)
        self._resync_check_period = float(resync_period or 0.0)
        self.processor = SharedProcessor(self.clock, self.tracer)
        self.processor.check_period = self._resync_check_period
        self._started_lock = threading.Lock()
        # Held while a delta is applied, so a late handler joins between two.
        self._block_deltas = threading.RLock()
        self._started = False
        self._stopped = False
        self._transform: Callable | None = None
        self._watch_error_handler: Callable | None = None
        self._listener_seq = 0
        self.fifo: DeltaFIFO | RealFIFO | None = None
        self.reflector: Reflector | None = None
        self._start_time = 0.0
        self._synced_emitted = False
        # The last resource version a Bookmark delta told us (RealFIFO 1.36).
        self.bookmark_resource_version = ""
        # The pause-fifo experiment: the FIFO holds its pops (set on the FIFO
        # once it exists).
        self._consumer_paused = False

    # ------------------------------------------------------------ settings
    @property
    def resync_check_period(self) -> float:
        return self._resync_check_period

    def set_transform(self, fn: Callable[[Any], Any] | None) -> None:
        with self._started_lock:
            if self._started:
                raise RuntimeError("informer has already started")
            self._transform = fn

    def set_watch_error_handler(self, fn: Callable[[Any, BaseException], None]) -> None:
        with self._started_lock:
            if self._started:
                raise RuntimeError("informer has already started")
            self._watch_error_handler = fn

    def add_indexers(self, indexers: dict) -> None:
        with self._started_lock:
            if self._stopped:
                raise RuntimeError("indexer was not added because it has stopped already")
            self.indexer.add_indexers(indexers)

    # ------------------------------------------------------------- queries
    def get_store(self) -> Indexer:
        return self.indexer

    def get_indexer(self) -> Indexer:
        return self.indexer

    def has_started(self) -> bool:
        return self._started

    def is_stopped(self) -> bool:
        return self._stopped

    def has_synced(self) -> bool:
        fifo = self.fifo
        return fifo is not None and fifo.has_synced()

    def last_sync_resource_version(self) -> str:
        r = self.reflector
        return "" if r is None else r.last_sync_resource_version()

    @property
    def fifo_label(self) -> str:
        return fifo_label(self.fifo_kind, self.atomic_events)

    def pause_consumer(self, paused: bool = True) -> None:
        """Hold the pop loop (an experiment): the reflector keeps queueing
        into the FIFO, nothing reaches the indexer or the handlers until
        ``pause_consumer(False)``."""
        with self._started_lock:
            self._consumer_paused = paused
            if self.fifo is not None:
                self.fifo.hold(paused)

    @property
    def consumer_paused(self) -> bool:
        return self._consumer_paused

    # ------------------------------------------------------------- handlers
    def add_event_handler(self, handler: ResourceEventHandler, resync_period: float | None = None,
                          name: str | None = None) -> ProcessorListener:
        with self._started_lock:
            if self._stopped:
                raise RuntimeError(f"handler {name or handler!r} was not added to shared informer "
                                   "because it has stopped already")
            self._listener_seq += 1
            name = name or f"handler-{self._listener_seq}"
            requested = self.default_event_handler_resync_period if resync_period is None else float(resync_period)
            period = requested
            reason = None
            if period > 0:
                if period < MINIMUM_RESYNC_PERIOD:
                    period = MINIMUM_RESYNC_PERIOD
                    reason = f"raised to the minimum of {MINIMUM_RESYNC_PERIOD:g}s"
                if period < self._resync_check_period:
                    if self._started:
                        period = self._resync_check_period
                        reason = "raised to the resync check period: the informer has already started"
                    else:
                        # Lower the check period so this handler is served on time.
                        self._resync_check_period = period
                        self.processor.resync_check_period_changed(period)
                        reason = reason or None
            effective = determine_resync_period(period, self._resync_check_period)
            if period > 0 and effective == 0:
                reason = "the informer does not resync (check period 0)"
            listener = ProcessorListener(name, handler, period, effective, self.clock.now(), self.has_synced,
                                         self.tracer, self.clock)
            self.tracer.emit(HANDLER_REGISTER, None, listener=name, requested=requested, effective=effective,
                             check_period=self._resync_check_period, reason=reason)
            if not self._started:
                self.processor.add_listener(listener)
                return listener
            # Join between two deltas: synthetic adds of everything cached,
            # queued before the handle is returned so has_synced cannot lie.
            with self._block_deltas:
                self.processor.add_listener(listener)
                tracer = self.tracer
                for item in self.indexer.list():
                    listener.add((_ADD, item, True))
                    if tracer.enabled:
                        tracer.emit(HANDLER_ADD, deletion_handling_meta_namespace_key_func(item),
                                    listener=name, is_sync=False, synthetic=True)
            return listener

    # ------------------------------------------------------------------ run
    def _new_fifo(self):
        if self.fifo_kind == "delta":
            return DeltaFIFO(meta_namespace_key_func, known_objects=self.indexer, emit_delta_type_replaced=True,
                             transformer=self._transform, tracer=self.tracer, clock=self.clock)
        if self.atomic_events:
            return RealFIFO(meta_namespace_key_func, transformer=self._transform, atomic_events=True,
                            emit_delta_type_bookmark=self.emit_bookmarks, tracer=self.tracer, clock=self.clock)
        return RealFIFO(meta_namespace_key_func, known_objects=self.indexer, transformer=self._transform,
                        tracer=self.tracer, clock=self.clock)

    def run(self, stop_event: threading.Event) -> None:
        """Run until ``stop_event`` is set (blocks; call from a thread)."""
        with self._started_lock:
            if self._started:
                return  # client-go: running more than once is not allowed
            self.fifo = self._new_fifo()
            self.fifo.on_synced = self._emit_synced
            if self._consumer_paused:
                self.fifo.hold(True)
            self.reflector = Reflector(
                self.lw, self.fifo, resync_period=self._resync_check_period, page_size=self.page_size,
                should_resync=self.processor.should_resync, use_watch_list=self.use_watch_list,
                name=f"{self.name}-reflector", clock=self.clock, tracer=self.tracer,
                watch_error_handler=self._watch_error_handler)
            self._started = True
            self._start_time = self.clock.now()
        self.processor.check_period = self._resync_check_period
        self.tracer.emit(INFORMER_START, None, fifo=self.fifo_label, watch_list=self.use_watch_list,
                         initial_list=initial_list_label(self.use_watch_list),
                         resync_check_period=self._resync_check_period)
        self.processor.run()
        fifo = self.fifo

        def close_on_stop() -> None:
            stop_event.wait()
            fifo.close()

        closer = threading.Thread(target=close_on_stop, name=f"{self.name}-closer", daemon=True)
        closer.start()
        rt = threading.Thread(target=self.reflector.run, args=(stop_event,), name=f"{self.name}-reflector",
                              daemon=True)
        rt.start()
        try:
            self._process_loop(stop_event)
        finally:
            rt.join(10.0)
            with self._started_lock:
                self._stopped = True  # no new listeners
            self.processor.stop()

    def _process_loop(self, stop_event: threading.Event) -> None:
        fifo = self.fifo
        pop = fifo.pop
        handle = self._handle_deltas
        while not stop_event.is_set():
            try:
                pop(handle)
            except FIFOClosedError:
                return
            except Exception as err:  # noqa: BLE001 - client-go drops the item and goes on
                self.tracer.emit(INFORMER_ERROR, None, error=f"{type(err).__name__}: {err}")
            if not self._synced_emitted and fifo.has_synced():
                self._emit_synced()

    def _emit_synced(self) -> None:
        """``informer.synced`` once, at has_synced's first true: after the pop
        that emptied the initial population, or at a Replace that queued
        nothing (an empty list), where no pop follows."""
        with self._started_lock:
            if self._synced_emitted:
                return
            self._synced_emitted = True
        self.tracer.emit(INFORMER_SYNCED, None, items=len(self.indexer),
                         duration=self.clock.now() - self._start_time)

    # --------------------------------------------------------- HandleDeltas
    def _handle_deltas(self, deltas: list, is_in_initial_list: bool) -> None:
        with self._block_deltas:
            indexer = self.indexer
            tracer = self.tracer
            key_func = meta_namespace_key_func
            for d in deltas:
                t = d.type
                obj = d.object
                if t is DELETED:
                    indexer.delete(obj)
                    if tracer.enabled:
                        key = obj.key if type(obj) is DeletedFinalStateUnknown else key_func(obj)
                        self._trace_store(STORE_DELETE, key, t, obj, None, is_in_initial_list)
                        self._distribute((_DELETE, obj), False, key)
                    else:
                        self._distribute((_DELETE, obj), False)
                elif t is UPDATED or t is ADDED or t is REPLACED or t is SYNC:
                    key = key_func(obj)
                    old, exists = indexer.get_by_key(key)
                    if exists:
                        indexer.add_with_key(key, obj)  # update: the key is the one just computed
                        rv, old_rv = _rv(obj), _rv(old)
                        if old_rv != rv:
                            # The common case, inlined (_trace_store and
                            # _distribute): a real update to every listener.
                            traced = tracer.enabled
                            if traced:
                                tracer.emit_derived(STORE_UPDATE, key, resource_version=rv, delta=_DELTA_NAME[t],
                                                    is_in_initial_list=is_in_initial_list, old_resource_version=old_rv,
                                                    object=obj, old=old)
                            n = (_UPDATE, old, obj)
                            got = self.processor._all
                            for listener in got:
                                listener.add(n)
                            if traced:
                                emit = tracer.emit
                                for listener in got:
                                    emit(HANDLER_UPDATE, key, listener=listener.name, is_sync=False,
                                         buffered=listener._buf.qsize())
                        else:
                            if tracer.enabled:
                                self._trace_store(STORE_UPDATE, key, t, obj, old, is_in_initial_list, rv, old_rv)
                            self._distribute((_UPDATE, old, obj), True, key)
                    else:
                        indexer.add_with_key(key, obj)
                        if tracer.enabled:
                            self._trace_store(STORE_ADD, key, t, obj, None, is_in_initial_list)
                        self._distribute((_ADD, obj, is_in_initial_list), False, key)
                elif t is REPLACED_ALL:
                    self._process_replaced_all(obj, is_in_initial_list)
                elif t is SYNC_ALL:
                    for item in indexer.list():
                        self._on_update(item, item)
                    return  # as client-go: a SyncAll ends the batch
                elif t is BOOKMARK:
                    self.bookmark_resource_version = obj
                    if tracer.enabled:
                        tracer.emit(INFORMER_BOOKMARK, None, resource_version=obj)

    def _on_update(self, old: Any, new: Any, key: str | None = None) -> None:
        # An update that did not change the resourceVersion is a resync
        # (Sync, or Replaced of an unchanged object): only due listeners.
        self._distribute((_UPDATE, old, new), _rv(old) == _rv(new), key)

    def _distribute(self, notification: tuple, sync: bool, key: str | None = None) -> None:
        got = self.processor.distribute(notification, sync)
        tracer = self.tracer
        if tracer.enabled and got:
            kind = notification[0]
            if key is None:
                obj = notification[2] if kind == _UPDATE else notification[1]
                key = obj.key if type(obj) is DeletedFinalStateUnknown else meta_namespace_key_func(obj)
            event = _HANDLER_EVENTS[kind]
            emit = tracer.emit
            for listener in got:
                emit(event, key, listener=listener.name, is_sync=sync, buffered=listener._buf.qsize())

    def _trace_store(self, kind: str, key: str, delta_type, obj: Any, old: Any, is_in_initial_list: bool,
                     rv: str | None = None, old_rv: str | None = None) -> None:
        # The objects ride along (local fields, never serialised); what a
        # reader shows of them (summary, labels, an update's diff and
        # predicates) is derived when it asks (trace_kinds' ``derive``):
        # most events are counted or drained unread.
        if rv is None:
            rv = _rv(obj)
        if kind is STORE_UPDATE:
            self.tracer.emit_derived(kind, key, resource_version=rv, delta=_DELTA_NAME[delta_type],
                                     is_in_initial_list=is_in_initial_list,
                                     old_resource_version=_rv(old) if old_rv is None else old_rv,
                                     object=obj, old=old)
        elif kind is STORE_DELETE:
            self.tracer.emit_derived(kind, key, resource_version=rv, delta=_DELTA_NAME[delta_type],
                                     is_in_initial_list=is_in_initial_list,
                                     tombstone=type(obj) is DeletedFinalStateUnknown, object=obj)
        else:
            self.tracer.emit_derived(kind, key, resource_version=rv, delta=_DELTA_NAME[delta_type],
                                     is_in_initial_list=is_in_initial_list, object=obj)

    def _process_replaced_all(self, info, is_in_initial_list: bool) -> None:
        """client-go 1.36 processReplacedAllInfo: diff the whole list against
        the indexer, replace the indexer at once, then notify deletions
        first and adds/updates in list order."""
        indexer = self.indexer
        objs = list(info.objects)
        key_of = deletion_handling_meta_namespace_key_func
        new_keys = {key_of(o) for o in objs}
        deletions = []
        for key in indexer.list_keys():
            if key not in new_keys:
                old, exists = indexer.get_by_key(key)
                deletions.append(DeletedFinalStateUnknown(key, old if exists else None))
        replacements = []
        for o in objs:
            old, exists = indexer.get_by_key(key_of(o))
            replacements.append((old if exists else None, o))
        indexer.replace(objs, info.resource_version)
        tracer = self.tracer
        if tracer.enabled:
            for tomb in deletions:
                self._trace_store(STORE_DELETE, tomb.key, DELETED, tomb, None, is_in_initial_list)
            for old, new in replacements:
                if old is None:
                    self._trace_store(STORE_ADD, key_of(new), REPLACED, new, None, is_in_initial_list)
                else:
                    self._trace_store(STORE_UPDATE, key_of(new), REPLACED, new, old, is_in_initial_list)
        for tomb in deletions:
            self._distribute((_DELETE, tomb), False)
        for old, new in replacements:
            if old is None:
                self._distribute((_ADD, new, is_in_initial_list), False)
            else:
                self._on_update(old, new)
