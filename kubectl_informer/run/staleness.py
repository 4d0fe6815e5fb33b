"""The parts of a run that client-go 1.36's staleness features need:
informer identities (for the ``informer_*`` metrics) and, on ``--demo
stale``, the controller's writing reconcile with its ConsistencyStore."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from kubectl_informer.run.errors import RunError

if TYPE_CHECKING:
    from kubectl_informer.run.consistency import SwitchableConsistency
    from kubectl_informer.run.replica_sync import ReplicaSync
    from kubectl_informer.run.runner import Run
    from kubectl_informer.run.store_rv import StoreRVSampler

INFORMER_NAME = "kubectl-informer"


def name_informers(watched: list, informers: dict) -> Any:
    """client-go 1.36's informer identity: the process-wide name
    ``kubectl-informer`` (as kube-controller-manager reserves its own), one
    reserved identity per resource, so ``--metrics-addr`` serves ``informer_*``
    series for each. Returns the InformerName (released when the run stops,
    so a restart reuses it), or None if another run of this process holds it
    (then no metrics, as a duplicate gets none in client-go)."""
    from kubectl_informer.cache.informer_metrics import (
        GroupVersionResource,
        informer_metrics_provider,
        new_informer_name,
    )

    try:
        name = new_informer_name(INFORMER_NAME)
    except ValueError:
        return None
    # Passed explicitly (SharedIndexInformerOptions.InformerMetricsProvider): a store
    # given none publishes no RV, which is kube-controller-manager 1.36's case.
    provider = informer_metrics_provider()
    for w in watched:
        r = w.resource
        gvr = GroupVersionResource(getattr(r, "group", "") or "", getattr(r, "version", "") or "", r.resource)
        informers[w.id].set_identifier(name.with_resource(gvr), provider)
    return name


def replica_sync(run: Run) -> tuple[SwitchableConsistency, ReplicaSync] | None:
    """``--demo stale``: ``(consistency, ReplicaSync)``, the controller's
    reconcile writing to the simulator in this process (never to a real
    cluster); None for any other run."""
    queue = run.config.queue
    if run.config.demo != "stale" or run.demo is None or queue is None:
        return None
    from kubectl_informer.run.consistency import SwitchableConsistency
    from kubectl_informer.run.replica_sync import PODS, REPLICASETS, ReplicaSync

    every = run.informers()
    if run.watched[0].id != "replicasets.apps" or "pods" not in every:
        raise RunError(
            "the stale demo's controller manages ReplicaSets and their pods: "
            "run `kubectl informer queue replicasets --owns pods --demo stale`"
        )
    rs, pods = every["replicasets.apps"].get_store(), every["pods"].get_store()
    consistency = SwitchableConsistency({PODS: pods, REPLICASETS: rs}, queue.consistency)
    return consistency, ReplicaSync(run.demo.server.store, rs, pods, consistency, run.tracer)


def store_rv_sampler(run: Run) -> StoreRVSampler:
    """Each informer's store RV against the server's (exact on the simulator)."""
    from kubectl_informer.run.store_rv import StoreRVSampler

    sim = run.demo.server.store.current_rv if run.demo is not None else None
    return StoreRVSampler(run.informers(), sim)


def stale_reconcile(run: Run) -> Callable[[Any], None] | None:
    """The sample controller's reconcile on ``--demo stale`` (its ReplicaSync,
    kept on the run with its ConsistencyStore for ``:consistency``); None
    elsewhere, where the controller only sleeps its work time."""
    made = replica_sync(run)
    if made is None:
        return None
    run.consistency, run.replica_sync = made
    return run.replica_sync.sync
