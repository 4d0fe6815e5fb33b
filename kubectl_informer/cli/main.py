"""The command line: ``kubectl informer watch|queue|attach|replay|sim|version``.

Help reads like kubectl's own (description, Examples, Options, Usage). Every
failure the user can cause ends in one ``error: ...`` line on stderr and a
non-zero exit; anything unexpected too, with ``--debug`` for the traceback
(``command.py``). ``watch`` and ``queue`` live in their own modules and read
their flags into one ``RunConfig`` (``options.py``); ``attach``, ``replay``,
``sim`` and ``version`` are here. Heavy imports (kubernetes, textual) happen
inside commands so that ``--help`` and ``version`` stay fast.
"""

from __future__ import annotations

import os
import platform
from typing import TYPE_CHECKING, Any, NoReturn

import click

from kubectl_informer import __version__
from kubectl_informer.cli import params
from kubectl_informer.cli.command import (
    DURATION,
    PROG,
    F,
    KubectlCommand,
    KubectlGroup,
    debug_option,
    need_terminal,
    quiet_on_closed_pipe,
    run_app,
)
from kubectl_informer.cli.connection import api_server_flags, attach_endpoint_flags
from kubectl_informer.cli.options import decorate, run_for_option
from kubectl_informer.cli.queue import queue
from kubectl_informer.cli.watch import watch
from kubectl_informer.core.profiles import PROFILES
from kubectl_informer.run.errors import RunError

if TYPE_CHECKING:  # attach imports it: --help and version stay fast
    from kubectl_informer.cli.attach import AttachOptions
    from kubectl_informer.kube.overrides import ConfigOverrides

CLIENT_GO_PROFILES = tuple(PROFILES)


def connection_attach_flags(f: F) -> F:
    """attach's --token, --token-file, --certificate-authority and
    --insecure-skip-tls-verify (a URL TARGET's, else the API server's), then
    kubectl's API-server flags."""
    return decorate(f, attach_endpoint_flags() + api_server_flags())


# --- the group -------------------------------------------------------------------------


