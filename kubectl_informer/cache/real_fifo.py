"""RealFIFO: the in-order queue of client-go 1.33+ informers (``the_real_fifo.go``).

Unlike DeltaFIFO nothing accumulates per key: every add, update and delete
is its own entry, popped in arrival order, one ``Delta`` per ``pop``, so a
handler sees every intermediate state and every deletion, even of an object
added and deleted before it was popped.

Two modes, as client-go:

- with known objects (1.33-1.35, ``InOrderInformers``): ``replace`` queues a
  tombstone for each queued key whose last entry is not a deletion and for
  each known key, both missing from the list, then one ``Replaced`` per
  listed object; ``resync`` queues ``Sync`` for known keys with nothing
  queued.
- atomic (1.36, ``AtomicFIFO``, no known objects): ``replace`` queues one
  ``ReplacedAll`` entry holding the whole list and ``resync`` one ``SyncAll``;
  the consumer diffs against its indexer. ``bookmark`` queues ``Bookmark``
  deltas when enabled. ``has_synced`` stays false until the first
  ``ReplacedAll`` has been processed, even for an empty list.

client-go 1.36's metrics (``fifo_metrics.go``) under a reserved ``identifier``:
the queued entries (set at every add, replace, resync and pop, a bookmark
leaving the gauge as it was, as upstream; or, for a gauge that can be read,
read when scraped) and the processing latency of each pop (real seconds, as
``time.Since``).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from time import perf_counter
from typing import Any

from kubectl_informer.cache.delta_fifo import (
    ADDED,
    BOOKMARK,
    DELETED,
    REPLACED,
    REPLACED_ALL,
    SYNC,
    SYNC_ALL,
    TYPE_NAMES,
    UPDATED,
    Delta,
    DeltaType,
    ReplacedAllInfo,
    SyncAllInfo,
    new_delta,
)
from kubectl_informer.cache.fifo_base import FIFOBase
from kubectl_informer.cache.informer_metrics import (
    FOLD_AT,
    NOOP_METRIC,
    InformerMetricsProvider,
    InformerNameAndResource,
    latency_sink,
    new_fifo_metrics,
)
from kubectl_informer.cache.keys import (
    DeletedFinalStateUnknown,
    labels_of,
    meta_namespace_key_func,
)
from kubectl_informer.clock import Clock
from kubectl_informer.core.trace import Tracer
from kubectl_informer.core.trace_kinds import FIFO_POP, FIFO_QUEUE, FIFO_SKIP

_SYNC_ALL_INFO = SyncAllInfo()


class RealFIFO(FIFOBase):
    """See the module docstring. Thread-safe; one consumer calls ``pop``."""

    _NAME = "RealFIFO"

    def __init__(
        self,
        key_func: Callable[[Any], str] = meta_namespace_key_func,
        known_objects: Any = None,
        transformer: Callable[[Any], Any] | None = None,
        atomic_events: bool = False,
        emit_delta_type_bookmark: bool = False,
        *,
        tracer: Tracer | None = None,
        clock: Clock | None = None,
        identifier: InformerNameAndResource | None = None,
        metrics_provider: InformerMetricsProvider | None = None,
    ) -> None:
        # The same combinations client-go rejects (with a panic) at construction.
        if atomic_events:
            if known_objects is not None:
                raise ValueError("RealFIFO: known_objects must not be given with atomic_events")
        else:
            if known_objects is None:
                raise ValueError("RealFIFO: known_objects is required without atomic_events")
            if emit_delta_type_bookmark:
                raise ValueError("RealFIFO: emit_delta_type_bookmark requires atomic_events")
        super().__init__(key_func, known_objects, transformer, tracer, clock)
        self._atomic = atomic_events
        self._emit_bookmark = emit_delta_type_bookmark
        # Entries in three aligned deques rather than one deque of tuples (one
        # allocation less per delta): the delta, its key (None for ReplacedAll,
        # SyncAll, Bookmark), computed once on the way in, and the clock time
        # it was queued (None unless tracing).
        self._items: deque[Delta] = deque()
        self._keys: deque[str | None] = deque()
        self._times: deque[float | None] = deque()
        # key -> number of entries queued for it (resync's "nothing queued"
        # test in O(1), and the trace's ``pending``).
        self._per_key: dict[str, int] = {}
        self.identifier = identifier or InformerNameAndResource()
        self._queued_metric, self._latency_metric = new_fifo_metrics(self.identifier, metrics_provider)
        # The processing latency, recorded inline in pop (``latency_sink``): no call per
        # pop but the two clock reads, unless the histogram is not ours (observed at once).
        self._latency_samples: list[float] | None = None
        sink = latency_sink(self._latency_metric)
        if sink is not None:
            self._latency_on, self._latency_samples, self._latency_fold = sink
        # A gauge that can be read when scraped reads the queue's length then, and the hot
        # path sets nothing (upstream sets it at every add and pop; the two differ only
        # while the newest change was a queued Bookmark, which upstream does not set).
        bind = getattr(self._queued_metric, "bind", None)
        if bind is not None:
            items = self._items
            bind(items.__len__)
            self._queued_metric = NOOP_METRIC

    # ----- keys -----

    def key_of(self, obj: Any) -> str:
        """The key of an object, a tombstone, a Delta or a Deltas list."""
        if isinstance(obj, list):
            if not obj:
                raise KeyError("0 length Deltas object; can't get key")
            obj = obj[-1]
        if isinstance(obj, Delta):
            obj = obj.object
        if isinstance(obj, DeletedFinalStateUnknown):
            return obj.key
        return self._key_func(obj)

    # ----- producers -----

    def add(self, obj: Any) -> None:
        with self._lock:
            self._populated = True
            self._add_locked(ADDED, False, obj)

    def update(self, obj: Any) -> None:
        with self._lock:
            self._populated = True
            self._add_locked(UPDATED, False, obj)

    def delete(self, obj: Any) -> None:
        # No "unknown delete" filter here: every notification is delivered.
        with self._lock:
            self._populated = True
            self._add_locked(DELETED, False, obj)

    def _add_locked(self, action: DeltaType, skip_transform: bool, obj: Any) -> None:
        if isinstance(obj, DeletedFinalStateUnknown):
            key = obj.key
        else:
            key = self._key_func(obj)
            # Tombstones and Sync objects went through the transformer already.
            if self._transformer is not None and not skip_transform:
                obj = self._transformer(obj)
        per_key = self._per_key
        n = per_key.get(key, 0) + 1
        per_key[key] = n
        self._items.append(new_delta(action, obj))
        self._keys.append(key)
        tracer = self._tracer
        if tracer.enabled:
            self._times.append(self._clock.now())
            tracer.emit(
                FIFO_QUEUE, key, type=TYPE_NAMES[action], depth=len(self._items), pending=n, labels=labels_of(obj)
            )
        else:
            self._times.append(None)
        if self._queued_metric is not NOOP_METRIC:
            self._queued_metric.set(len(self._items))
        if self._waiting:
            self._cond.notify()

    def _add_keyless_locked(self, delta: Delta, **fields: Any) -> None:
        self._items.append(delta)
        if delta.type is not BOOKMARK and self._queued_metric is not NOOP_METRIC:
            self._queued_metric.set(len(self._items))
        self._keys.append(None)
        tracer = self._tracer
        if tracer.enabled:
            self._times.append(self._clock.now())
            tracer.emit(FIFO_QUEUE, None, type=TYPE_NAMES[delta.type], depth=len(self._items), pending=1, **fields)
        else:
            self._times.append(None)
        if self._waiting:
            self._cond.notify()

    def replace(self, items: list[Any], resource_version: str = "") -> None:
        with self._lock:
            if self._atomic:
                objs = list(items)
                if self._transformer is not None:
                    objs = [self._transformer(o) for o in objs]
                self._add_keyless_locked(
                    Delta(REPLACED_ALL, ReplacedAllInfo(resource_version, objs)),
                    objects=len(objs),
                    resource_version=resource_version,
                )
            else:
                self._reconcile_replacement_locked(items)
            if not self._populated:
                self._populated = True
                # Everything queued now, including entries queued before this
                # first list, counts towards the initial population.
                self._initial_population_count = len(self._items)
        self._notify_if_synced()

    def _reconcile_replacement_locked(self, items: list[Any]) -> None:
        key_of = self.key_of
        new_keys = {key_of(obj) for obj in items}

        # The last queued entry of each key, in first-queued order.
        last_for_key: dict[str, Delta] = {}
        for delta, key in zip(self._items, self._keys, strict=True):
            if key is not None:
                last_for_key[key] = delta

        # A queued key missing from the list was deleted while the watch was
        # down, unless its last entry already says so.
        for key, last in list(last_for_key.items()):
            if key in new_keys or last.type is DELETED:
                continue
            self._add_locked(DELETED, True, DeletedFinalStateUnknown(key, last.object))

        # A known key missing from the list and from the queue: same story.
        known = self._known
        for key in known.list_keys():
            if key in new_keys or key in last_for_key:
                continue
            try:
                obj, exists = known.get_by_key(key)
            except Exception:  # noqa: BLE001  client-go treats any lookup error as absent
                obj, exists = None, False
            self._add_locked(DELETED, False, DeletedFinalStateUnknown(key, obj if exists else None))

        for obj in items:
            self._add_locked(REPLACED, False, obj)

    def resync(self) -> None:
        with self._lock:
            if self._atomic:
                self._add_keyless_locked(Delta(SYNC_ALL, _SYNC_ALL_INFO))
                return
            known = self._known
            if known is None:
                return
            per_key = self._per_key
            tracer = self._tracer
            for key in known.list_keys():
                # A queued entry is newer than the indexer's copy: resyncing
                # now would deliver the stale one after it.
                if key in per_key:
                    if tracer.enabled:
                        tracer.emit(FIFO_SKIP, key, type="Sync", reason="resync_pending")
                    continue
                try:
                    obj, exists = known.get_by_key(key)
                except Exception:  # noqa: BLE001  client-go skips a key whose lookup fails
                    continue
                if not exists:
                    continue
                self._add_locked(SYNC, True, obj)

    def bookmark(self, resource_version: str) -> None:
        """Pass a watch bookmark's resource version to the consumer (atomic
        mode with bookmarks enabled; otherwise a no-op, as client-go's FIFO
        without the option)."""
        if not self._emit_bookmark:
            return
        with self._lock:
            self._add_keyless_locked(Delta(BOOKMARK, resource_version), resource_version=resource_version)

    # ----- consumer -----

    def pop(self, process: Callable[[list[Delta], bool], Any], timeout: float | None = None) -> list[Delta]:
        """Wait for the oldest entry, remove it, call ``process([delta],
        is_in_initial_list)`` under the lock and return ``[delta]``.

        ``timeout`` is real seconds (``TimeoutError``). An exception from
        ``process`` propagates; the entry is not requeued.
        """
        with self._lock:
            items = self._items
            if not items or self._held:
                self._wait_for_entry_locked(items, timeout)
            is_in_initial_list = not (self._populated and self._initial_population_count == 0)
            delta = items.popleft()
            key = self._keys.popleft()
            queued_at = self._times.popleft()
            if key is not None:
                per_key = self._per_key
                n = per_key[key] - 1
                if n:
                    per_key[key] = n
                else:
                    del per_key[key]
            tracer = self._tracer
            if tracer.enabled:
                waited = None if queued_at is None else self._clock.now() - queued_at
                tracer.emit(
                    FIFO_POP,
                    key,
                    types=[TYPE_NAMES[delta.type]],
                    is_in_initial_list=is_in_initial_list,
                    waited=waited,
                    depth=len(items),
                )
            deltas = [delta]
            if self._queued_metric is not NOOP_METRIC:
                self._queued_metric.set(len(items))
            samples = self._latency_samples
            if samples is not None:
                started = perf_counter()
            try:
                process(deltas, is_in_initial_list)
            finally:
                if samples is not None and self._latency_on.value:
                    samples.append(perf_counter() - started)
                    if len(samples) >= FOLD_AT:
                        self._latency_fold()
                # Counted down only after processing, so has_synced() cannot
                # turn true while the last initial entry is still being applied.
                if self._initial_population_count > 0:
                    self._initial_population_count -= 1
            return deltas

    # ----- read-only views -----

    def pending(self) -> list[Delta]:
        """The queued entries, oldest first (for display)."""
        with self._lock:
            return list(self._items)

    def __len__(self) -> int:
        return len(self._items)
