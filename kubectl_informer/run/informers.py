"""The informers of one run: each resource the command line names, resolved
once, and one SharedInformerFactory that builds one informer per resource
(``queue --controller deployment``, ``queue deployments --owns replicasets``,
``watch deploy,rs,pods``).

The first resource is the queue's: its informer is ``Run.informer`` (what
the experiments and the panes that show one informer act on), and the
workqueue holds its keys; the others' events reach it through the
controller's handlers, in one of two shapes (``ControllerShape``).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from kubectl_informer.cache.factory import SharedInformerFactory
from kubectl_informer.clock import Clock
from kubectl_informer.core.profiles import Profile
from kubectl_informer.core.scope import Scope
from kubectl_informer.core.trace import Tracer
from kubectl_informer.run.deployment_controller import DeploymentController, add_pod_controller_indexer
from kubectl_informer.run.handler_lanes import HandlerSpec, add_handler
from kubectl_informer.run.owners import Followed, ForObjectHandler, ForOwnerHandler

if TYPE_CHECKING:
    from kubectl_informer.workqueue.rate_limiters import RateLimiter
    from kubectl_informer.workqueue.rate_limiting import RateLimitingQueue


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


def build_factory(
    watched: list[Watched],
    profile: Profile,
    resync: float,
    tracer: Tracer,
    clock: Clock | None,
    transform_for: Callable[[Any, Tracer], Any],
    indexes: tuple = (),
) -> SharedInformerFactory:
    """The factory with an informer for each resource, its transform set
    (``transform_for(resource, that informer's tracer)``) and the
    ``--index`` IndexFuncs added to its indexer (``indexes``: IndexSpecs)."""
    from kubectl_informer.run import pipeline  # looked up per run: tests wrap new_informer

    factory = SharedInformerFactory(
        profile, resync, tracer=tracer, clock=clock, several=len(watched) > 1, new_informer=pipeline.new_informer
    )
    for w in watched:
        informer = factory.informer_for(w.id, w.lw)
        informer.set_transform(transform_for(w.resource, informer.tracer))
        if indexes:
            informer.add_indexers({spec.name: spec.index_func() for spec in indexes})
    return factory


def followed(watched: list[Watched], factory: SharedInformerFactory) -> list[Followed]:
    """Each informer as the controller's handlers see it, the queue's first."""
    informers = factory.informers
    return [
        Followed(
            w.id,
            w.resource.kind,
            getattr(w.resource, "group", ""),
            bool(w.resource.namespaced),
            informers[w.id].indexer,
        )
        for w in watched
    ]


class ControllerShape:
    """The controller's handler on each informer of a run with several:
    controller-runtime's For/Owns (``owners.py``) or, with ``controller``
    "deployment", kube-controller-manager's Deployment controller
    (``deployment_controller.py``). ``handler(resource, queue)``."""

    def __init__(
        self, watched: list[Watched], factory: SharedInformerFactory, controller: str | None, tracer: Tracer
    ) -> None:
        self.followed = {f.resource: f for f in followed(watched, factory)}
        self.queue_resource = watched[0].id
        self.controller, self.tracer = controller, tracer
        self._kcm: dict[int, DeploymentController] = {}
        if controller == "deployment":
            ids = tuple(self.followed)
            if ids != ("deployments.apps", "replicasets.apps", "pods"):
                raise ValueError(
                    f"--controller deployment needs deployments.apps, replicasets.apps and pods; "
                    f"the server gave {', '.join(ids)}"
                )
            add_pod_controller_indexer(factory.informers["pods"])
        elif controller is not None:
            raise ValueError(f"no controller shape {controller!r}")

    def handler(self, resource: str, queue: Any) -> Any:
        f = self.followed
        if self.controller == "deployment":
            kcm = self._kcm.get(id(queue))
            if kcm is None:
                kcm = self._kcm[id(queue)] = DeploymentController(
                    f["deployments.apps"], f["replicasets.apps"], f["pods"], queue, self.tracer
                )
            return kcm.handler_for(resource)
        if resource == self.queue_resource:
            return ForObjectHandler(f[resource], queue, self.tracer)
        return ForOwnerHandler(f[self.queue_resource], f[resource], queue, self.tracer)


def shape_queue(
    controller: str | None, rate_limiter: RateLimiter | None, clock: Clock | None, tracer: Tracer
) -> RateLimitingQueue | None:
    """The workqueue of a kube-controller-manager shape, named as its controller names
    it (NewDeploymentController: "deployment", the name its metrics carry); None: the
    sample controller's own."""
    if controller is None:
        return None
    from kubectl_informer.workqueue.rate_limiting import RateLimitingQueue

    return RateLimitingQueue(rate_limiter, name=controller, clock=clock, tracer=tracer)


def controller_handler(shape: ControllerShape | None) -> Callable[[Any], Any] | None:
    """``SimulatedController``'s ``handler(queue)`` for the queue resource's
    informer: the shape's with several informers, else its own."""
    if shape is None:
        return None
    return lambda queue: shape.handler(shape.queue_resource, queue)


def wire_owned(
    watched: list[Watched],
    factory: SharedInformerFactory,
    shape: ControllerShape,
    queue: Any,
    lane: HandlerSpec,
    stop_event: threading.Event,
) -> None:
    """The controller's lane on every informer but the queue's, with the
    shape's handler for it."""
    informers = factory.informers
    for w in watched[1:]:
        add_handler(
            informers[w.id],
            lane.name,
            lane.resync,
            lane.work_time,
            inner=shape.handler(w.id, queue),
            stop_event=stop_event,
        )
