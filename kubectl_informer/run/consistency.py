"""Read-your-own-writes for a controller: kube-controller-manager v1.36's
``pkg/controller/util/consistency`` (``ConsistencyStore``).

A controller records the resource version of every write it makes for an
owner (``wrote_at``: the ReplicaSet controller records each pod it creates
and each status it writes, under the ReplicaSet). Before a sync,
``ensure_ready(owner)`` checks each informer store the owner has writes in:
while the store's ``last_store_sync_resource_version()`` is older than the
newest write, the cache does not yet hold the controller's own writes, and
``ConsistencyError`` says so; the controller skips the sync and requeues
(``<controller>_stale_sync_skips_total``). Once every store has caught up the
record is cleared. Rules kept from upstream:

- one record per owner; a write under a new owner UID replaces the record (a
  deleted and recreated owner starts clean);
- per group-resource only the newest RV is kept (``CompareResourceVersion``;
  an RV that does not compare replaces the old one);
- a store reading ``""`` (AtomicFIFO off, or nothing seen yet) or an RV that
  does not compare is skipped, so bad data never blocks a sync;
- ``clear(owner, uid)`` drops the record if the UID matches or is ``""``.

``NoopConsistencyStore`` is what a controller uses with the check off, and
``SwitchableConsistency`` lets the sample controller turn it on and off live.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any, Protocol

from kubectl_informer.core.resourceversion import InvalidResourceVersion, compare_resource_version

__all__ = ["ConsistencyError", "ConsistencyStore", "NoopConsistencyStore", "SwitchableConsistency", "GroupResource"]


@dataclass(frozen=True)
class GroupResource:
    group: str
    resource: str

    def __str__(self) -> str:
        return f"{self.resource}.{self.group}" if self.group else self.resource


class LastSyncRVGetter(Protocol):
    def last_store_sync_resource_version(self) -> str: ...


class ConsistencyError(Exception):
    """The store for ``group_resource`` has read ``read_rv``, older than ``wrote_rv``."""

    def __init__(self, read_rv: str, wrote_rv: str, group_resource: GroupResource) -> None:
        super().__init__(
            f"read version: {read_rv} is not as new as written version: {wrote_rv} for group resource {group_resource}"
        )
        self.read_rv, self.wrote_rv, self.group_resource = read_rv, wrote_rv, group_resource


def _newer(old: str, new: str) -> bool:
    """Whether ``new`` replaces ``old`` (ownerRecord.WroteAt): unless old >= new."""
    try:
        return compare_resource_version(old, new) < 0
    except InvalidResourceVersion:
        return True


class _OwnerRecord:
    def __init__(self, owner_uid: str) -> None:
        self.owner_uid = owner_uid
        self.lock = threading.Lock()
        self.versions: dict[GroupResource, str] = {}

    def wrote_at(self, gr: GroupResource, rv: str) -> None:
        with self.lock:
            old = self.versions.get(gr)
            if old is None or _newer(old, rv):
                self.versions[gr] = rv

    def ensure_ready(self, stores: dict) -> None:
        with self.lock:
            for gr, wrote in self.versions.items():
                store = stores.get(gr)
                if store is None:
                    continue
                read = store.last_store_sync_resource_version()
                if read == "":
                    continue
                try:
                    behind = compare_resource_version(wrote, read) > 0
                except InvalidResourceVersion:
                    continue  # bad data must not block syncing
                if behind:
                    raise ConsistencyError(read, wrote, gr)


class ConsistencyStore:
    """``NewConsistencyStore(stores)``: ``stores`` maps each GroupResource to
    its informer's store. Owners are any hashable (upstream's NamespacedName;
    here the ``ns/name`` key)."""

    def __init__(self, stores: dict[GroupResource, LastSyncRVGetter] | None = None) -> None:
        self.stores = dict(stores or {})
        self._lock = threading.RLock()
        self._writes: dict[Any, _OwnerRecord] = {}

    def _record(self, owner: Any) -> _OwnerRecord | None:
        with self._lock:
            return self._writes.get(owner)

    def _ensure_record(self, owner: Any, owner_uid: str) -> _OwnerRecord:
        with self._lock:
            record = self._writes.get(owner)
            if record is None or record.owner_uid != owner_uid:
                record = self._writes[owner] = _OwnerRecord(owner_uid)
            return record

    def wrote_at(self, owner: Any, owner_uid: str, group_resource: GroupResource, rv: str) -> None:
        self._ensure_record(owner, owner_uid).wrote_at(group_resource, rv)

    def clear(self, owner: Any, owner_uid: str = "") -> None:
        with self._lock:
            record = self._writes.get(owner)
            if record is not None and (not owner_uid or record.owner_uid == owner_uid):
                del self._writes[owner]

    def ensure_ready(self, owner: Any) -> None:
        """None when every store has seen the owner's writes (the record is
        then cleared); ConsistencyError otherwise."""
        record = self._record(owner)
        if record is None:
            return
        record.ensure_ready(self.stores)
        self.clear(owner, record.owner_uid)

    def written(self, owner: Any) -> dict[GroupResource, str]:
        """The newest RV written per group-resource for ``owner`` (for display)."""
        record = self._record(owner)
        if record is None:
            return {}
        with record.lock:
            return dict(record.versions)


class NoopConsistencyStore:
    """The check off: records nothing, always ready."""

    def wrote_at(self, owner: Any, owner_uid: str, group_resource: GroupResource, rv: str) -> None:
        pass

    def clear(self, owner: Any, owner_uid: str = "") -> None:
        pass

    def ensure_ready(self, owner: Any) -> None:
        return None

    def written(self, owner: Any) -> dict:
        return {}


class SwitchableConsistency:
    """A ConsistencyStore that can be turned off and on while the controller
    runs (``--consistency``, ``:consistency``): off, it is the no-op store;
    turned back on, it starts with no records (writes made while off were
    not recorded, as a controller started with the gate off)."""

    def __init__(self, stores: dict[GroupResource, LastSyncRVGetter], enabled: bool = True) -> None:
        self.stores = stores
        self._real = ConsistencyStore(stores)
        self._enabled = enabled

    @property
    def enabled(self) -> bool:
        return self._enabled

    def set_enabled(self, enabled: bool) -> None:
        if enabled and not self._enabled:
            self._real = ConsistencyStore(self.stores)
        self._enabled = bool(enabled)

    @property
    def _store(self) -> ConsistencyStore | NoopConsistencyStore:
        return self._real if self._enabled else _NOOP

    def wrote_at(self, owner: Any, owner_uid: str, group_resource: GroupResource, rv: str) -> None:
        self._store.wrote_at(owner, owner_uid, group_resource, rv)

    def clear(self, owner: Any, owner_uid: str = "") -> None:
        self._store.clear(owner, owner_uid)

    def ensure_ready(self, owner: Any) -> None:
        self._store.ensure_ready(owner)

    def written(self, owner: Any) -> dict:
        return self._store.written(owner)


_NOOP = NoopConsistencyStore()
