"""A simulated controller: the workers behind ``kubectl informer queue``.

It is the classic client-go controller loop (the sample-controller's
``processNextWorkItem``) with the reconcile replaced by "work for
``work_time`` seconds, fail with probability ``fail_rate``":

- an event handler turns every add/update/delete into the object's key on a
  RateLimitingQueue (``deletion_handling_meta_namespace_key_func``, so
  tombstones enqueue their key too);
- each worker ``get``s a key, works, then on failure ``add_rate_limited``
  (the key comes back after the limiter's back-off) or on success ``forget``
  (its back-off starts over), and always ``done``;
- with ``max_retries`` N (``--max-retries``), a failure of a key whose
  ``num_requeues`` has reached N is not requeued: the key is forgotten and the
  error reported (a ``queue.dropped`` event), as client-go's
  ``examples/workqueue`` ``handleErr`` does with its 5; 0 retries forever, as
  sample-controller's ``processNextWorkItem`` does.

The queue guarantees a key is never held by two workers at once; the
controller counts any overlap it sees so tests and the UI can show that the
guarantee held.

With ``reconcile`` (``--demo stale``: ``replica_sync.ReplicaSync``) the work
is a real sync that writes to the simulator. A ``ConsistencyError`` from it is
kube-controller-manager v1.36's stale-sync skip: the cache has not caught up
with the controller's own writes, so the key goes back rate-limited, as the
sync's error does there, counted in ``stale_sync_skips`` per group-resource
(``<controller>_stale_sync_skips_total``) and traced as ``queue.stale_skip``.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Callable
from typing import Any

from kubectl_informer.cache.keys import deletion_handling_meta_namespace_key_func
from kubectl_informer.clock import Clock, RealClock
from kubectl_informer.core.trace import NULL_TRACER, Tracer
from kubectl_informer.core.trace_kinds import EXPERIMENT_FAILED, QUEUE_DROPPED, QUEUE_STALE_SKIP
from kubectl_informer.run.consistency import ConsistencyError
from kubectl_informer.run.handler_lanes import add_handler
from kubectl_informer.workqueue.rate_limiters import RateLimiter
from kubectl_informer.workqueue.rate_limiting import RateLimitingQueue

__all__ = ["SimulatedController", "EnqueueHandler"]


class EnqueueHandler:
    """A ResourceEventHandler that enqueues the object's key for every event."""

    def __init__(self, queue: Any, key_func: Callable[[Any], str] = deletion_handling_meta_namespace_key_func) -> None:
        self.queue = queue
        self.key_func = key_func

    def _enqueue(self, obj: Any) -> None:
        try:
            key = self.key_func(obj)
        except Exception:  # noqa: BLE001  client-go's handlers skip objects they cannot key
            # client-go's handlers skip objects they cannot key.
            return
        self.queue.add(key)

    def on_add(self, obj: Any, is_in_initial_list: bool = False) -> None:
        self._enqueue(obj)

    def on_update(self, old: Any, new: Any) -> None:
        self._enqueue(new)

    def on_delete(self, obj: Any) -> None:
        self._enqueue(obj)


def _check_settings(workers: int, work_time: float, fail_rate: float, max_retries: int) -> None:
    """The controller's numbers, each refused with one line if out of range."""
    if not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers must be a whole number of at least 1, got {workers!r}")
    if not work_time >= 0:
        raise ValueError(f"work time must not be negative, got {work_time!r}")
    if not 0.0 <= fail_rate <= 1.0:
        raise ValueError(f"fail rate must be between 0 and 1, got {fail_rate!r}")
    if not isinstance(max_retries, int) or max_retries < 0:
        raise ValueError(f"max retries must be a whole number of at least 0, got {max_retries!r}")


