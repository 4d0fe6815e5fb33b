"""The control channel from the UI to a running pipeline.

``Experiments(run)`` is created by the run and handed to the UI. Each
action reads the run's current informer, controller and demo server (so a
pipeline rebuilt on the same run is followed), emits an ``experiment``
trace event saying what the user did *before* acting (cause before effect in
the panes and recordings), then acts through the small hooks in the engine:
``Reflector.close_watch``/``forget_resource_version``, the informer's
``pause_consumer``, the controller's ``pause_workers``/``fail_next``, and the
simulated server's ``Faults``. Client-side experiments send nothing to the
API server themselves; the ones on the simulated cluster are the server
acting on itself.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kubectl_informer.core.durations import format_duration, parse_duration
from kubectl_informer.core.trace_kinds import EXPERIMENT
from kubectl_informer.run.experiments.catalog import (
    BURST_UPDATES,
    BY_NAME,
    MAX_COUNT,
    NEEDS_QUEUE,
    NEEDS_SIM,
    STORM_WATCHES,
    UNAVAILABLE,
    Experiment,
)
from kubectl_informer.run.handler_lanes import add_handler

if TYPE_CHECKING:
    from kubectl_informer.cache.reflector import Reflector
    from kubectl_informer.cache.shared_informer import SharedIndexInformer
    from kubectl_informer.run.runner import Run
    from kubectl_informer.run.sample_controller import SimulatedController
    from kubectl_informer.sim.faults import Faults


class ExperimentError(Exception):
    """The experiment cannot run here or now; the message says why, in a line."""


class Experiments:
    def __init__(self, run: Run) -> None:
        self._run = run
        self._handlers = 0

    # -- what is possible -----------------------------------------------------
    def unavailable(self, name: str) -> str | None:
        """Why ``name`` cannot run on this run (None: it can)."""
        exp = BY_NAME.get(name) or _by_toggle(name)
        if exp is None:
            return f'unknown experiment "{name}"'
        if exp.needs == NEEDS_SIM and self._run.demo is None:
            return UNAVAILABLE[NEEDS_SIM]
        if exp.needs == NEEDS_QUEUE and self._run.config.mode != "queue":
            return UNAVAILABLE[NEEDS_QUEUE]
        return None

    def fifo_paused(self) -> bool:
        inf = self._run.informer
        return inf is not None and inf.consumer_paused

    def workers_paused(self) -> bool:
        c = self._run.controller
        return c is not None and c.workers_paused

    def failures_to_come(self) -> int:
        c = self._run.controller
        return 0 if c is None else c.failures_to_come()

    def name_for(self, exp: Experiment) -> str:
        """A toggle's name now: its undo once it is in effect."""
        if exp.toggle and (
            (exp.name == "pause-fifo" and self.fifo_paused()) or (exp.name == "pause-workers" and self.workers_paused())
        ):
            return exp.toggle
        return exp.name

    # -- running one ----------------------------------------------------------
    def run(self, name: str, value: str | None = None, key: str | None = None) -> str:
        """Run experiment ``name`` (``value``: its prompt's answer, ``key``:
        the selected object); returns what happened, in a line. Raises
        ExperimentError when it cannot run (unavailable, bad value)."""
        why = self.unavailable(name)
        if why is not None:
            raise ExperimentError(f"{name}: {why}")
        if self._run.informer is None or not self._run.informer.has_started():
            raise ExperimentError("the informer is not running yet")
        action = getattr(self, "_" + name.replace("-", "_"))
        exp = BY_NAME.get(name)
        if exp is not None and exp.prompt:
            return action(value if value not in (None, "") else exp.default, key)
        if exp is not None and exp.name == "burst":
            return action(key)
        return action()

    def _emit(self, name: str, detail: str, key: str | None = None, **fields: Any) -> None:
        self._run.tracer.emit(EXPERIMENT, key, name=name, detail=detail, **fields)

    def _informer(self) -> SharedIndexInformer:
        inf = self._run.informer
        if inf is None:  # run() says so before any action; a typed guard
            raise ExperimentError("the informer is not running yet")
        return inf

    def _reflector(self) -> Reflector:
        r = self._informer().reflector
        if r is None:
            raise ExperimentError("the reflector is not running yet")
        return r

    def _close_watch(self) -> str:
        r = self._reflector()
        rv = r.last_sync_resource_version()
        self._emit("close-watch", f"close the watch at rv {rv}: the reflector re-watches from it, no list")
        if not r.close_watch():
            return "no watch was open (listing or backing off): nothing to close"
        return f"closed the watch; the reflector re-watches from rv {rv}"

    def _forget_rv(self) -> str:
        r = self._reflector()
        rv = r.last_sync_resource_version()
        self._emit("forget-rv", f'forget rv {rv}: end the watch, relist at "" (a consistent read)')
        r.forget_resource_version()
        return f'forgot rv {rv}: the next list asks for rv "" (after the reflector\'s back-off)'

    def _pause_fifo(self) -> str:
        inf = self._informer()
        self._emit("pause-fifo", f"pause the {inf.fifo_label} consumer: deltas wait in the FIFO")
        inf.pause_consumer(True)
        return f"paused the {inf.fifo_label} consumer: the backlog builds (x f resumes)"

    def _resume_fifo(self) -> str:
        inf = self._informer()
        self._emit("resume-fifo", f"resume the {inf.fifo_label} consumer: the backlog drains")
        inf.pause_consumer(False)
        return "resumed the FIFO consumer: the backlog drains"

    def _controller(self) -> SimulatedController:
        c = self._run.controller
        if c is None:
            raise ExperimentError(UNAVAILABLE[NEEDS_QUEUE])
        return c

    def _pause_workers(self) -> str:
        c = self._controller()
        self._emit("pause-workers", "pause the workers: items wait in the workqueue")
        c.pause_workers(True)
        return "paused the workers (each finishes what it holds): the queue builds up (x p resumes)"

    def _resume_workers(self) -> str:
        c = self._controller()
        self._emit("resume-workers", "resume the workers: the queue drains")
        c.pause_workers(False)
        return "resumed the workers"

    def _fail_next(self, value: str, key: str | None) -> str:
        c = self._controller()
        n = parse_count(value)
        start = f"; {key} queued to start" if key else ""
        self._emit("fail-next", f"the next {n} work items fail{start}", key, count=n)
        c.fail_next(n)
        if key:
            c.queue.add(key)  # client-side: the controller's own queue
        return f"the next {n} work items fail and come back through the rate limiter{start}"

    def _add_handler(self, value: str, key: str | None) -> str:
        period = parse_resync(value)
        inf = self._informer()
        self._handlers += 1
        name = f"experiment-{self._handlers}"
        self._emit("add-handler", f"add handler {name} asking resync {format_duration(period)}", period=period)
        reg = add_handler(inf, name, period, stop_event=self._run.stop_event)
        got = format_duration(reg.resync_period)
        check = format_duration(inf.resync_check_period)
        why = "; the informer has no resync (start it with --resync)" if period and not reg.resync_period else ""
        return f"added {name}: asked {format_duration(period)}, got {got} (check period {check}){why}"

    def _faults(self) -> Faults:
        demo = self._run.demo
        if demo is None:  # unavailable() says so before any action; a typed guard
            raise ExperimentError(UNAVAILABLE[NEEDS_SIM])
        return demo.server.faults

    def _resource(self) -> str:
        return self._run._resource_name()

    def _expired_storm(self) -> str:
        self._emit(
            "expired-storm",
            f"the simulated server answers the next {STORM_WATCHES} watches with 410 Gone and ends the open ones",
            count=STORM_WATCHES,
        )
        ended = self._faults().expired_storm(self._resource(), STORM_WATCHES)
        return f"410 storm: {ended} watches ended, the next {STORM_WATCHES} answer 410: expect {STORM_WATCHES} relists"

    def _compaction(self) -> str:
        self._emit("compaction", "the simulated server compacts at its current RV and ends the watches")
        rv, ended = self._faults().compact(self._resource())
        return f"compacted at rv {rv}, {ended} watches ended: a client behind rv {rv} gets 410 and relists"

    def _drop_watches(self) -> str:
        self._emit("drop-watches", "the simulated server ends every watch")
        ended = self._faults().drop_watches(self._resource())
        return f"dropped {ended} watches: the reflector re-watches from its last RV"

    def _burst(self, key: str | None) -> str:
        if not key:
            raise ExperimentError("burst: select a key first (Deltas, FIFO, Cache or Inspector, or / to filter)")
        namespace, _, name = key.rpartition("/")
        self._emit("burst", f"{BURST_UPDATES} updates to {key} back to back", key, count=BURST_UPDATES)
        made = self._faults().burst(self._resource(), namespace or None, name, BURST_UPDATES)
        if made == 0:
            return f"burst: {key} is not on the simulated server (deleted?)"
        return f"burst: {made} updates to {key}"


def _by_toggle(name: str) -> Experiment | None:
    return next((e for e in BY_NAME.values() if e.toggle == name), None)


def parse_count(text: str) -> int:
    """A whole number from 1 to MAX_COUNT; ExperimentError otherwise."""
    try:
        n = int(str(text).strip())
    except ValueError:
        raise ExperimentError(f'"{text}" is not a whole number') from None
    if not 1 <= n <= MAX_COUNT:
        raise ExperimentError(f"the count must be between 1 and {MAX_COUNT}, got {n}")
    return n


def parse_resync(text: str) -> float:
    """A Go duration ("3s", "1m", "0"); ExperimentError otherwise."""
    try:
        return parse_duration(str(text).strip())
    except ValueError as e:
        raise ExperimentError(f"resync period: {e}") from None
