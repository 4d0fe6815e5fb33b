"""The controllers' event feed, queue and worker (see the package doc)."""

from __future__ import annotations

import heapq
import itertools
import logging
import threading
import time
from collections import deque
from typing import TYPE_CHECKING

import orjson

from kubectl_informer.clock import Clock, RealClock
from kubectl_informer.core.apierrors import ApiError
from kubectl_informer.sim.controllers import deployment_sync, gc, pods, replicasets
from kubectl_informer.sim.controllers.expectations import ControllerExpectations
from kubectl_informer.sim.controllers.owners import SyncError, controller_ref, selector_matches
from kubectl_informer.sim.events import EventRecorder
from kubectl_informer.sim.watchcache import ADDED, DELETED

if TYPE_CHECKING:
    from kubectl_informer.sim.resources import ResourceDef
    from kubectl_informer.sim.store import Store
    from kubectl_informer.sim.watchcache import Event

log = logging.getLogger(__name__)

# A reconcile that met a conflict (someone wrote in between) is retried this much later.
RETRY_SECONDS = 0.05


class ControllerManager:
    """Runs the simulated controllers against ``store`` (``start``/``stop``)."""

    def __init__(
        self, store: Store, clock: Clock | None = None, pod_start_seconds: float = 1.0, sync_seconds: float = 0.0
    ):
        self.store = store
        self.clock = clock or RealClock()
        self.pod_start_seconds = pod_start_seconds
        # How long a Deployment or ReplicaSet reconcile takes before it writes, on the clock.
        # 0: at once, so a cascade of writes lands within a millisecond. A real controller's
        # syncs are milliseconds apart (each write a round trip to etcd, each reaction a watch
        # delivery and a sync later), which decides how many events a workqueue collapses.
        self.sync_seconds = sync_seconds
        self._cond = threading.Condition()
        self._inbox: deque = deque()
        self._queue: deque = deque()
        self._queued: set = set()
        self._later: list = []  # heap of (due, seq, item)
        self._seq = itertools.count()
        self._foreground: dict[str, tuple] = {}  # uid -> the owner's work item, while it waits on dependents
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.busy = False
        self.errors = 0
        self.expectations = ControllerExpectations(self.clock)  # the ReplicaSet controller's
        # The Events the controllers record (kubectl describe shows them), when the server serves events.
        try:
            store.resource("events")
            self.events: EventRecorder | None = EventRecorder(
                store, clock=self.clock, correlated=frozenset({"deployment-controller", "replicaset-controller"})
            )
        except ApiError:
            self.events = None

    # ------------------------------------------------------------ lifecycle
    def start(self) -> ControllerManager:
        with self.store.lock:
            self.store.listeners.append(self._on_event)
            self.store.gc_finalizers = True
            for key in self.store.keys("deployments"):
                self._add(("deploy", *key.split("/", 1)))
            for key in self.store.keys("replicasets"):
                self._add(("rs", *key.split("/", 1)))
            for rdef in gc.owned_kinds(self.store):  # the collector's first graph: dangling owners
                for obj in self.store.list(rdef):
                    self._check_owners(rdef.qualified, obj)
        self._thread = threading.Thread(target=self._run, name="sim-controllers", daemon=True)
        self._thread.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        with self.store.lock:
            if self._on_event in self.store.listeners:
                self.store.listeners.remove(self._on_event)
            self.store.gc_finalizers = False
        self._stop.set()
        with self._cond:
            self._cond.notify_all()
        if self._thread is not None:
            self._thread.join(timeout)

    def idle(self) -> bool:
        """Nothing queued, nothing running, no event unread (timed steps may be pending)."""
        with self._cond:
            return not (self._inbox or self._queue or self.busy)

    def wait_idle(self, timeout: float) -> bool:
        """Wait (real seconds) until ``idle()``: for a caller that wants the
        controllers' immediate work done, as a cluster that has settled."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while self._inbox or self._queue or self.busy:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._cond.wait(min(left, 0.05))
        return True

    def pending_timers(self) -> int:
        with self._cond:
            return len(self._later)

    def settled(self) -> bool:
        """Idle, and no timed step due on the clock (later ones may wait)."""
        with self._cond:
            due = bool(self._later) and self._later[0][0] <= self.clock.now()
            return not (due or self._inbox or self._queue or self.busy)

    # ------------------------------------------------------------ feed
    def _on_event(self, rdef: ResourceDef, ev: Event) -> None:
        # Store lock held: only note the event; the worker reads it. Events
        # (core/v1) neither own nor are owned here, and are the busiest kind.
        if rdef.qualified == "events":
            return
        with self._cond:
            self._inbox.append((rdef.qualified, ev.type, ev.entry.raw))
            self._cond.notify()

    def _add(self, item: tuple) -> None:
        with self._cond:
            if item not in self._queued:
                self._queued.add(item)
                self._queue.append(item)
                self._cond.notify()

    def _add_after(self, seconds: float, item: tuple) -> None:
        with self._cond:
            heapq.heappush(self._later, (self.clock.now() + seconds, next(self._seq), item))
            self._cond.notify()

    def _translate(self, resource: str, type_: str, raw: bytes) -> None:
        """The keys one event puts in the queue."""
        obj = orjson.loads(raw)
        meta = obj.get("metadata") or {}
        ns, name, uid = meta.get("namespace") or "", meta.get("name", ""), meta.get("uid", "")
        ref = controller_ref(obj)
        if resource == "deployments.apps":
            self._add(("deploy", ns, name))
        elif resource == "replicasets.apps":
            self._add(("rs", ns, name))
            if ref is not None and ref.get("kind") == "Deployment":
                self._add(("deploy", ns, ref.get("name", "")))
            elif ref is None and type_ != DELETED:
                self._orphan("deployments", "deploy", ns, meta)
        elif resource == "pods" and ref is not None and ref.get("kind") == "ReplicaSet":
            self._observe_pod(type_, obj, ns, ref.get("name", ""))
            self._add(("rs", ns, ref.get("name", "")))
        elif resource == "pods" and ref is None and type_ != DELETED and not meta.get("deletionTimestamp"):
            self._orphan("replicasets", "rs", ns, meta)
        if type_ != DELETED and resource not in gc.NOT_OWNERS:
            self._check_owners(resource, obj)
        if set(meta.get("finalizers") or []) & {gc.ORPHAN, gc.FOREGROUND} and meta.get("deletionTimestamp"):
            item = ("gc-deleting", resource, ns or None, name)
            self._foreground[uid] = item
            self._add(item)
        if type_ == DELETED:
            self._foreground.pop(uid, None)
            if resource not in gc.NOT_OWNERS and ns:
                self._add(("gc-gone", ns, uid))
        for owner in meta.get("ownerReferences") or []:
            waiting = self._foreground.get(owner.get("uid"))
            if waiting is not None:
                self._add(waiting)  # a dependent of an owner deleted in the foreground moved

    def _orphan(self, owners: str, kind: str, ns: str, meta: dict) -> None:
        """addReplicaSet / addPod of an orphan: every controller whose selector
        matches it is synced (one of them may adopt it)."""
        for owner in self.store.list(owners, ns):
            if selector_matches((owner.get("spec") or {}).get("selector"), meta.get("labels")):
                self._add((kind, ns, owner["metadata"]["name"]))

    def _observe_pod(self, type_: str, pod: dict, ns: str, rs_name: str) -> None:
        """The ReplicaSet controller's addPod/updatePod/deletePod: a new pod is
        a creation observed; one being deleted or gone, a deletion."""
        key = f"{ns}/{rs_name}"
        meta = pod["metadata"]
        if type_ == DELETED or meta.get("deletionTimestamp"):
            self.expectations.deletion_observed(key, f"{ns}/{meta.get('name', '')}")
        elif type_ == ADDED:
            self.expectations.creation_observed(key)

    def _check_owners(self, resource: str, obj: dict) -> None:
        """The collector's graph builder: an owner reference to an object that
        is not there (by name and UID) makes its dependents be looked at."""
        meta = obj.get("metadata") or {}
        for ref in meta.get("ownerReferences") or []:
            if isinstance(ref, dict) and not gc.owner_exists(self.store, meta.get("namespace") or "", ref):
                self._add(("gc-gone", meta.get("namespace") or "", ref.get("uid", "")))

    # ------------------------------------------------------------ worker
    def _next(self) -> tuple | None:
        """The next item to work on (None when stopping), turning events into items first."""
        with self._cond:
            while not self._stop.is_set():
                if self._inbox:
                    event = self._inbox.popleft()
                    self.busy = True
                    self._cond.release()
                    try:
                        self._translate(*event)
                    finally:
                        self._cond.acquire()
                        self.busy = False
                    continue
                now = self.clock.now()
                while self._later and self._later[0][0] <= now:
                    _, _, item = heapq.heappop(self._later)
                    if item not in self._queued:
                        self._queued.add(item)
                        self._queue.append(item)
                if self._queue:
                    item = self._queue.popleft()
                    self._queued.discard(item)
                    self.busy = True
                    return item
                self.clock.wait_on(self._cond, self._later[0][0] - now if self._later else None)
            return None

    def _run(self) -> None:
        while (item := self._next()) is not None:
            try:
                self._work(item)
            except ApiError as e:
                if e.status in (404, 409):
                    self._add_after(RETRY_SECONDS, item)  # raced a writer: reconcile again
                else:
                    self.errors += 1
                    log.warning("sim controller %s: %s", item, e)
            except SyncError as e:  # handleErr's rate-limited requeue is not modelled: counted and logged
                self.errors += 1
                log.warning("sim controller %s: %s", item, e)
            except Exception:  # a bug must not stop the cluster's controllers
                self.errors += 1
                log.exception("sim controller %s failed", item)
            finally:
                with self._cond:
                    self.busy = False
                    self._cond.notify_all()

    def _work(self, item: tuple) -> None:
        kind = item[0]
        if self.sync_seconds > 0 and kind in ("deploy", "rs"):
            self.clock.wait_event(self._stop, self.sync_seconds)
        if kind == "deploy":
            deployment_sync.sync(self.store, item[1], item[2], self.events)
        elif kind == "rs":
            for ns, name, uid in replicasets.sync(self.store, item[1], item[2], self.expectations, self.events):
                self._add(("pod", ns, name, uid))
        elif kind == "pod":
            again = pods.advance(self.store, item[1], item[2], item[3], self.pod_start_seconds, self.events)
            if again is not None:
                self._add_after(again, item)
        elif kind == "gc-gone":
            gc.owner_gone(self.store, item[1], item[2])
        elif kind == "gc-deleting":
            gc.owner_deleting(self.store, item[1], item[2], item[3])