class SimulatedController:
    """Workers draining a RateLimitingQueue fed by an informer's events.

    ``run(stop_event)`` blocks like client-go's ``Controller.Run``: it starts
    the workers, waits for ``stop_event``, shuts the queue down and joins
    them. Work time is on ``clock``. Workers are numbered from 1.
    """

    def __init__(
        self,
        informer: Any,
        queue: RateLimitingQueue | None = None,
        workers: int = 2,
        work_time: float = 0.2,
        fail_rate: float = 0.0,
        rate_limiter: RateLimiter | None = None,
        clock: Clock | None = None,
        tracer: Tracer | None = None,
        seed: int | None = None,
        name: str = "controller",
        resync_period: float | None = None,
        handler_time: float = 0.0,
        stop_event: threading.Event | None = None,
        handler: Callable[[RateLimitingQueue], Any] | None = None,
        reconcile: Callable[[Any], None] | None = None,
        max_retries: int = 0,
    ) -> None:
        _check_settings(workers, work_time, fail_rate, max_retries)
        if queue is not None:
            clock = clock or queue.clock
            tracer = tracer or queue.tracer
        self.clock = clock or RealClock()
        self.tracer = tracer or NULL_TRACER
        self.queue = (
            queue
            if queue is not None
            else RateLimitingQueue(rate_limiter, name=name, clock=self.clock, tracer=self.tracer)
        )
        self.workers = workers
        self.work_time = float(work_time)
        self.fail_rate = float(fail_rate)
        self.name = name
        self._rng = random.Random(seed)
        self._lock = threading.Lock()
        self._active: dict[Any, int] = {}  # key -> worker holding it
        self.processed = 0
        self.failures = 0
        self.overlaps = 0  # a key seen at two workers at once: must stay 0
        self.max_retries = max_retries  # 0: retry forever
        self.dropped = 0  # keys given up on at max_retries
        # The fail-next experiment: that many items fail whatever the fail rate says.
        self._fail_next = 0
        self._threads: list[threading.Thread] = []
        self.reconcile = reconcile
        self.stale_sync_skips: dict[tuple[str, str], int] = {}  # (group, resource) -> skips
        # ``handler(queue)``: what turns events into keys (several informers:
        # the owner mapping); by default each object's own key.
        self.handler = EnqueueHandler(self.queue) if handler is None else handler(self.queue)
        # A handler lane as --handlers registers them: its resync, its work time.
        self.registration = add_handler(
            informer, name, resync_period, handler_time, inner=self.handler, stop_event=stop_event
        )

    # -- running -----------------------------------------------------------------

    def run(self, stop_event: threading.Event) -> None:
        """Run the workers until ``stop_event`` is set (blocks)."""
        self._threads = [
            threading.Thread(target=self._worker, args=(i, stop_event), name=f"{self.name}-worker-{i}", daemon=True)
            for i in range(1, self.workers + 1)
        ]
        for t in self._threads:
            t.start()
        stop_event.wait()
        self.queue.shut_down()
        for t in self._threads:
            t.join()

    def _worker(self, n: int, stop_event: threading.Event) -> None:
        while self.process_next_work_item(n, stop_event):
            pass

    def pause_workers(self, paused: bool = True) -> None:
        """Hold the queue's gets (an experiment): each worker finishes what it
        holds, then waits; items keep queueing until ``pause_workers(False)``."""
        self.queue.hold(paused)

    @property
    def workers_paused(self) -> bool:
        return self.queue.is_held()

    def fail_next(self, count: int) -> None:
        """The next ``count`` items a worker finishes fail (0: none)."""
        if count < 0:
            raise ValueError(f"count must not be negative, got {count}")
        with self._lock:
            self._fail_next = count

    def failures_to_come(self) -> int:
        with self._lock:
            return self._fail_next

    def process_next_work_item(self, n: int, stop_event: threading.Event | None = None) -> bool:
        """One turn of a worker; False once the queue has shut down."""
        key, shutdown = self.queue.get(worker=n)  # queue.get says which worker
        if shutdown:
            return False
        with self._lock:
            if key in self._active:
                self.overlaps += 1
            self._active[key] = n
        tracer = self.tracer
        outcome = "error"  # until the work says otherwise
        try:
            if self.work_time > 0:
                if stop_event is not None:
                    # Stopping cuts the work short so shutdown never waits
                    # on clock time (a FakeClock may not move again).
                    self.clock.wait_event(stop_event, self.work_time)
                else:
                    self.clock.sleep(self.work_time)
            stale = self._reconcile(key)
            with self._lock:
                failed = stale or self._rng.random() < self.fail_rate
                forced = self._fail_next > 0
                if forced:
                    self._fail_next -= 1
                    failed = True
                left = self._fail_next
                self._active.pop(key, None)
                self.processed += 1
                if failed:
                    self.failures += 1
            if forced:
                tracer.emit(EXPERIMENT_FAILED, _trace_key(key), worker=n, left=left)
            if failed:
                self.handle_err(key, n)
            else:
                self.queue.forget(key)
                outcome = "ok"
        finally:
            # queue.done says which worker finished and how it went.
            self.queue.done(key, worker=n, outcome=outcome)
        return True

    def _reconcile(self, key: Any) -> bool:
        """Run ``reconcile(key)``; True when it was a stale-sync skip."""
        if self.reconcile is None:
            return False
        try:
            self.reconcile(key)
        except ConsistencyError as e:
            gr = (e.group_resource.group, e.group_resource.resource)
            with self._lock:
                self.stale_sync_skips[gr] = self.stale_sync_skips.get(gr, 0) + 1
                total = sum(self.stale_sync_skips.values())
            self.tracer.emit(
                QUEUE_STALE_SKIP,
                _trace_key(key),
                group=gr[0],
                resource=gr[1],
                expected=e.wrote_rv,
                actual=e.read_rv,
                skips=total,
            )
            return True
        return False

    def handle_err(self, key: Any, worker: int) -> None:
        """A failed item: requeued rate-limited while its ``num_requeues`` is
        below ``max_retries`` (or with no limit), else forgotten and reported
        (client-go's ``examples/workqueue`` ``Controller.handleErr``)."""
        limit = self.max_retries
        requeues = self.queue.num_requeues(key)
        if not limit or requeues < limit:
            self.queue.add_rate_limited(key)
            return
        self.queue.forget(key)
        with self._lock:
            self.dropped += 1
        self.tracer.emit(QUEUE_DROPPED, _trace_key(key), requeues=requeues, max_retries=limit, worker=worker)

    def stats(self) -> dict[str, int]:
        with self._lock:
            stats = {
                "processed": self.processed,
                "failures": self.failures,
                "overlaps": self.overlaps,
                "active": len(self._active),
            }
            if self.reconcile is not None:
                stats["stale_sync_skips"] = sum(self.stale_sync_skips.values())
            return stats


# A trace event's key: the builtin (``str(s) is s`` for a str key), no frame of ours.
_trace_key = str
