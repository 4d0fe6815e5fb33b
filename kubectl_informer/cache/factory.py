"""SharedInformerFactory: the informers of one process, one per resource.

A port of client-go's ``informers.SharedInformerFactory`` (factory.go):

- ``informer_for(resource, lw)`` returns the informer of that resource,
  building it the first time only: a resource named twice (``deploy`` and
  ``deployments.apps``, once resolved) is one informer, one watch, one cache
  (client-go's ``InformerFor``, keyed by type; ours by resource id);
- every informer gets the factory's default resync period unless the resource
  has its own (``WithCustomResyncConfig``), and the factory's profile (which
  FIFO, which initial list);
- ``start`` runs each informer not yet started, once (``Start``);
  ``wait_for_cache_sync`` waits for the started ones (``WaitForCacheSync``);
  ``shutdown`` waits for the threads ``start`` made (``Shutdown``).

With more than one informer (``several``), each one traces through an
``InformerTracer``, so every event says which informer emitted it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from kubectl_informer.cache.shared_informer import SharedIndexInformer
from kubectl_informer.cache.store import NAMESPACE_INDEX, meta_namespace_index_func
from kubectl_informer.clock import Clock
from kubectl_informer.core.profiles import Profile
from kubectl_informer.core.trace import NULL_TRACER, InformerTracer, Tracer

# ``start``'s way to run an informer: (name, informer.run) -> a thread running it.
Spawn = Callable[[str, Callable[[threading.Event], Any]], Any]


class SharedInformerFactory:
    def __init__(
        self,
        profile: Profile,
        default_resync: float = 0.0,
        *,
        tracer: Tracer | None = None,
        clock: Clock | None = None,
        several: bool = False,
        page_size: int | None = None,
        custom_resync: dict[str, float] | None = None,
        new_informer: Callable[..., SharedIndexInformer] | None = None,
    ) -> None:
        self.profile = profile
        self.default_resync = float(default_resync or 0.0)
        self.tracer = tracer or NULL_TRACER
        self.clock = clock
        self.several = several
        self.page_size = page_size
        self.custom_resync = dict(custom_resync or {})
        # (lw, profile, resync_period=, clock=, tracer=, page_size=, name=) -> informer:
        # client-go's NewInformerFunc, the one place an informer is built.
        self._new_informer = new_informer or _new_shared_index_informer
        self._lock = threading.Lock()
        self._informers: dict[str, SharedIndexInformer] = {}  # in the order they were asked for
        self._started: set[str] = set()
        self._threads: list[threading.Thread] = []

    def informer_for(self, resource: str, lw: Any) -> SharedIndexInformer:
        """The informer of ``resource``; ``lw`` lists and watches it, and is
        used only when the informer is built (the first call)."""
        with self._lock:
            informer = self._informers.get(resource)
            if informer is not None:
                return informer
            resync = self.custom_resync.get(resource, self.default_resync)
            tracer = InformerTracer(self.tracer, resource) if self.several else self.tracer
            informer = self._new_informer(
                lw,
                self.profile,
                resync_period=resync,
                clock=self.clock,
                tracer=tracer,
                page_size=self.page_size,
                name=f"informer-{resource}" if self.several else "informer",
            )
            # The generated informers' defaultInformer gives every informer
            # cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc}.
            if NAMESPACE_INDEX not in informer.get_indexer().get_indexers():
                informer.add_indexers({NAMESPACE_INDEX: meta_namespace_index_func})
            self._informers[resource] = informer
            return informer

    @property
    def informers(self) -> dict[str, SharedIndexInformer]:
        """resource id -> informer, in the order they were first asked for."""
        with self._lock:
            return dict(self._informers)

    def start(self, stop_event: threading.Event, spawn: Spawn | None = None) -> list[str]:
        """Run every informer not started yet; returns the resources started.
        ``spawn(name, run)`` runs one (the Run's guarded threads); without it
        the factory starts a daemon thread of its own."""
        with self._lock:
            todo = [(r, inf) for r, inf in self._informers.items() if r not in self._started]
            self._started.update(r for r, _ in todo)
        for resource, informer in todo:
            name = "informer" if not self.several else f"informer-{resource}"
            if spawn is not None:
                spawn(name, informer.run)
            else:
                t = threading.Thread(
                    target=informer.run, args=(stop_event,), name=f"kubectl-informer-{name}", daemon=True
                )
                self._threads.append(t)
                t.start()
        return [r for r, _ in todo]

    def wait_for_cache_sync(
        self, stop_event: threading.Event, timeout: float | None = None, poll: float = 0.01
    ) -> dict[str, bool]:
        """Wait until every started informer has synced, ``stop_event`` is set,
        or ``timeout`` passes; resource -> has_synced (started ones only)."""
        import time

        deadline = None if timeout is None else time.monotonic() + timeout
        with self._lock:
            started = {r: self._informers[r] for r in self._started}
        while not all(inf.has_synced() for inf in started.values()):
            if stop_event.is_set() or (deadline is not None and time.monotonic() >= deadline):
                break
            stop_event.wait(poll)
        return {r: inf.has_synced() for r, inf in started.items()}

    def shutdown(self, timeout: float = 5.0) -> None:
        """Wait for the threads ``start`` made itself (the caller sets the stop event)."""
        for t in self._threads:
            t.join(timeout)


def _new_shared_index_informer(lw: Any, profile: Profile, *, resync_period: float, **kw: Any) -> SharedIndexInformer:
    return SharedIndexInformer(lw, resync_period, profile=profile, **kw)
