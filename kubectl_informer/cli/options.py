"""The flags ``watch`` and ``queue`` share, and the one place they are read
into the run's config (``read_config``).

Each group of click options (connection, profile, handlers, output) is a
decorator; a flag's value is checked by its click type or callback where it
is declared (``params.py``), so a bad one is a usage error before anything runs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import click

from kubectl_informer.cli import connection, params
from kubectl_informer.cli.command import DURATION, POSITIVE_DURATION, REQUEST_TIMEOUT, F, command_line
from kubectl_informer.core.profiles import DEFAULT_CLIENT_GO, PROFILES

if TYPE_CHECKING:  # read_config imports it: --help, version and a usage error never build one
    from kubectl_informer.core.jsonpath import IndexSpec
    from kubectl_informer.run.config import RunConfig

DEFAULT_SCENARIO = "steady"


def decorate(f: F, opts: Sequence[Callable[[F], F]]) -> F:
    """Apply a group of click options to ``f``, listed in the order --help shows them."""
    for o in reversed(opts):
        f = o(f)
    return f


def connection_options(f: F) -> F:
    opts = [
        click.option(
            "-n",
            "--namespace",
            metavar="NS",
            callback=params.NAMESPACE,
            help="Namespace to watch (default: the context's, else default).",
        ),
        click.option("-A", "--all-namespaces", is_flag=True, help="Watch the resource across all namespaces."),
        click.option(
            "-l",
            "--selector",
            "label_selector",
            type=params.LABEL_SELECTOR,
            metavar="SELECTOR",
            help="Label selector, e.g. app=web,tier!=db.",
        ),
        click.option(
            "--field-selector",
            type=params.FIELD_SELECTOR,
            metavar="SELECTOR",
            help="Field selector, e.g. status.phase=Running.",
        ),
        click.option("--context", metavar="NAME", help="The kubeconfig context to use."),
        click.option(
            "--kubeconfig", metavar="FILE", help="Path to the kubeconfig file (default: $KUBECONFIG or ~/.kube/config)."
        ),
        click.option(
            "--request-timeout",
            "request_timeout",
            type=REQUEST_TIMEOUT,
            default="0",
            show_default=True,
            help="How long to wait for one request (discovery, each list page) before giving up, as "
            "kubectl's flag: seconds (1) or a duration (1s, 2m); 0: no limit. Watches are not cut by it.",
        ),
        *connection.connection_flags(),
        click.option(
            "--server-scrape",
            "server_scrape",
            type=DURATION,
            default="10s",
            show_default=True,
            help="How often the Server pane reads the API server's /metrics (one GET at a time; "
            "0: never). On --demo it reads the simulator's watch cache twice a second.",
        ),
        click.option(
            "--demo",
            "demo",
            is_flag=False,
            flag_value=DEFAULT_SCENARIO,
            default=None,
            metavar="[SCENARIO]",
            help="Run against the built-in simulated cluster (real HTTP on 127.0.0.1); "
            f"SCENARIO defaults to {DEFAULT_SCENARIO}.",
        ),
    ]
    return decorate(f, opts)


def _drop_paths(ctx: click.Context, param: click.Parameter, values: tuple[str, ...] | None) -> list[str]:
    from kubectl_informer.run.transforms import parse_transform

    paths: list[str] = []
    for spec in values or ():
        try:
            paths += parse_transform(spec)
        except ValueError as e:
            raise click.BadParameter(str(e).removeprefix(f'invalid --transform "{spec}": '), ctx, param) from None
    return paths


def _indexes(ctx: click.Context, param: click.Parameter, values: tuple[str, ...]) -> tuple[IndexSpec, ...]:
    from kubectl_informer.core.jsonpath import parse_index

    specs: list[IndexSpec] = []
    for text in values:
        try:
            spec = parse_index(text)
        except ValueError as e:
            raise click.BadParameter(str(e), ctx, param) from None
        if any(s.name == spec.name for s in specs):
            raise click.BadParameter(f"{spec.name!r} given twice", ctx, param)
        specs.append(spec)
    return tuple(specs)  # RunConfig is frozen: a tuple, as its other repeatables


def profile_options(f: F) -> F:
    """Which client-go machinery runs, and what its cache is given to hold."""
    return decorate(f, _machinery_flags() + _cache_flags())


def _machinery_flags() -> list:
    """Resync periods, the client-go profile and the overrides of what it runs."""
    return [
        click.option(
            "--resync",
            type=DURATION,
            default="0s",
            show_default=True,
            help="Resync period of the informer and its handler (0: off, as client-go's default; "
            "`watch --demo` in the live UI resyncs every 5s unless this is given).",
        ),
        click.option(
            "--late-handler-resync",
            "late_handler_resync",
            type=DURATION,
            default=None,
            metavar="DURATION",
            help="Also add a handler with this resync period after the informer has started, as a "
            "controller that registers late does: a period below --resync is raised to it "
            "(the 3s-asked, 4s-got case).",
        ),
        click.option(
            "--client-go",
            "client_go",
            type=params.CLIENT_GO,
            default=DEFAULT_CLIENT_GO,
            show_default=True,
            metavar="|".join(PROFILES),
            help="Which client-go's machinery to run: 1.32 DeltaFIFO+LIST, 1.35 RealFIFO+WatchList, "
            "1.36 atomic RealFIFO (other 1.x minors map to what that release ran).",
        ),
        click.option("--fifo", type=click.Choice(("delta", "real")), default=None, help="Override the profile's FIFO."),
        click.option(
            "--watch-list/--no-watch-list",
            "watch_list",
            default=None,
            help="Override the profile's initial list (WatchList stream or paged LIST).",
        ),
        click.option(
            "--fifo-known-objects/--no-fifo-known-objects",
            "fifo_known_objects",
            default=None,
            help="Give the DeltaFIFO the indexer as its known objects, as every shared informer does "
            "(the default); --no-fifo-known-objects runs it without them, to show why: a relist "
            "then cannot queue a Deleted for a key that vanished, nor the watch one for a key "
            "already popped, and resync queues nothing. DeltaFIFO only.",
        ),
    ]


def _cache_flags() -> list:
    """What the cache holds: metadata only, transforms before the FIFO, extra indexes."""
    return [
        click.option(
            "--metadata-only",
            is_flag=True,
            help="List and watch objects as PartialObjectMetadata, as client-go's metadatainformer: "
            "the cache holds only metadata.",
        ),
        click.option(
            "--strip-managed-fields",
            is_flag=True,
            help="A transform (client-go's SetTransform) that drops metadata.managedFields before the "
            "FIFO; the Cache pane shows what it saves.",
        ),
        click.option(
            "--transform",
            "drop_paths",
            metavar="drop=PATH,...",
            multiple=True,
            callback=_drop_paths,
            help="A transform that drops these dotted fields before the FIFO, e.g. "
            "drop=status.conditions,metadata.annotations (repeatable).",
        ),
        click.option(
            "--index",
            "indexes",
            metavar="NAME=JSONPATH",
            multiple=True,
            callback=_indexes,
            help="Add an index to the informer's indexer, e.g. byNode=spec.nodeName or "
            "'byImage={.spec.containers[*].image}' (repeatable; the namespace index is built in). "
            "The Cache pane's v shows its values and the keys under each (ByIndex).",
        ),
    ]


def handler_options(f: F) -> F:
    from kubectl_informer.run.handler_lanes import MAX_HANDLERS

    opts = [
        click.option(
            "--handlers",
            type=click.IntRange(1, MAX_HANDLERS),
            default=None,
            metavar="N",
            help="Register N event handlers (default 1; queue: the first is the controller's), each "
            "with its own listener thread and buffer (Handlers pane).",
        ),
        click.option(
            "--handler-resync",
            "handler_resync",
            type=params.DURATION_LIST,
            multiple=True,
            callback=params.DurationList.flatten,
            metavar="DURATION[,...]",
            help="Each handler's resync (AddEventHandlerWithResyncPeriod): one value for all, or one per "
            "handler as 3s,5s or repeated; 0 never resyncs. Default: --resync.",
        ),
        click.option(
            "--handler-time",
            "handler_time",
            type=params.DURATION_LIST,
            multiple=True,
            callback=params.DurationList.flatten,
            metavar="DURATION[,...]",
            help="How long each handler works per notification, e.g. 0,500ms for a fast and a slow "
            "one: a slow handler's buffer grows. One value for all, or one per handler.",
        ),
    ]
    return decorate(f, opts)


# `--duration` of every command with a headless output (watch, queue, attach).
run_for_option = click.option(
    "--duration",
    "run_for",
    type=POSITIVE_DURATION,
    default=None,
    help="Headless output only: stop after this long.",
)


def output_options(f: F) -> F:
    opts = [
        click.option(
            "-o",
            "--output",
            type=click.Choice(("tui", "json", "text")),
            default="tui",
            show_default=True,
            help="tui: the live UI; json: the trace as NDJSON; text: one line per delta applied to the cache.",
        ),
        run_for_option,
        click.option(
            "--max-events",
            type=click.IntRange(min=1),
            default=None,
            metavar="N",
            help="Headless output only: stop after this many lines.",
        ),
        click.option("--show-secret-data", is_flag=True, help="Show Secret values (they are redacted by default)."),
        click.option(
            "--record",
            type=params.FILE_NAME,
            metavar="FILE",
            default=None,
            help="Also write the trace to FILE as NDJSON, for `kubectl informer replay` (mode 0600; "
            "a symbolic link or another user's file there is refused).",
        ),
    ]
    return decorate(f, opts)


def swap_demo_resource(resource: str | None, demo: str | None) -> tuple[str | None, str | None]:
    """``--demo pods`` reads ``pods`` as the scenario; when it is no scenario
    and RESOURCE is missing, the user meant the resource."""
    if demo is None:
        return resource, demo
    from kubectl_informer.sim.scenarios import SCENARIOS

    if resource is None and demo not in SCENARIOS:
        return demo, DEFAULT_SCENARIO
    if demo not in SCENARIOS:
        raise click.BadParameter(
            f'unknown scenario "{demo}" (known: {", ".join(sorted(SCENARIOS))}); '
            f"put --demo after RESOURCE or write --demo=SCENARIO",
            param_hint="'--demo'",
        )
    return resource, demo


def check_output_flags(output: str, run_for: float | None, max_events: int | None) -> None:
    if output == "tui" and (run_for is not None or max_events is not None):
        raise click.UsageError("--duration and --max-events apply to -o json and -o text only")


def read_config(mode: str, resource: str, name: str | None = None, **flags: Any) -> RunConfig:
    """The run's config from the flags, read once: the flags that go together
    are checked here (usage errors), the command line kept for the recording."""
    if flags.get("namespace") and flags.get("all_namespaces"):
        raise click.UsageError("-n/--namespace and -A/--all-namespaces cannot be used together")
    params.check_handler_flags(flags.get("handlers"), flags.get("handler_resync", []), flags.get("handler_time", []))
    flags["overrides"] = connection.pop_overrides(flags)
    from kubectl_informer.run.config import RunConfig

    try:
        return RunConfig.from_flags(mode=mode, resource=resource, name=name, args=command_line(), **flags)
    except ValueError as e:  # the click types let nothing else through
        raise click.UsageError(str(e)) from None
