"""The thread-safe, indexed object cache: client-go's ``Indexer``.

A port of ``tools/cache`` ``store.go`` (the key-func-aware ``cache``),
``thread_safe_store.go`` (``threadSafeMap`` and ``storeIndex``) and
``index.go`` (``MetaNamespaceIndexFunc``), in one class because Python has no
need for the interface layering.

Semantics kept from client-go:

- ``add`` and ``update`` are the same operation: store under the object's
  key and move the key between index values as the object's values change.
- ``delete`` of an absent key is a no-op.
- ``replace`` swaps the whole item map and rebuilds every index from scratch.
- an index set that becomes empty is dropped, so high-cardinality indices of
  short-lived objects do not leak (kubernetes/kubernetes#84959).
- an unknown index name raises ``KeyError`` from ``index``, ``index_keys`` and
  ``by_index``; ``list_index_func_values`` returns ``[]`` instead.
- ``add_indexers`` refuses a name already registered and indexes the items
  already stored (client-go 1.30+).

Returned objects are the stored ones, not copies: callers treat them as
read-only, as client-go requires, or the indices go stale.

client-go 1.36 (``threadSafeMap.rv``): the store remembers the resource version
of the last add, update, delete with an object, replace and ``bookmark``;
``last_store_sync_resource_version()`` reads it, ``""`` when ``AtomicFIFO`` is
off (``atomic_fifo=False``: without atomic Replace the RV could run ahead of
the items). An object counts only if meta.Accessor accepts it: here a dict
whose ``metadata`` is a dict; anything else (a transform's string, a
tombstone) leaves the RV as it was. With a reserved identity the RV also goes
to the ``informer_store_resource_version`` gauge (``informer_metrics``).
"""

from __future__ import annotations

import builtins
import threading
from collections.abc import Callable, Iterable
from typing import Any

from kubectl_informer.cache.informer_metrics import (
    NOOP_METRIC,
    GaugeMetric,
    InformerMetricsProvider,
    InformerNameAndResource,
    new_store_metrics,
    parse_rv_for_metrics_with_truncation,
)
from kubectl_informer.cache.keys import meta_namespace_key_func
from kubectl_informer.core.trace import NULL_TRACER
from kubectl_informer.core.trace_kinds import INDEX_UPDATE

IndexFunc = Callable[[Any], list[str]]

NAMESPACE_INDEX = "namespace"


def meta_namespace_index_func(obj: Any) -> list[str]:
    """Index by ``metadata.namespace`` (``""`` for cluster-scoped objects)."""
    meta = obj.get("metadata") if isinstance(obj, dict) else None
    if meta is None:
        raise KeyError(f"object has no meta: {obj!r:.80}")
    return [meta.get("namespace") or ""]


def rv_from_object(obj: Any) -> str | None:
    """client-go's ``rvFromObject``: the object's resourceVersion, or None
    when meta.Accessor would refuse it (not a dict with a ``metadata`` dict)."""
    if type(obj) is not dict:
        return None
    meta = obj.get("metadata")
    if type(meta) is not dict:
        return None
    return meta.get("resourceVersion") or ""


