"""The attach screen in a real terminal: tmux runs `kubectl informer attach`
against a `kubectl informer queue --metrics-addr` process, both on one
simulated cluster, with --resource pods beside; the window resized through
every common size (test_resize_sweep.py's sweep) in the same process; q
quits with 0."""

import os
import shutil
import socket
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from kubectl_informer.clock.testing import wait_for
from kubectl_informer.sim.demo import start_demo
from tests.e2e.test_resize_sweep import attach_drawn, sweep
from tests.e2e.test_tmux import Terminal
from tests.ports import free_port

from .pages import controller_manager_page

pytestmark = [
    pytest.mark.tmux,
    pytest.mark.e2e,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed (CI installs it)"),
]

SCRIPT = Path(sys.executable).parent / "kubectl-informer"
# An xdist worker's environment may carry COLUMNS/LINES (80x24), which
# Textual prefers to the pane's size.
SIZE = {"COLUMNS": "160", "LINES": "45"}


def serving(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


def exporting_queue(kubeconfig: str, duration: str) -> tuple[subprocess.Popen, int]:
    """``kubectl informer queue`` exporting its workqueue metrics on a free
    port, returned once it serves them (it binds the port once it has
    connected): (the process, the port)."""
    port = free_port()
    queue = subprocess.Popen(
        [
            str(SCRIPT),
            "queue",
            "--kubeconfig",
            kubeconfig,
            "--metrics-addr",
            f"127.0.0.1:{port}",
            "--fail-rate",
            "0.2",
            "-o",
            "json",
            "--duration",
            duration,
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=dict(os.environ),
    )
    if not wait_for(lambda: serving(port), timeout=30.0, interval=0.05):
        queue.kill()
        _, err = queue.communicate(timeout=15)
        pytest.fail(f"the queue's metrics never served: {err}")
    return queue, port


def test_attach_screen_with_our_informer_beside_then_a_resize_sweep(tmp_path):
    demo = start_demo("steady")
    queue, port = exporting_queue(demo.kubeconfig_path, "120s")
    term = None
    try:
        # No COLUMNS/LINES here (tests/conftest.py drops xdist's): the sweep resizes the window.
        term = Terminal(
            tmp_path,
            160,
            45,
            f"attach http://127.0.0.1:{port}/metrics --interval 500ms "
            f"--kubeconfig {demo.kubeconfig_path} --resource pods",
        )

        def ready(text):
            return (
                "workqueue controller" in text
                and "controller controller  reconciles" in text
                and "retries/s" in text
                and "Deltas: our informer on pods" in text
                and "default/web-" in text
            )

        # One whole frame: a capture can catch the terminal mid-repaint, some lines drawn, some not yet.
        card = ("queue latency p50", "work duration p50", "depth", "adds/s", "retries/s")
        text = term.wait(
            lambda t: ready(t) and all(s in t for s in card),
            "the queue card, the controller line and our informer's deltas",
            timeout=40,
        )
        assert "queue latency p50" in text and "work duration p50" in text
        assert "depth" in text and "adds/s" in text and "retries/s" in text
        scrape = [ln for ln in text.splitlines() if "· scrape " in ln][0]
        n = int(scrape.split("· scrape ")[1].split()[0])
        term.wait(
            lambda t: any("· scrape " in ln and int(ln.split("· scrape ")[1].split()[0]) > n for ln in t.splitlines()),
            "a later scrape",
        )
        sweep(term, attach_drawn)
        term.keys("q")
        assert term.exit_code() == 0
    finally:
        if term is not None:
            term.close()
        queue.terminate()
        queue.wait(15)
        demo.stop()


class ControllerManager(ThreadingHTTPServer):
    """kube-controller-manager's /metrics: 50 workqueues, counters growing per scrape."""

    def __init__(self):
        served = [0]

        class H(BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def do_GET(self):
                served[0] += 1
                data = controller_manager_page(served[0]).encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/plain; version=0.0.4")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        super().__init__(("127.0.0.1", 0), H)
        self.daemon_threads = True
        threading.Thread(target=self.serve_forever, daemon=True).start()


def hidden(text: str) -> int | None:
    """N of the ``▼ N more`` line."""
    line = next((ln for ln in text.splitlines() if ln.strip().startswith("▼ ")), None)
    return int(line.split()[1]) if line else None


def boxed_lines_end_at_their_border(text: str) -> bool:
    return all(ln.rstrip()[-1] in "│╮╯" for ln in text.splitlines() if ln[:1] and ln[:1] in "│╭╰")


def test_fifty_queues_at_160x45_table_cards_filter(tmp_path):
    server = ControllerManager()
    term = Terminal(
        tmp_path,
        160,
        45,
        f"attach http://127.0.0.1:{server.server_address[1]}/metrics --interval 500ms",
        env_extra=SIZE,
    )
    try:
        text = term.wait(
            lambda t: "▼ " in t and "deployment " in t and "≈550ms" in t and "the true value lies in" in t,
            "the table of 50 queues with its hint",
            timeout=40,
        )
        rows = [ln.split()[0] for ln in text.splitlines()[3:7]]
        assert rows == ["namespace", "deployment", "replicaset", "garbage_collector_graph_changes"], text
        assert 15 <= hidden(text) <= 25, text  # 50 less the rows that fit above the selected queue's card
        assert boxed_lines_end_at_their_border(text), text
        term.keys("t")
        # 6 or 7 cards fit in 42 rows: the other 43 or 44 are counted (first every card, until laid out).
        text = term.wait(
            lambda t: "workqueue namespace" in t and "QUEUE " not in t and hidden(t) in (43, 44),
            "the cards with their hint",
        )
        assert boxed_lines_end_at_their_border(text), text  # no sparkline cell past a card's border
        term.keys("/")
        term.wait(lambda t: "filter queues: text or regex" in t, "the filter line")
        term.keys("replica", "Enter")
        text = term.wait(
            lambda t: (
                "workqueue replicaset" in t
                and "workqueue replicationmanager" in t
                and "workqueue namespace" not in t
                and hidden(t) is None
            ),
            "the filtered cards",
        )
        assert "/replica: 2 of 50 queues" in text, text
        term.keys("q")
        assert term.exit_code() == 0
    finally:
        term.close()
        server.shutdown()
        server.server_close()
