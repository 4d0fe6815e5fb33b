"""``kubectl informer watch RESOURCE [NAME]``: an informer on RESOURCE, every step shown."""

from __future__ import annotations

from typing import Any

import click
from click.core import ParameterSource

from kubectl_informer.cli import execute as execute_mod  # looked up per call: docshots swaps execute
from kubectl_informer.cli import params
from kubectl_informer.cli.command import KubectlCommand, debug_option
from kubectl_informer.cli.options import (
    check_output_flags,
    connection_options,
    handler_options,
    output_options,
    profile_options,
    read_config,
    swap_demo_resource,
)
from kubectl_informer.cli.queue import DEFAULT_WORKERS

# `watch --demo` in the UI: what a first screen needs to fill every pane (a
# resync fills Resync with ticks, a workqueue fills Queue); a flag given wins.
DEMO_RESYNC = 5.0

_WORKQUEUE = click.option(
    "--workqueue/--no-workqueue",
    "workqueue",
    default=None,
    help="Feed the handler's keys into a workqueue drained by 2 simulated workers, as `queue` does "
    "(default: on with --demo in the live UI, else off).",
)

EXAMPLES = """
# Pods of the current namespace in the live UI
kubectl informer watch pods

# One deployment, all its deltas with their diffs, as text
kubectl informer watch deployments.apps web -o text

# Every namespace, resync every 10s, RealFIFO and WatchList (client-go 1.35)
kubectl informer watch pods -A --resync 10s --client-go 1.35

# Why a 3s resync fires every 4s: a handler added after start (Resync pane)
kubectl informer watch pods --demo quiet --resync 4s --late-handler-resync 3s

# The trace as NDJSON, recorded for `kubectl informer replay`
kubectl informer watch pods -o json --duration 1m > trace.ndjson

# The simulated cluster with a burst on one key (coalescing in the FIFO)
kubectl informer watch pods --demo burst

# Three informers in one run, one shared factory
kubectl informer watch deploy,rs,pods -o text
"""


@click.command(
    cls=KubectlCommand,
    usage="RESOURCE[,RESOURCE...] [NAME] [options]",
    help="Run an informer on RESOURCE and show every step: list or WatchList, watch events, the "
    "FIFO's deltas, the cache, resourceVersions and resyncs. NAME narrows it to one object. "
    "Several resources, comma-separated, run one informer each from one shared factory.",
    examples=EXAMPLES,
)
@click.argument("resource", required=False, callback=params.RESOURCE_LIST)
@click.argument("name", required=False, callback=params.OBJECT_NAME)
@connection_options
@profile_options
@handler_options
@_WORKQUEUE
@output_options
@debug_option
def watch(
    resource: str | None,
    name: str | None,
    output: str,
    run_for: float | None,
    max_events: int | None,
    record: str | None,
    workqueue: bool | None,
    **flags: Any,
) -> int:
    resource, flags["demo"] = swap_demo_resource(resource, flags["demo"])
    if resource is None:
        raise click.UsageError("you must specify the type of resource to watch, e.g. pods or deployments.apps")
    check_output_flags(output, run_for, max_events)
    first_screen = flags["demo"] is not None and output == "tui"
    if first_screen and click.get_current_context().get_parameter_source("resync") is ParameterSource.DEFAULT:
        flags["resync"] = DEMO_RESYNC
    resource, *owns = params.split_resources(resource)
    if first_screen if workqueue is None else workqueue:
        config = read_config(
            "queue",
            resource,
            name,
            workers=DEFAULT_WORKERS,
            work_time=0.2,
            fail_rate=0.0,
            rate_limiter="default",
            owns=owns,
            **flags,
        )
    else:
        config = read_config("watch", resource, name, owns=owns, **flags)
    return execute_mod.execute(
        config, output, run_for=run_for, max_events=max_events, start_pane="deltas", record=record
    )
