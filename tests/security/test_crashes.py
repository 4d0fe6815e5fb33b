"""An unexpected exception anywhere -- the UI, the main thread, an engine
thread -- ends the run with exit 1 and ONE ``error:`` line naming a crash
log: mode 0600, the traceback without local variables, no Authorization
value; the terminal restored. The faults are injected into the real command
by a ``sitecustomize`` module (run by Python before the CLI starts)."""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

import pytest

from tests.security.cli_process import child_env, needs_tmux, run

pytestmark = pytest.mark.e2e

LOCAL = "LOCAL-VALUE-5d1c"  # held by a local variable where the fault is raised
TOKEN = "SECRET-TOKEN-9b7e2a"  # quoted by the fault's message, as an Authorization header

FAULTS = f'''
import os
fault = os.environ.get("KI_FAULT")

if fault == "ui":  # a pane that fails to draw once the test says so
    from kubectl_informer.tui import header
    _draw = header.HeaderPane.draw_lines
    def draw_lines(self, width, height):
        token_in_a_local = "{LOCAL}"
        if os.path.exists(os.environ["KI_FAULT_NOW"]):
            raise RuntimeError("injected fault: the header at %d columns" % width)
        return _draw(self, width, height)
    header.HeaderPane.draw_lines = draw_lines

if fault == "main":  # the headless loop, in the main thread
    from kubectl_informer.cli import output
    def render(self, events):
        token_in_a_local = "{LOCAL}"
        raise ValueError("Invalid header value b'Bearer {TOKEN}'")
    output.JsonRenderer.render = render

if fault == "thread":  # a thread no engine guard watches: the recorder's
    from kubectl_informer.run import recorder
    def loop(self):
        token_in_a_local = "{LOCAL}"
        raise RuntimeError("injected fault in the recorder, Bearer {TOKEN}")
    recorder.Recorder._loop = loop

if fault == "engine":  # the informer's thread
    import kubectl_informer.run.pipeline as pipeline
    _new = pipeline.new_informer
    def new_informer(*a, **kw):
        informer = _new(*a, **kw)
        def run(stop_event):
            token_in_a_local = "{LOCAL}"
            raise KeyError("authorization: Bearer {TOKEN}")
        informer.run = run
        return informer
    pipeline.new_informer = new_informer
'''

LINE = re.compile(r"error: (.+) \(the traceback is in (\S+); please report it\)")


