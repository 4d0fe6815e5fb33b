"""A server whose every string carries a terminal payload, and a pty to run
the real command in, for the tests of what the terminal shows.

The payload holds what CVE-2021-25743 was about and what came after it: an
OSC 52 clipboard write (``ESC ] 52 ; c ; BASE64 BEL``), a CSI colour
(``ESC [ 31 m``), a one-character C1 CSI (U+009B), a bidi override
(U+202E) and a zero-width space. ``PayloadServer`` answers discovery as a
v1.32 cluster and puts the payload in a pod's name, label, annotation and
phase, in a watch ERROR's message, in the Status of the 500s that follow, in
a 403 at the start of ``services``, and in the queue and controller names of
a controller's metrics page (``/metrics``), and in a 503 on ``/api`` when asked
(``api_failures``); its kubeconfig's context is named with it. ``Pty`` runs the command in a
pseudo-terminal and keeps every byte it writes: what a terminal would read.
"""

from __future__ import annotations

import fcntl
import json
import os
import pty
import select
import signal
import struct
import termios
import threading
import time
from pathlib import Path

import pytest

from tests.attach.pages import client_go_page
from tests.kube.fake_apiserver import FakeAPIServer, Raw, Reply, serve_discovery, status
from tests.kube.hostile import PODS, _event, _json, _send_head, kubeconfig_for, pod_list
from tests.security.cli_process import command

OSC52 = "\x1b]52;c;ZXZpbA==\x07"
CSI = "\x1b[31mEVIL"
C1 = "\x9b2J"
BIDI = "\u202eLIVE"
ZERO_WIDTH = "\u200b"
PAYLOAD = OSC52 + CSI + C1 + BIDI + ZERO_WIDTH
# A name the shell would run (the probe), and one it would not.
SHELL_NAME = "cm$(touch${IFS}/tmp/x)"
EVIL_NAME = "evil-" + PAYLOAD

# What may never reach a terminal raw from the payload: its own sequences.
RAW_PIECES = (OSC52[:7], CSI, C1, BIDI, ZERO_WIDTH)
# Its characters, for a stream that holds no escape sequence of ours.
RAW_CHARS = ("\x1b", "\x07", "\x9b", "\u202e", "\u200b")
# How it reads once made printable (core/printable.py).
SHOWN = "\\x1b]52;c;ZXZpbA==\\x07\\x1b[31mEVIL\\x9b2J\\u202eLIVE\\u200b"

SERVICES = "/api/v1/namespaces/default/services"
CONTEXT = "ctx-" + PAYLOAD


def evil_pod(rv: int, phase: str) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": EVIL_NAME,
            "namespace": "default",
            "resourceVersion": str(rv),
            "uid": "uid-evil",
            "labels": {"app": PAYLOAD},
            "annotations": {"note": PAYLOAD},
        },
        "status": {"phase": phase, "message": PAYLOAD},
    }


def plain_pod(name: str, rv: int) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "default", "resourceVersion": str(rv), "uid": f"uid-{name}"},
        "status": {"phase": "Running"},
    }


def metrics_page() -> str:
    page = client_go_page(3, 10, 1, [1] * 10, [1] * 10)
    return page.replace('name="deployment"', f'name="deploy-{PAYLOAD}"').replace(
        'name="replicaset"', f'name="{SHELL_NAME}"'
    )


