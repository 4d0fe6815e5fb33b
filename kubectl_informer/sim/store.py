"""The simulated API server's storage: objects, resourceVersions, history, watches.

It plays both etcd and kube-apiserver's watch cache:

- one global resourceVersion counter, bumped by every create/update/delete;
- per resource, a *watch cache* (``watchcache``): a window of the last events,
  sized as kube-apiserver's cacher sizes it (or fixed by ``watch_cache_size``),
  and its own resourceVersion, moved by the resource's events and by etcd's
  progress notifications (``progress_notify``, and whenever a request waits for
  the cache, as the cacher's progress requester asks for one); a watch from an RV
  older than the window gets 410 "too old resource version", a list or a
  WatchList for an RV the cache has not reached waits up to 3 s, then 504, and a
  plain watch from such an RV is accepted (events at or below it are skipped);
- per resource, a longer *history* (etcd's MVCC revisions until compaction)
  from which Exact lists and continue tokens are served: at most
  ``history_limit`` events and none older than ``history_seconds`` (5 minutes,
  kube-apiserver's compaction interval); ``compact()`` drops it, after which
  those answer 410 as etcd compaction makes them;
- watchers, each with its own queue, fed under the store lock so every
  watcher sees events in RV order.

Each object is kept as its serialized JSON bytes (plus its labels and
field-selector values): lists are built by joining bytes, so a 50,000-pod list
costs a join, not 50,000 encodes, and memory stays near the wire size.
Errors are ``ApiError`` with kube-apiserver's status, reason and wording.

Why this module is long: ``Store`` is one object because every write, list and watch
takes its one lock and its one resourceVersion counter, as etcd's revision (an etcd
restore, a watch cache's re-initialisation and its window's report take them too); the
watch cache (``watchcache``) and paging (``continuation``) live apart.
"""

from __future__ import annotations

import bisect
import builtins
import copy
import random
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import orjson

from kubectl_informer.core.apierrors import ApiError
from kubectl_informer.core.go_strconv import parse_uint64
from kubectl_informer.core.label_validation import invalid
from kubectl_informer.core.selectors import Matcher
from kubectl_informer.sim import strategy
from kubectl_informer.sim.apply import record_update
from kubectl_informer.sim.continuation import (
    ExpiredContinue,
    decode_continue,
    encode_continue,
    page_of,
)
from kubectl_informer.sim.patches import json_patch, merge_patch, strategic_merge_patch
from kubectl_informer.sim.query_params import validate_list_options
from kubectl_informer.sim.resources import NAMESPACES, PODS, Registry, ResourceDef
from kubectl_informer.sim.watchcache import (
    ADDED,
    BLOCK_TIMEOUT,
    DELETED,
    MODIFIED,
    PROGRESS_NOTIFY_SECONDS,
    Bookmark,
    Entry,
    Event,
    ResourceState,
    Watcher,
    retry_after_for_unready_cache,
    watch_line,
)

# kube-apiserver's wording (staging/src/k8s.io/apiserver/pkg/storage/etcd3/store.go).
EXPIRED_LIST = "The resourceVersion for the provided list is too old."
# History kept by age as well as by count: kube-apiserver compacts etcd every
# 5 minutes (--etcd-compaction-interval), so a long run's memory stays level.
HISTORY_SECONDS = 300.0
_NAME_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"


now_rfc3339 = strategy.now_rfc3339


def _not_found(rdef: ResourceDef, name: str) -> ApiError:
    what = f"{rdef.resource}.{rdef.group}" if rdef.group else rdef.resource
    return ApiError(404, "NotFound", f'{what} "{name}" not found')


def _copy(obj: dict) -> dict:
    """A deep copy of a JSON object (the caller's object is never aliased, as
    the API server never keeps the request's): through orjson, about ten times
    faster than ``copy.deepcopy``, a good part of the demo's seeding and its
    scenarios' writes. Anything orjson cannot write (not JSON) is deep-copied."""
    try:
        return orjson.loads(orjson.dumps(obj))
    except TypeError:  # orjson.JSONEncodeError
        return copy.deepcopy(obj)