@pytest.fixture
def faulty(tmp_path):
    """The environment of a command that fails as ``KI_FAULT`` says."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(FAULTS)

    def env(fault: str, **extra: str) -> dict:
        path = os.pathsep.join(p for p in (str(site), os.environ.get("PYTHONPATH", "")) if p)
        return child_env(tmp_path, PYTHONPATH=path, KI_FAULT=fault, **extra)

    return env


def check_crash_log(path: str, *expected: str) -> str:
    p = Path(path)
    assert stat.S_IMODE(p.stat().st_mode) == 0o600
    text = p.read_text()
    assert "Traceback (most recent call last)" in text
    for e in expected:
        assert e in text, text
    assert LOCAL not in text and TOKEN not in text, text
    return text


def one_error_line(stderr: str) -> tuple[str, str]:
    lines = stderr.splitlines()
    assert len(lines) == 1, stderr
    m = LINE.fullmatch(lines[0])
    assert m, lines[0]
    return m.group(1), m.group(2)


def test_a_crash_in_the_main_thread(tmp_path, faulty):
    r = run(["watch", "pods", "--demo", "-o", "json"], faulty("main"))
    assert r.returncode == 1 and r.stdout == ""
    what, log = one_error_line(r.stderr)
    assert what == "kubectl informer failed unexpectedly: Invalid header value b'Bearer <redacted>'"
    assert log.startswith(str(tmp_path / "state" / "kubectl-informer" / "crash-"))
    check_crash_log(log, "Invalid header value", "command: kubectl informer watch pods")
    assert stat.S_IMODE(Path(log).parent.stat().st_mode) == 0o700


def test_debug_prints_the_same_traceback_without_locals_and_logs_are_kept_to_the_newest_twenty(tmp_path, faulty):
    # One run for both: --debug writes its crash log as a run without it does.
    logs = tmp_path / "state" / "kubectl-informer"
    logs.mkdir(parents=True)
    for i in range(25):
        (logs / f"crash-20000101-0000{i:02d}-1.log").write_text("old")
    r = run(["watch", "pods", "--demo", "-o", "json", "--debug"], faulty("main"))
    assert r.returncode == 1
    assert "Traceback (most recent call last)" in r.stderr and "raise ValueError" in r.stderr
    assert LOCAL not in r.stderr and TOKEN not in r.stderr
    assert LINE.fullmatch(r.stderr.splitlines()[-1])
    kept = sorted(p.name for p in logs.iterdir())
    assert len(kept) == 20 and not any(n.startswith("crash-20000101-000000") for n in kept)
    assert any(not n.startswith("crash-2000") for n in kept)  # the new one


def test_a_crash_in_an_engine_thread(tmp_path, faulty):
    r = run(["watch", "pods", "--demo", "-o", "text"], faulty("engine"))
    assert r.returncode == 1 and r.stdout == ""
    what, log = one_error_line(r.stderr)
    assert what == "the informer thread stopped unexpectedly: 'authorization: <redacted>'"
    check_crash_log(log, "KeyError", "raise KeyError")


def test_a_crash_in_any_other_thread(tmp_path, faulty):
    r = run(["watch", "pods", "--demo", "-o", "json", "--record", str(tmp_path / "rec")], faulty("thread"))
    assert r.returncode == 1
    what, log = one_error_line(r.stderr)  # not Python's "Exception in thread" traceback
    assert what == "kubectl informer failed unexpectedly: injected fault in the recorder, Bearer <redacted>"
    check_crash_log(log, "raise RuntimeError")


@needs_tmux
@pytest.mark.tmux
def test_a_crash_in_another_thread_closes_the_ui(tmp_path, faulty, terminal):
    t = terminal(f"watch pods --demo --record {tmp_path / 'rec'}", faulty("thread"), 80, 24)
    assert t.exit_code() == 1
    screen = t.wait(lambda s: "error:" in s, "the error line")
    lines = [line for line in screen.splitlines() if line.strip()]
    assert len(lines) == 1 and LINE.fullmatch(lines[0].strip()), screen


def test_without_a_state_directory_the_log_goes_to_the_temp_dir(tmp_path, faulty):
    not_a_dir = tmp_path / "file"
    not_a_dir.write_text("")
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    r = run(["watch", "pods", "--demo", "-o", "json"], faulty("main", XDG_STATE_HOME=str(not_a_dir), TMPDIR=str(tmp)))
    assert r.returncode == 1
    _, log = one_error_line(r.stderr)
    assert Path(log).parent == tmp
    check_crash_log(log, "Invalid header value")


@needs_tmux
@pytest.mark.tmux
def test_a_crash_in_the_ui_restores_the_terminal_and_says_one_line(tmp_path, faulty, terminal):
    now = tmp_path / "fail-now"
    t = terminal("watch pods --demo", faulty("ui", KI_FAULT_NOW=str(now)), 80, 24)
    t.wait(lambda s: "synced" in s, "the UI synced")
    now.write_text("")  # the header redraws every second: its next draw fails
    assert t.exit_code() == 1
    screen = t.wait(lambda s: "error:" in s, "the error line")
    lines = [line for line in screen.splitlines() if line.strip()]
    assert len(lines) == 1, screen  # the UI is gone (its alternate screen), nothing but the line
    what, log = LINE.fullmatch(lines[0].strip()).groups()
    assert what == "kubectl informer failed unexpectedly: injected fault: the header at 78 columns"
    check_crash_log(log, "injected fault", "draw_lines")
