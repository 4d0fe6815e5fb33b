"""SharedIndexInformer: one reflector and cache, many handlers.

A port of client-go's ``shared_informer.go`` and the parts of
``controller.go`` it runs (the pop loop and ``processDeltas``); the
handler side (``sharedProcessor``, ``processorListener``) is in
``shared_processor.py``. The
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

import threading
from collections.abc import Callable
from typing import Any

from kubectl_informer.cache.delta_fifo import (
    ADDED,
    BOOKMARK,
    DELETED,
    REPLACED,
    REPLACED_ALL,
    SYNC,
    SYNC_ALL,
    UPDATED,
    Delta,
    DeltaFIFO,
    DeltaType,
    FIFOClosedError,
    ReplacedAllInfo,
)
from kubectl_informer.cache.informer_metrics import (
    InformerMetricsProvider,
    InformerNameAndResource,
)
from kubectl_informer.cache.keys import (
    DeletedFinalStateUnknown,
    deletion_handling_meta_namespace_key_func,
    meta_namespace_key_func,
)
from kubectl_informer.cache.listwatch import ListerWatcher
from kubectl_informer.cache.real_fifo import RealFIFO
from kubectl_informer.cache.reflector import Reflector
from kubectl_informer.cache.shared_processor import (
    _ADD,
    _DELETE,
    _HANDLER_EVENTS,
    _UPDATE,
    MINIMUM_RESYNC_PERIOD,
    Notification,
    ProcessorListener,
    ResourceEventHandler,
    SharedProcessor,
    determine_resync_period,
)

# The names client-go's shared_informer.go holds are importable from here too
# (``X as X``: an explicit re-export).
from kubectl_informer.cache.shared_processor import LANE_SAMPLE_EVERY as LANE_SAMPLE_EVERY
from kubectl_informer.cache.shared_processor import SLOW_CALL as SLOW_CALL
from kubectl_informer.cache.shared_processor import SLOW_PENDING as SLOW_PENDING
from kubectl_informer.cache.shared_processor import ResourceEventHandlerFuncs as ResourceEventHandlerFuncs
from kubectl_informer.cache.shared_processor import is_slow as is_slow
from kubectl_informer.cache.store import Indexer, IndexFunc, rv_from_object
from kubectl_informer.clock import Clock, RealClock
from kubectl_informer.core.profiles import Profile
from kubectl_informer.core.trace import NULL_TRACER, Tracer
from kubectl_informer.core.trace_kinds import (
    HANDLER_ADD,
    HANDLER_REGISTER,
    HANDLER_UPDATE,
    INFORMER_BOOKMARK,
    INFORMER_ERROR,
    INFORMER_START,
    INFORMER_SYNCED,
    STORE_ADD,
    STORE_DELETE,
    STORE_UPDATE,
)

# DeltaType -> its plain str (Enum.value is a slow descriptor on a hot path).
_DELTA_NAME = {t: str(t.value) for t in DeltaType}


def _rv(obj: Any) -> str:
    try:
        rv: str = obj["metadata"]["resourceVersion"]
        return rv
    except (KeyError, TypeError):
        if isinstance(obj, DeletedFinalStateUnknown):
            return _rv(obj.obj)
        return ""


def _is_sync(old: Any, new: Any) -> bool:
    """sharedIndexInformer.OnUpdate: an update is a resync only when both
    objects have metadata (meta.Accessor; here a dict with a ``metadata``
    dict) and the same resourceVersion. A transform that yields objects
    without metadata makes every update a real one, not a sync ("" == "")."""
    return rv_from_object(old) is not None and rv_from_object(new) is not None and _rv(old) == _rv(new)


class SharedIndexInformer:
    def __init__(
        self,
        lw: ListerWatcher,
        resync_period: float = 0,
        indexers: dict[str, IndexFunc] | None = None,
        *,
        clock: Clock | None = None,
        tracer: Tracer | None = None,
        profile: Profile | None = None,
        fifo: str = "delta",
        atomic_events: bool = False,
        use_watch_list: bool = False,
        page_size: int | None = None,
        name: str = "informer",
        emit_bookmarks: bool | None = None,
    ) -> None:
        # ``profile`` is the run's, used as is; the loose fifo/atomic_events/
        # use_watch_list knobs make one for the engine's own tests.
        self.profile = profile or Profile("", fifo, use_watch_list, atomic_events)
        self.lw = lw
        self.clock = clock or RealClock()
        self.tracer = tracer or NULL_TRACER
        self.name = name
        self.emit_bookmarks = self.profile.atomic if emit_bookmarks is None else emit_bookmarks
        self.page_size = page_size
        self.indexer = Indexer(deletion_handling_meta_namespace_key_func, indexers, atomic_fifo=self.profile.atomic)
        # client-go 1.36's Identifier / InformerMetricsProvider options (set_identifier).
        self.identifier = InformerNameAndResource()
        self.metrics_provider: InformerMetricsProvider | None = None
        self.default_event_handler_resync_period = float(resync_period or 0.0)
        self._resync_check_period = float(resync_period or 0.0)
        self.processor = SharedProcessor(self.clock, self.tracer)
        self.processor.check_period = self._resync_check_period
        self._started_lock = threading.Lock()
        # Held while a delta is applied, so a late handler joins between two.
        self._block_deltas = threading.RLock()
        self._started = False
        self._stopped = False
        self._transform: Callable[[Any], Any] | None = None
        self._watch_error_handler: Callable[[Any, BaseException], None] | None = None
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
        # The indexer says each key's index values as they change (index.update).
        self.indexer.tracer = self.tracer

    # ------------------------------------------------------------ settings
    @property
    def resync_check_period(self) -> float:
        return self._resync_check_period

    def set_transform(self, fn: Callable[[Any], Any] | None) -> None:
        with self._started_lock:
            if self._started:
                raise RuntimeError("informer has already started")
            self._transform = fn

    def set_identifier(
        self, identifier: InformerNameAndResource, metrics_provider: InformerMetricsProvider | None = None
    ) -> None:
        """client-go's ``SharedIndexInformerOptions.Identifier`` (and
        ``InformerMetricsProvider``): the informer's FIFO and store publish
        metrics under ``identifier`` when it is reserved."""
        with self._started_lock:
            if self._started:
                raise RuntimeError("informer has already started")
            self.identifier, self.metrics_provider = identifier, metrics_provider
            self.indexer.set_metrics(identifier, metrics_provider)

    def set_watch_error_handler(self, fn: Callable[[Any, BaseException], None]) -> None:
        with self._started_lock:
            if self._started:
                raise RuntimeError("informer has already started")
            self._watch_error_handler = fn

    def add_indexers(self, indexers: dict[str, IndexFunc]) -> None:
        with self._started_lock:
            if self._stopped:
                raise RuntimeError("indexer was not added because it has stopped already")
            self.indexer.add_indexers(indexers)

    def _indexer_sources(self) -> dict[str, str]:
        """Each index's name and what its IndexFunc reads (a JSONPath index
        says its path; others their function's name)."""
        from kubectl_informer.cache.store import meta_namespace_index_func

        return {
            name: "metadata.namespace (MetaNamespaceIndexFunc)"
            if fn is meta_namespace_index_func
            else str(getattr(fn, "index_source", None) or getattr(fn, "__name__", "IndexFunc"))
            for name, fn in self.indexer.get_indexers().items()
        }

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
        return self.profile.fifo_label

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
    def add_event_handler(
        self, handler: ResourceEventHandler, resync_period: float | None = None, name: str | None = None
    ) -> ProcessorListener:
        with self._started_lock:
            if self._stopped:
                raise RuntimeError(
                    f"handler {name or handler!r} was not added to shared informer because it has stopped already"
                )
            self._listener_seq += 1
            name = name or f"handler-{self._listener_seq}"
            requested = self.default_event_handler_resync_period if resync_period is None else float(resync_period)
            period, effective, reason = self._resync_period_locked(requested)
            listener = ProcessorListener(
                name, handler, period, effective, self.clock.now(), self.has_synced, self.tracer, self.clock
            )
            self.tracer.emit(
                HANDLER_REGISTER,
                None,
                listener=name,
                requested=requested,
                effective=effective,
                check_period=self._resync_check_period,
                reason=reason,
            )
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
                        tracer.emit(
                            HANDLER_ADD,
                            deletion_handling_meta_namespace_key_func(item),
                            listener=name,
                            is_sync=False,
                            synthetic=True,
                        )
            listener.note_synced()  # an empty cache: synced at once, if the informer is
            return listener

    def _resync_period_locked(self, requested: float) -> tuple[float, float, str | None]:
        """A new handler's resync period as client-go's AddEventHandlerWithOptions
        settles it: (its period, the effective one, why it differs from what was
        asked, or None). Before the start a shorter period lowers the informer's
        check period; after it, the period is raised to the check period."""
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
        effective = determine_resync_period(period, self._resync_check_period)
        if period > 0 and effective == 0:
            reason = "the informer does not resync (check period 0)"
        return period, effective, reason

    def remove_event_handler(self, registration: ProcessorListener) -> None:
        """client-go's RemoveEventHandler: the registration gets no more
        notifications. Removing one twice, one of another informer, or after
        the informer stopped does nothing and raises nothing, as client-go
        returns no error; what is not a registration at all is a TypeError
        (client-go's "invalid key type")."""
        if not isinstance(registration, ProcessorListener):
            raise TypeError(f"not an event handler registration: {type(registration).__name__}")
        # Between two deltas, as client-go holds blockDeltas, so no delta is
        # half delivered to it.
        with self._started_lock, self._block_deltas:
            self.processor.remove_listener(registration)

    def is_registered(self, registration: ProcessorListener) -> bool:
        """Whether ``registration`` still gets this informer's notifications."""
        return registration in self.processor.listeners

    def event_handler_count(self) -> int:
        return len(self.processor.listeners)

    # ------------------------------------------------------------------ run
    def _new_fifo(self) -> DeltaFIFO | RealFIFO:
        if self.profile.fifo == "delta":
            # --no-fifo-known-objects: a FIFO that knows only what it queues.
            known = self.indexer if self.profile.known_objects else None
            return DeltaFIFO(
                meta_namespace_key_func,
                known_objects=known,
                emit_delta_type_replaced=True,
                transformer=self._transform,
                tracer=self.tracer,
                clock=self.clock,
            )
        if self.profile.atomic:
            return RealFIFO(
                meta_namespace_key_func,
                transformer=self._transform,
                atomic_events=True,
                emit_delta_type_bookmark=self.emit_bookmarks,
                tracer=self.tracer,
                clock=self.clock,
                identifier=self.identifier,
                metrics_provider=self.metrics_provider,
            )
        return RealFIFO(
            meta_namespace_key_func,
            known_objects=self.indexer,
            transformer=self._transform,
            tracer=self.tracer,
            clock=self.clock,
            identifier=self.identifier,
            metrics_provider=self.metrics_provider,
        )

    def run(self, stop_event: threading.Event) -> None:
        """Run until ``stop_event`` is set (blocks; call from a thread)."""
        with self._started_lock:
            if self._started:
                return  # client-go: running more than once is not allowed
            self.fifo = fifo = self._new_fifo()
            fifo.on_synced = self._emit_synced
            if self._consumer_paused:
                fifo.hold(True)
            self.reflector = reflector = Reflector(
                self.lw,
                fifo,
                resync_period=self._resync_check_period,
                page_size=self.page_size,
                should_resync=self.processor.should_resync,
                use_watch_list=self.profile.watch_list,
                name=f"{self.name}-reflector",
                clock=self.clock,
                tracer=self.tracer,
                watch_error_handler=self._watch_error_handler,
                delay_with_reset=self.profile.delay_with_reset,
            )
            self._started = True
            self._start_time = self.clock.now()
        self.processor.check_period = self._resync_check_period
        self.tracer.emit(
            INFORMER_START,
            None,
            fifo=self.fifo_label,
            watch_list=self.profile.watch_list,
            initial_list=self.profile.initial_list_label,
            resync_check_period=self._resync_check_period,
            indexers=self._indexer_sources(),
        )
        self.processor.run()

        def close_on_stop() -> None:
            stop_event.wait()
            fifo.close()

        closer = threading.Thread(target=close_on_stop, name=f"{self.name}-closer", daemon=True)
        closer.start()
        rt = threading.Thread(target=reflector.run, args=(stop_event,), name=f"{self.name}-reflector", daemon=True)
        rt.start()
        try:
            self._process_loop(fifo, stop_event)
        finally:
            rt.join(10.0)
            with self._started_lock:
                self._stopped = True  # no new listeners
            self.processor.stop()

    def _process_loop(self, fifo: DeltaFIFO | RealFIFO, stop_event: threading.Event) -> None:
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
        self.tracer.emit(
            INFORMER_SYNCED,
            None,
            items=len(self.indexer),
            duration=self.clock.now() - self._start_time,
            resource_version=self.last_sync_resource_version(),
        )
        for listener in list(self.processor.listeners):
            listener.note_synced()  # those whose initial adds were all handled before the sync

    # --------------------------------------------------------- HandleDeltas
    def _handle_deltas(self, deltas: list[Delta], is_in_initial_list: bool) -> None:
        with self._block_deltas:
            indexer, tracer = self.indexer, self.tracer
            key_func = meta_namespace_key_func
            for d in deltas:
                t, obj = d.type, d.object
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
                        if old_rv != rv or not _is_sync(old, obj):
                            # The common case, inlined (_trace_store, _distribute): a real update to every listener.
                            traced = tracer.enabled
                            if traced:
                                tracer.emit_derived(
                                    STORE_UPDATE,
                                    key,
                                    resource_version=rv,
                                    delta=_DELTA_NAME[t],
                                    is_in_initial_list=is_in_initial_list,
                                    old_resource_version=old_rv,
                                    object=obj,
                                    old=old,
                                )
                            n = (_UPDATE, old, obj)
                            got = self.processor._all
                            for listener in got:
                                listener.add(n)
                            if traced:
                                emit = tracer.emit
                                for ln in got:
                                    emit(HANDLER_UPDATE, key, listener=ln.name, is_sync=False, buffered=ln._buf.qsize())
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
                    return self._process_sync_all()  # as client-go: a SyncAll ends the batch
                elif t is BOOKMARK:
                    self._process_bookmark(obj)

    def _process_sync_all(self) -> None:
        """A SyncAll delta (client-go 1.36): every cached object re-delivered
        as an update to itself (a resync, for the listeners due one)."""
        for item in self.indexer.list():
            self._on_update(item, item)

    def _process_bookmark(self, rv: str) -> None:
        """A Bookmark delta (RealFIFO, client-go 1.36): the store has seen
        everything up to ``rv``."""
        self.bookmark_resource_version = rv
        self.indexer.bookmark(rv)
        if self.tracer.enabled:
            self.tracer.emit(INFORMER_BOOKMARK, None, resource_version=rv)

    def _on_update(self, old: Any, new: Any, key: str | None = None) -> None:
        # An update that did not change the resourceVersion is a resync
        # (Sync, or Replaced of an unchanged object): only due listeners.
        self._distribute((_UPDATE, old, new), _is_sync(old, new), key)

    def _distribute(self, notification: Notification, sync: bool, key: str | None = None) -> None:
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

    def _trace_store(
        self,
        kind: str,
        key: str,
        delta_type: DeltaType,
        obj: Any,
        old: Any,
        is_in_initial_list: bool,
        rv: str | None = None,
        old_rv: str | None = None,
    ) -> None:
        # The objects ride along (local fields, never serialised); what a
        # reader shows of them (summary, labels, an update's diff and
        # predicates) is derived when it asks (trace_kinds' ``derive``):
        # most events are counted or drained unread.
        if rv is None:
            rv = _rv(obj)
        if kind is STORE_UPDATE:
            self.tracer.emit_derived(
                kind,
                key,
                resource_version=rv,
                delta=_DELTA_NAME[delta_type],
                is_in_initial_list=is_in_initial_list,
                old_resource_version=_rv(old) if old_rv is None else old_rv,
                object=obj,
                old=old,
            )
        elif kind is STORE_DELETE:
            self.tracer.emit_derived(
                kind,
                key,
                resource_version=rv,
                delta=_DELTA_NAME[delta_type],
                is_in_initial_list=is_in_initial_list,
                tombstone=type(obj) is DeletedFinalStateUnknown,
                object=obj,
            )
        else:
            self.tracer.emit_derived(
                kind,
                key,
                resource_version=rv,
                delta=_DELTA_NAME[delta_type],
                is_in_initial_list=is_in_initial_list,
                object=obj,
            )

    def _process_replaced_all(self, info: ReplacedAllInfo, is_in_initial_list: bool) -> None:
        """client-go 1.36 processReplacedAllInfo: diff the whole list against
        the indexer, replace the indexer at once, then notify deletions
        first and adds/updates in list order."""
        indexer = self.indexer
        objs = list(info.objects)
        key_of = deletion_handling_meta_namespace_key_func
        new_keys = {key_of(o) for o in objs}
        deletions: list[DeletedFinalStateUnknown] = []
        for key in indexer.list_keys():
            if key not in new_keys:
                old, exists = indexer.get_by_key(key)
                deletions.append(DeletedFinalStateUnknown(key, old if exists else None))
        replacements: list[tuple[Any, Any]] = []
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