class PayloadServer:
    """The first LIST of pods answers three pods (one is ``EVIL_NAME``);
    the first watch sends the evil pod MODIFIED (its phase now the
    payload), then an ERROR whose message is the payload. Every later list
    or watch is a 500 whose message is the payload; ``services`` is a 403
    saying it."""

    def __init__(self) -> None:
        self.srv = FakeAPIServer().start()
        serve_discovery(self.srv)
        self.lists = self.watches = 0
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self.api_failures = 0  # this many 503s on /api first (discovery's "retrying in" line)
        api = self.srv.routes["/api"]
        self.srv.routes["/api"] = lambda req: self._api(api)
        self.srv.routes[PODS] = Raw(self._pods)
        self.srv.routes[SERVICES] = Reply(403, status(403, "Forbidden", PAYLOAD))
        self.srv.routes["/metrics"] = Reply(200, metrics_page().encode())

    @property
    def url(self) -> str:
        return self.srv.url

    def _api(self, api: dict):
        with self.lock:
            if self.api_failures <= 0:
                return api
            self.api_failures -= 1
        return Reply(503, status(503, "ServiceUnavailable", PAYLOAD))

    def _pods(self, h, req) -> None:
        watch = req.query.get("watch") == "true"
        with self.lock:
            n = self.watches if watch else self.lists
            if watch:
                self.watches += 1
            else:
                self.lists += 1
        if n:
            return _json(h, status(500, "InternalError", PAYLOAD), 500)
        if not watch:
            return _json(h, pod_list([plain_pod("web-1", 5), plain_pod(SHELL_NAME, 6), evil_pod(7, "Pending")]))
        _send_head(h, chunked=True)
        for line in (_event("MODIFIED", evil_pod(11, PAYLOAD)), _event("ERROR", status(500, "InternalError", PAYLOAD))):
            h.wfile.write(b"%x\r\n%s\r\n" % (len(line), line))
            h.wfile.flush()
        self.stop.wait(0.3)
        h.wfile.write(b"0\r\n\r\n")

    def kubeconfig(self, tmp: Path) -> Path:
        path = tmp / "payload.kubeconfig"
        kc = kubeconfig_for(self.url)
        # The context's name is the file's: shown in the header, recorded in run.info.
        kc["current-context"] = kc["contexts"][0]["name"] = CONTEXT
        path.write_text(json.dumps(kc))
        path.chmod(0o600)
        return path

    def close(self) -> None:
        self.stop.set()
        self.srv.stop()


def assert_shown_printable(text: str, where: str) -> None:
    """No character of the payload raw in ``text`` (a stream with no escape
    sequence of ours: stdout, stderr, a file)."""
    for ch in RAW_CHARS:
        assert ch not in text, f"{where} holds {ch!r} raw: {text[-1500:]!r}"


class Pty:
    """The real command in a pseudo-terminal of ``cols`` x ``rows`` (TERM
    xterm-256color): ``out`` holds every byte it wrote."""

    def __init__(self, args: list[str], env: dict, cols: int = 120, rows: int = 40) -> None:
        self.out = bytearray()
        pid, fd = pty.fork()
        if pid == 0:  # the child: the terminal's size set before the command reads it
            try:
                fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
                argv = command(*args)
                os.execve(argv[0], argv, env)
            finally:
                os._exit(127)
        self.pid, self.fd = pid, fd
        self.status: int | None = None

    def read_until(self, predicate, what: str, timeout: float = 30.0) -> None:
        """Read what the command writes until ``predicate(out)`` holds."""
        deadline = time.monotonic() + timeout
        while not predicate(bytes(self.out)):
            left = deadline - time.monotonic()
            if left <= 0 or not self._read(min(left, 0.5)) and self._ended():
                self.kill()
                pytest.fail(f"the terminal never showed {what}; last bytes: {bytes(self.out[-3000:])!r}")

    def _read(self, wait: float) -> bool:
        ready, _, _ = select.select([self.fd], [], [], wait)
        if not ready:
            return True
        try:
            data = os.read(self.fd, 65536)
        except OSError:  # EIO: the command ended and the terminal closed
            return False
        self.out += data
        return bool(data)

    def _ended(self) -> bool:
        if self.status is None:
            pid, st = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.status = os.waitstatus_to_exitcode(st)
        return self.status is not None

    def send(self, keys: str) -> None:
        os.write(self.fd, keys.encode())

    def wait_exit(self, timeout: float = 30.0) -> int:
        deadline = time.monotonic() + timeout
        while not self._ended():
            if time.monotonic() > deadline:
                self.kill()
                pytest.fail(f"still running {timeout}s later")
            self._read(0.1)
        while self._read(0.05):  # what is left in the terminal's buffer
            pass
        return self.status

    def kill(self) -> None:
        if not self._ended():
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
            self.status = -9

    def close(self) -> None:
        self.kill()
        os.close(self.fd)


def pty_env(tmp: Path) -> dict:
    env = dict(
        os.environ,
        TERM="xterm-256color",
        KUBECONFIG=os.devnull,
        XDG_STATE_HOME=str(tmp / "state"),
        XDG_CACHE_HOME=str(tmp / "cache"),
        COLUMNS="120",
        LINES="40",
    )
    for name in ("TMUX", "NO_COLOR", "TEXTUAL", "PYTEST_CURRENT_TEST"):
        env.pop(name, None)
    return env


def assert_no_payload_sequence(out: bytes, where: str) -> None:
    """The terminal's stream holds the UI's own escape sequences, never
    the payload's: each of its pieces is looked for as bytes."""
    for piece in RAW_PIECES:
        assert piece.encode() not in out, f"{where}: the payload's {piece!r} reached the terminal raw"
