"""The real command as a child process (or in tmux), for the tests of how it
ends: exit codes, signals, crash logs and the words it says.

Waits are bounded and poll for a state (a line, a screen, a connection);
nothing sleeps for a fixed time to let something happen.
"""

from __future__ import annotations

import os
import queue
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest

SCRIPT = Path(sys.executable).parent / "kubectl-informer"


def command(*args: str) -> list[str]:
    return ([str(SCRIPT)] if SCRIPT.exists() else [sys.executable, "-m", "kubectl_informer"]) + list(args)


def child_env(tmp: Path, **extra: str) -> dict:
    """No kubeconfig of the user's, crash logs under ``tmp``."""
    # PYTHONFAULTHANDLER: a child that does not end is asked for its threads' stacks (``Child.end``).
    env = dict(
        os.environ,
        KUBECONFIG=os.devnull,
        PYTHONUNBUFFERED="1",
        PYTHONFAULTHANDLER="1",
        XDG_STATE_HOME=str(tmp / "state"),
    )
    env.pop("TMUX", None)
    env.update(extra)
    return env


class Child:
    """A running command whose stdout lines are read as they come."""

    def __init__(self, args: list[str], env: dict, ignore_sigint: bool = False) -> None:
        def preexec() -> None:
            # What a shell does to a background job of a script.
            signal.signal(signal.SIGINT, signal.SIG_IGN if ignore_sigint else signal.SIG_DFL)

        self.proc = subprocess.Popen(
            command(*args), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, preexec_fn=preexec
        )
        self.lines: queue.Queue = queue.Queue()
        self.seen: list[str] = []
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def wait_line(self, predicate, timeout: float = 60.0) -> str:
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                self.kill()
                pytest.fail(f"no such line within {timeout}s; last: {self.seen[-3:]}")
            try:
                line = self.lines.get(timeout=min(left, 0.5))
            except queue.Empty:
                continue
            if line is None:
                self.proc.wait(10)
                pytest.fail(f"ended first (rc={self.proc.returncode}): {self.seen[-3:]} {self.proc.stderr.read()}")
            self.seen.append(line)
            if predicate(line):
                return line

    def signal(self, sig: int, timeout: float = 20.0) -> tuple[int, str]:
        """Send ``sig``; (exit code, stderr) once it ended."""
        self.proc.send_signal(sig)
        return self.end(timeout)

    def end(self, timeout: float = 60.0) -> tuple[int, str]:
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            pytest.fail(f"still running {timeout}s later; where its threads were:\n{self._stacks()}")
        return self.proc.returncode, self.proc.stderr.read()

    def _stacks(self) -> str:
        """SIGABRT to a child started with PYTHONFAULTHANDLER: it writes every
        thread's stack to stderr and dies; the tail of that stderr."""
        self.proc.send_signal(signal.SIGABRT)
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.kill()
        return self.proc.stderr.read()[-6000:]

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)


def run(args: list[str], env: dict, timeout: float = 90.0, stdout=subprocess.PIPE) -> subprocess.CompletedProcess:
    return subprocess.run(command(*args), stdout=stdout, stderr=subprocess.PIPE, text=True, env=env, timeout=timeout)


def silent_server() -> socket.socket:
    """A TCP port that accepts connections and never answers: a run against
    it stays in start-up (discovery) until something ends it."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen(8)
    return s


def kubeconfig(path: Path, server: str) -> Path:
    path.write_text(
        "apiVersion: v1\nkind: Config\ncurrent-context: c\n"
        f"clusters:\n- name: c\n  cluster:\n    server: {server}\n"
        "contexts:\n- name: c\n  context:\n    cluster: c\n    user: u\n    namespace: default\n"
        "users:\n- name: u\n  user:\n    token: not-a-real-token\n"
    )
    return path


# --- tmux ------------------------------------------------------------------------------

needs_tmux = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed (CI installs it)")


class Terminal:
    """The command in a tmux pane of ``width`` x ``height``; its exit code
    is written to a file by the pane's shell."""

    def __init__(self, args: str, env: dict, width: int = 80, height: int = 24) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="ki-", dir="/tmp"))  # socket paths must stay short
        self.sock = str(self.dir / "s")
        self.exit_file = self.dir / "rc"
        self.env = env
        cmd = " ".join(command()) + " " + args
        self.tmux(
            "new-session",
            "-d",
            "-s",
            "ki",
            "-x",
            str(width),
            "-y",
            str(height),
            f"{cmd}; echo $? > {self.exit_file}; sleep 120",
        )

    def tmux(self, *args: str) -> str:
        r = subprocess.run(["tmux", "-S", self.sock, *args], capture_output=True, text=True, timeout=20, env=self.env)
        assert r.returncode == 0, r.stderr
        return r.stdout

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-J", "-t", "ki")

    def wait(self, predicate, what: str, timeout: float = 60.0) -> str:
        deadline = time.monotonic() + timeout
        while True:
            text = self.screen()
            if predicate(text):
                return text
            if time.monotonic() > deadline:
                pytest.fail(f"the screen never showed {what}:\n{text}")
            time.sleep(0.1)  # polling the screen

    def exit_code(self, timeout: float = 30.0) -> int:
        deadline = time.monotonic() + timeout
        while not (self.exit_file.exists() and self.exit_file.read_text().strip()):
            if time.monotonic() > deadline:
                pytest.fail(f"did not exit:\n{self.screen()}")
            time.sleep(0.05)
        return int(self.exit_file.read_text())

    def command_pid(self) -> int:
        """The plugin's pid: the child of the pane's shell."""
        shell = int(self.tmux("list-panes", "-t", "ki", "-F", "#{pane_pid}").strip())
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                fields = stat.read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == shell:
                return int(stat.parent.name)
        pytest.fail("the command is not running")

    def close(self) -> None:
        subprocess.run(["tmux", "-S", self.sock, "kill-server"], capture_output=True, env=self.env)
        shutil.rmtree(self.dir, ignore_errors=True)
