"""The informers of one run: each resource the command line names, resolved
once, and one SharedInformerFactory that builds one informer per resource
(``queue deployments --owns replicasets --owns pods``, ``watch deploy,rs,pods``).

The first resource is the queue's: its informer is ``Run.informer`` (what
the experiments and the panes that show one informer act on), and the
workqueue holds its keys; the others map into it through ownerReferences
(``owners.py``).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any, Callable

from kubectl_informer.cache.factory import SharedInformerFactory
from kubectl_informer.clock import Clock
from kubectl_informer.core.profiles import Profile
from kubectl_informer.core.scope import Scope
from kubectl_informer.core.trace import Tracer
from kubectl_informer.run.handler_lanes import HandlerSpec, add_handler
from kubectl_informer.run.owners import Followed, OwnerEnqueueHandler, OwnerMapper


def resource_id(resource: Any) -> str:
    """The resource as kubectl names it fully: its plural, with its group
    when it has one ("deployments.apps", "pods", "widgets.example.com")."""
    group = getattr(resource, "group", "")
    return f"{resource.resource}.{group}" if group else resource.resource


@dataclass(frozen=True)
class Watched:
    """One resource of the run: discovery's answer for it, its scope
    resolved for it, and the lister-watcher of its informer."""

    resource: Any
    scope: Scope
    lw: Any

    @property
    def id(self) -> str:
        return resource_id(self.resource)


def distinct(watched: list[Watched]) -> list[Watched]:
    """One per resource however many times it was named (``deploy`` and
    ``deployments.apps`` are one), in the order first named."""
    seen: dict[str, Watched] = {}
    for w in watched:
        seen.setdefault(w.id, w)
    return list(seen.values())


def build_factory(watched: list[Watched], profile: Profile, resync: float, tracer: Tracer, clock: Clock | None,
                  transform_for: Callable[[Any, Tracer], Any]) -> SharedInformerFactory:
    """The factory with an informer for each resource, its transform set
    (``transform_for(resource, that informer's tracer)``)."""
    from kubectl_informer.run import pipeline  # looked up per run: tests wrap new_informer
    factory = SharedInformerFactory(profile, resync, tracer=tracer, clock=clock, several=len(watched) > 1,
                                    new_informer=pipeline.new_informer)
    for w in watched:
        informer = factory.informer_for(w.id, w.lw)
        informer.set_transform(transform_for(w.resource, informer.tracer))
    return factory


def owner_mapper(watched: list[Watched], factory: SharedInformerFactory) -> OwnerMapper:
    """The mapping from every informer's objects to the first resource's keys."""
    informers = factory.informers
    followed = [Followed(w.id, w.resource.kind, getattr(w.resource, "group", ""), bool(w.resource.namespaced),
                         informers[w.id].indexer) for w in watched]
    return OwnerMapper(followed, watched[0].id)


def controller_handler(mapper: OwnerMapper | None, resource: str, tracer: Tracer):
    """``SimulatedController``'s ``handler(queue)`` for the queue resource's
    informer: the owner mapping's with several informers, else its own."""
    if mapper is None:
        return None
    return lambda queue: OwnerEnqueueHandler(mapper, resource, queue, tracer)


def wire_owned(watched: list[Watched], factory: SharedInformerFactory, mapper: OwnerMapper, queue: Any,
               lane: HandlerSpec, tracer: Tracer, stop_event: threading.Event) -> None:
    """The controller's lane on every informer but the queue's: its events
    enqueue the queue resource's keys their owners lead to."""
    informers = factory.informers
    for w in watched[1:]:
        add_handler(informers[w.id], lane.name, lane.resync, lane.work_time,
                    inner=OwnerEnqueueHandler(mapper, w.id, queue, tracer), stop_event=stop_event)