class Indexer:
    """A Store (``add``/``update``/``delete``/``get``/``list``/``replace``)
    plus named secondary indices, guarded by one lock."""

    # The informer sets its tracer here: ``index.update`` says a key's new
    # values on an index when they change (the Cache pane's ByIndex view).
    tracer = NULL_TRACER

    def __init__(
        self,
        key_func: Callable[[Any], str] = meta_namespace_key_func,
        indexers: dict[str, IndexFunc] | None = None,
        *,
        atomic_fifo: bool = True,
        identifier: InformerNameAndResource | None = None,
        metrics_provider: InformerMetricsProvider | None = None,
    ) -> None:
        self._key_func = key_func
        # client-go 1.36's default: the AtomicFIFO gate is on.
        self.atomic_fifo = atomic_fifo
        self._rv = ""
        self._rv_metric: GaugeMetric = NOOP_METRIC
        if identifier is not None:
            self.set_metrics(identifier, metrics_provider)
        self._lock = threading.RLock()
        self._items: dict[str, Any] = {}
        self._indexers: dict[str, IndexFunc] = dict(indexers or {})
        # index name -> indexed value -> keys (a dict used as an ordered set,
        # so by_index lists objects in the order they were indexed).
        self._indices: dict[str, dict[str, dict[str, None]]] = {}

    # ----- Store -----

    def add(self, obj: Any) -> None:
        self.add_with_key(self._key_func(obj), obj)

    # client-go's threadSafeMap.Add simply calls Update.
    update = add

    def add_with_key(self, key: str, obj: Any) -> None:
        """``add`` for a caller that already computed ``key`` with this
        indexer's key function (the informer does, once per delta)."""
        with self._lock:
            items = self._items
            old = items.get(key)
            items[key] = obj
            if self._indexers:
                self._update_indices(old, obj, key)
            # rv_from_object's common case first: this runs once per delta.
            try:
                rv = obj["metadata"]["resourceVersion"] or ""
            except (KeyError, TypeError):
                rv = rv_from_object(obj)  # no resourceVersion, or no metadata (the RV stays)
                if rv is None:
                    return
            self._rv = rv
            if self._rv_metric is not NOOP_METRIC:
                self._set_rv(rv)

    def delete(self, obj: Any) -> None:
        # client-go's cache.Delete -> DeleteWithObject: the object's RV counts.
        key = self._key_func(obj)
        rv = rv_from_object(obj)
        with self._lock:
            old = self._items.pop(key, None)
            if old is not None and self._indexers:
                self._update_indices(old, None, key)
            if rv is not None:
                self._set_rv(rv)

    def delete_key(self, key: str) -> None:
        """client-go's ``ThreadSafeStore.Delete(key)``: no object, so the RV stays."""
        with self._lock:
            old = self._items.pop(key, None)
            if old is not None and self._indexers:
                self._update_indices(old, None, key)

    # ----- client-go 1.36: the store's resource version -----

    def set_metrics(
        self, identifier: InformerNameAndResource, metrics_provider: InformerMetricsProvider | None = None
    ) -> None:
        """``WithStoreMetrics``: publish the store RV under ``identifier`` (if
        reserved) through ``metrics_provider``. As client-go's NewIndexer, a
        store given no provider publishes nothing: unlike the FIFO it does
        not fall back to the process's provider (so kube-controller-manager
        1.36, whose informers pass none, serves no
        ``informer_store_resource_version``). A gauge that can be read when
        scraped (``bind``) is, so the RV is parsed per scrape, not per delta;
        any other is set at each change, as upstream."""
        if metrics_provider is None:
            self._rv_metric = NOOP_METRIC
            return
        metric = new_store_metrics(identifier, metrics_provider)
        bind = getattr(metric, "bind", None)
        if bind is not None:
            bind(lambda: self._rv, parse_rv_for_metrics_with_truncation)
            metric = NOOP_METRIC
        self._rv_metric = metric

    def _set_rv(self, rv: str) -> None:
        self._rv = rv
        if self._rv_metric is not NOOP_METRIC:
            value = parse_rv_for_metrics_with_truncation(rv)
            if value is not None:
                self._rv_metric.set(float(value))

    def last_store_sync_resource_version(self) -> str:
        """The RV of the last add, update, delete, replace or bookmark;
        ``""`` while the AtomicFIFO gate is off."""
        if not self.atomic_fifo:
            return ""
        return self._rv

    def bookmark(self, rv: str) -> None:
        """The store has seen everything up to ``rv`` (a Bookmark delta)."""
        with self._lock:
            self._set_rv(rv)

    def get(self, obj: Any) -> tuple[Any, bool]:
        return self.get_by_key(self._key_func(obj))

    def get_by_key(self, key: str) -> tuple[Any, bool]:
        # A single dict lookup is atomic under the GIL and the lock guards
        # only multi-step changes, so reads of one key skip it (hot path:
        # the informer looks up every delta's object).
        item = self._items.get(key)
        return item, item is not None

    def list(self) -> list[Any]:
        with self._lock:
            return list(self._items.values())

    def list_keys(self) -> builtins.list[str]:
        with self._lock:
            return list(self._items)

    def replace(self, items: Iterable[Any], resource_version: str = "") -> None:
        key_func = self._key_func
        new_items = {key_func(obj): obj for obj in items}
        with self._lock:
            self._items = new_items
            self._indices = {}
            if self._indexers:
                for key, obj in new_items.items():
                    self._update_indices(None, obj, key)
            self._set_rv(resource_version)

    def resync(self) -> None:
        """No-op, as in client-go (the FIFO does resyncs)."""

    def __len__(self) -> int:
        return len(self._items)

    def __contains__(self, key: str) -> bool:
        return key in self._items

    # ----- Indexer -----

    def _index_func(self, index_name: str) -> IndexFunc:
        fn = self._indexers.get(index_name)
        if fn is None:
            raise KeyError(f"Index with name {index_name} does not exist")
        return fn

    def index(self, index_name: str, obj: Any) -> builtins.list[Any]:
        """Stored objects sharing any of ``obj``'s values on the index."""
        with self._lock:
            values = self._index_func(index_name)(obj)
            index = self._indices.get(index_name, {})
            if len(values) == 1:
                keys: Iterable[str] = index.get(values[0], ())
            else:
                merged: dict[str, None] = {}
                for v in values:
                    merged.update(index.get(v, ()))
                keys = merged
            items = self._items
            return [items[k] for k in keys]

    def index_keys(self, index_name: str, indexed_value: str) -> builtins.list[str]:
        """Keys of objects indexed under ``indexed_value``, sorted (Go's
        ``sets.String.List``)."""
        with self._lock:
            self._index_func(index_name)
            return sorted(self._indices.get(index_name, {}).get(indexed_value, ()))

    def list_index_func_values(self, index_name: str) -> builtins.list[str]:
        with self._lock:
            return list(self._indices.get(index_name, ()))

    def by_index(self, index_name: str, indexed_value: str) -> builtins.list[Any]:
        with self._lock:
            self._index_func(index_name)
            keys = self._indices.get(index_name, {}).get(indexed_value, ())
            items = self._items
            return [items[k] for k in keys]

    def get_indexers(self) -> dict[str, IndexFunc]:
        return dict(self._indexers)

    def add_indexers(self, indexers: dict[str, IndexFunc]) -> None:
        with self._lock:
            conflict = sorted(set(self._indexers) & set(indexers))
            if conflict:
                raise ValueError(f"indexer conflict: {conflict}")
            self._indexers.update(indexers)
            for key, obj in self._items.items():
                for name in indexers:
                    self._update_single_index(name, None, obj, key)

    # ----- index maintenance (caller holds the lock) -----

    def _update_indices(self, old: Any, new: Any, key: str) -> None:
        for name in self._indexers:
            self._update_single_index(name, old, new, key)

    def _update_single_index(self, name: str, old: Any, new: Any, key: str) -> None:
        fn = self._indexers[name]
        old_values = fn(old) if old is not None else ()
        new_values = fn(new) if new is not None else ()
        index = self._indices.get(name)
        if index is None:
            index = self._indices[name] = {}
        # The common case: one value, unchanged by the update.
        if len(new_values) == 1 and len(old_values) == 1 and new_values[0] == old_values[0]:
            return
        # Said on every add (a replace rebuilds every key as an add, so a key
        # that lost its values says so) and on every change; not for the
        # namespace index, whose value is the key's namespace, which every
        # store event already says (a run without --index traces as before).
        tracer = self.tracer
        if (
            tracer.enabled
            and fn is not meta_namespace_index_func
            and (old is None or list(old_values) != list(new_values))
        ):
            tracer.emit(INDEX_UPDATE, key, index=name, values=list(new_values))
        for v in old_values:
            keys = index.get(v)
            if keys is not None:
                keys.pop(key, None)
                if not keys:
                    del index[v]
        for v in new_values:
            keys = index.get(v)
            if keys is None:
                index[v] = {key: None}
            else:
                keys[key] = None


# client-go's NewStore/NewIndexer: a Store is an Indexer without indexers.
Store = Indexer
