"""DeltaFIFO: client-go's per-key accumulating queue (``delta_fifo.go``).

Shared informers used it up to client-go 1.32. Each key holds one queue
slot and a list of ``Delta``s that accumulate while the key waits, so a
consumer sees everything that happened to an object since it last looked,
in one ``pop``. The rules, as in current client-go:

- a delta for a key already queued is appended to that key's deltas (a
  *coalesce*); the key keeps its place in the queue;
- two trailing deletions collapse into one, keeping the one that is not a
  ``DeletedFinalStateUnknown`` (the real final state beats a guess);
- ``delete`` of an object that is neither queued nor known is dropped: it was
  most likely already reported by a relist's deletion detection;
- ``resync`` queues ``Sync`` for known keys only when nothing is queued for
  them, since a queued delta is newer than what the indexer holds;
- ``replace`` queues ``Replaced`` (or ``Sync`` for old consumers) for every
  listed object, then a tombstone ``Deleted(DeletedFinalStateUnknown)`` for
  every queued or known key missing from the list: the watch missed those
  deletions;
- ``has_synced`` turns true once the first ``replace``'s keys have all been
  popped (or once anything was added before any replace).

This module also defines the delta vocabulary RealFIFO uses.
"""

from __future__ import annotations

import builtins
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from operator import itemgetter
from typing import TYPE_CHECKING, Any

from kubectl_informer.cache.fifo_base import FIFOBase
from kubectl_informer.cache.fifo_base import (
    FIFOClosedError as FIFOClosedError,  # re-exported: client-go's file holds it
)
from kubectl_informer.cache.keys import (
    DeletedFinalStateUnknown,
    labels_of,
    meta_namespace_key_func,
)
from kubectl_informer.clock import Clock
from kubectl_informer.core.trace import Tracer
from kubectl_informer.core.trace_kinds import (
    FIFO_COALESCE,
    FIFO_DEDUP,
    FIFO_POP,
    FIFO_QUEUE,
    FIFO_SKIP,
)


class DeltaType(StrEnum):
    ADDED = "Added"
    UPDATED = "Updated"
    DELETED = "Deleted"
    # A relist's view of an object (client-go emits Sync instead unless the
    # consumer opted in with EmitDeltaTypeReplaced).
    REPLACED = "Replaced"
    # A periodic resync's synthetic re-delivery of a known object.
    SYNC = "Sync"
    # Atomic RealFIFO (client-go 1.36): one entry for a whole relist/resync.
    REPLACED_ALL = "ReplacedAll"
    SYNC_ALL = "SyncAll"
    # A watch bookmark passed on so the consumer learns the resource version.
    BOOKMARK = "Bookmark"


# Plain-str names for trace fields (Enum.value is a slow descriptor).
TYPE_NAMES: dict[DeltaType, str] = {t: t.value for t in DeltaType}
# A popped key's delta types as names, in C (no comprehension frame per pop).
_TYPE_NAME = TYPE_NAMES.__getitem__
_TYPE_OF = itemgetter(0)

ADDED = DeltaType.ADDED
UPDATED = DeltaType.UPDATED
DELETED = DeltaType.DELETED
REPLACED = DeltaType.REPLACED
SYNC = DeltaType.SYNC
REPLACED_ALL = DeltaType.REPLACED_ALL
SYNC_ALL = DeltaType.SYNC_ALL
BOOKMARK = DeltaType.BOOKMARK


_tuple_new = tuple.__new__
# A queue drained from at least twice this many keys rebuilds its maps as it
# halves (DeltaFIFO._compact_locked).
COMPACT_MIN_KEYS = 4096


class Delta(tuple[Any, ...]):
    """One change: its type and the object's state after it (for a
    deletion, the last state known before it).

    A read-only pair ``(type, object)``; the FIFOs build one per delta with
    ``new_delta`` (one C call: a frozen dataclass's ``__init__`` cost a
    Python frame and two ``object.__setattr__`` per delta)."""

    __slots__ = ()

    def __new__(cls, type: DeltaType, object: Any) -> Delta:  # client-go's field names
        return _tuple_new(cls, (type, object))

    if TYPE_CHECKING:  # what the C-level getters below return

        @property
        def type(self) -> DeltaType: ...
        @property
        def object(self) -> Any: ...

    else:
        type = property(itemgetter(0))
        object = property(itemgetter(1))

    def __repr__(self) -> str:
        return f"Delta(type={self.type!r}, object={self.object!r})"


def new_delta(action: DeltaType, obj: Any) -> Delta:
    return _tuple_new(Delta, (action, obj))


@dataclass(frozen=True)
class ReplacedAllInfo:
    """The object of a ``ReplacedAll`` delta: a whole list, transformed."""

    resource_version: str
    objects: list[Any] = field(default_factory=list)


@dataclass(frozen=True)
class SyncAllInfo:
    """The object of a ``SyncAll`` delta: re-deliver everything known."""


def _tombstone_label(obj: Any) -> str:
    return "tombstone" if isinstance(obj, DeletedFinalStateUnknown) else "object"


