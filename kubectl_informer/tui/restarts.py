"""Restarts from the UI: the pipeline restarted in a worker thread, and
the resource names discovery serves (for the command line's completion).

``Restarts`` is a part the app owns. ``request(what, derive)`` (what `:`
commands and ``P`` call, through ``InformerApp.restart_pipeline``) runs
``lifecycle.Running.restart`` in a thread so the UI keeps drawing; the
thread posts ``RestartFinished`` and the app's handler hands it back to
``finished``. The trace's ``run.restart`` event, when the feed loop reaches
it, resets every pane (panes/feed.py) and the app posts
``PipelineRestarted``. Discovery runs in a thread too and posts
``ResourceNamesFound``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from textual.app import App
from textual.message import Message

from kubectl_informer.kube.discovery import get_discovery
from kubectl_informer.tui.command import CommandError
from kubectl_informer.tui.command_mode import one_line


@dataclass
class RestartFinished(Message):
    """A restart's thread is done: ``info`` is the new run's, or ``error`` says why not."""

    what: str
    info: Any
    error: str | None


@dataclass
class ResourceNamesFound(Message):
    """Resource names and short names the cluster serves (may be empty)."""

    names: tuple[str, ...]


class Restarts:
    """``Restarts(app, pipeline)``: ``pipeline`` is the ``lifecycle.Running``
    to restart (None: a replay, nothing to restart)."""

    def __init__(self, app: App, pipeline: Any) -> None:
        self.app = app
        self.pipeline = pipeline
        self.restarting = False

    def current_run(self) -> Any:
        """The Run whose pipeline runs now (a restart replaces it), or None."""
        return self.pipeline.run if self.pipeline is not None else None

    def request(self, what: str, derive: Callable[[Any], Any]) -> None:
        """Restart the pipeline on ``derive(config)`` of the running config
        (a ``RunConfig``; see ``lifecycle.Running.restart``), in a worker thread; CommandError
        if there is nothing to restart or a restart is under way."""
        if self.pipeline is None:
            raise CommandError(f"{what}: nothing to restart here (a replay shows a recording)")
        if self.restarting:
            raise CommandError(f"{what}: a restart is already under way")
        self.restarting = True
        self.app.notify(f"{what}: restarting the pipeline…", timeout=2)
        self.app.run_worker(
            lambda: self._restart_in_thread(what, derive), thread=True, group="restart", exit_on_error=False
        )

    def _restart_in_thread(self, what: str, derive: Callable[[Any], Any]) -> None:
        try:
            info = self.pipeline.restart(derive(self.pipeline.config))
            error = None
        except Exception as e:  # noqa: BLE001 - RunError, a usage error, the unexpected: one line each
            info, error = None, one_line(e)
        names = self.discovered_names()
        # Messages are thread-safe: the handlers run on the app's loop.
        self.app.post_message(ResourceNamesFound(names))
        self.app.post_message(RestartFinished(what, info, error))

    def finished(self, done: RestartFinished, watching: str) -> bool:
        """The notification for a finished restart; True if it succeeded.
        ``watching``: the resource shown now (what a failed restart keeps)."""
        self.restarting = False
        if done.error is not None:
            self.app.notify(f"{done.what}: {done.error} (still watching {watching})", severity="error", timeout=8)
            return False
        info = done.info
        scope = "all namespaces" if info.namespace is None else f"ns {info.namespace}"
        self.app.notify(
            f"{done.what}: now {info.resource} in {scope}, client-go {info.profile} ({info.fifo} · {info.initial_list})"
        )
        return True

    # -- discovery ----------------------------------------------------------------------
    def discovered_names(self) -> tuple[str, ...]:
        """Resource names and short names the cluster serves (discovery is
        cached per client once a run resolved its resource)."""
        run = self.current_run()
        if run is None or getattr(run, "target", None) is None:
            return ()
        try:
            names: dict[str, None] = {}
            for r in get_discovery(run.target.api_client).ordered():
                for n in (r.resource, *r.short_names):
                    names.setdefault(n, None)
            return tuple(names)
        except Exception:  # noqa: BLE001 - completion is a nicety
            return ()

    def load_resource_names(self) -> None:
        """Ask discovery in a thread; ``ResourceNamesFound`` brings the answer."""
        if self.pipeline is not None:
            self.app.run_worker(
                lambda: self.app.post_message(ResourceNamesFound(self.discovered_names())),
                thread=True,
                group="discovery",
                exit_on_error=False,
            )
