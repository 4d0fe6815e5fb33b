"""One run's lifecycle, owned in one place.

``running(config, ui=...)`` is the context manager the CLI calls once its flags
are parsed: it tunes the process (``ENGINE`` or ``UI`` setting), builds the
tracer and the buffer the readers drain, prepares the ``Run`` (every error a
user can cause, before any thread starts), opens the recorder, and on the way
out stops the run's threads, closes the recorder, restores the process and
raises the crash of an engine thread as a one-line ``RunError``. What a
signal does in each state is here too (``on_sigterm``: the UI closes, the
headless loop says what is buffered, ``sim`` stops); the exit code it ends
with is run/signals.py's, and a crash of the UI is raised from ``serve_app``
for the CLI's crash log (run/crash.py).

Process tuning has this one owner: the GC thresholds, the permanent
generation, the thread switch interval and the CPU pin are set together by
``tuned(setting)`` and restored together.
"""

from __future__ import annotations

import contextlib
import gc
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from types import FrameType
from typing import TYPE_CHECKING, Any, Protocol

from kubectl_informer.core.trace import TraceBuffer, TraceEvent, Tracer
from kubectl_informer.run import signals
from kubectl_informer.run.signals import Terminated

if TYPE_CHECKING:  # runner (and click under it) is imported by running(): pin_to_one_cpu's users need neither
    from kubectl_informer.core.run_info import RunInfo
    from kubectl_informer.run.config import RunConfig
    from kubectl_informer.run.runner import Run


class Renderer(Protocol):
    """What the headless loop writes the trace to (cli/output.py's renderers)."""

    lines: int  # lines written so far: ``max_events`` counts them

    def render(self, events: Iterable[TraceEvent]) -> int: ...


class UiApp(Protocol):
    """The UI as the run serves and closes it (a Textual App; Textual stays in tui/)."""

    @property
    def is_running(self) -> bool: ...

    def run(self) -> object: ...

    def exit(self) -> None: ...

    def call_from_thread(self, callback: Callable[..., Any], *args: Any, **kwargs: Any) -> Any: ...


@dataclass(frozen=True)
class Tuning:
    """The process settings a run holds while it lasts (see ``tuned``)."""

    name: str
    gc_threshold: tuple[int, int, int]
    freeze: bool  # move what is alive now to the permanent generation
    switch_interval: float | None  # sys.setswitchinterval while the run lasts; None: leave it
    pin: bool = True  # the pipeline's threads on one CPU


# Engine alone (-o json/text, --record, bench/engine.py). Every delta
# allocates a few short-lived containers (and ~7 TraceEvents while someone
# reads the trace); with CPython's young generation of 700 they survive into
# older generations while they wait in a buffer, and full collections over the
# cache then cost more than the pipeline itself. Objects decoded from JSON
# hold no cycles, so a young generation of 100,000 only delays cyclic garbage.
ENGINE = Tuning("engine", (100_000, 20, 100), freeze=False, switch_interval=None)

# With the UI (bench/tui.py): its rings and the engine's cache hold hundreds
# of thousands of long-lived objects, and under a flood 26 full collections in
# 15 s (median 190 ms) were what a key press waited for. What is alive at start
# is frozen, and young collections keep Python's size (a larger one made each
# cost 30-60 ms in the UI). Full collections wait for 3,000 middle-generation
# ones (a few minutes of a flood): the UI runs them itself once it has caught
# up (panes/collector.py), and the cyclic garbage they were for no longer piles
# up (tui/strips.py: every redrawn line was a cycle), so the automatic ones are
# a backstop. A 1 ms switch interval hands the GIL back to the UI quickly: the
# slowest key went from 245 ms to 17 ms, events absorbed from 75k/s to 140k/s.
UI = Tuning("ui", (700, 10, 3000), freeze=True, switch_interval=0.001)

PIN_ENV = "KUBECTL_INFORMER_NO_PIN"


def pin_to_one_cpu() -> Callable[[], None]:
    """Keep this thread, and the threads it starts from now on, on one CPU;
    returns a function that restores the calling thread's CPU set.

    The GIL runs one thread at a time however many cores there are, and on
    several idle cores every hand-off of the GIL between the reflector, the
    pop loop, the listeners and the workers crosses cores: bench/engine.py
    ran the traced pipeline at 27k deltas/s on two idle cores and 53k pinned
    to one. The CPU is picked by pid so that several runs spread out. Linux
    only; a no-op elsewhere, on one CPU, or with $KUBECTL_INFORMER_NO_PIN set.
    """
    if os.environ.get(PIN_ENV) or not hasattr(os, "sched_setaffinity"):
        return lambda: None
    try:
        cpus = sorted(os.sched_getaffinity(0))
        if len(cpus) <= 1:
            return lambda: None
        os.sched_setaffinity(0, {cpus[os.getpid() % len(cpus)]})
    except OSError:
        return lambda: None

    def restore() -> None:
        with contextlib.suppress(OSError):
            os.sched_setaffinity(0, cpus)

    return restore