@click.group(
    cls=KubectlGroup,
    invoke_without_command=True,
    context_settings={"help_option_names": ["-h", "--help"]},
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
""",
)
@click.option(
    "--version",
    is_flag=True,
    expose_value=False,
    is_eager=True,
    callback=lambda ctx, _param, wanted: _echo_version(ctx, wanted),
    help="Print the plugin's version (as the version command).",
)
@debug_option
@click.pass_context
def cli(ctx: click.Context) -> None:
    if ctx.invoked_subcommand is None:
        click.echo(ctx.get_help())


cli.add_command(watch)
cli.add_command(queue)


# --- attach ------------------------------------------------------------------------------


def attach_target_options(f: F) -> F:
    """Where attach finds TARGET's pod and how often, on which path and scheme, it reads it."""
    opts = [
        click.option(
            "-n",
            "--namespace",
            metavar="NS",
            callback=params.NAMESPACE,
            help="Namespace of the pod or deployment (default: the context's).",
        ),
        click.option("--context", metavar="NAME", help="The kubeconfig context to use."),
        click.option(
            "--kubeconfig", metavar="FILE", help="Path to the kubeconfig file (default: $KUBECONFIG or ~/.kube/config)."
        ),
        click.option("--interval", type=DURATION, default="1s", show_default=True, help="How often to scrape."),
        click.option(
            "--path",
            "metrics_path",
            default="/metrics",
            show_default=True,
            callback=params.URL_PATH,
            help="Metrics path on the pod (pod/deploy targets).",
        ),
        click.option(
            "--scheme",
            type=click.Choice(("auto", "http", "https")),
            default="auto",
            show_default=True,
            help="Scheme on the pod's port (auto: https for a port named https* or 443/8443).",
        ),
    ]
    return decorate(f, opts)


def attach_output_options(f: F) -> F:
    """What attach shows: our own informer beside the queues, the output, when a headless run stops."""
    opts = [
        click.option(
            "--resource",
            metavar="RESOURCE",
            default=None,
            callback=params.RESOURCE,
            help="Also run our informer on RESOURCE and show its deltas beside the queues (live UI).",
        ),
        click.option(
            "-o",
            "--output",
            type=click.Choice(("tui", "json", "text")),
            default="tui",
            show_default=True,
            help="tui: the live screen; json: one object per scrape; text: a block of lines per scrape.",
        ),
        click.option(
            "--count",
            type=click.IntRange(min=1),
            default=None,
            metavar="N",
            help="Headless output only: stop after N scrapes.",
        ),
        run_for_option,
    ]
    return decorate(f, opts)


# A backslash ending a line joins it to the next (a Python string continuation): one line in --help.
ATTACH_EXAMPLES = """
# A controller whose metrics port you forwarded
kubectl port-forward -n my-system deploy/my-controller 8080 &
kubectl informer attach http://127.0.0.1:8080/metrics

# Through the API server (needs get on pods/proxy), a ready pod of the deployment
kubectl informer attach deploy/my-controller -n my-system

# Behind kube-rbac-proxy: HTTPS and a bearer token
kubectl informer attach https://127.0.0.1:8443/metrics --token "$(kubectl create token my-sa)" \
--insecure-skip-tls-verify

# Our own informer on pods beside the controller's queues
kubectl informer attach pod/my-controller-7d9f:8080 --resource pods

# Three scrapes as text, for scripts
kubectl informer attach http://127.0.0.1:8080/metrics -o text --count 3
"""


@cli.command(
    cls=KubectlCommand,
    usage="TARGET [options]",
    help="Attach to a running controller's metrics and show its workqueues live: depth, adds/s, "
    "queue latency and work duration p50/p99, retries, reconciles and workers; for a client-go "
    "1.36 process also its informers (i) and stale-sync skips. TARGET is a URL "
    "(after your own kubectl port-forward), pod/NAME[:PORT] or deploy/NAME[:PORT], read through "
    "the API server's pods/proxy subresource (GET only).",
    examples=ATTACH_EXAMPLES,
)
@click.argument("target", callback=params.ATTACH_TARGET)
@attach_target_options
@connection_attach_flags
@attach_output_options
@debug_option
def attach(
    target: str,
    resource: str | None,
    output: str,
    count: int | None,
    run_for: float | None,
    token: str | None,
    token_file: str | None,
    **flags: Any,
) -> int:
    from kubectl_informer.cli.attach import AttachFailed, TargetError, run_attach

    _check_attach_flags(flags["interval"], output, count, run_for, resource)
    opts = _attach_options(target, _attach_token(token, token_file), flags)
    opts.overrides = _attach_overrides(opts, resource, flags)  # what is left in flags: the API server's
    try:
        with quiet_on_closed_pipe():
            return run_attach(
                opts, output, count=count, duration=run_for, resource=resource, before_ui=need_terminal, run_app=run_app
            )
    except TargetError as e:
        raise click.UsageError(str(e)) from None
    except AttachFailed as e:
        raise RunError(str(e)) from None
    except KeyboardInterrupt:
        return 0


def _attach_options(target: str, token: str | None, flags: dict[str, Any]) -> AttachOptions:
    """attach's own flags, taken out of ``flags``: what is left there is kubectl's API-server flags."""
    from kubectl_informer.cli.attach import AttachOptions

    return AttachOptions(
        target,
        namespace=flags.pop("namespace"),
        context=flags.pop("context"),
        kubeconfig=flags.pop("kubeconfig"),
        interval=flags.pop("interval"),
        path=flags.pop("metrics_path"),
        scheme=flags.pop("scheme"),
        token=token,
        ca_file=flags.pop("ca_file"),
        insecure=flags.pop("insecure"),
    )


def _check_attach_flags(
    interval: float, output: str, count: int | None, run_for: float | None, resource: str | None
) -> None:
    if interval <= 0:
        raise click.BadParameter("must be above 0", param_hint="'--interval'")
    if output == "tui" and (count is not None or run_for is not None):
        raise click.UsageError("--count and --duration apply to -o json and -o text only")
    if resource and output != "tui":
        raise click.UsageError("--resource shows our informer beside the queues in the live UI only")


def _attach_overrides(opts: AttachOptions, resource: str | None, api_server: dict[str, Any]) -> ConfigOverrides:
    """The API server's connection flags: always the API-server-only ones
    (--server, --as...); --token, --certificate-authority and
    --insecure-skip-tls-verify too unless TARGET is a URL (they are its)."""
    from kubectl_informer.cli.connection import pop_overrides

    is_url = opts.target.strip().startswith(("http://", "https://"))
    # A URL TARGET reads the API server too with --resource, --kubeconfig or --context (its RVs).
    reads_api_server = resource or opts.kubeconfig or opts.context
    if is_url and not reads_api_server and any(v not in (None, ()) for v in api_server.values()):
        given = next(k for k, v in api_server.items() if v not in (None, ()))
        flag = {"as_user": "as", "as_groups": "as-group"}.get(given, given.replace("_", "-"))
        raise click.UsageError(
            f"--{flag} applies to the API server: "
            f"a URL TARGET is read directly (use it with pod/ or deploy/, --resource, --kubeconfig or "
            f"--context)"
        )
    if not is_url:
        api_server.update(
            token=opts.token,
            insecure=opts.insecure,
            certificate_authority=os.path.abspath(opts.ca_file) if opts.ca_file else None,
        )
    return pop_overrides(api_server)


def _attach_token(token: str | None, token_file: str | None) -> str | None:
    """The bearer token from --token or --token-file, checked (_check_attach_token)."""
    if token and token_file:
        raise click.UsageError("--token and --token-file cannot be used together")
    if token_file:
        try:
            with open(token_file, encoding="utf-8") as fh:
                token = fh.read().strip()
        except OSError as e:
            raise RunError(f"cannot read {token_file}: {e.strerror or e}") from None
    if token:
        _check_attach_token(token)
    return token


def _check_attach_token(token: str) -> None:
    """``attach --token``: hidden from every message, refused (unshown) if it
    could not be an HTTP header."""
    from kubectl_informer.core.redact import remember
    from kubectl_informer.kube.kubeconfig_types import has_control_characters

    remember(token)
    if has_control_characters(token):
        raise click.UsageError("the bearer token holds a control character (a line break?); it is not shown")


# --- replay ------------------------------------------------------------------------------


REPLAY_EXAMPLES = """
# Record a minute, then play it back in the UI, ten times faster
kubectl informer watch pods --demo flaky -o json --duration 1m > trace.ndjson
kubectl informer replay trace.ndjson --speed 10

# Start 30s in: what came before is fed at once
kubectl informer replay trace.ndjson --from 30s

# The deltas of a recording, one per line, as fast as possible
kubectl informer replay trace.ndjson -o text

# The same in recorded time
kubectl informer replay trace.ndjson -o text --speed 1
"""


@cli.command(
    cls=KubectlCommand,
    usage="FILE [options]",
    help="Replay a recording (--record FILE, or -o json) in time: in the live UI (space pauses, . steps, "
    "] and [ seek to the next/previous relist, 410 or tombstone, t seeks to a time) or as text. "
    "FILE - reads stdin.",
    examples=REPLAY_EXAMPLES,
)
@click.argument("file")
@click.option(
    "-o",
    "--output",
    type=click.Choice(("tui", "json", "text")),
    default="tui",
    show_default=True,
    help="tui: the UI; json: the events again as NDJSON; text: one line per delta.",
)
@click.option(
    "--speed",
    type=params.SPEED,
    default=None,
    metavar="N",
    help="Play N times faster than recorded (0: as fast as possible). Default: 1 in the UI, 0 for -o json/text.",
)
@click.option("--no-wait", is_flag=True, help="As fast as possible (--speed 0).")
@click.option(
    "--from",
    "start",
    type=DURATION,
    default="0s",
    metavar="OFFSET",
    help="Start at this offset from the recording's start (e.g. 30s, 1m30s); what comes before is "
    "fed at once (UI) or skipped (-o json/text).",
)
@click.option("--show-secret-data", is_flag=True, help="Show Secret values (they are redacted by default).")
@debug_option
def replay(file: str, output: str, speed: float | None, no_wait: bool, start: float, show_secret_data: bool) -> int:
    from kubectl_informer.cli.replay import RecordingError
    from kubectl_informer.cli.replay import replay as run_replay

    if no_wait and speed not in (None, 0):
        raise click.UsageError("--no-wait and --speed cannot be used together")
    try:
        with quiet_on_closed_pipe():
            return run_replay(
                file,
                output,
                0.0 if no_wait else speed,
                start,
                show_secret_data,
                need_terminal=need_terminal,
                run_app=run_app,
            )
    except RecordingError as e:
        raise RunError(str(e)) from None


# --- sim, version --------------------------------------------------------------------------


SIM_EXAMPLES = """
# Serve on a free port and write a kubeconfig for it (in a directory of your own)
kubectl informer sim --write-kubeconfig "$XDG_RUNTIME_DIR/sim.kubeconfig" --scenario burst

# In another terminal
KUBECONFIG="$XDG_RUNTIME_DIR/sim.kubeconfig" kubectl get pods -w
KUBECONFIG="$XDG_RUNTIME_DIR/sim.kubeconfig" kubectl informer watch pods
"""


@cli.command(
    cls=KubectlCommand,
    usage="[options]",
    help="Run the simulated API server in the foreground (until Ctrl-C), so kubectl and the plugin "
    "can be used side by side against it. It runs simulated Deployment, ReplicaSet and "
    "garbage-collector controllers: kubectl create/scale/rollout/delete of a deployment make and "
    "remove ReplicaSets and pods as on a cluster.",
    examples=SIM_EXAMPLES,
)
@click.option(
    "--port", type=click.IntRange(0, 65535), default=0, show_default=True, help="Port on 127.0.0.1 (0: any free one)."
)
@click.option(
    "--write-kubeconfig",
    metavar="FILE",
    default=None,
    help="Write a kubeconfig pointing at the server, with its token (mode 0600; a symbolic link or "
    "another user's file there is refused): keep it in a directory of your own, not /tmp.",
)
@click.option("--scenario", default=None, metavar="NAME", help="Churn scenario to run (see --list-scenarios).")
@click.option("--list-scenarios", is_flag=True, help="List the scenarios and exit.")
@click.option(
    "--tls/--no-tls",
    default=True,
    show_default=True,
    help="Serve HTTPS with a self-signed certificate (its CA in the kubeconfig). kubectl sends its token "
    "only over TLS, so with --no-tls only this plugin can talk to the server.",
)
@debug_option
def sim(port: int, write_kubeconfig: str | None, scenario: str | None, list_scenarios: bool, tls: bool) -> int:
    from kubectl_informer.sim.scenarios import SCENARIOS

    if list_scenarios:
        for name in sorted(SCENARIOS):
            desc = getattr(SCENARIOS[name], "description", "")
            click.echo(f"{name:<16} {desc}".rstrip())
        return 0
    if scenario is not None and scenario not in SCENARIOS:
        raise click.BadParameter(
            f'unknown scenario "{scenario}" (known: {", ".join(sorted(SCENARIOS))})', param_hint="'--scenario'"
        )
    from kubectl_informer.run.lifecycle import on_sigterm
    from kubectl_informer.sim.run import run_sim

    def on_term() -> NoReturn:
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


@cli.command(
    cls=KubectlCommand, usage="[options]", help="Print the plugin's version.", examples="kubectl informer version"
)
@debug_option
def version() -> int:
    click.echo(_version_line())
    return 0


def _version_line() -> str:
    return (
        f"kubectl-informer v{__version__} (python {platform.python_version()}, "
        f"client-go profiles {', '.join(CLIENT_GO_PROFILES)})"
    )


def _echo_version(ctx: click.Context, wanted: bool) -> None:
    """``--version``: the version command's line, then exit 0 (kubectl and most CLIs take both)."""
    if wanted and not ctx.resilient_parsing:
        click.echo(_version_line())
        ctx.exit(0)


def main(argv: list[str] | None = None) -> int:
    """Console-script entry point (``kubectl-informer``)."""
    return cli.main(args=argv, prog_name=PROG, standalone_mode=True)
