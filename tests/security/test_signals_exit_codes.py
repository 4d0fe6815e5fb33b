"""SIGINT and SIGTERM end every state of a run with kubectl's exit codes,
130 and 143, with nothing said on stderr; --duration and --max-events end
with 0. The real command, against the simulated API server (``--demo``, or
``sim``), a server that never answers and one whose list never ends."""

from __future__ import annotations

import http.server
import os
import signal
import threading
import time

import pytest

from tests.attach.pages import client_go_page
from tests.kube.hostile import PODS, Hostile, kubeconfig_for
from tests.security.cli_process import Child, child_env, kubeconfig, needs_tmux, run, silent_server
from tests.security.in_process import run_in_process

pytestmark = pytest.mark.e2e

SIGNALS = [pytest.param(signal.SIGINT, id="SIGINT"), pytest.param(signal.SIGTERM, id="SIGTERM")]


def expected(sig: int) -> int:
    return {signal.SIGINT: 130, signal.SIGTERM: 143}[sig]


def synced(line: str) -> bool:
    return '"informer.synced"' in line


@pytest.mark.parametrize("sig", SIGNALS)
def test_during_start_up(tmp_path, sig):
    """The API server accepted the connection and never answered discovery."""
    server = silent_server()
    try:
        kc = kubeconfig(tmp_path / "kc", f"http://127.0.0.1:{server.getsockname()[1]}")
        c = Child(["watch", "pods", "-o", "json", "--kubeconfig", str(kc)], child_env(tmp_path))
        server.settimeout(60)
        conn, _ = server.accept()  # the run is waiting for discovery now
        rc, err = c.signal(sig)
        conn.close()
    finally:
        server.close()
    assert (rc, err) == (expected(sig), "")


@pytest.mark.parametrize("sig", SIGNALS)
def test_while_listing(tmp_path, sig):
    """The informer's list trickles in a byte at a time (a slow server)."""
    h = Hostile("slow_loris")
    try:
        kc = tmp_path / "kc"
        kc.write_text(__import__("json").dumps(kubeconfig_for(h.srv.url)))
        c = Child(["watch", "pods", "-o", "text", "--kubeconfig", str(kc)], child_env(tmp_path))
        deadline = time.monotonic() + 60
        while not [r for r in h.srv.requests if r.path == PODS]:  # the informer's list (no probe before it)
            assert time.monotonic() < deadline, "the run never listed"
            assert c.proc.poll() is None, c.end()
            time.sleep(0.05)
        rc, err = c.signal(sig)
    finally:
        h.stop.set()
        h.srv.stop()
    assert (rc, err) == (expected(sig), "")


@pytest.mark.parametrize("output", ["json", "text"])
@pytest.mark.parametrize("sig", SIGNALS)
def test_while_watching_headless(tmp_path, sig, output):
    c = Child(["watch", "pods", "--demo", "-o", output], child_env(tmp_path))
    c.wait_line(synced if output == "json" else (lambda line: "[initial list]" not in line))
    rc, err = c.signal(sig)
    assert (rc, err) == (expected(sig), "")


@pytest.mark.parametrize("sig", SIGNALS)
def test_queue_while_working(tmp_path, sig):
    c = Child(["queue", "--demo", "-o", "text", "--work-time", "1ms"], child_env(tmp_path))
    c.wait_line(lambda line: line.startswith("Worked "))
    rc, err = c.signal(sig)
    assert (rc, err) == (expected(sig), "")


def test_a_process_started_with_sigint_ignored_still_ends_on_it(tmp_path):
    # A script's background job (`kubectl informer ... &`) inherits SIGINT
    # ignored; Ctrl-C or kill -INT must still end it.
    c = Child(["watch", "pods", "--demo", "-o", "json"], child_env(tmp_path), ignore_sigint=True)
    c.wait_line(synced)
    rc, err = c.signal(signal.SIGINT)
    assert (rc, err) == (130, "")


@pytest.mark.parametrize("sig", SIGNALS)
def test_replay(tmp_path, sig):
    rec = tmp_path / "rec.ndjson"
    # The initial list and a first second of changes (about 1.5 s of the
    # demo; 300 events took 12 s to record and were never played). Recorded
    # in-process: the signal is the replay's.
    r = run_in_process(
        "watch",
        "pods",
        "--demo",
        "-o",
        "json",
        "--max-events",
        "60",
        env={"KUBECONFIG": os.devnull, "XDG_STATE_HOME": str(tmp_path / "state")},
    )
    assert r.returncode == 0, r.stderr
    rec.write_text(r.stdout)
    # A hundredth of recorded time (the second becomes minutes): still playing when the signal comes.
    c = Child(["replay", str(rec), "-o", "json", "--speed", "0.01"], child_env(tmp_path))
    c.wait_line(lambda line: '"run.info"' in line)
    rc, err = c.signal(sig)
    assert (rc, err) == (expected(sig), "")