@contextlib.contextmanager
def tuned(setting: Tuning) -> Iterator[Tuning]:
    """Apply ``setting`` to the process for the block (before any engine
    thread starts, so they inherit the pin); restore everything after. A GC
    disabled by a threshold of 0 is left disabled."""
    saved_gc = gc.get_threshold()
    saved_switch = sys.getswitchinterval()
    unpin = pin_to_one_cpu() if setting.pin else (lambda: None)
    if setting.freeze:
        gc.freeze()
    if saved_gc[0]:
        gc.set_threshold(*setting.gc_threshold)
    if setting.switch_interval is not None:
        sys.setswitchinterval(min(saved_switch, setting.switch_interval))
    try:
        yield setting
    finally:
        gc.set_threshold(*saved_gc)
        if setting.freeze:
            gc.unfreeze()
        sys.setswitchinterval(saved_switch)
        unpin()


@contextlib.contextmanager
def on_sigterm(
    handler: Callable[[], None], signums: tuple[int, ...] = (signal.SIGTERM, signal.SIGHUP)
) -> Iterator[None]:
    """Call ``handler`` on SIGTERM, and on SIGHUP (the terminal or its tmux
    pane closed), or on ``signums``, for the block (main thread only: elsewhere
    Python cannot install one, and the block runs unguarded). The signal is
    noted first, so that the process still ends with its exit code."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def on_signal(signum: int, frame: FrameType | None) -> None:
        signals.note(signum)
        handler()

    old = {sig: signal.signal(sig, on_signal) for sig in signums}
    try:
        yield
    finally:
        for sig, previous in old.items():
            signal.signal(sig, previous if previous is not None else signal.SIG_DFL)


@dataclass
class Running:
    """What ``running`` hands the CLI: the prepared run and what it needs to
    start it and show it."""

    run: Run
    buffer: TraceBuffer
    info: Any  # RunInfo
    tuning: Tuning
    recorder: Any = None
    exporter: Any = None  # queue --metrics-addr: serves the controller's queue once it exists
    restarts: int = 0  # restarts done (Running.restart)

    def start(self) -> None:
        self.run.start()
        if self.exporter is not None:
            self.exporter.serve(self.run.controller)

    @property
    def config(self) -> RunConfig:
        """The running pipeline's config, scope resolved: derive a restart's from it."""
        return self.run.resolved_config

    def restart(self, config: RunConfig) -> Any:
        """Stop this run's pipeline and start one for ``config`` (derived from
        ``self.config``: another resource, name, scope or profile) on the same
        cluster, tracer and recorder; returns the new RunInfo. The new run is
        prepared first: a ``RunError`` (unknown resource, RBAC) leaves the old
        one running. A demo's simulated server and scenario carry on."""
        from kubectl_informer.run.restart import restart_running

        return restart_running(self, config)

    def serve_ui(self, app: UiApp) -> None:
        """Run the UI until it quits; a crashed engine thread or SIGTERM
        closes it like `q` (so the terminal is restored)."""
        self.run.on_failure = lambda: close_app(app)
        self.start()
        serve_app(app)

    def stream(
        self, renderer: Renderer, run_for: float | None = None, max_events: int | None = None, poll: float = 0.05
    ) -> None:
        """The headless loop: drain the trace into ``renderer`` until
        ``run_for`` passes, ``max_events`` lines are written, SIGTERM or
        Ctrl-C; then what came before a crash."""
        started = time.monotonic()
        self.start()  # waits for the first list or watch to be answered: part of run_for
        if run_for is not None:
            run_for = max(0.0, run_for - (time.monotonic() - started))
        stream_headless(self.buffer, renderer, self.run.stop_event, run_for, max_events, poll)
        if self.run.errors:
            renderer.render(self.buffer.drain())


# After SIGTERM or SIGHUP the process ends within this many seconds, however
# the UI's shutdown goes.
EXIT_GRACE = 10.0


def serve_app(app: UiApp, grace: float = EXIT_GRACE) -> None:
    """Run a Textual app until it quits; SIGTERM, SIGHUP or SIGINT (from
    ``kill``: in the UI's raw terminal Ctrl-C is a key) closes it like `q`."""

    def closing() -> None:
        # SIGHUP: the terminal is gone (its window or tmux pane closed), and the
        # kernel follows it with SIGCONT, on which Textual starts drawing again:
        # a new writer thread that dies on the closed terminal, and shutting down
        # then waited on its full queue for ever. Nothing is resumed any more.
        signal.signal(signal.SIGCONT, signal.SIG_DFL)
        driver = getattr(app, "_driver", None)
        if driver is not None and hasattr(driver, "_auto_restart"):
            driver._auto_restart = False
        threading.Thread(target=close_app, args=(app,), daemon=True).start()
        threading.Thread(target=_exit_after, args=(grace,), name="exit-grace", daemon=True).start()

    with on_sigterm(closing, (signal.SIGTERM, signal.SIGHUP, signal.SIGINT)):
        app.run()
    crash = getattr(app, "crash", None)  # tui.crash.KeepsCrash: Textual printed nothing
    if crash is not None:
        raise crash


