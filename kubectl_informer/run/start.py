"""``Run.start``'s steps: a prepared run's informers built (one factory, a
transform and the ``--index`` indexers on each), their handler lanes, the
sample controller on the queue resource's informer, the Server pane's poller,
and the threads that run them, as client-go starts a factory's informers and
a controller's workers on goroutines.

Each step takes the ``Run`` (run/runner.py), named for the type checker only:
runner imports this module.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from kubectl_informer.run.errors import RunError

if TYPE_CHECKING:
    from kubectl_informer.cache.factory import SharedInformerFactory
    from kubectl_informer.cache.shared_informer import SharedIndexInformer
    from kubectl_informer.core.trace import Tracer
    from kubectl_informer.kube.config import KubeTarget
    from kubectl_informer.run.config import RunConfig, Workqueue
    from kubectl_informer.run.handler_lanes import HandlerSpec
    from kubectl_informer.run.runner import Run
    from kubectl_informer.run.server_poll import ServerPoller


def start_pipeline(run: Run, target: KubeTarget) -> None:
    """Build ``run``'s pipeline on its prepared ``watched`` resources and
    start its threads; with a fresh run, wait for its first list and watch
    (``first_contact.check``)."""
    o = run.config
    from kubectl_informer.run import informers as wiring
    from kubectl_informer.run.handler_lanes import add_handler
    from kubectl_informer.run.staleness import name_informers, store_rv_sampler

    factory = run.factory = wiring.build_factory(
        run.watched, o.profile, o.resync, run.tracer, run.clock, _transform_for(o), o.indexes
    )
    every = factory.informers
    informer = run.informer = every[run.watched[0].id]
    run.informer_name = name_informers(run.watched, every)
    lanes = run.handler_specs()
    if o.queue is not None:
        first, lanes = lanes[0], lanes[1:]
        _start_controller(run, o.queue, first, factory, informer)
    for each in every.values():
        for lane in lanes:
            add_handler(each, lane.name, lane.resync, lane.work_time, stop_event=run.stop_event)
    poller = _server_poller(run, target, factory)  # before the informers: it watches for our first watch
    factory.start(run.stop_event, spawn=run.spawn)
    if poller is not None:
        run.spawn("server", poller.run)
    if run.controller is not None:
        run.spawn("controller", run.controller.run)
    run.spawn("store-rv", store_rv_sampler(run).run)
    if o.late_handler_resync is not None:
        _add_late_handler(run, informer, o.late_handler_resync)
    if not run.probe_first:
        from kubectl_informer.run.first_contact import check

        check(run, run.first_contact_wait, RunError)


def _start_controller(
    run: Run, q: Workqueue, lane: HandlerSpec, factory: SharedInformerFactory, informer: SharedIndexInformer
) -> None:
    """The sample controller on the queue resource's informer, its lane
    (``lane``) on each other informer with the controller shape's handler."""
    from kubectl_informer.run import informers as wiring
    from kubectl_informer.run.sample_controller import SimulatedController
    from kubectl_informer.run.staleness import stale_reconcile

    shape = None
    if len(run.watched) > 1:
        try:
            shape = wiring.ControllerShape(run.watched, factory, run.config.controller, run.tracer)
        except ValueError as e:
            raise RunError(str(e)) from None
    queue = wiring.shape_queue(run.config.controller, run.rate_limiter, informer.clock, run.tracer)
    controller = run.controller = SimulatedController(
        informer,
        queue,
        workers=q.workers,
        work_time=q.work_time,
        fail_rate=q.fail_rate,
        rate_limiter=run.rate_limiter,
        tracer=run.tracer,
        seed=q.seed,
        resync_period=lane.resync,
        handler_time=lane.work_time,
        stop_event=run.stop_event,
        clock=informer.clock,
        handler=wiring.controller_handler(shape),
        reconcile=stale_reconcile(run),
        max_retries=q.max_retries,
    )
    if shape is not None:
        wiring.wire_owned(run.watched, factory, shape, controller.queue, lane, run.stop_event)


def _server_poller(run: Run, target: KubeTarget, factory: SharedInformerFactory) -> ServerPoller | None:
    """The Server pane's poller (run/server_poll.py): the simulator's
    watch cache on a --demo or a kubeconfig that names the simulator,
    the API server's /metrics elsewhere; none with --server-scrape 0.
    One target per informer, the queue's first: each has its own "ours"."""
    if not run.config.server_scrape:
        return None
    from kubectl_informer.run.server_poll import ServerPoller, Target

    sim = run.demo is not None or bool(target.simulator)
    several = len(run.watched) > 1
    targets = [
        Target(
            getattr(w.resource, "group", "") or "",
            w.resource.resource,
            w.id if several else None,
            factory.informers[w.id].last_sync_resource_version,
        )
        for w in run.watched
    ]
    return ServerPoller(
        target.api_client,
        run.tracer,
        mode="sim" if sim else "metrics",
        interval=None if sim else run.config.server_scrape,
        clock=run.clock,
        targets=targets,
    )


def _transform_for(o: RunConfig) -> Any:
    """The chain a resource's FIFO applies (client-go's SetTransform),
    measured on a sample (traced through its informer's tracer) so the Cache
    pane can show bytes held and saved: ``(resource, tracer) -> transform``."""
    from kubectl_informer.run.transforms import MeasuredTransform, build_steps

    def transform(resource: Any, tracer: Tracer) -> MeasuredTransform:
        is_secret = getattr(resource, "resource", "") == "secrets" and not getattr(resource, "group", "")
        steps = build_steps(o.strip_managed_fields, list(o.drop_paths), is_secret, o.show_secret_data)
        return MeasuredTransform(steps, tracer)

    return transform


def _add_late_handler(run: Run, informer: SharedIndexInformer, period: float) -> None:
    """Register a handler once the informer runs, as a controller that
    starts late does: client-go raises a period below the check period."""
    deadline = time.monotonic() + 10.0
    while not (informer.has_started() or run.stop_event.is_set()):
        if time.monotonic() >= deadline:
            raise RunError("the informer did not start within 10s")
        run.stop_event.wait(0.005)
    if not run.stop_event.is_set():
        from kubectl_informer.run.handler_lanes import add_handler

        add_handler(informer, "late-handler", period, stop_event=run.stop_event)