class Store:
    """All objects of the simulated cluster. Thread-safe; see module doc.

    ``resource`` arguments accept any name discovery would (``pods``, ``po``,
    ``deployments.apps``) or a ``ResourceDef``.
    """

    def __init__(
        self,
        registry: Registry | None = None,
        watch_cache_size: int | None = None,
        history_limit: int = 10_000,
        max_watcher_queue: int = 100_000,
        too_large_wait: float = BLOCK_TIMEOUT,
        history_seconds: float | None = HISTORY_SECONDS,
        now: Callable[[], float] = time.monotonic,
        progress_notify_interval: float | None = PROGRESS_NOTIFY_SECONDS,
    ):
        self.registry = registry or Registry()
        # History is also compacted by age (None: by count only); ``now`` is its clock.
        self.history_seconds = history_seconds
        self._now = now
        self.lock = threading.RLock()
        self._rv_changed = threading.Condition(self.lock)
        self._rv = 0
        # None: kube-apiserver's dynamic window (100 events growing to 102,400); N: fixed at N.
        self.watch_cache_size = watch_cache_size
        # etcd's periodic progress notification to the caches' watches (None: never), on ``now``.
        self.progress_notify_interval = progress_notify_interval
        self._next_progress = now() + progress_notify_interval if progress_notify_interval else None
        self.history_limit = history_limit
        self.max_watcher_queue = max_watcher_queue
        # How long a list or WatchList for an RV the cache has not reached waits
        # for it before 504 (the cacher's blockTimeout, 3 s).
        self.too_large_wait = too_large_wait
        self._states: dict[ResourceDef, ResourceState] = {}
        # Called (lock held) with each committed Event: the simulated
        # controllers' feed. A listener must only queue work, never write.
        self.listeners: list[Callable[[ResourceDef, Event], None]] = []
        for d in self.registry.defs:
            self._state(d)
        self._rand = random.Random()
        # Set while the garbage collector runs: deletes with propagationPolicy
        # Orphan or Foreground then get the finalizer kube-apiserver adds for
        # the collector to act on (without one, nothing would ever remove it).
        self.gc_finalizers = False
        # Graceful pod deletion: the simulated kubelet stops a pod's containers
        # in this many seconds when its grace period is longer (None: wait it all).
        self.pod_stop_seconds: float | None = 1.0
        self._timers: set[threading.Timer] = set()

    # ---------------------------------------------------------------- basics
    def resource(self, name: str | ResourceDef) -> ResourceDef:
        try:
            return self.registry.lookup(name)
        except KeyError:
            raise ApiError(404, "NotFound", f"the server could not find the requested resource ({name})") from None

    def _state(self, rdef: ResourceDef) -> ResourceState:
        st = self._states.get(rdef)
        if st is None:
            st = self._states[rdef] = ResourceState(
                rdef, self.watch_cache_size, self.history_limit, self.history_seconds, self._now
            )
            st.listeners = self.listeners
            st.window_start = st.history_floor = st.rv = self._rv
        return st

    def current_rv(self) -> int:
        return self._rv

    def _next_rv(self) -> int:
        self._rv += 1
        return self._rv

    def set_watch_cache_size(self, size: int, resource: str | ResourceDef | None = None) -> None:
        """Fix the watch-cache window of one resource (or all, and the default)
        at ``size`` events: both bounds, so it never resizes."""
        if size < 0:
            raise ValueError("watch cache size must be >= 0")
        with self.lock:
            targets = [self._state(self.resource(resource))] if resource else list(self._states.values())
            if resource is None:
                self.watch_cache_size = size
            for st in targets:
                st.window_size = st.lower_capacity = st.upper_capacity = size
                st.shrink_window()

    def _entry(self, rdef: ResourceDef, obj: dict) -> Entry:
        meta = obj["metadata"]
        ns = meta.get("namespace") or "" if rdef.namespaced else ""
        name = meta["name"]
        key = f"{ns}/{name}" if ns else name
        labels = meta.get("labels") or {}
        # Interned: label keys, most label values and field values repeat across
        # thousands of objects, and decoded strings are otherwise all distinct.
        labels = {sys.intern(k): sys.intern(v) if isinstance(v, str) else v for k, v in labels.items()}
        fields = {k: v if k == "metadata.name" else sys.intern(v) for k, v in rdef.field_values(obj).items()}
        # orjson's result keeps its growth buffer (8 KB held for a 3 KB pod):
        # an exact-size copy keeps 50k objects near their wire size.
        raw = bytes(memoryview(orjson.dumps(obj)))
        return Entry(key, ns, name, int(meta["resourceVersion"]), raw, labels, fields)

    def _key(self, rdef: ResourceDef, namespace: str | None, name: str) -> str:
        return f"{namespace}/{name}" if rdef.namespaced and namespace else name

    # ---------------------------------------------------------------- reads
    def get(self, resource: str | ResourceDef, namespace: str | None, name: str) -> dict:
        rdef = self.resource(resource)
        with self.lock:
            e = self._state(rdef).objects.get(self._key(rdef, namespace, name))
        if e is None:
            raise _not_found(rdef, name)
        return e.obj()

    def get_entry(self, resource: str | ResourceDef, namespace: str | None, name: str) -> Entry:
        rdef = self.resource(resource)
        with self.lock:
            e = self._state(rdef).objects.get(self._key(rdef, namespace, name))
        if e is None:
            raise _not_found(rdef, name)
        return e

    def list(self, resource: str | ResourceDef, namespace: str | None = None) -> list[dict]:
        """Current objects, decoded, in key order."""
        rdef = self.resource(resource)
        with self.lock:
            st = self._state(rdef)
            entries = [st.objects[k] for k in self._ns_keys(st, namespace)]
        return [e.obj() for e in entries]

    def keys(self, resource: str | ResourceDef, namespace: str | None = None) -> builtins.list[str]:
        rdef = self.resource(resource)
        with self.lock:
            return list(self._ns_keys(self._state(rdef), namespace))

    def count(self, resource: str | ResourceDef) -> int:
        with self.lock:
            return len(self._state(self.resource(resource)).objects)

    def _ns_keys(self, st: ResourceState, namespace: str | None) -> builtins.list[str]:
        keys = st.sorted_keys()
        if not namespace or not st.rdef.namespaced:
            return keys
        # "ns/" .. "ns0": '0' follows '/' so this slice is exactly the namespace.
        lo = bisect.bisect_left(keys, namespace + "/")
        hi = bisect.bisect_left(keys, namespace + "0")
        return keys[lo:hi]

    # ---------------------------------------------------------------- writes
    def create(
        self,
        resource: str | ResourceDef,
        obj: dict,
        namespace: str | None = None,
        dry_run: bool = False,
        manager: str = "",
    ) -> dict:
        """Store a new object. ``dry_run``: everything but the write (the
        answer has no resourceVersion). ``manager``: the field manager of a
        write through the API (recorded in managedFields)."""
        rdef = self.resource(resource)
        obj = _copy(obj)
        meta = obj.setdefault("metadata", {})
        strategy.validate(rdef, obj)
        ns = _place(rdef, meta, namespace)
        if not meta.get("name"):
            meta["name"] = self._generate_name(rdef, meta)
        _stamp_new(rdef, obj, meta)
        strategy.on_create(rdef, obj)
        if manager:
            record_update(None, obj, manager, rdef.api_version)
        with self.lock:
            st = self._state(rdef)
            if rdef.namespaced and ns not in self._state(NAMESPACES).objects:
                raise ApiError(404, "NotFound", f'namespaces "{ns}" not found')
            key = f"{ns}/{meta['name']}" if ns else meta["name"]
            if key in st.objects:
                what = f"{rdef.resource}.{rdef.group}" if rdef.group else rdef.resource
                raise ApiError(409, "AlreadyExists", f'{what} "{meta["name"]}" already exists')
            if dry_run:
                meta.pop("resourceVersion", None)
                return obj
            rv = self._next_rv()
            meta["resourceVersion"] = str(rv)
            e = self._entry(rdef, obj)
            st.objects[key] = e
            st.keys_changed()
            st.record(Event(ADDED, rv, e, None))
            self._rv_changed.notify_all()
        return orjson.loads(e.raw)

    def _generate_name(self, rdef: ResourceDef, meta: dict) -> str:
        """A new object's name from its generateName: apiserver's SimpleNameGenerator
        adds 5 of apimachinery's rand alphabet (no vowels, no 0/1/3). 422 without either."""
        if not meta.get("generateName"):
            raise ApiError(
                422,
                "Invalid",
                f'{rdef.kind} "" is invalid: metadata.name: Required value: name or generateName is required',
                [
                    {
                        "reason": "FieldValueRequired",
                        "message": "Required value: name or generateName is required",
                        "field": "metadata.name",
                    }
                ],
            )
        return meta["generateName"] + "".join(self._rand.choice(_NAME_ALPHABET) for _ in range(5))

    def update(
        self,
        resource: str | ResourceDef,
        obj: dict,
        subresource: str | None = None,
        dry_run: bool = False,
        manager: str = "",
    ) -> dict:
        """Replace an object. A non-empty metadata.resourceVersion is a
        precondition (409 Conflict on mismatch), as for PUT.

        ``subresource``: None replaces the whole object (what a controller or
        the kubelet does in scenarios); "" is a PUT on the main resource (the
        status of types with a status subresource is kept, as kube's
        strategies do); "status" changes only the status.
        """
        rdef = self.resource(resource)
        obj = _copy(obj)
        meta = obj.get("metadata") or {}
        name = meta.get("name")
        if not name:
            raise ApiError(422, "Invalid", "metadata.name: Required value")
        with self.lock:
            st = self._state(rdef)
            key = self._key(rdef, meta.get("namespace"), name)
            old = st.objects.get(key)
            if old is None:
                raise _not_found(rdef, name)
            want_rv = meta.get("resourceVersion")
            if want_rv and str(want_rv) != str(old.rv):
                what = f"{rdef.resource}.{rdef.group}" if rdef.group else rdef.resource
                raise ApiError(
                    409,
                    "Conflict",
                    f'Operation cannot be fulfilled on {what} "{name}": the object '
                    "has been modified; please apply your changes to the latest "
                    "version and try again",
                )
            old_obj = old.obj()
            if subresource == "status":
                new = old_obj
                new["status"] = obj.get("status")
                if new["status"] is None:
                    new.pop("status")
                if rdef.kind == "Deployment" and rdef.group == "apps":
                    _status_keeps_metadata(new, obj)
            else:
                new = obj
                if subresource == "" and "status" in rdef.subresources:
                    if "status" in old_obj:
                        new["status"] = old_obj["status"]
                    else:
                        new.pop("status", None)
            return self._replace(rdef, st, old, old_obj, new, dry_run, manager, subresource or "")

    def _replace(
        self,
        rdef: ResourceDef,
        st: ResourceState,
        old: Entry,
        old_obj: dict,
        new: dict,
        dry_run: bool = False,
        manager: str = "",
        subresource: str = "",
    ) -> dict:
        # Caller holds the lock.
        nm = new.setdefault("metadata", {})
        om = old_obj["metadata"]
        strategy.on_update(rdef, new, old.obj())  # not old_obj: a status update passes it as new
        for f in ("uid", "creationTimestamp", "name", "deletionTimestamp", "deletionGracePeriodSeconds"):
            if om.get(f) is None:
                nm.pop(f, None)
            else:
                nm[f] = om.get(f)
        if rdef.namespaced:
            nm["namespace"] = om.get("namespace")
        else:
            nm.pop("namespace", None)
        new["apiVersion"] = rdef.api_version
        new["kind"] = rdef.kind
        if rdef.has_generation:
            nm["generation"] = om.get("generation", 1)
            if new.get("spec") != old_obj.get("spec"):
                nm["generation"] = om.get("generation", 1) + 1
        nm["resourceVersion"] = str(old.rv)
        if manager:
            record_update(old.obj(), new, manager, rdef.api_version, subresource)
        current = old.obj()  # fresh: ``old_obj`` may be ``new`` itself (status updates)
        if new == current:
            return current  # a no-op update does not bump the RV, as in kube-apiserver
        if dry_run:
            return new
        if nm.get("deletionTimestamp") and not nm.get("finalizers") and nm.get("deletionGracePeriodSeconds") == 0:
            return self._delete_entry(st, old)  # the last finalizer is gone: the deletion completes
        return self._write(st, old, new)

    def patch(
        self,
        resource: str | ResourceDef,
        namespace: str | None,
        name: str,
        patch: Any,
        patch_type: str = "merge",
        subresource: str | None = None,
        dry_run: bool = False,
        manager: str = "",
    ) -> dict:
        """``patch_type``: "merge", "strategic" or "json"."""
        rdef = self.resource(resource)
        with self.lock:
            st = self._state(rdef)
            old = st.objects.get(self._key(rdef, namespace, name))
            if old is None:
                raise _not_found(rdef, name)
            old_obj = old.obj()
            if patch_type == "json":
                if not isinstance(patch, list):
                    raise ApiError(400, "BadRequest", "json patch must be a list of operations")
                new = json_patch(old_obj, patch)
            else:
                if not isinstance(patch, dict):
                    raise ApiError(400, "BadRequest", "merge patch must be a JSON object")
                new = (strategic_merge_patch if patch_type == "strategic" else merge_patch)(old_obj, patch)
            if not isinstance(new, dict):
                raise ApiError(422, "Invalid", "patched object is not an object")
            want_rv = (new.get("metadata") or {}).get("resourceVersion")
            if want_rv and str(want_rv) != str(old.rv):
                what = f"{rdef.resource}.{rdef.group}" if rdef.group else rdef.resource
                raise ApiError(
                    409,
                    "Conflict",
                    f'Operation cannot be fulfilled on {what} "{name}": the object '
                    "has been modified; please apply your changes to the latest "
                    "version and try again",
                )
            if subresource == "status":
                keep = old.obj()
                keep["status"] = new.get("status")
                if rdef.kind == "Deployment" and rdef.group == "apps":
                    _status_keeps_metadata(keep, new)
                new = keep
            elif subresource == "" and "status" in rdef.subresources:
                new["status"] = old_obj.get("status")
                if new["status"] is None:
                    new.pop("status")
            return self._replace(rdef, st, old, old.obj(), new, dry_run, manager, subresource or "")

    def delete(
        self,
        resource: str | ResourceDef,
        namespace: str | None,
        name: str,
        precondition_rv: str | None = None,
        precondition_uid: str | None = None,
        grace_period: int | None = 0,
        dry_run: bool = False,
        propagation: str | None = None,
    ) -> dict:
        """Delete as kube-apiserver does; returns the object's state after the call.

        An object with ``metadata.finalizers`` gets a ``deletionTimestamp`` and
        stays until an update removes the last finalizer. A scheduled, running
        pod is deleted gracefully: ``deletionTimestamp`` and
        ``deletionGracePeriodSeconds`` (``grace_period``; None: its
        ``terminationGracePeriodSeconds``, else 30) are set by an update, and
        the simulated kubelet deletes it when its containers have stopped (see
        ``pod_stop_seconds``). Grace 0 (the default here; the HTTP API passes
        DeleteOptions' value) deletes at once. Deleting a namespace
        deletes everything in it first. ``propagation`` "Orphan" or
        "Foreground" adds the ``orphan`` / ``foregroundDeletion`` finalizer
        when the garbage collector runs (``gc_finalizers``)."""
        rdef = self.resource(resource)
        with self.lock:
            st = self._state(rdef)
            old = st.objects.get(self._key(rdef, namespace, name))
            if old is None:
                raise _not_found(rdef, name)
            obj = old.obj()
            meta = obj["metadata"]
            self._check_preconditions(rdef, name, old, meta, precondition_rv, precondition_uid)
            grace = self._grace_period(rdef, obj, grace_period)
            self._add_gc_finalizer(meta, propagation)
            if grace or meta.get("finalizers"):
                return self._mark_deleting(st, old, obj, grace, dry_run)
            if dry_run:
                return obj
            if rdef is NAMESPACES:
                for other in self._states.values():
                    if other.rdef.namespaced:
                        for k in list(self._ns_keys(other, name)):
                            self._delete_entry(other, other.objects[k])
            return self._delete_entry(st, old)

    def _add_gc_finalizer(self, meta: dict, propagation: str | None) -> None:
        finalizer = {"Orphan": "orphan", "Foreground": "foregroundDeletion"}.get(propagation or "")
        if not (self.gc_finalizers and finalizer) or meta.get("deletionTimestamp"):
            return
        finalizers = [f for f in meta.get("finalizers") or [] if f not in ("orphan", "foregroundDeletion")]
        meta["finalizers"] = finalizers + [finalizer]

    @staticmethod
    def _check_preconditions(
        rdef: ResourceDef, name: str, old: Entry, meta: dict, want_rv: str | None, want_uid: str | None
    ) -> None:
        what = f"{rdef.resource}.{rdef.group}" if rdef.group else rdef.resource
        prefix = f'Operation cannot be fulfilled on {what} "{name}": '
        if want_uid and want_uid != meta.get("uid"):
            raise ApiError(
                409,
                "Conflict",
                f"{prefix}Precondition failed: UID in precondition: {want_uid}, UID in object meta: {meta.get('uid')}",
            )
        if want_rv and str(want_rv) != str(old.rv):
            raise ApiError(
                409,
                "Conflict",
                f"{prefix}Precondition failed: ResourceVersion in precondition: "
                f"{want_rv}, ResourceVersion in object meta: {old.rv}",
            )

    @staticmethod
    def _grace_period(rdef: ResourceDef, obj: dict, asked: int | None) -> int:
        """Seconds of graceful termination: only pods that run on a node have any."""
        if rdef is not PODS:
            return 0
        spec, status = obj.get("spec") or {}, obj.get("status") or {}
        if not spec.get("nodeName") or status.get("phase") in ("Succeeded", "Failed"):
            return 0  # nothing runs it: kube-apiserver deletes it at once
        if asked is None:
            asked = spec.get("terminationGracePeriodSeconds", 30)
        return max(0, int(asked))

    def _mark_deleting(self, st: ResourceState, old: Entry, obj: dict, grace: int, dry_run: bool) -> dict:
        meta = obj["metadata"]
        current = meta.get("deletionGracePeriodSeconds")
        if meta.get("deletionTimestamp") and current is not None and current <= grace:
            return obj  # already going, no sooner than asked
        when = datetime.now(UTC) + timedelta(seconds=grace)
        meta["deletionTimestamp"] = when.strftime("%Y-%m-%dT%H:%M:%SZ")
        meta["deletionGracePeriodSeconds"] = grace
        if dry_run:
            return obj
        if not grace and not meta.get("finalizers"):
            return self._delete_entry(st, old)
        out = self._write(st, old, obj)
        if grace:
            stop = grace if self.pod_stop_seconds is None else min(grace, self.pod_stop_seconds)
            self._after(stop, self._kubelet_stopped, st, old.key, meta.get("uid"))
        return out

    def _after(self, seconds: float, fn: Callable[..., object], *args: Any) -> None:
        def run() -> None:
            self._timers.discard(t)
            fn(*args)

        t = threading.Timer(seconds, run)
        t.daemon = True
        self._timers.add(t)
        t.start()

    def _kubelet_stopped(self, st: ResourceState, key: str, uid: str) -> None:
        """The pod's containers have stopped: the kubelet's delete with grace 0."""
        with self.lock:
            old = st.objects.get(key)
            if old is None:
                return
            obj = old.obj()
            meta = obj["metadata"]
            if meta.get("uid") != uid or not meta.get("deletionTimestamp"):
                return
            if meta.get("finalizers"):
                meta["deletionGracePeriodSeconds"] = 0
                self._write(st, old, obj)
            else:
                self._delete_entry(st, old)

    def _write(self, st: ResourceState, old: Entry, obj: dict) -> dict:
        """Commit ``obj`` as the new state of ``old`` (lock held): a MODIFIED event."""
        rv = self._next_rv()
        obj["metadata"]["resourceVersion"] = str(rv)
        e = self._entry(st.rdef, obj)
        st.objects[old.key] = e
        st.record(Event(MODIFIED, rv, e, old))
        self._rv_changed.notify_all()
        return orjson.loads(e.raw)

    def _delete_entry(self, st: ResourceState, old: Entry) -> dict:
        rv = self._next_rv()
        obj = old.obj()
        # The DELETED event carries the last state at the deletion's revision, as etcd's watch does.
        obj["metadata"]["resourceVersion"] = str(rv)
        e = self._entry(st.rdef, obj)
        del st.objects[old.key]
        st.keys_changed()
        st.record(Event(DELETED, rv, e, old))
        self._rv_changed.notify_all()
        return obj

    def delete_collection(
        self,
        resource: str | ResourceDef,
        namespace: str | None = None,
        label_match: Matcher | None = None,
        field_match: Matcher | None = None,
    ) -> int:
        rdef = self.resource(resource)
        n = 0
        with self.lock:
            st = self._state(rdef)
            for k in list(self._ns_keys(st, namespace)):
                e = st.objects[k]
                if label_match and not label_match(e.labels):
                    continue
                if field_match and not field_match(e.fields):
                    continue
                self._delete_entry(st, e)
                n += 1
        return n

    def bulk_load(self, resource: str | ResourceDef, objs: Iterable[dict]) -> int:
        """Load many objects fast, each at its own RV, *without* watch events:
        like an apiserver restarted over a filled etcd. The resource's watch
        window and history restart at the new RV, and its open watches close,
        so a client that was watching relists. Namespaces are not checked.
        Returns the number loaded."""
        rdef = self.resource(resource)
        created = now_rfc3339()
        n = 0
        with self.lock:
            st = self._state(rdef)
            for obj in objs:
                meta = obj.setdefault("metadata", {})
                obj["apiVersion"] = rdef.api_version
                obj["kind"] = rdef.kind
                if rdef.namespaced:
                    meta.setdefault("namespace", "default")
                meta.setdefault("uid", str(uuid.uuid4()))
                meta.setdefault("creationTimestamp", created)
                if rdef.has_generation:
                    meta.setdefault("generation", 1)
                meta["resourceVersion"] = str(self._next_rv())
                e = self._entry(rdef, obj)
                st.objects[e.key] = e
                n += 1
            st.keys_changed()
            st.history.clear()
            st.restart_window(self._rv)
            st.history_floor = self._rv
            st.initialisations += 1
            for w in list(st.watchers):
                w.close("reload")
            self._rv_changed.notify_all()
        return n

    # ---------------------------------------------------------------- RV rules
    def _parse_rv(self, rv: str, *, watch: bool = False) -> int:
        """The resourceVersion asked for, read as the storage reads it
        (ParseUint): a list refuses a bad one with a 400, a watch with the
        storage's bare error, a 500 with no reason."""
        try:
            return parse_uint64(rv)
        except ValueError as e:
            what = invalid("resourceVersion", rv, str(e))
            if watch:
                raise ApiError(500, "", what) from None
            raise ApiError(400, "BadRequest", "invalid resource version: " + what) from None

    def _too_large(self, want: int, current: int) -> ApiError:
        return ApiError(
            504,
            "Timeout",
            f"Timeout: Too large resource version: {want}, current: {current}",
            [{"reason": "ResourceVersionTooLarge", "message": "Too large resource version"}],
            retry_after=1,
        )

    def _wait_fresh(self, st: ResourceState, want: int) -> None:
        """watchCache.waitUntilFreshAndBlock (lock held): wait up to
        ``too_large_wait`` for the cache's RV to reach ``want``, then 504.
        While a request waits the cacher asks etcd for progress
        notifications (its ConditionalProgressRequester, every 100 ms), so
        the cache catches up with etcd's revision, events or not."""
        if want <= self._read_rv(st):
            return
        deadline = time.monotonic() + self.too_large_wait
        while True:
            st.progress(self._rv)
            if want <= self._read_rv(st):
                return
            left = deadline - time.monotonic()
            if left <= 0:
                raise self._too_large(want, self._read_rv(st))
            self._rv_changed.wait(left)

    def _read_rv(self, st: ResourceState) -> int:
        """The RV a read of ``st`` is served at: its cache's, or etcd's while the
        cache re-initialises (the cacher then delegates reads to etcd)."""
        return st.rv if st.ready else self._rv

    def _tick_progress(self) -> None:
        """etcd's periodic progress notification (lock held), when due: every
        cache's RV moves to etcd's revision. Applied lazily, whenever the
        caches are read, which is when it shows."""
        interval = self.progress_notify_interval
        if self._next_progress is None or not interval:
            return
        now = self._now()
        if now < self._next_progress:
            return
        self._next_progress = now + interval
        for st in self._states.values():
            st.progress(self._rv)

    def progress_notify(self, resource: str | ResourceDef | None = None) -> int:
        """A progress notification from etcd now, to the cache of one
        resource (or all): their RV moves to etcd's current revision, with no
        event. Returns that revision."""
        with self.lock:
            targets = [self._state(self.resource(resource))] if resource else list(self._states.values())
            for st in targets:
                st.progress(self._rv)
            return self._rv

    def bump_revision(self, n: int = 1) -> int:
        """``n`` writes to what the simulator does not serve (a node's Lease
        renewed, an Endpoints update): etcd's revision moves, no served
        resource gets an event. Returns the new revision."""
        with self.lock:
            self._rv += max(0, int(n))
            self._rv_changed.notify_all()
            return self._rv

    def cache_rv(self, resource: str | ResourceDef) -> int:
        """The resource's watch-cache resourceVersion."""
        with self.lock:
            self._tick_progress()
            return self._state(self.resource(resource)).rv

    def list_entries(
        self,
        resource: str | ResourceDef,
        namespace: str | None = None,
        label_match: Matcher | None = None,
        field_match: Matcher | None = None,
        resource_version: str | None = "",
        resource_version_match: str | None = "",
        limit: int | None = 0,
        continue_: str | None = "",
    ) -> tuple[builtins.list[Entry], int, str, int | None]:
        """A LIST as kube-apiserver serves it: ``(entries, list_rv, continue, remaining)``.

        RV "" is the latest state; "0" any state, served from the cache and
        unpaged (limit ignored); "N" without a match is not-older-than N, or
        Exact when paged (limit > 0); Exact "N" rebuilds the state at N from
        history (410 once compacted); continue tokens list at their RV.
        """
        rdef = self.resource(resource)
        rv = resource_version or ""
        match = resource_version_match or ""
        limit = int(limit or 0)
        if limit < 0:
            limit = 0
        validate_list_options(rv, match, continue_ or "")
        with self.lock:
            st = self._state(rdef)
            at, snapshot, limit, start_after = self._list_point(st, rv, match, limit, continue_ or "")
            if snapshot is None:
                keys = self._ns_keys(st, namespace)
                objects = st.objects
            else:
                objects = snapshot
                keys = sorted(snapshot)
                if namespace and rdef.namespaced:
                    keys = [k for k in keys if k.startswith(namespace + "/")]
            if start_after:
                keys = keys[bisect.bisect_left(keys, start_after) :]
            return page_of(keys, objects, label_match, field_match, limit, at)

    def _list_point(
        self, st: ResourceState, rv: str, match: str, limit: int, continue_: str
    ) -> tuple[int, dict | None, int, str]:
        """Where a LIST reads (lock held): ``(rv, snapshot or None for the
        live state, limit, key to start after)``, or the ApiError kube answers."""
        if continue_:
            at, start_after = decode_continue(continue_)  # a bad token is refused first (ValidateListOptions)
            if rv and rv != "0":
                raise ApiError(400, "BadRequest", "specifying resource version is not allowed when using continue")
            if at < 0:
                at = self._rv  # a negative RV continues at the latest state
            if at > st.rv:
                self._wait_fresh(st, at)  # a token from before a restore: waitAndListExactRV
            if at < st.history_floor:
                raise ExpiredContinue(encode_continue(-1, start_after.rstrip("\x00")))
            return at, self._snapshot(st, at), limit, start_after
        self._tick_progress()
        if rv == "":
            # A consistent read (ConsistentListFromCache): etcd's current
            # revision, which the cache reaches by a progress notification.
            self._wait_fresh(st, self._rv)
            return self._rv, None, limit, ""
        if rv == "0":
            return self._read_rv(st), None, 0, ""  # from the watch cache: any state will do, and it ignores limit
        want = self._parse_rv(rv)
        self._wait_fresh(st, want)
        if match == "Exact" or (not match and limit > 0):
            if want < st.history_floor:
                raise ApiError(410, "Expired", EXPIRED_LIST)
            return want, self._snapshot(st, want), limit, ""
        return self._read_rv(st), None, limit, ""  # NotOlderThan: the cache's state, at its RV

    def _snapshot(self, st: ResourceState, at: int) -> dict[str, Entry] | None:
        """The objects at ``at``, or None when nothing changed since (then the
        live dict and its sorted keys serve, which keeps paging 50k cheap)."""
        if not st.history or st.history[-1].rv <= at:
            return None
        return st.snapshot_at(at)

    def compact(self, rv: int | None = None) -> int:
        """Forget history up to ``rv`` (default: now), as etcd compaction:
        Exact lists and continue tokens from before it answer 410."""
        with self.lock:
            rv = self._rv if rv is None else min(int(rv), self._rv)
            for st in self._states.values():
                while st.history and st.history[0].rv <= rv:
                    st.history.popleft()
                st.history_floor = max(st.history_floor, rv)
            return rv

    def expire_watch_cache(self, resource: str | ResourceDef | None = None) -> int:
        """Empty the watch-cache window (of one resource or all) so that any
        watch from an RV before now answers 410 and its client relists."""
        with self.lock:
            targets = [self._state(self.resource(resource))] if resource else list(self._states.values())
            for st in targets:
                st.restart_window(self._rv)
            return self._rv

    # ---------------------------------------------------------------- watches
    def start_watch(
        self,
        resource: str | ResourceDef,
        namespace: str | None = None,
        label_match: Matcher | None = None,
        field_match: Matcher | None = None,
        resource_version: str | None = "",
        allow_bookmarks: bool = False,
        send_initial_events: bool | None = None,
        encode: Callable[[bytes], bytes] | None = None,
        user_agent: str = "",
    ) -> tuple[Watcher, Iterator[bytes], int | None]:
        """Register a watcher. Returns ``(watcher, initial_lines, end_bookmark_rv)``:
        the lines to write first (synthetic ADDED events or replayed window
        events), and for a WatchList the RV of the initial-events-end bookmark.
        ``encode`` (JSON bytes -> bytes) rewrites those lines' objects.

        Raises ApiError 410 (too old) or 504 (too large); the server sends
        those as an ERROR event on a 200 stream, as kube-apiserver's cacher.
        A cache that is re-initialising answers 429, as the cacher does.
        ``user_agent``: the client's, kept on the watcher (the debug endpoint
        reports it, so a client can find its own watch).
        """
        rdef = self.resource(resource)
        rv = resource_version or ""
        with self.lock:
            st = self._state(rdef)
            if not st.ready:
                raise ApiError(
                    429,
                    "TooManyRequests",
                    "storage is (re)initializing",
                    retry_after=retry_after_for_unready_cache(self._now() - st.down_since),
                )
            self._tick_progress()
            w = Watcher(
                st,
                namespace if rdef.namespaced else None,
                label_match,
                field_match,
                allow_bookmarks,
                self.max_watcher_queue,
                user_agent,
                rv,
            )
            want = None if rv in ("", "0") else self._parse_rv(rv, watch=True)
            initial, entries, end_rv = self._watch_start(st, w, rv, want, send_initial_events, encode)
            w.floor = w.last_rv
            st.watchers.add(w)

        def lines() -> Iterator[bytes]:
            # Lazily, outside the lock (entries are immutable): a 50k-pod initial
            # state is streamed in chunks, never held as one more copy.
            yield from initial
            for e in entries:
                if w.matches(e):
                    yield watch_line(ADDED, e.raw if encode is None else encode(e.raw))

        return w, lines(), end_rv

    def _watch_start(
        self,
        st: ResourceState,
        w: Watcher,
        rv: str,
        want: int | None,
        send_initial_events: bool | None,
        encode: Callable[[bytes], bytes] | None,
    ) -> tuple[builtins.list[bytes], builtins.list[Entry], int | None]:
        """Where a watch starts (lock held), as the cacher's Watch decides it:
        ``(replayed lines, objects sent as ADDED, end bookmark RV)``, and the
        watcher's position set. Only a WatchList waits for the cache
        (waitUntilWatchCacheFreshAndForceAllEvents); a plain watch from an RV
        the cache has not reached starts at once, and every event at or below
        that RV is skipped (cacheWatcher.process), as getAllEventsSinceLocked
        finds none newer in the buffer."""
        if send_initial_events:
            # getWatchCacheResourceVersion: "" is etcd's current revision, "0" any.
            self._wait_fresh(st, self._rv if rv == "" else (want or 0))
            w.last_rv = st.rv
            # the initial-events-end bookmark goes only where bookmarks are allowed
            # (setInitialEventsEndBookmarkIfRequested)
            end = st.rv if w.bookmarks else None
            return [], [st.objects[k] for k in self._ns_keys(st, w.namespace)], end
        if want is None and send_initial_events is None:
            # A watch from "" or "0": the current state as ADDED events, then what follows.
            w.last_rv = st.rv
            return [], [st.objects[k] for k in self._ns_keys(st, w.namespace)], None
        if want is None:
            # sendInitialEvents=false: from "0" the cache's RV, from "" etcd's revision.
            w.last_rv = self._rv if rv == "" else st.rv
            return [], [], None
        floor = st.too_old_below()
        if want < floor:
            raise ApiError(410, "Expired", f"too old resource version: {want} ({floor})")
        initial: list[bytes] = []
        for ev in st.window:
            if ev.rv > want:
                t = w.filter(ev)
                if t is not None:
                    initial.append(ev.line(t) if encode is None else watch_line(t, encode(ev.entry.raw)))
        w.last_rv = max(want, st.window[-1].rv if st.window else 0)
        return initial, [], None

    def stop_watch(self, w: Watcher) -> None:
        with self.lock:
            w.state.watchers.discard(w)

    def watchers(self, resource: str | ResourceDef | None = None) -> builtins.list[Watcher]:
        with self.lock:
            if resource is not None:
                return list(self._state(self.resource(resource)).watchers)
            return [w for st in self._states.values() for w in st.watchers]

    def watch_cache_figures(self, resource: str | ResourceDef) -> dict:
        """The resource's watch-cache window and watchers, as the debug endpoint reports them."""
        rdef = self.resource(resource)
        with self.lock:
            self._tick_progress()
            figures = self._state(rdef).window_figures()
            figures["currentRV"] = str(self._rv)
            return figures

    def set_watch_cache_bounds(self, lower: int, upper: int, resource: str | ResourceDef | None = None) -> None:
        """Let the window resize between ``lower`` and ``upper`` events, as
        kube-apiserver's (100 and 102,400) does; it starts at ``lower``."""
        if not 0 < lower <= upper:
            raise ValueError("watch cache bounds must be 0 < lower <= upper")
        self.set_watch_cache_size(lower, resource)
        with self.lock:
            targets = [self._state(self.resource(resource))] if resource else list(self._states.values())
            for st in targets:
                st.upper_capacity = upper

    def begin_reinit(self, resource: str | ResourceDef) -> int:
        """The watch cache of ``resource`` starts re-initialising (its
        reflector lost etcd): every watch on it ends, new ones get 429, no
        bookmark is sent. Writes go on (etcd keeps them). Returns how many
        watches ended."""
        with self.lock:
            st = self._state(self.resource(resource))
            st.ready = False
            st.down_since = self._now()
            watchers = list(st.watchers)
            for w in watchers:
                w.close("reinit")
            return len(watchers)

    def end_reinit(self, resource: str | ResourceDef) -> int:
        """The cache re-listed: its window restarts at the current RV (a
        watch from before it answers 410) and it serves watches again.
        Returns the initialisations so far."""
        with self.lock:
            st = self._state(self.resource(resource))
            st.restart_window(self._rv)
            st.ready = True
            st.initialisations += 1
            return st.initialisations

    def restore(self, rv: int) -> int:
        """etcd restored from a snapshot taken at ``rv``: every resource's
        objects go back to what they were then, the resourceVersion counter
        goes back to ``rv``, the API server restarts (watches ended, caches
        initialised at ``rv``). A client that saw a later RV is now ahead of
        the server: "Too large resource version". Returns the new RV."""
        with self.lock:
            rv = max(0, min(int(rv), self._rv))
            for st in self._states.values():
                if rv >= st.history_floor:
                    st.objects = dict(st.snapshot_at(rv))
                    st.keys_changed()
                while st.history and st.history[-1].rv > rv:
                    st.history.pop()
                st.restart_window(rv)
                st.initialisations += 1
                for w in list(st.watchers):
                    w.close("dropped")  # the API server restarting ends its watches
            self._rv = rv
            self._rv_changed.notify_all()
            return rv

    def send_bookmarks(self, resource: str | ResourceDef | None = None) -> int:
        """Queue a BOOKMARK at its cache's RV to every watcher that allowed
        bookmarks (of one resource or all): what kube-apiserver's cacher does
        on its bookmark timer (the stream sends it only if that RV is newer
        than the watch's start). Returns how many were queued."""
        n = 0
        with self.lock:
            self._tick_progress()
            for w in self.watchers(resource):
                if w.bookmarks:
                    w.push(Bookmark(w.state.rv))
                    n += 1
        return n

    def bookmark(self, w: Watcher) -> None:
        """Queue a BOOKMARK at its cache's RV to one watcher (its periodic timer)."""
        with self.lock:
            self._tick_progress()
            w.push(Bookmark(w.state.rv))

    def drop_watches(self, resource: str | ResourceDef | None = None, abrupt: bool = False) -> int:
        """End open watches: cleanly (the stream ends, as on a server timeout)
        or ``abrupt`` (the connection is cut, as on a server restart)."""
        ws = self.watchers(resource)
        for w in ws:
            w.close("abrupt" if abrupt else "dropped")
        return len(ws)

    def close_all(self) -> None:
        for t in list(self._timers):
            t.cancel()
        for w in self.watchers():
            w.close("stopped")