def _exit_after(seconds: float) -> None:
    """The last resort after SIGTERM/SIGHUP: a shutdown stuck in a library
    must not leave the process behind."""
    time.sleep(seconds)
    os._exit(signals.exit_code(1))


# The headless loop's signals. Their handlers only take note: the loop looks
# at every poll. An exception raised by a handler lands wherever the main thread
# is, and in Python (3.11 at least) that can be inside threading.Condition's
# __enter__, after its lock was taken and before the ``with`` that releases it:
# stop_event.wait() then leaves the Event's lock held, and the stop_event.set()
# that stops the run waited for it for ever (a SIGINT that hung once in CI).
HEADLESS_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def stream_headless(
    buffer: TraceBuffer,
    renderer: Renderer,
    stop_event: threading.Event,
    run_for: float | None = None,
    max_events: int | None = None,
    poll: float = 0.05,
) -> None:
    deadline = None if run_for is None else time.monotonic() + run_for
    signalled: list[int] = []  # appended to by the handler: no lock, nothing raised

    def flush() -> bool:
        """Render what is buffered; True once ``max_events`` lines are out."""
        for ev in buffer.drain():
            renderer.render((ev,))
            if max_events is not None and renderer.lines >= max_events:
                return True
        return False

    try:
        with on_sigterm(lambda: signalled.append(1), HEADLESS_SIGNALS):
            while not stop_event.is_set() and not signalled:
                if flush():
                    return
                if deadline is not None and time.monotonic() >= deadline:
                    return
                stop_event.wait(poll)
    except (KeyboardInterrupt, Terminated):  # from a reader, or a handler of someone else's
        signalled.append(1)
    if signalled:
        # What happened before the signal is still said (up to a poll's worth).
        flush()


def close_app(app: UiApp, wait: float = 10.0) -> None:
    """Close the UI from another thread (the app may still be starting)."""
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        if app.is_running:
            try:
                app.call_from_thread(app.exit)
                return
            except RuntimeError:
                pass
        time.sleep(0.05)


def _prepare(run: Run, limit: float | None) -> RunInfo:
    """``run.prepare()``, within ``limit`` (``--duration``) if one is given."""
    from kubectl_informer.run.runner import RunError
    from kubectl_informer.run.time_limit import TimeLimitReached, time_limit

    try:
        with time_limit(limit):
            return run.prepare()
    except TimeLimitReached:
        raise RunError(
            "--duration passed before the API server answered the first requests (discovery); see --request-timeout"
        ) from None


@contextlib.contextmanager
def running(
    config: RunConfig,
    ui: bool,
    record: str | None = None,
    check: Callable[[], None] | None = None,
    exporter: Callable[[RunConfig], Any] | None = None,
    prepare_limit: float | None = None,
) -> Iterator[Running]:
    """The whole lifecycle of one run (see the module's docstring). ``check``
    runs after the run is prepared and before anything is recorded (the CLI
    asks for a terminal there); ``exporter(config)`` may bind a metrics server
    then (None: none), served from ``start`` and stopped on the way out.
    ``prepare_limit`` (``--duration``) also bounds the first requests."""
    from kubectl_informer.run.recorder import Recorder, emit_run_info
    from kubectl_informer.run.runner import Run, RunError

    tracer = Tracer()
    buffer = TraceBuffer()
    tracer.subscribe(buffer)
    run = Run(config, tracer)
    if prepare_limit is not None:
        run.first_contact_wait = min(run.first_contact_wait, prepare_limit)
    recorder = metrics = current = None
    setting = UI if ui else ENGINE
    with tuned(setting):
        try:
            # Resolve the resource and the cluster first: a typo deserves its
            # own error (with suggestions) even where there is no terminal.
            info = _prepare(run, prepare_limit)
            if check is not None:
                check()
            metrics = exporter(config) if exporter is not None else None
            if record:

                def recording_failed(message: str) -> None:
                    (current.run if current is not None else run).fail("recorder", RunError(message))

                try:
                    recorder = Recorder(record, tracer, on_error=recording_failed)
                except OSError as e:
                    raise RunError(f"cannot record to {record}: {e.strerror or e}") from None
            emit_run_info(tracer, info)  # the header: first in -o json and the recording
            current = Running(run, buffer, info, setting, recorder, metrics)
            yield current
        finally:
            if current is not None:  # a restart replaced the run
                run = current.run
            run.stop()
            if recorder is not None:
                recorder.stop()
            if metrics is not None:
                metrics.stop()
    failure = run.failure()
    if failure:
        raise RunError(failure)
