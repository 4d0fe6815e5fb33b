"""Running ``attach``: open the target, scrape every interval, feed the model,
and hand it to the screen or print it."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kubectl_informer.attach.informers import STORE_RV
from kubectl_informer.attach.model import AttachModel
from kubectl_informer.attach.page import Page
from kubectl_informer.attach.scrape import (
    ProxyScraper,
    ScrapeError,
    UrlScraper,
    resolve_proxy,
)
from kubectl_informer.attach.scrape import scrape as scrape_page
from kubectl_informer.attach.server_rv import ServerRV
from kubectl_informer.attach.target import ResolveError, Target, TargetError, parse_target
from kubectl_informer.core.scope import Scope
from kubectl_informer.kube.overrides import ConfigOverrides

if TYPE_CHECKING:
    from kubectl_informer.cli.output import TextOut
    from kubectl_informer.core.trace import TraceBuffer
    from kubectl_informer.kube.config import KubeTarget
    from kubectl_informer.run.lifecycle import UiApp
    from kubectl_informer.run.runner import Run


class AttachFailed(Exception):
    """One line for the user; the CLI exits 1."""


@dataclass
class AttachOptions:
    target: str
    namespace: str | None = None
    context: str | None = None
    kubeconfig: str | None = None
    interval: float = 1.0
    path: str = "/metrics"
    scheme: str = "auto"
    token: str | None = None
    ca_file: str | None = None
    insecure: bool = False
    timeout: float = 5.0
    # The API server's connection flags: pod/, deploy/ and --resource go
    # through it; a URL TARGET is read directly.
    overrides: ConfigOverrides | None = None


def open_scraper(o: AttachOptions) -> UrlScraper | ProxyScraper:
    """The scraper for ``o.target``; TargetError for a malformed TARGET,
    AttachFailed for everything the cluster or the endpoint refuses.
    Its ``server_rv`` reads the API server's RVs (the informers' lag): the
    API server of a pod/deploy target, or of ``--kubeconfig``/``--context``
    given with a URL."""
    target = parse_target(o.target)
    if target.kind == "url":
        url = UrlScraper(target.url, token=o.token, ca_file=o.ca_file, insecure=o.insecure, timeout=o.timeout)
        if o.kubeconfig or o.context:
            url.server_rv = ServerRV(_load_kube(o).api_client)
        return url
    kube = _load_kube(o)
    proxied = _resolve(o, kube, target)
    proxied.server_rv = ServerRV(kube.api_client)
    return proxied


def _load_kube(o: AttachOptions) -> KubeTarget:
    from kubectl_informer.kube.config import load_kube
    from kubectl_informer.kube.errors import KubeError

    try:
        return load_kube(kubeconfig=o.kubeconfig, context=o.context, overrides=o.overrides)
    except KubeError as e:
        raise AttachFailed(str(e)) from None


def _resolve(o: AttachOptions, kube: KubeTarget, target: Target) -> ProxyScraper:
    namespace = Scope(o.namespace).resolve(namespaced=True, context_namespace=kube.namespace).namespace
    assert namespace is not None  # a namespaced resource, not -A: resolve names one namespace
    try:
        return resolve_proxy(kube.api_client, namespace, target, o.scheme, o.path, timeout=o.timeout)
    except ResolveError as e:
        raise AttachFailed(str(e)) from None
    except OSError as e:
        from kubectl_informer.run.runner import describe_error

        raise AttachFailed(describe_error(e, kube.server) or str(e)) from None


def scrape(scraper: UrlScraper | ProxyScraper) -> Page:
    """One page; the API server's RVs beside it when the page has store RVs
    to compare them with (client-go 1.36's informer_store_resource_version)."""
    page = scrape_page(scraper)
    server = getattr(scraper, "server_rv", None)
    if server is not None and page.has(STORE_RV):
        server.annotate(page)
    return page


def first_scrape(scraper: UrlScraper | ProxyScraper, model: AttachModel) -> None:
    """A target that cannot be read at all ends the command before any UI."""
    try:
        model.update(scrape(scraper))
    except ScrapeError as e:
        raise AttachFailed(str(e)) from None


class Scraper(threading.Thread):
    """Scrapes every ``interval`` seconds into ``model``; a failure is kept
    in ``model.error`` (shown) and the next scrape tries again."""

    def __init__(
        self,
        scraper: UrlScraper | ProxyScraper,
        model: AttachModel,
        interval: float,
        on_update: Callable[[], None] | None = None,
        lock: threading.Lock | None = None,
    ) -> None:
        super().__init__(name="kubectl-informer-attach", daemon=True)
        self.scraper = scraper
        self.model = model
        self.interval = interval
        self.on_update = on_update
        self.lock = lock or threading.Lock()
        self.stop_event = threading.Event()

    def run(self) -> None:
        next_at = time.monotonic() + self.interval
        while not self.stop_event.wait(max(0.0, next_at - time.monotonic())):
            next_at += self.interval
            try:
                page = scrape(self.scraper)
                with self.lock:
                    self.model.update(page)
            except ScrapeError as e:
                with self.lock:
                    self.model.fail(str(e))
            if self.on_update is not None:
                self.on_update()

    def stop(self) -> None:
        self.stop_event.set()
        self.join(5.0)


def run_headless(
    scraper: UrlScraper | ProxyScraper,
    model: AttachModel,
    output: str,
    interval: float,
    count: int | None,
    duration: float | None,
    out: TextOut | None = None,
) -> None:
    """Print each scrape (``json``: one object a line; ``text``: a block);
    stop after ``count`` scrapes or ``duration`` seconds (or Ctrl-C)."""
    from kubectl_informer.attach.report import model_dict, model_lines
    from kubectl_informer.core.printable import printable

    if out is None:
        from kubectl_informer.cli.output import stdout

        out = stdout()
    deadline = None if duration is None else time.monotonic() + duration
    printed = 0
    next_at = time.monotonic()
    while True:
        if printed:
            try:
                model.update(scrape(scraper))
            except ScrapeError as e:
                model.fail(str(e))
        # JSON escapes every control character itself (ensure_ascii); text shows the page's labels printable.
        if model.error:
            out.write(
                json.dumps({"time": time.monotonic(), "error": model.error}) + "\n"
                if output == "json"
                else f"scrape failed: {printable(model.error)}\n"
            )
        elif output == "json":
            out.write(json.dumps(model_dict(model, scraper.describe)) + "\n")
        else:
            lines = [f"--- {scraper.describe} · scrape {model.scrapes}", *model_lines(model)]
            out.write("".join(printable(line) + "\n" for line in lines))
        out.flush()
        printed += 1
        if count is not None and printed >= count:
            return
        next_at += interval
        if deadline is not None and next_at > deadline:
            return
        time.sleep(max(0.0, next_at - time.monotonic()))


__all__ = ["AttachOptions", "AttachFailed", "TargetError", "open_scraper", "first_scrape", "Scraper", "run_headless"]


def run_attach(
    o: AttachOptions,
    output: str,
    count: int | None = None,
    duration: float | None = None,
    resource: str | None = None,
    before_ui: Callable[[], None] | None = None,
    run_app: Callable[[UiApp], None] | None = None,
) -> int:
    """The whole command: first scrape (errors end it), then the screen or
    the printed scrapes until quit, ``count`` or ``duration``.
    ``before_ui`` checks for a terminal once the target proved readable;
    ``run_app`` runs the screen (the CLI's closes it on SIGTERM too)."""
    scraper = open_scraper(o)
    model = AttachModel()
    first_scrape(scraper, model)
    if output != "tui":
        run_headless(scraper, model, output, o.interval, count, duration)
        return 0
    if before_ui is not None:
        before_ui()
    side = _start_informer(o, resource) if resource else None
    lock = threading.Lock()
    loop = Scraper(scraper, model, o.interval, lock=lock)
    try:
        from kubectl_informer.tui.attach import AttachApp

        app = AttachApp(model, lock, scraper.describe, buffer=side[1] if side else None, resource=resource or "")
        loop.start()
        if run_app is None:
            app.run()
        else:
            run_app(app)
    finally:
        if loop.is_alive():
            loop.stop()
        if side is not None:
            side[0].stop()
    return 0


def _start_informer(o: AttachOptions, resource: str) -> tuple[Run, TraceBuffer]:
    """Our informer on ``resource``, beside the controller's queues."""
    from kubectl_informer.core.trace import TraceBuffer, Tracer
    from kubectl_informer.run.config import RunConfig
    from kubectl_informer.run.runner import Run

    tracer = Tracer()
    buffer = TraceBuffer()
    tracer.subscribe(buffer)
    # server_scrape=0: attach shows no Server pane, so it asks the API server nothing more.
    run = Run(
        RunConfig(
            resource=resource,
            scope=Scope(o.namespace),
            context=o.context,
            kubeconfig=o.kubeconfig,
            overrides=o.overrides,
            server_scrape=0,
        ),
        tracer,
    )
    run.prepare()
    run.start()
    return run, buffer
