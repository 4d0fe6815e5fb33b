"""The run's one owner (kubectl_informer.run.lifecycle): process tuning set and
restored together, SIGTERM handled in one place, the CLI free of Textual."""

import gc
import json
import os
import signal
import subprocess
import sys
import threading

import pytest

from kubectl_informer.run.config import RunConfig
from kubectl_informer.run.lifecycle import ENGINE, PIN_ENV, UI, Tuning, on_sigterm, pin_to_one_cpu, running, tuned
from kubectl_informer.run.runner import RunError


def _knobs():
    return gc.get_threshold(), sys.getswitchinterval()


@pytest.mark.parametrize("setting", [ENGINE, UI], ids=["engine", "ui"])
def test_a_setting_holds_for_the_block_and_everything_comes_back(setting):
    before = _knobs()
    affinity = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else None
    with tuned(setting):
        assert gc.get_threshold() == setting.gc_threshold
        if setting.switch_interval is not None:
            assert sys.getswitchinterval() <= setting.switch_interval
        if setting.freeze:
            assert gc.get_freeze_count() > 0
        if affinity is not None and len(affinity) > 1 and not os.environ.get(PIN_ENV):
            assert len(os.sched_getaffinity(0)) == 1
    assert _knobs() == before
    if affinity is not None:
        assert os.sched_getaffinity(0) == affinity


def test_the_ui_setting_is_not_undone_by_the_engine_and_a_disabled_gc_stays_disabled():
    # One owner: nothing else in the package sets the GC or the switch interval.
    import pathlib

    pkg = pathlib.Path(__file__).resolve().parent.parent / "kubectl_informer"
    setters = [
        str(p.relative_to(pkg))
        for p in pkg.rglob("*.py")
        if "set_threshold(" in p.read_text() or "setswitchinterval(" in p.read_text()
    ]
    assert setters == ["run/lifecycle.py"]
    old = gc.get_threshold()
    try:
        gc.set_threshold(0)
        with tuned(Tuning("t", (5, 5, 5), freeze=False, switch_interval=None, pin=False)):
            assert gc.get_threshold()[0] == 0
    finally:
        gc.set_threshold(*old)


def test_pin_to_one_cpu_pins_the_thread_and_its_children_then_restores(monkeypatch):
    if not hasattr(os, "sched_setaffinity") or len(os.sched_getaffinity(0)) < 2:
        pytest.skip("needs Linux with two or more CPUs")
    before = os.sched_getaffinity(0)
    restore = pin_to_one_cpu()
    try:
        assert len(os.sched_getaffinity(0)) == 1
        seen = []
        t = threading.Thread(target=lambda: seen.append(os.sched_getaffinity(0)))
        t.start()
        t.join()
        assert seen == [os.sched_getaffinity(0)]  # threads started now inherit the one CPU
    finally:
        restore()
    assert os.sched_getaffinity(0) == before

    monkeypatch.setenv(PIN_ENV, "1")
    pin_to_one_cpu()()
    assert os.sched_getaffinity(0) == before


def test_on_sigterm_calls_the_handler_then_puts_the_old_one_back():
    got = []
    old = signal.getsignal(signal.SIGTERM)
    with on_sigterm(lambda: got.append("term")):
        os.kill(os.getpid(), signal.SIGTERM)
    assert got == ["term"] and signal.getsignal(signal.SIGTERM) == old


def test_running_prepares_starts_stops_and_restores_with_a_demo_cluster():
    before = _knobs()
    opts = RunConfig.from_flags(resource="pods", demo="quiet")
    with running(opts, ui=False) as r:
        assert r.tuning is ENGINE and gc.get_threshold() == ENGINE.gc_threshold
        assert r.info.resource == "pods" and r.info.fifo == "DeltaFIFO"
        r.start()
        assert r.run.informer is not None
    assert r.run.alive_threads() == [] and _knobs() == before


def test_running_turns_a_bad_input_into_one_line_before_any_thread():
    # No thread of this run was started (another test's thread ending meanwhile is fine).
    before = set(threading.enumerate())
    with (
        pytest.raises(RunError, match="--resync must not be negative"),
        running(RunConfig.from_flags(resource="pods", resync=-1), ui=False),
    ):
        pass
    assert set(threading.enumerate()) - before == set()


def test_importing_the_cli_does_not_import_textual():
    code = (
        "import sys, kubectl_informer.cli.main; print(sorted(m for m in sys.modules if m.split('.')[0] == 'textual'))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_the_exit_leaves_the_runs_objects_frozen_and_what_it_wrote_whole(tmp_path):
    # Once the command is done, the interpreter's teardown would walk every
    # object the run made (0.17 s of CPU after a UI's q): they are frozen out
    # of its collections. The recording is closed before that, whole.
    rec = tmp_path / "t.ndjson"
    code = (
        "import atexit, gc, sys\n"
        "atexit.register(lambda: print('frozen', gc.get_freeze_count(), file=sys.stderr))\n"
        "from kubectl_informer.cli.main import main\n"
        f"main(['watch', 'pods', '--demo', '-o', 'json', '--max-events', '20', '--record', {str(rec)!r}])\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert int(out.stderr.split("frozen ")[1].split()[0]) > 10_000
    printed = [json.loads(line) for line in out.stdout.splitlines()]
    recorded = [json.loads(line) for line in rec.read_text().splitlines()]
    assert len(printed) == 20 and recorded[0]["kind"] == "run.info"
    assert {ev["seq"] for ev in printed} <= {ev["seq"] for ev in recorded}


def test_sighup_closes_the_ui_and_nothing_resumes_it_on_the_sigcont_after(monkeypatch):
    # A closed terminal sends SIGHUP then SIGCONT; Textual's driver resumes on
    # SIGCONT (a new writer thread on the dead terminal, and its shutdown then
    # waited on it for ever). serve_app closes the app and drops the resume.
    from kubectl_informer.run import lifecycle

    exits = []
    monkeypatch.setattr(lifecycle, "_exit_after", lambda seconds: exits.append(seconds))
    resumed = []

    class Driver:
        _auto_restart = True

    class App:
        is_running = True

        def __init__(self):
            self._driver = Driver()
            self.closed = threading.Event()

        def call_from_thread(self, fn):
            fn()

        def exit(self):
            self.closed.set()

        def run(self):
            old_cont = signal.signal(signal.SIGCONT, lambda *a: resumed.append("cont"))
            try:
                os.kill(os.getpid(), signal.SIGHUP)
                os.kill(os.getpid(), signal.SIGCONT)
                assert self.closed.wait(5)
            finally:
                self.cont_after = signal.getsignal(signal.SIGCONT)
                signal.signal(signal.SIGCONT, old_cont)

    app = App()
    old_hup = signal.getsignal(signal.SIGHUP)
    lifecycle.serve_app(app, grace=7.0)
    assert resumed == [] and app.cont_after == signal.SIG_DFL and app._driver._auto_restart is False
    from kubectl_informer.clock.testing import wait_for

    assert wait_for(lambda: exits == [7.0]) and signal.getsignal(signal.SIGHUP) == old_hup
