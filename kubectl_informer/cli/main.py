"""The command line: ``kubectl informer watch|queue|attach|replay|sim|version``.

Help reads like kubectl's own (description, Examples, Options, Usage). Every
failure the user can cause ends in one ``error: ...`` line on stderr and a
non-zero exit; anything unexpected too, with ``--debug`` for the traceback.
Heavy imports (kubernetes, textual) happen inside commands so that ``--help``
and ``version`` stay fast.
"""

from __future__ import annotations

import contextlib
import logging
import os
import platform
import sys
import time
import traceback
from typing import Any

import click
from click.core import ParameterSource

from kubectl_informer import __version__
from kubectl_informer.cli import params
from kubectl_informer.cli.output import make_renderer, no_resources_message
from kubectl_informer.core.profiles import DEFAULT_CLIENT_GO, PROFILES
from kubectl_informer.run.runner import RunError, RunOptions

PROG = "kubectl informer"
CLIENT_GO_PROFILES = tuple(PROFILES)
DEFAULT_SCENARIO = "steady"
# sample-controller (client-go's reference controller) runs 2 workers; the
# client-go workqueue example and controller-runtime run 1.
DEFAULT_WORKERS = 2
# `watch --demo` in the UI: what a first screen needs to fill every pane (a
# resync fills Resync with ticks, a workqueue fills Queue); a flag given wins.
DEMO_RESYNC = 5.0


# --- help that reads like kubectl's ---------------------------------------------

def _format_examples(formatter: click.HelpFormatter, examples: str) -> None:
    if not examples:
        return
    formatter.write_paragraph()
    formatter.write("Examples:\n")
    for line in examples.strip("\n").splitlines():
        formatter.write(("  " + line.strip()) if line.strip() else "")
        formatter.write("\n")