def _place(rdef: ResourceDef, meta: dict, namespace: str | None) -> str:
    """The namespace a new object goes to (its own, the request's, or "default";
    "" for a cluster-scoped one), set in its metadata. 400 when they differ."""
    if not rdef.namespaced:
        meta.pop("namespace", None)
        return ""
    if namespace and meta.get("namespace") and meta["namespace"] != namespace:
        raise ApiError(
            400,
            "BadRequest",
            "the namespace of the provided object does not match the namespace sent on the request",
        )
    meta["namespace"] = meta.get("namespace") or namespace or "default"
    return meta["namespace"]


def _stamp_new(rdef: ResourceDef, obj: dict, meta: dict) -> None:
    """What the API server sets on every new object: its type, a UID, the
    creation time, generation 1; a deletion mark sent with it is dropped."""
    obj["apiVersion"] = rdef.api_version
    obj["kind"] = rdef.kind
    meta["uid"] = str(uuid.uuid4())
    meta["creationTimestamp"] = now_rfc3339()
    meta.pop("deletionTimestamp", None)
    meta.pop("deletionGracePeriodSeconds", None)
    if rdef.has_generation:
        meta["generation"] = 1


def _status_keeps_metadata(new: dict, obj: dict) -> None:
    """deploymentStatusStrategy.PrepareForUpdate resets only spec and labels:
    the rest of a status update's metadata is written (the Deployment
    controller sets its revision annotation that way). The fields a write
    never changes are restored by ``_replace``."""
    labels = new["metadata"].get("labels")
    sent = obj.get("metadata")
    if isinstance(sent, dict):
        new["metadata"] = dict(sent)
        if labels is None:
            new["metadata"].pop("labels", None)
        else:
            new["metadata"]["labels"] = labels