class DeltaFIFO(FIFOBase):
    """See the module docstring. Thread-safe; one consumer calls ``pop``."""

    _NAME = "DeltaFIFO"

    def __init__(
        self,
        key_func: Callable[[Any], str] = meta_namespace_key_func,
        known_objects: Any = None,
        emit_delta_type_replaced: bool = False,
        transformer: Callable[[Any], Any] | None = None,
        *,
        tracer: Tracer | None = None,
        clock: Clock | None = None,
    ) -> None:
        super().__init__(key_func, known_objects, transformer, tracer, clock)
        self._emit_replaced = emit_delta_type_replaced
        # key -> deltas; a key is in _items iff it is in _queue.
        self._items: dict[str, list[Delta]] = {}
        self._queue: deque[str] = deque()
        # key -> clock time it was queued; filled only while tracing.
        self._queued_at: dict[str, float] = {}
        # Queue length at which pop rebuilds the maps above (-1: never).
        self._compact_at = -1

    # ----- keys -----

    def key_of(self, obj: Any) -> str:
        """The key of an object, of a tombstone, or of a Deltas list (its
        newest delta's object)."""
        if isinstance(obj, list):
            if not obj:
                raise KeyError("0 length Deltas object; can't get key")
            obj = obj[-1].object
        if isinstance(obj, DeletedFinalStateUnknown):
            return obj.key
        return self._key_func(obj)

    # ----- producers -----

    def add(self, obj: Any) -> None:
        with self._lock:
            self._populated = True
            self._queue_action_locked(ADDED, ADDED, obj)

    def update(self, obj: Any) -> None:
        with self._lock:
            self._populated = True
            self._queue_action_locked(UPDATED, UPDATED, obj)

    def delete(self, obj: Any) -> None:
        key = self.key_of(obj)
        with self._lock:
            self._populated = True
            if key not in self._items:
                known = self._known
                if known is None:
                    exists = False
                else:
                    try:
                        exists = known.get_by_key(key)[1]
                    except Exception:  # noqa: BLE001  client-go queues the delete on any lookup error
                        # client-go queues the delete when the lookup fails.
                        exists = True
                if not exists:
                    # Presumably already reported by a relist: do not report
                    # the same deletion twice.
                    tracer = self._tracer
                    if tracer.enabled:
                        tracer.emit(FIFO_SKIP, key, type="Deleted", reason="unknown_delete")
                    return
            self._queue_action_locked(DELETED, DELETED, obj)

    def _queue_action_locked(self, action: DeltaType, internal: DeltaType, obj: Any, key: str | None = None) -> None:
        # ``action`` is what is queued; ``internal`` says why (Replace queues
        # Sync for old consumers but its objects must still be transformed).
        # ``key``: the object's, when the caller computed it already.
        if isinstance(obj, DeletedFinalStateUnknown):
            key = obj.key
        else:
            if key is None:
                key = self._key_func(obj)
            # Every object passes here once: transform it now. Tombstones and
            # resync's Sync carry objects that were transformed already.
            if self._transformer is not None and internal is not SYNC:
                obj = self._transformer(obj)
        delta = _tuple_new(Delta, (action, obj))
        deltas = self._items.get(key)
        tracer = self._tracer
        if deltas is None:
            self._items[key] = [delta]
            self._queue.append(key)
            if self._waiting:
                self._cond.notify()
            if tracer.enabled:
                self._queued_at[key] = self._clock.now()
                tracer.emit(
                    FIFO_QUEUE, key, type=TYPE_NAMES[action], depth=len(self._queue), pending=1, labels=labels_of(obj)
                )
            return
        deltas.append(delta)
        if action is DELETED and deltas[-2].type is DELETED:
            # dedupDeltas: two deletions in a row are one deletion; keep the
            # one with the most information.
            older = deltas[-2]
            kept = delta if isinstance(older.object, DeletedFinalStateUnknown) else older
            dropped = older if kept is delta else delta
            deltas[-2:] = [kept]
            if tracer.enabled:
                tracer.emit(
                    FIFO_DEDUP,
                    key,
                    type=TYPE_NAMES[action],
                    dropped=_tombstone_label(dropped.object),
                    kept=_tombstone_label(kept.object),
                    pending=len(deltas),
                    depth=len(self._queue),
                )
            return
        if tracer.enabled:
            tracer.emit(
                FIFO_COALESCE,
                key,
                type=TYPE_NAMES[action],
                pending=len(deltas),
                depth=len(self._queue),
                labels=labels_of(obj),
            )

    def replace(self, items: list[Any], resource_version: str = "") -> None:
        with self._lock:
            action = REPLACED if self._emit_replaced else SYNC
            known = self._known
            known_keys = known.list_keys() if known is not None else []
            if not self._items and not known_keys:
                # Nothing queued or known (the first list): no deletion to
                # detect, so no set of the listed keys (100k strings at 100k).
                for obj in items:
                    self._queue_action_locked(action, REPLACED, obj)
                keys_listed = len(self._items)
                queued_deletions = 0
            else:
                keys_listed, queued_deletions = self._replace_and_detect_deletions(items, action, known, known_keys)
            if not self._populated:
                self._populated = True
                self._initial_population_count = keys_listed + queued_deletions
            self._plan_compaction_locked()
        self._notify_if_synced()

    def _plan_compaction_locked(self) -> None:
        half = len(self._queue) // 2
        self._compact_at = half if half >= COMPACT_MIN_KEYS else -1

    def _compact_locked(self) -> None:
        # A dict never shrinks as keys leave it: after a 100k-object list the
        # drained map would keep its 3.7 MiB table while the indexer builds
        # its own. Rebuilt at each halving (a copy of what is left).
        self._items = dict(self._items)
        if self._queued_at:
            self._queued_at = dict(self._queued_at)
        self._plan_compaction_locked()

    def _replace_and_detect_deletions(
        self, items: list[Any], action: DeltaType, known: Any, known_keys: list[str]
    ) -> tuple[int, int]:
        keys: set[str] = set()
        key_of = self.key_of
        for obj in items:
            key = key_of(obj)
            keys.add(key)
            self._queue_action_locked(action, REPLACED, obj, key)

        # Deletion detection against the queue: a queued key missing from
        # the list was deleted while the watch was down.
        queued_deletions = 0
        for key, deltas in list(self._items.items()):
            if key in keys:
                continue
            last = deltas[-1].object if deltas else None
            if isinstance(last, DeletedFinalStateUnknown):
                last = last.obj
            queued_deletions += 1
            self._queue_action_locked(DELETED, DELETED, DeletedFinalStateUnknown(key, last))

        # ... and against the known objects (the indexer).
        for key in known_keys:
            if key in keys or self._items.get(key):
                continue
            try:
                obj, exists = known.get_by_key(key)
            except Exception:  # noqa: BLE001  client-go treats any lookup error as absent
                obj, exists = None, False
            if not exists:
                obj = None
            queued_deletions += 1
            self._queue_action_locked(DELETED, DELETED, DeletedFinalStateUnknown(key, obj))
        return len(keys), queued_deletions

    def resync(self) -> None:
        with self._lock:
            known = self._known
            if known is None:
                return
            tracer = self._tracer
            for key in known.list_keys():
                try:
                    obj, exists = known.get_by_key(key)
                except Exception:  # noqa: BLE001  client-go skips a key whose lookup fails
                    continue
                if not exists:
                    continue
                # A queued delta is newer than the indexer's copy: resyncing
                # now would deliver the stale one after it.
                okey = self.key_of(obj)
                if self._items.get(okey):
                    if tracer.enabled:
                        tracer.emit(FIFO_SKIP, okey, type="Sync", reason="resync_pending")
                    continue
                self._queue_action_locked(SYNC, SYNC, obj)

    # ----- consumer -----

    def pop(self, process: Callable[[list[Delta], bool], Any], timeout: float | None = None) -> list[Delta]:
        """Wait for the oldest key, remove it, call ``process(deltas,
        is_in_initial_list)`` under the lock and return the deltas.

        ``timeout`` is real seconds (``TimeoutError`` when it elapses). An
        exception from ``process`` propagates; the deltas are not requeued.
        """
        with self._lock:
            queue = self._queue
            if not queue or self._held:
                self._wait_for_entry_locked(queue, timeout)
            is_in_initial_list = not (self._populated and self._initial_population_count == 0)
            key = queue.popleft()
            if self._initial_population_count > 0:
                self._initial_population_count -= 1
            deltas = self._items.pop(key)
            if len(queue) == self._compact_at:
                self._compact_locked()
            if self._queued_at:
                queued_at = self._queued_at.pop(key, None)
                tracer = self._tracer
                if tracer.enabled:
                    tracer.emit(
                        FIFO_POP,
                        key,
                        types=list(map(_TYPE_NAME, map(_TYPE_OF, deltas))),
                        is_in_initial_list=is_in_initial_list,
                        waited=None if queued_at is None else self._clock.now() - queued_at,
                        depth=len(queue),
                    )
            elif self._tracer.enabled:
                # Queued before tracing began: how long it waited is unknown.
                self._tracer.emit(
                    FIFO_POP,
                    key,
                    types=list(map(_TYPE_NAME, map(_TYPE_OF, deltas))),
                    is_in_initial_list=is_in_initial_list,
                    waited=None,
                    depth=len(queue),
                )
            process(deltas, is_in_initial_list)
            return deltas

    # ----- read-only views -----

    def list(self) -> list[Any]:
        """The newest object of each queued key, in queue order."""
        with self._lock:
            return [self._items[k][-1].object for k in self._queue]

    def list_keys(self) -> builtins.list[str]:
        with self._lock:
            return list(self._queue)

    def get(self, obj: Any) -> tuple[builtins.list[Delta], bool]:
        return self.get_by_key(self.key_of(obj))

    def get_by_key(self, key: str) -> tuple[builtins.list[Delta], bool]:
        """A copy of the key's queued deltas (the FIFO keeps appending to its own)."""
        with self._lock:
            deltas = self._items.get(key)
            if deltas is None:
                return [], False
            return list(deltas), True

    def __len__(self) -> int:
        return len(self._queue)