class KubectlCommand(click.Command):
    """A command whose help is ordered as kubectl's: what it does, Examples,
    Options, then Usage."""

    def __init__(self, *args: Any, examples: str = "", usage: str = "", **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.examples = examples
        self.usage = usage

    def format_help(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        self.format_help_text(ctx, formatter)
        _format_examples(formatter, self.examples)
        self.format_options(ctx, formatter)
        formatter.write_paragraph()
        formatter.write(f"Usage:\n  {ctx.command_path} {self.usage or '[options]'}\n")

    def format_help_text(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        if self.help:
            formatter.write(click.unstyle(self.help).strip() + "\n")


class KubectlGroup(click.Group):
    """The top-level group; its ``main`` is the error guard every command runs in."""

    def __init__(self, *args: Any, examples: str = "", **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.examples = examples

    def format_help(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        if self.help:
            formatter.write(self.help.strip() + "\n")
        _format_examples(formatter, self.examples)
        self.format_options(ctx, formatter)  # click's Group lists the commands after the options
        formatter.write_paragraph()
        formatter.write(f"Usage:\n  {ctx.command_path} [command] [options]\n")
        formatter.write_paragraph()
        formatter.write(f'Use "{ctx.command_path} <command> --help" for more information about a given command.\n')

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):  # type: ignore[override]
        # Always "kubectl informer": kubectl runs us as kubectl-informer, users type the former.
        args = list(sys.argv[1:] if args is None else args)
        self.argv = args  # for the recording's header (run.info)
        code = run_guarded(lambda: super(KubectlGroup, self).main(
            args=args, prog_name=PROG, complete_var=complete_var, standalone_mode=False, **extra),
            debug="--debug" in args or bool(os.environ.get("KUBECTL_INFORMER_DEBUG")))
        if standalone_mode:
            sys.exit(code)
        return code


def error_line(message: str) -> None:
    """The one line every failure ends in, kubectl's ``error: ...`` form."""
    text = " ".join(str(message).split())
    try:
        sys.stderr.write(f"error: {text}\n")
        sys.stderr.flush()
    except (BrokenPipeError, ValueError):
        pass


def _usage_message(e: click.ClickException) -> str:
    msg = e.format_message().strip()
    if msg[:1].isupper() and not msg[1:2].isupper():
        msg = msg[0].lower() + msg[1:]
    msg = msg.rstrip(".")
    ctx = getattr(e, "ctx", None)
    if isinstance(e, click.UsageError) and ctx is not None:
        msg += f" (see '{ctx.command_path} --help')"
    return msg


def _silence_stdout() -> None:
    # After EPIPE, Python would fail again flushing stdout at exit.
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass


def run_guarded(fn, debug: bool = False) -> int:
    """Run ``fn``; map every way it can end to an exit code and at most one line."""
    if not debug:
        # Library warnings (urllib3's retries) would reach stderr through logging's
        # last-resort handler and break the one-line rule.
        logging.getLogger().addHandler(logging.NullHandler())
    try:
        rv = fn()
        return rv if isinstance(rv, int) else 0
    except click.exceptions.Exit as e:
        return e.exit_code
    except click.exceptions.Abort:
        return 130
    except click.ClickException as e:
        error_line(_usage_message(e))
        return e.exit_code
    except RunError as e:
        error_line(str(e))
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader went away (`| head`): a normal end for a stream.
        _silence_stdout()
        return 0
    except Exception as e:  # the last guard: one line, traceback only on request
        if debug:
            traceback.print_exc()
        from kubectl_informer.run.runner import describe_error
        known = describe_error(e)
        if known:
            error_line(known)
        else:
            error_line(f"unexpected {type(e).__name__}: {e}" + ("" if debug else " (run with --debug for the traceback)"))
        return 1


# --- parameter types -----------------------------------------------------------------

class Duration(click.ParamType):
    """Go duration syntax, as every client-go flag takes: 3s, 500ms, 1m30s."""

    name = "DURATION"

    def convert(self, value: Any, param, ctx) -> float:
        if isinstance(value, (int, float)):
            return float(value)
        from kubectl_informer.core.durations import parse_duration
        try:
            return parse_duration(str(value))
        except ValueError as e:
            self.fail(str(e), param, ctx)


DURATION = Duration()


def debug_option(f):
    # Read by the guard from argv; declared so every command accepts it.
    return click.option("--debug", is_flag=True, expose_value=False, help="Print the traceback of an unexpected failure.")(f)


def _decorate(f, opts):
    """Apply a group of click options to ``f``, listed in the order --help shows them."""
    for o in reversed(opts):
        f = o(f)
    return f


def connection_options(f):
    opts = [
        click.option("-n", "--namespace", metavar="NS", help="Namespace to watch (default: the context's, else default)."),
        click.option("-A", "--all-namespaces", is_flag=True, help="Watch the resource across all namespaces."),
        click.option("-l", "--selector", "label_selector", type=params.LABEL_SELECTOR, metavar="SELECTOR", help="Label selector, e.g. app=web,tier!=db."),
        click.option("--field-selector", type=params.FIELD_SELECTOR, metavar="SELECTOR", help="Field selector, e.g. status.phase=Running."),
        click.option("--context", metavar="NAME", help="The kubeconfig context to use."),
        click.option("--kubeconfig", metavar="FILE", help="Path to the kubeconfig file (default: $KUBECONFIG or ~/.kube/config)."),
        click.option("--request-timeout", "request_timeout", type=DURATION, default="0", show_default=True,
                     help="How long to wait for one request (discovery, each list page) before giving up, as "
                          "kubectl's flag; 0: no limit. Watches are not cut by it."),
        click.option("--demo", "demo", is_flag=False, flag_value=DEFAULT_SCENARIO, default=None, metavar="[SCENARIO]",
                     help=f"Run against the built-in simulated cluster (real HTTP on 127.0.0.1); SCENARIO defaults to {DEFAULT_SCENARIO}."),
    ]
    return _decorate(f, opts)


def _drop_paths(ctx, param, values) -> list[str]:
    from kubectl_informer.run.transforms import parse_transform
    paths: list[str] = []
    for spec in values or ():
        try:
            paths += parse_transform(spec)
        except ValueError as e:
            raise click.BadParameter(str(e).removeprefix(f'invalid --transform "{spec}": '), ctx, param) from None
    return paths


def profile_options(f):
    opts = [
        click.option("--resync", type=DURATION, default="0s", show_default=True,
                     help="Resync period of the informer and its handler (0: off, as client-go's default)."),
        click.option("--late-handler-resync", "late_handler_resync", type=DURATION, default=None, metavar="DURATION",
                     help="Also add a handler with this resync period after the informer has started, as a "
                          "controller that registers late does: a period below --resync is raised to it "
                          "(the 3s-asked, 4s-got case)."),
        click.option("--client-go", "client_go", type=params.CLIENT_GO, default=DEFAULT_CLIENT_GO,
                     show_default=True, metavar="|".join(PROFILES),
                     help="Which client-go's machinery to run: 1.32 DeltaFIFO+LIST, 1.35 RealFIFO+WatchList, "
                          "1.36 atomic RealFIFO (other 1.x minors map to what that release ran)."),
        click.option("--fifo", type=click.Choice(("delta", "real")), default=None, help="Override the profile's FIFO."),
        click.option("--watch-list/--no-watch-list", "watch_list", default=None,
                     help="Override the profile's initial list (WatchList stream or paged LIST)."),
        click.option("--metadata-only", is_flag=True,
                     help="List and watch objects as PartialObjectMetadata, as client-go's metadatainformer: "
                          "the cache holds only metadata."),
        click.option("--strip-managed-fields", is_flag=True,
                     help="A transform (client-go's SetTransform) that drops metadata.managedFields before the "
                          "FIFO; the Cache pane shows what it saves."),
        click.option("--transform", "drop_paths", metavar="drop=PATH,...", multiple=True, callback=_drop_paths,
                     help="A transform that drops these dotted fields before the FIFO, e.g. "
                          "drop=status.conditions,metadata.annotations (repeatable)."),
    ]
    return _decorate(f, opts)


def handler_options(f):
    from kubectl_informer.run.handler_lanes import MAX_HANDLERS
    opts = [
        click.option("--handlers", type=click.IntRange(1, MAX_HANDLERS), default=None, metavar="N",
                     help="Register N event handlers (default 1; queue: the first is the controller's), each "
                          "with its own listener thread and buffer (Handlers pane)."),
        click.option("--handler-resync", "handler_resync", type=params.DURATION_LIST, multiple=True,
                     callback=params.DurationList.flatten, metavar="DURATION[,...]",
                     help="Each handler's resync (AddEventHandlerWithResyncPeriod): one value for all, or one per "
                          "handler as 3s,5s or repeated; 0 never resyncs. Default: --resync."),
        click.option("--handler-time", "handler_time", type=params.DURATION_LIST, multiple=True,
                     callback=params.DurationList.flatten, metavar="DURATION[,...]",
                     help="How long each handler works per notification, e.g. 0,500ms for a fast and a slow "
                          "one: a slow handler's buffer grows. One value for all, or one per handler."),
    ]
    return _decorate(f, opts)


def output_options(f):
    opts = [
        click.option("-o", "--output", type=click.Choice(("tui", "json", "text")), default="tui", show_default=True,
                     help="tui: the live UI; json: the trace as NDJSON; text: one line per delta applied to the cache."),
        click.option("--duration", "run_for", type=DURATION, default=None,
                     help="Headless output only: stop after this long."),
        click.option("--max-events", type=click.IntRange(min=1), default=None, metavar="N",
                     help="Headless output only: stop after this many lines."),
        click.option("--show-secret-data", is_flag=True,
                     help="Show Secret values (they are redacted by default)."),
        click.option("--record", metavar="FILE", default=None,
                     help="Also write the trace to FILE as NDJSON, for `kubectl informer replay`."),
    ]
    return _decorate(f, opts)


# --- the group -------------------------------------------------------------------------

@click.group(cls=KubectlGroup, invoke_without_command=True, context_settings={"help_option_names": ["-h", "--help"]},
             help="Run client-go's informer machinery (Reflector, DeltaFIFO, Indexer, handlers, workqueue) "
                  "against one resource of your cluster and watch it work.",
             examples="""
# Watch pods in the current namespace: deltas, FIFO, cache, resourceVersions
kubectl informer watch pods

# The same with a 30s resync, as client-go 1.36 runs it
kubectl informer watch deployments.apps -A --resync 30s --client-go 1.36

# A workqueue with 2 workers, failing 10% of items, queue pane first
kubectl informer queue pods --resync 3s --fail-rate 0.1

# No cluster at hand: the built-in simulated one
kubectl informer watch pods --demo

# Headless, for scripts: one line per delta
kubectl informer watch pods -o text
""")
@click.option("--version", is_flag=True, expose_value=False, is_eager=True,
              callback=lambda ctx, _param, wanted: _echo_version(ctx, wanted),
              help="Print the plugin's version (as the version command).")
@debug_option
@click.pass_context
def cli(ctx: click.Context) -> None:
    if ctx.invoked_subcommand is None:
        click.echo(ctx.get_help())


def _swap_demo_resource(resource: str | None, demo: str | None) -> tuple[str | None, str | None]:
    """``--demo pods`` reads ``pods`` as the scenario; when it is no scenario
    and RESOURCE is missing, the user meant the resource."""
    if resource is None and demo is not None:
        from kubectl_informer.sim.scenarios import SCENARIOS
        if demo not in SCENARIOS:
            return demo, DEFAULT_SCENARIO
    return resource, demo


def _check_output_flags(output: str, run_for: float | None, max_events: int | None) -> None:
    if output == "tui" and (run_for is not None or max_events is not None):
        raise click.UsageError("--duration and --max-events apply to -o json and -o text only")


def _build_options(mode: str, resource: str, name: str | None, namespace, all_namespaces, label_selector,
                   field_selector, context, kubeconfig, demo, resync, client_go, fifo, watch_list,
                   show_secret_data, late_handler_resync=None, **extra: Any) -> RunOptions:
    if namespace and all_namespaces:
        raise click.UsageError("-n/--namespace and -A/--all-namespaces cannot be used together")
    params.check_handler_flags(extra.get("handlers"), extra.get("handler_resync", []), extra.get("handler_time", []))
    return RunOptions(resource=resource, name=name, namespace=namespace, all_namespaces=all_namespaces,
                      label_selector=label_selector, field_selector=field_selector, resync=resync,
                      late_handler_resync=late_handler_resync,
                      client_go=client_go, fifo=fifo, watch_list=watch_list, context=context, kubeconfig=kubeconfig,
                      demo=demo, show_secret_data=show_secret_data, mode=mode, **extra)


@cli.command(cls=KubectlCommand, usage="RESOURCE [NAME] [options]",
             help="Run an informer on RESOURCE and show every step: list or WatchList, watch events, the "
                  "FIFO's deltas, the cache, resourceVersions and resyncs. NAME narrows it to one object.",
             examples="""
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
""")
@click.argument("resource", required=False)
@click.argument("name", required=False)
@connection_options
@profile_options
@handler_options
@click.option("--workqueue/--no-workqueue", "workqueue", default=None,
              help="Feed the handler's keys into a workqueue drained by 2 simulated workers, as `queue` does "
                   "(default: on with --demo in the live UI, else off).")
@output_options
@debug_option
def watch(resource, name, output, run_for, max_events, record, workqueue, **kw) -> int:
    resource, kw["demo"] = _swap_demo_resource(resource, kw["demo"])
    if resource is None:
        raise click.UsageError("you must specify the type of resource to watch, e.g. pods or deployments.apps")
    _check_output_flags(output, run_for, max_events)
    first_screen = kw["demo"] is not None and output == "tui"
    if first_screen and click.get_current_context().get_parameter_source("resync") is ParameterSource.DEFAULT:
        kw["resync"] = DEMO_RESYNC
    if first_screen if workqueue is None else workqueue:
        opts = _build_options("queue", resource, name, workers=DEFAULT_WORKERS, work_time=0.2, fail_rate=0.0,
                              rate_limiter="default", **kw)
        return execute(opts, output, run_for=run_for, max_events=max_events, start_pane="deltas", record=record)
    opts = _build_options("watch", resource, name, **kw)
    return execute(opts, output, run_for=run_for, max_events=max_events, start_pane="deltas", record=record)


@cli.command(cls=KubectlCommand, usage="[RESOURCE] [options]",
             help="Feed RESOURCE's informer into a rate-limited workqueue drained by simulated workers, and "
                  "show queued, dirty, processing and waiting items, requeues and the workqueue metrics. "
                  "RESOURCE defaults to pods.",
             examples="""
# Resync every 3s: watch Sync deltas become queue adds that dedupe
kubectl informer queue --resync 3s

# 4 slow workers, 20% failures retried with exponential back-off
kubectl informer queue pods --workers 4 --work-time 1s --fail-rate 0.2 --rate-limiter exponential:5ms,1000s

# A token bucket of 10 qps, burst 100, on the simulated cluster
kubectl informer queue --rate-limiter bucket:10,100 --demo
""")
@click.argument("resource", required=False)
@connection_options
@profile_options
@click.option("--workers", type=params.WORKERS, default=DEFAULT_WORKERS, show_default=True, metavar="N",
              help="Worker threads draining the queue (sample-controller runs 2).")
@click.option("--work-time", type=DURATION, default="200ms", show_default=True, help="How long each item takes to process.")
@click.option("--fail-rate", type=params.FAIL_RATE, default=0.0, show_default=True, metavar="RATE",
              help="Fraction of items whose processing fails and is requeued rate-limited (0..1).")
@click.option("--rate-limiter", type=params.RATE_LIMITER, default="default", show_default=True, metavar="SPEC",
              help="default | exponential:BASE,MAX | fastslow:FAST,SLOW,N | bucket:QPS,BURST.")
@handler_options
@click.option("--metrics-addr", metavar="HOST:PORT", default=None,
              help="Serve the queue's metrics with client-go's names at http://HOST:PORT/metrics "
                   "(for `kubectl informer attach` or Prometheus).")
@output_options
@debug_option
def queue(resource, output, run_for, max_events, record, workers, work_time, fail_rate, rate_limiter, metrics_addr,
          **kw) -> int:
    resource, kw["demo"] = _swap_demo_resource(resource, kw["demo"])
    _check_output_flags(output, run_for, max_events)
    if metrics_addr is not None:
        _check_metrics_addr(metrics_addr)
        kw["extra"] = {"metrics_addr": metrics_addr}
    opts = _build_options("queue", resource or "pods", None, workers=workers, work_time=work_time,
                          fail_rate=fail_rate, rate_limiter=rate_limiter, **kw)
    return execute(opts, output, run_for=run_for, max_events=max_events, start_pane="queue", record=record)


def _check_metrics_addr(addr: str) -> None:
    from kubectl_informer.attach.exporter import parse_metrics_addr
    try:
        _host, port = parse_metrics_addr(addr)
    except ValueError as e:
        raise click.BadParameter(str(e).removeprefix(f'--metrics-addr "{addr}" '), param_hint="'--metrics-addr'")
    if port == 0:
        raise click.BadParameter("needs a port to serve on, e.g. 127.0.0.1:9100", param_hint="'--metrics-addr'")


def _start_exporter(opts: RunOptions):
    """The ``--metrics-addr`` server, bound before anything runs (a port in
    use is one line); it answers once the controller exists."""
    addr = opts.extra.get("metrics_addr")
    if not addr:
        return None
    from kubectl_informer.attach.exporter import MetricsExporter
    try:
        return MetricsExporter(addr)
    except OSError as e:
        raise RunError(f"cannot serve metrics on {addr}: {e.strerror or e}") from None


# --- running ---------------------------------------------------------------------------

def _need_terminal() -> None:
    if not (sys.stdout.isatty() and sys.stdin.isatty()):
        raise RunError("the live UI needs a terminal: use -o json or -o text to run without one")


def _run_app(app) -> None:
    """Run a UI with the UI's process setting; SIGTERM closes it like `q`."""
    from kubectl_informer.run.lifecycle import UI, serve_app, tuned
    with tuned(UI):
        serve_app(app)


def live_app(r, start_pane: str):
    """The live UI of a prepared run (``lifecycle.Running``), as watch and
    queue show it; the docs' screenshots (``docshots``) are taken of this one."""
    from kubectl_informer.tui.app import InformerApp
    return InformerApp(r.buffer, r.info, start_pane=start_pane, experiments=r.run.experiments, pipeline=r)


def execute(opts: RunOptions, output: str, run_for: float | None = None, max_events: int | None = None,
            start_pane: str = "deltas", record: str | None = None) -> int:
    """Run as the flags say: ``lifecycle.running`` owns everything from the
    process tuning to the last thread joined; this only picks the reader."""
    from kubectl_informer.kube import config  # noqa: F401 - the kubernetes client's import is not part of --duration
    from kubectl_informer.run.lifecycle import running
    from kubectl_informer.run.time_limit import remaining

    started = time.monotonic()
    ui = output == "tui"
    opts.extra.setdefault("args", list(getattr(cli, "argv", None) or ()))
    if opts.show_secret_data:
        opts.extra["show_secret_data"] = True
    with running(opts, ui=ui, record=record, check=_need_terminal if ui else None, exporter=_start_exporter,
                 prepare_limit=run_for) as r:
        if ui:
            r.serve_ui(live_app(r, start_pane))
        else:
            renderer = make_renderer(output, sys.stdout, workers=opts.mode == "queue")
            if output == "text":
                renderer.empty_message, renderer.err = no_resources_message(r.info.namespace), sys.stderr
            with _quiet_on_closed_pipe():
                r.stream(renderer, run_for=remaining(run_for, started), max_events=max_events)
    return 0


@contextlib.contextmanager
def _quiet_on_closed_pipe():
    """The reader went away (`| head`): a normal end for a stream, exit 0.
    Handled here because click turns EPIPE into exit 1 before our guard sees it."""
    try:
        yield
    except BrokenPipeError:
        _silence_stdout()


# --- attach ------------------------------------------------------------------------------

@cli.command(cls=KubectlCommand, usage="TARGET [options]",
             help="Attach to a running controller's metrics and show its workqueues live: depth, adds/s, "
                  "queue latency and work duration p50/p99, retries, reconciles and workers. TARGET is a URL "
                  "(after your own kubectl port-forward), pod/NAME[:PORT] or deploy/NAME[:PORT], read through "
                  "the API server's pods/proxy subresource (GET only).",
             examples="""
# A controller whose metrics port you forwarded
kubectl port-forward -n my-system deploy/my-controller 8080 &
kubectl informer attach http://127.0.0.1:8080/metrics

# Through the API server (needs get on pods/proxy), a ready pod of the deployment
kubectl informer attach deploy/my-controller -n my-system

# Behind kube-rbac-proxy: HTTPS and a bearer token
kubectl informer attach https://127.0.0.1:8443/metrics --token "$(kubectl create token my-sa)" --insecure-skip-tls-verify

# Our own informer on pods beside the controller's queues
kubectl informer attach pod/my-controller-7d9f:8080 --resource pods

# Three scrapes as text, for scripts
kubectl informer attach http://127.0.0.1:8080/metrics -o text --count 3
""")
@click.argument("target")
@click.option("-n", "--namespace", metavar="NS", help="Namespace of the pod or deployment (default: the context's).")
@click.option("--context", metavar="NAME", help="The kubeconfig context to use.")
@click.option("--kubeconfig", metavar="FILE", help="Path to the kubeconfig file (default: $KUBECONFIG or ~/.kube/config).")
@click.option("--interval", type=DURATION, default="1s", show_default=True, help="How often to scrape.")
@click.option("--path", "metrics_path", default="/metrics", show_default=True, help="Metrics path on the pod (pod/deploy targets).")
@click.option("--scheme", type=click.Choice(("auto", "http", "https")), default="auto", show_default=True,
              help="Scheme on the pod's port (auto: https for a port named https* or 443/8443).")
@click.option("--token", metavar="TOKEN", default=None, help="Bearer token for the endpoint (kube-rbac-proxy).")
@click.option("--token-file", metavar="FILE", default=None, help="Read the bearer token from FILE.")
@click.option("--certificate-authority", "ca_file", metavar="FILE", default=None, help="CA bundle for an HTTPS endpoint.")
@click.option("--insecure-skip-tls-verify", "insecure", is_flag=True, help="Do not verify an HTTPS endpoint's certificate.")
@click.option("--resource", metavar="RESOURCE", default=None,
              help="Also run our informer on RESOURCE and show its deltas beside the queues (live UI).")
@click.option("-o", "--output", type=click.Choice(("tui", "json", "text")), default="tui", show_default=True,
              help="tui: the live screen; json: one object per scrape; text: a block of lines per scrape.")
@click.option("--count", type=click.IntRange(min=1), default=None, metavar="N", help="Headless output only: stop after N scrapes.")
@click.option("--duration", "run_for", type=DURATION, default=None, help="Headless output only: stop after this long.")
@debug_option
def attach(target, namespace, context, kubeconfig, interval, metrics_path, scheme, token, token_file, ca_file,
           insecure, resource, output, count, run_for) -> int:
    from kubectl_informer.cli.attach import (
        AttachFailed,
        AttachOptions,
        TargetError,
        run_attach,
    )
    if interval <= 0:
        raise click.BadParameter("must be above 0", param_hint="'--interval'")
    if output == "tui" and (count is not None or run_for is not None):
        raise click.UsageError("--count and --duration apply to -o json and -o text only")
    if resource and output != "tui":
        raise click.UsageError("--resource shows our informer beside the queues in the live UI only")
    if token and token_file:
        raise click.UsageError("--token and --token-file cannot be used together")
    if token_file:
        try:
            with open(token_file, encoding="utf-8") as fh:
                token = fh.read().strip()
        except OSError as e:
            raise RunError(f"cannot read {token_file}: {e.strerror or e}") from None
    opts = AttachOptions(target, namespace=namespace, context=context, kubeconfig=kubeconfig, interval=interval,
                         path=metrics_path, scheme=scheme, token=token, ca_file=ca_file, insecure=insecure)
    try:
        with _quiet_on_closed_pipe():
            return run_attach(opts, output, count=count, duration=run_for, resource=resource,
                              before_ui=_need_terminal, run_app=_run_app)
    except TargetError as e:
        raise click.UsageError(str(e)) from None
    except AttachFailed as e:
        raise RunError(str(e)) from None
    except KeyboardInterrupt:
        return 0


# --- replay ------------------------------------------------------------------------------

@cli.command(cls=KubectlCommand, usage="FILE [options]",
             help="Replay a recording (--record FILE, or -o json) in time: in the live UI (space pauses, . steps, "
                  "] and [ seek to the next/previous relist, 410 or tombstone, t seeks to a time) or as text. "
                  "FILE - reads stdin.",
             examples="""
# Record a minute, then play it back in the UI, ten times faster
kubectl informer watch pods --demo flaky -o json --duration 1m > trace.ndjson
kubectl informer replay trace.ndjson --speed 10

# Start 30s in: what came before is fed at once
kubectl informer replay trace.ndjson --from 30s

# The deltas of a recording, one per line, as fast as possible
kubectl informer replay trace.ndjson -o text

# The same in recorded time
kubectl informer replay trace.ndjson -o text --speed 1
""")
@click.argument("file")
@click.option("-o", "--output", type=click.Choice(("tui", "json", "text")), default="tui", show_default=True,
              help="tui: the UI; json: the events again as NDJSON; text: one line per delta.")
@click.option("--speed", type=click.FloatRange(min=0), default=None, metavar="N",
              help="Play N times faster than recorded (0: as fast as possible). Default: 1 in the UI, "
                   "0 for -o json/text.")
@click.option("--no-wait", is_flag=True, help="As fast as possible (--speed 0).")
@click.option("--from", "start", type=DURATION, default="0s", metavar="OFFSET",
              help="Start at this offset from the recording's start (e.g. 30s, 1m30s); what comes before is "
                   "fed at once (UI) or skipped (-o json/text).")
@click.option("--show-secret-data", is_flag=True, help="Show Secret values (they are redacted by default).")
@debug_option
def replay(file: str, output: str, speed: float | None, no_wait: bool, start: float, show_secret_data: bool) -> int:
    from kubectl_informer.cli.replay import RecordingError
    from kubectl_informer.cli.replay import replay as run_replay
    if no_wait and speed not in (None, 0):
        raise click.UsageError("--no-wait and --speed cannot be used together")
    try:
        with _quiet_on_closed_pipe():
            return run_replay(file, output, 0.0 if no_wait else speed, start, show_secret_data,
                              need_terminal=_need_terminal, run_app=_run_app)
    except RecordingError as e:
        raise RunError(str(e)) from None


# --- sim, version --------------------------------------------------------------------------

@cli.command(cls=KubectlCommand, usage="[options]",
             help="Run the simulated API server in the foreground (until Ctrl-C), so kubectl and the plugin "
                  "can be used side by side against it.",
             examples="""
# Serve on a free port and write a kubeconfig for it
kubectl informer sim --write-kubeconfig /tmp/sim.kubeconfig --scenario burst

# In another terminal
KUBECONFIG=/tmp/sim.kubeconfig kubectl get pods -w
KUBECONFIG=/tmp/sim.kubeconfig kubectl informer watch pods
""")
@click.option("--port", type=click.IntRange(0, 65535), default=0, show_default=True, help="Port on 127.0.0.1 (0: any free one).")
@click.option("--write-kubeconfig", metavar="FILE", default=None, help="Write a kubeconfig pointing at the server.")
@click.option("--scenario", default=None, metavar="NAME", help="Churn scenario to run (see --list-scenarios).")
@click.option("--list-scenarios", is_flag=True, help="List the scenarios and exit.")
@click.option("--tls", is_flag=True, help="Serve HTTPS with a self-signed certificate.")
@debug_option
def sim(port: int, write_kubeconfig: str | None, scenario: str | None, list_scenarios: bool, tls: bool) -> int:
    from kubectl_informer.sim.scenarios import SCENARIOS
    if list_scenarios:
        for name in sorted(SCENARIOS):
            desc = getattr(SCENARIOS[name], "description", "")
            click.echo(f"{name:<16} {desc}".rstrip())
        return 0
    if scenario is not None and scenario not in SCENARIOS:
        raise RunError(f'unknown scenario "{scenario}" (known: {", ".join(sorted(SCENARIOS))})')
    from kubectl_informer.run.lifecycle import on_sigterm
    from kubectl_informer.sim.run import run_sim

    def on_term():
        raise KeyboardInterrupt  # run_sim stops the server on it, as on Ctrl-C

    try:
        with on_sigterm(on_term):
            run_sim(port=port, write_kubeconfig=write_kubeconfig, scenario=scenario, tls=tls)
    except KeyboardInterrupt:
        return 0
    except ValueError as e:
        raise RunError(str(e)) from None
    except OSError as e:
        raise RunError(f"cannot serve on 127.0.0.1:{port}: {e.strerror or e}") from None
    return 0


@cli.command(cls=KubectlCommand, usage="[options]", help="Print the plugin's version.",
             examples="kubectl informer version")
@debug_option
def version() -> int:
    click.echo(_version_line())
    return 0


def _version_line() -> str:
    return (f"kubectl-informer v{__version__} (python {platform.python_version()}, "
            f"client-go profiles {', '.join(CLIENT_GO_PROFILES)})")


def _echo_version(ctx: click.Context, wanted: bool) -> None:
    """``--version``: the version command's line, then exit 0 (kubectl and most CLIs take both)."""
    if wanted and not ctx.resilient_parsing:
        click.echo(_version_line())
        ctx.exit(0)


def main(argv: list[str] | None = None) -> int:
    """Console-script entry point (``kubectl-informer``)."""
    return cli.main(args=argv, prog_name=PROG, standalone_mode=True)
