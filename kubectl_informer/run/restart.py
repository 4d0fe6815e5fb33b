"""Restarting the pipeline within one running UI (``Running.restart``).

A ``:`` command or the profile switch asks for a new resource, scope or
profile. The new run is prepared first, while the old one keeps running: a
typo, a 403 or a dead server becomes a ``RunError`` and nothing changed.
Then the old run's threads are joined, a ``run.restart`` event marks the
seam in the trace (the UI resets its panes there, a recording keeps it),
and the new run starts on the same tracer, buffer, recorder and cluster:
with ``--demo`` the same simulated server and scenario go on.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from kubectl_informer.core.trace_kinds import RUN_RESTART
from kubectl_informer.run.config import RunConfig
from kubectl_informer.run.crash import summary
from kubectl_informer.run.runner import STOP_TIMEOUT, RunError

# What a restart may change; the rest (selectors, transforms, queue
# settings, --demo) stay as the command line set them.
RESTARTABLE = frozenset(("resource", "name", "scope", "profile", "owns", "controller", "context"))

_locks_guard = threading.Lock()


def restart_lock(running: Any) -> threading.Lock:
    """One restart at a time per Running (a second one is refused, not queued)."""
    with _locks_guard:
        lock = getattr(running, "_restart_lock", None)
        if lock is None:
            lock = running._restart_lock = threading.Lock()
        return lock


def restart_running(running: Any, config: RunConfig) -> Any:
    """See ``lifecycle.Running.restart``; returns the new RunInfo."""
    unknown = running.run.resolved_config.changed_fields(config) - RESTARTABLE
    if unknown:
        raise ValueError(f"cannot change {', '.join(sorted(unknown))} in a restart")
    lock = restart_lock(running)
    if not lock.acquire(blocking=False):
        raise RunError("a restart is already under way")
    try:
        return _restart(running, config)
    finally:
        lock.release()


def _restart(running: Any, config: RunConfig) -> Any:
    started = time.monotonic()
    old = running.run
    if old.stop_event.is_set():
        raise RunError("the run has stopped: nothing to restart")
    new = old.successor(config)
    try:
        info = new.prepare()  # may raise: the old run is untouched
    except BaseException:
        new.stop()
        raise
    new.take_over(old)  # first: stopping the old run must leave the demo running
    left = old.stop()
    running.run, running.info = new, info
    running.restarts = restarts = running.restarts + 1
    profile = config.profile
    old.tracer.emit(
        RUN_RESTART,
        None,
        resource=info.resource,
        namespace=info.namespace,
        client_go=profile.client_go,
        fifo=profile.fifo_label,
        watch_list=profile.watch_list,
        restarts=restarts,
        took=round(time.monotonic() - started, 6),
        **({"informers": list(info.informers)} if len(info.informers) > 1 else {}),
    )
    try:
        running.start()
    except Exception as e:  # noqa: BLE001 - the UI shows it; the run is stopped
        new.stop()
        raise RunError(f"the new pipeline did not start: {summary(e)}") from None
    if left:
        raise RunError(f"restarted, but {len(left)} thread(s) of the old run did not stop within {STOP_TIMEOUT:g}s")
    return info
