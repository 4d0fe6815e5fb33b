"""``kubectl informer queue [RESOURCE]``: the informer feeding a rate-limited
workqueue drained by simulated workers (client-go's sample-controller)."""

from __future__ import annotations

from typing import Any

import click

from kubectl_informer.cli import execute as execute_mod  # looked up per call: docshots swaps execute
from kubectl_informer.cli import params
from kubectl_informer.cli.command import DURATION, F, KubectlCommand, debug_option
from kubectl_informer.cli.options import (
    check_output_flags,
    connection_options,
    decorate,
    handler_options,
    output_options,
    profile_options,
    read_config,
    swap_demo_resource,
)

# sample-controller (client-go's reference controller) runs 2 workers; the
# client-go workqueue example and controller-runtime run 1.
DEFAULT_WORKERS = 2

_METRICS_ADDR = click.option(
    "--metrics-addr",
    metavar="HOST:PORT",
    default=None,
    help="Serve the queue's metrics with client-go's names at http://HOST:PORT/metrics "
    "(for `kubectl informer attach` or Prometheus).",
)


def worker_options(f: F) -> F:
    """The simulated workers: how many, how long an item takes, how it fails and is retried."""
    opts = [
        click.option(
            "--workers",
            type=params.WORKERS,
            default=DEFAULT_WORKERS,
            show_default=True,
            metavar="N",
            help="Worker threads draining the queue (sample-controller runs 2).",
        ),
        click.option(
            "--work-time",
            type=DURATION,
            default="200ms",
            show_default=True,
            help="How long each item takes to process.",
        ),
        click.option(
            "--fail-rate",
            type=params.FAIL_RATE,
            default=0.0,
            show_default=True,
            metavar="RATE",
            help="Fraction of items whose processing fails and is requeued rate-limited (0..1).",
        ),
        click.option(
            "--max-retries",
            type=params.MAX_RETRIES,
            default=0,
            show_default=True,
            metavar="N",
            help="Give up on a key that failed with N requeues: Forget it and report the error instead of "
            "requeueing it (NumRequeues checked, as client-go's examples/workqueue does with 5). 0 retries forever, as "
            "sample-controller does.",
        ),
        click.option(
            "--rate-limiter",
            type=params.RATE_LIMITER,
            default="default",
            show_default=True,
            metavar="SPEC",
            help="default | exponential:BASE,MAX | fastslow:FAST,SLOW,N | bucket:QPS,BURST.",
        ),
    ]
    return decorate(f, opts)


def controller_options(f: F) -> F:
    """The controller's shape: controller-runtime's Owns(), kube-controller-manager's Deployment controller."""
    opts = [
        click.option(
            "--owns",
            "owns",
            metavar="RESOURCE",
            multiple=True,
            callback=params.OWNED,
            help="Also inform on RESOURCE (repeatable, or comma-separated) and enqueue, for each of its events, "
            "the name its controller ownerReference gives when that reference is to RESOURCE's kind "
            "(controller-runtime's Owns: EnqueueRequestForOwner with OnlyControllerOwner; one reference, "
            "never two).",
        ),
        click.option(
            "--controller",
            "controller",
            metavar="NAME",
            type=click.Choice(["deployment", "deployment-controller"]),
            default=None,
            help="Take the shape of kube-controller-manager's controller NAME (as its --controllers names "
            "it): deployment (or deployment-controller) runs informers on deployments, replicasets and pods "
            "with the Deployment controller's handlers (addReplicaSet, updateReplicaSet, deletePod...). "
            "RESOURCE defaults to deployments.",
        ),
        click.option(
            "--consistency",
            type=click.Choice(["on", "off"]),
            default="on",
            show_default=True,
            help="--demo stale: the controller's read-your-own-writes check (kube-controller-manager 1.36's "
            "ConsistencyStore): skip a sync while the cache has not read the controller's own writes. "
            ":consistency on|off switches it live.",
        ),
    ]
    return decorate(f, opts)


EXAMPLES = """
# Resync every 3s: watch Sync deltas become queue adds that dedupe
kubectl informer queue --resync 3s

# 4 slow workers, 20% failures retried with exponential back-off
kubectl informer queue pods --workers 4 --work-time 1s --fail-rate 0.2 --rate-limiter exponential:5ms,1000s

# A token bucket of 10 qps, burst 100, on the simulated cluster
kubectl informer queue --rate-limiter bucket:10,100 --demo

# controller-runtime's For(&Deployment{}).Owns(&ReplicaSet{}): a ReplicaSet's events queue its Deployment
kubectl informer queue deployments --owns replicasets

# kube-controller-manager's Deployment controller: its three informers and exactly its handlers
kubectl informer queue --controller deployment

# Is the controller acting on a stale cache? Pod watch events arrive 2s late
kubectl informer queue replicasets --owns pods --demo stale --client-go 1.36
"""


@click.command(
    cls=KubectlCommand,
    usage="[RESOURCE] [options]",
    short_help="Feed RESOURCE's informer into a workqueue and show its queued, dirty, processing and waiting items",
    help="Feed RESOURCE's informer into a rate-limited workqueue drained by simulated workers, and "
    "show queued, dirty, processing and waiting items, requeues and the workqueue metrics. "
    "RESOURCE defaults to pods. Two controller shapes run informers on other resources too, "
    "from one shared factory: --owns is controller-runtime's Owns() (an owned object's event "
    "enqueues the RESOURCE its controller ownerReference names), --controller deployment is "
    "kube-controller-manager's Deployment controller (its informers and handlers).",
    examples=EXAMPLES,
)
@click.argument("resource", required=False, callback=params.QUEUE_RESOURCE)
@connection_options
@profile_options
@worker_options
@controller_options
@handler_options
@_METRICS_ADDR
@output_options
@debug_option
def queue(
    resource: str | None,
    output: str,
    run_for: float | None,
    max_events: int | None,
    record: str | None,
    metrics_addr: str | None,
    consistency: str,
    **flags: Any,
) -> int:
    resource, flags["demo"] = swap_demo_resource(resource, flags["demo"])
    if flags["demo"] == "stale" and resource is None and not flags.get("owns"):
        # The stale demo's controller is a ReplicaSet controller.
        resource, flags["owns"] = "replicasets", ("pods",)
    flags["consistency"] = consistency == "on"
    check_output_flags(output, run_for, max_events)
    _check_metrics_addr(metrics_addr)
    default = "deployments" if flags.get("controller") else "pods"
    config = read_config("queue", resource or default, metrics_addr=metrics_addr, **flags)
    return execute_mod.execute(
        config, output, run_for=run_for, max_events=max_events, start_pane="queue", record=record
    )


def _check_metrics_addr(addr: str | None) -> None:
    if addr is None:
        return
    from kubectl_informer.attach.exporter import parse_metrics_addr

    try:
        _host, port = parse_metrics_addr(addr)
    except ValueError as e:
        raise click.BadParameter(
            str(e).removeprefix(f'--metrics-addr "{addr}" '), param_hint="'--metrics-addr'"
        ) from None
    if port == 0:
        raise click.BadParameter("needs a port to serve on, e.g. 127.0.0.1:9100", param_hint="'--metrics-addr'")
