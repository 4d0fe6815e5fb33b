"""Run a config as ``watch`` and ``queue`` were asked: the live UI or a
headless stream (``-o json|text``), with ``--record`` and ``--metrics-addr``.
``lifecycle.running`` owns the run itself; this picks the reader."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from kubectl_informer.cli.command import need_terminal, quiet_on_closed_pipe
from kubectl_informer.run.errors import RunError

if TYPE_CHECKING:  # the command line imports this module; a usage error never runs a config
    from kubectl_informer.attach.exporter import MetricsExporter
    from kubectl_informer.run.config import RunConfig
    from kubectl_informer.run.lifecycle import Running
    from kubectl_informer.tui.app import InformerApp


def start_exporter(config: RunConfig) -> MetricsExporter | None:
    """The ``--metrics-addr`` server, bound before anything runs (a port in
    use is one line); it answers once the controller exists."""
    addr = config.metrics_addr
    if not addr:
        return None
    from kubectl_informer.attach.exporter import MetricsExporter

    try:
        return MetricsExporter(addr)
    except OSError as e:
        raise RunError(f"cannot serve metrics on {addr}: {e.strerror or e}") from None


def live_app(r: Running, start_pane: str) -> InformerApp:
    """The live UI of a prepared run (``lifecycle.Running``), as watch and
    queue show it; the docs' screenshots (``docshots``) are taken of this one."""
    from kubectl_informer.tui.app import InformerApp

    return InformerApp(r.buffer, r.info, start_pane=start_pane, experiments=r.run.experiments, pipeline=r)


def execute(
    config: RunConfig,
    output: str,
    run_for: float | None = None,
    max_events: int | None = None,
    start_pane: str = "deltas",
    record: str | None = None,
) -> int:
    """Run as the flags say: ``lifecycle.running`` owns everything from the
    process tuning to the last thread joined; this only picks the reader."""
    from kubectl_informer.cli.output import make_renderer, no_resources_message, stderr, stdout

    # imported for its cost alone, before the clock starts: the kubernetes client's import is not part of --duration
    from kubectl_informer.kube import config as _kube  # noqa: F401  unused on purpose: see the line above
    from kubectl_informer.run.lifecycle import running
    from kubectl_informer.run.time_limit import remaining

    started = time.monotonic()
    ui = output == "tui"
    with running(
        config,
        ui=ui,
        record=record,
        check=need_terminal if ui else None,
        exporter=start_exporter,
        prepare_limit=run_for,
    ) as r:
        if ui:
            r.serve_ui(live_app(r, start_pane))
        else:
            renderer = make_renderer(
                output,
                stdout(),
                workers=config.mode == "queue",
                informers=len(r.info.informers),
                empty_message=no_resources_message(r.info.namespace),
                err=stderr(),
            )
            with quiet_on_closed_pipe():
                r.stream(renderer, run_for=remaining(run_for, started), max_events=max_events)
    return 0
