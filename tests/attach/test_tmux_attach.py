"""The attach screen in a real terminal: tmux runs `kubectl informer attach`
against a `kubectl informer queue --metrics-addr` process, both on one
simulated cluster, with --resource pods beside; q quits with 0."""

import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from kubectl_informer.clock.testing import wait_for
from kubectl_informer.sim.demo import start_demo
from tests.e2e.test_tmux import Terminal

from .test_targets import free_port

pytestmark = [pytest.mark.tmux, pytest.mark.e2e,
              pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed (CI installs it)")]

SCRIPT = Path(sys.executable).parent / "kubectl-informer"


def serving(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


def test_attach_screen_with_our_informer_beside(tmp_path):
    demo = start_demo("steady")
    port = free_port()
    queue = subprocess.Popen([str(SCRIPT), "queue", "--kubeconfig", demo.kubeconfig_path, "--metrics-addr",
                              f"127.0.0.1:{port}", "--fail-rate", "0.2", "-o", "json", "--duration", "60s"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=dict(os.environ))
    term = None
    try:
        # The queue process binds its metrics port once it has connected.
        assert wait_for(lambda: serving(port), timeout=30.0, interval=0.05), queue.stderr
        term = Terminal(tmp_path, 160, 45, f"attach http://127.0.0.1:{port}/metrics --interval 500ms "
                                           f"--kubeconfig {demo.kubeconfig_path} --resource pods")

        def ready(text):
            return ("workqueue controller" in text and "controller controller  reconciles" in text
                    and "Deltas: our informer on pods" in text and "default/web-" in text)

        # One whole frame: a capture can catch the terminal mid-repaint, some lines drawn, some not yet.
        card = ("queue latency p50", "work duration p50", "depth", "adds/s", "retries/s")
        text = term.wait(lambda t: ready(t) and all(s in t for s in card),
                         "the queue card, the controller line and our informer's deltas", timeout=40)
        assert "queue latency p50" in text and "work duration p50" in text
        assert "depth" in text and "adds/s" in text and "retries/s" in text
        scrape = [ln for ln in text.splitlines() if "· scrape " in ln][0]
        n = int(scrape.split("· scrape ")[1].split()[0])
        term.wait(lambda t: any("· scrape " in ln and int(ln.split("· scrape ")[1].split()[0]) > n
                                for ln in t.splitlines()), "a later scrape")
        term.keys("q")
        assert term.exit_code() == 0
    finally:
        if term is not None:
            term.close()
        queue.terminate()
        queue.wait(15)
        demo.stop()