class _Metrics(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # http.server's name
        body = client_go_page(3, 10, 1, [1] * 10, [1] * 10).encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/plain; version=0.0.4")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args) -> None:
        pass


@pytest.mark.parametrize("sig", SIGNALS)
def test_attach(tmp_path, sig):
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Metrics)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        c = Child(
            ["attach", f"http://127.0.0.1:{srv.server_port}/metrics", "-o", "json", "--interval", "100ms"],
            child_env(tmp_path),
        )
        c.wait_line(lambda line: '"queues"' in line or "deployment" in line)
        rc, err = c.signal(sig)
    finally:
        srv.shutdown()
        srv.server_close()
    assert (rc, err) == (expected(sig), "")


@pytest.mark.parametrize("sig", SIGNALS)
def test_sim(tmp_path, sig):
    c = Child(["sim", "--write-kubeconfig", str(tmp_path / "kc")], child_env(tmp_path))
    c.wait_line(lambda line: "Press Ctrl-C" in line)
    rc, err = c.signal(sig)
    assert (rc, err) == (expected(sig), "")


@pytest.mark.parametrize("args", [["--duration", "2s"], ["--max-events", "20"]], ids=["duration", "max-events"])
def test_duration_and_max_events_still_end_with_0(tmp_path, args):
    r = run(["watch", "pods", "--demo", "-o", "json", *args], child_env(tmp_path))
    assert (r.returncode, r.stderr) == (0, "") and '"run.info"' in r.stdout


@needs_tmux
@pytest.mark.tmux
@pytest.mark.parametrize("sig", SIGNALS)
def test_the_ui(tmp_path, terminal, sig):
    t = terminal("watch pods --demo", child_env(tmp_path))
    t.wait(lambda s: "synced" in s, "the UI synced")
    os.kill(t.command_pid(), sig)
    assert t.exit_code() == expected(sig)
    t.wait(lambda s: "synced" not in s, "the shell's screen again (the terminal restored)")


class _Lines:
    lines = 0

    def render(self, events) -> None:
        self.lines += len(list(events))


class _Drained:
    """An empty trace that says when the loop first drained it (its handlers are in place then)."""

    def __init__(self) -> None:
        self.looping = threading.Event()

    def drain(self) -> list:
        self.looping.set()
        return []


def _kill_once_looping(trace: _Drained, sig: int) -> None:
    """Send ``sig`` to this process once the headless loop first drained ``trace``."""
    if trace.looping.wait(10):
        os.kill(os.getpid(), sig)


def test_a_signal_in_the_headless_loop_never_leaves_the_stop_events_lock_held():
    """In-process, on the main thread, with the headless loop's own handlers:
    the loop polling as fast as it can (poll 0: the main thread is mostly in
    threading's Event.wait) is sent SIGINT or SIGTERM 200 times. Each ends the
    loop, and the run's stop (stop_event.set()) must still go through: a
    handler that raised could land between Condition.__enter__'s acquire and
    the ``with`` that releases it, and the stop then waited for ever (once in
    CI; within a few dozen signals like these on Python 3.11)."""
    from kubectl_informer.run import signals
    from kubectl_informer.run.lifecycle import stream_headless

    if threading.current_thread() is not threading.main_thread():
        pytest.fail("signal handlers need the main thread; this test must run on it")
    restore = signals.install()
    try:
        for i in range(200):
            stop_event, trace = threading.Event(), _Drained()
            sig = (signal.SIGINT, signal.SIGTERM)[i % 2]
            sender = threading.Thread(target=_kill_once_looping, args=(trace, sig))
            sender.start()
            stream_headless(trace, _Lines(), stop_event, poll=0)
            sender.join()
            setter = threading.Thread(target=stop_event.set, daemon=True)
            setter.start()
            setter.join(2)
            assert not setter.is_alive(), f"signal {i}: the stop event's lock was left held"
            assert signals.received() == signal.SIGINT  # the first one, for the exit code
    finally:
        restore()
