"""The real command in a real terminal: tmux runs `kubectl informer watch pods
--demo`, capture-pane reads the screen, send-keys types. Crashes and signals
here; the keys at 80x24 and the grid at 160x45 in test_first_screen.py, the
queue's first pane and a replay's playhead in test_resize_sweep.py (one UI
process each walks through several checks)."""

import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.short_paths import remove, short_dir, socket_in

pytestmark = [
    pytest.mark.tmux,
    pytest.mark.e2e,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed (CI installs it)"),
]

SCRIPT = Path(sys.executable).parent / "kubectl-informer"
DELTA_LINE = re.compile(r"\b(Added|Updated|Replaced|Sync|Deleted)\s+(default/[\w.-]+) rv=\d+")


class Terminal:
    def __init__(self, tmp_path: Path, width: int, height: int, args: str, env_extra: dict | None = None):
        self._sock_dir = short_dir()  # xdist's tmp_path is too long for a socket
        self.sock = socket_in(self._sock_dir)
        self.exit_file = tmp_path / "exit"
        cmd = str(SCRIPT) if SCRIPT.exists() else f"{sys.executable} -m kubectl_informer"
        env = dict(os.environ, KUBECONFIG=os.devnull)
        env.pop("TMUX", None)
        env.update(env_extra or {})
        self.env = env
        self.tmux(
            "new-session",
            "-d",
            "-s",
            "ki",
            "-x",
            str(width),
            "-y",
            str(height),
            f"{cmd} {args}; echo $? > {self.exit_file}; sleep 60",
        )

    def tmux(self, *args: str) -> str:
        r = subprocess.run(["tmux", "-S", self.sock, *args], capture_output=True, text=True, timeout=20, env=self.env)
        assert r.returncode == 0, r.stderr
        return r.stdout

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", "ki")

    def wait(self, predicate, what: str, timeout: float = 30.0) -> str:
        deadline = time.monotonic() + timeout
        while True:
            text = self.screen()
            if predicate(text):
                return text
            if time.monotonic() > deadline:
                pytest.fail(f"screen never showed {what}:\n{text}")
            time.sleep(0.1)  # polling the screen, not letting time pass

    def keys(self, *keys: str) -> None:
        self.tmux("send-keys", "-t", "ki", *keys)

    def exit_code(self, timeout: float = 15.0) -> int:
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
            if int(fields[1]) == shell:  # ppid
                return int(stat.parent.name)
        pytest.fail("the command is not running")

    def close(self) -> None:
        subprocess.run(["tmux", "-S", self.sock, "kill-server"], capture_output=True, env=self.env)
        remove(self._sock_dir)


def pane_title(screen: str, title: str) -> bool:
    """A pane's border carries its title: `╭─ Deltas ───`."""
    return any(re.search(rf"[─━╭┌]\s*{re.escape(title)}\s*[─━]", line) for line in screen.splitlines())


CRASHING_INFORMER = """
import time
import kubectl_informer.run.pipeline as pipeline
_real = pipeline.new_informer
def _crashing(*a, **kw):
    informer = _real(*a, **kw)
    def run(stop_event):
        time.sleep(1.0)
        raise RuntimeError("boom")
    informer.run = run
    return informer
pipeline.new_informer = _crashing
"""


def test_an_engine_crash_closes_the_ui_and_says_why(terminal, tmp_path):
    # sitecustomize runs in the real command's process before the CLI starts.
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(CRASHING_INFORMER)
    t = terminal(80, 24, "watch pods --demo", {"PYTHONPATH": str(site), "XDG_STATE_HOME": str(tmp_path)})
    assert t.exit_code() == 1
    screen = t.wait(lambda s: "error:" in s, "the error line after the UI closed")
    assert "error: the informer thread stopped unexpectedly: boom (the traceback is in" in screen
    assert "Traceback" not in screen


def test_flags_turn_the_demo_defaults_off_and_sigterm_closes_the_ui_cleanly(terminal):
    # One process for both: the README demo's defaults are test_first_screen.py's.
    t = terminal(160, 45, "watch pods --demo --resync 0 --no-workqueue")
    screen = t.wait(
        lambda s: "watch runs no workqueue" in s and "resync is off" in s,
        "the bare informer, as on a real cluster",
        timeout=60,
    )
    assert "resync 5s" not in screen
    t.wait(lambda s: DELTA_LINE.search(s), "deltas")
    os.kill(t.command_pid(), signal.SIGTERM)
    assert t.exit_code() == 143
    # The terminal is restored: the UI's alternate screen is gone.
    t.wait(lambda s: not pane_title(s, "Deltas"), "the shell's screen again")


# SIGINT: at the end of test_server_tmux.py's run (the same checks, a process already running).
@pytest.mark.parametrize("sig", [signal.SIGHUP])
def test_signals_close_the_ui_restore_the_terminal_and_leave_no_temp_dir(terminal, tmp_path, sig):
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    t = terminal(80, 24, env_extra={"TMPDIR": str(tmp)})
    t.wait(lambda s: DELTA_LINE.search(s), "deltas")
    os.kill(t.command_pid(), sig)
    assert t.exit_code() == 128 + sig
    t.wait(lambda s: not pane_title(s, "Deltas"), "the shell's screen again")
    assert not [f for f in tmp.iterdir() if f.name.startswith("kubectl-informer-demo-")]


def test_killing_the_pane_ends_the_command_and_leaves_no_temp_dir(terminal, tmp_path):
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    t = terminal(80, 24, env_extra={"TMPDIR": str(tmp)})
    t.wait(lambda s: DELTA_LINE.search(s), "deltas")
    pid = t.command_pid()
    t.tmux("kill-pane", "-t", "ki")

    def alive() -> bool:
        try:
            return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
        except (OSError, IndexError):
            return False

    deadline = time.monotonic() + 15
    while alive():
        assert time.monotonic() < deadline, "the command outlived its pane"
        time.sleep(0.1)
    assert not [f for f in tmp.iterdir() if f.name.startswith("kubectl-informer-demo-")]
