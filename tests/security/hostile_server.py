"""The hostile API server of tests/kube/hostile.py, with the behaviours the
security tests need on top: answers that never end (a watch line, a list
object, a list whose items never start, an error page), requests accepted
and never answered (discovery, a list, a watch), and failures that come
after a good start (401, 403, 500, a reset).

Real HTTP on 127.0.0.1, port 0, one thread per connection. Every request is
recorded with the time it arrived (``srv.requests``, ``arrived``), so a test
can count from the run's first request. ``run_cli`` runs the real command
against it and keeps the child's exit code, output, wall time and peak RSS.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from tests.kube.fake_apiserver import Raw, status
from tests.kube.hostile import (
    PODS,
    Hostile,
    _event,
    _json,
    _probe,
    _reset,
    _send_head,
    _watch_lines,
    kubeconfig_for,
    pod,
)
from tests.security.in_process import run_in_process

__all__ = ["HostileServer", "Outcome", "run_cli", "PODS", "kubeconfig_for"]

_PIECE = b"x" * (64 * 1024)

SECRETS = "/api/v1/namespaces/default/secrets"
# Two passwords of one length, then a longer one; never to be seen in any output.
PASSWORDS = (b"hunter2-first", b"hunter2-other", b"hunter2-longer!")


def secret(rv: int, password: bytes) -> dict:
    import base64

    return {
        "apiVersion": "v1",
        "kind": "Secret",
        "type": "Opaque",
        "metadata": {"name": "db", "namespace": "default", "resourceVersion": str(rv), "uid": "uid-db"},
        "data": {"password": base64.b64encode(password).decode(), "user": base64.b64encode(b"admin").decode()},
    }


class _Stamped(list):
    """The server's request list, with each request's arrival time beside it."""

    def __init__(self) -> None:
        super().__init__()
        self.arrived: list[float] = []

    def append(self, item) -> None:
        self.arrived.append(time.monotonic())
        super().append(item)


class HostileServer(Hostile):
    """``HostileServer(behaviour)``: discovery as a v1.32 cluster, then
    ``pods`` misbehaving as ``behaviour`` says (see the ``_install_*``)."""

    def __init__(self, behaviour: str) -> None:
        self.started_lists = 0
        self.started_watches = 0
        self.trickle_every = 1.0  # seconds between the trickling watch's events
        super().__init__(behaviour)
        self.srv.requests = _Stamped()

    @property
    def first_request_at(self) -> float:
        return self.srv.requests.arrived[0]

    def requests_to(self, path: str, **query: str) -> list:
        return [r for r in self.srv.requests if r.path == path and all(r.query.get(k) == v for k, v in query.items())]

    # -- writing without end, until the client hangs up or the test ends
    def _endless(self, h, head: bytes, chunked: bool = True) -> None:
        if chunked:
            _send_head(h, chunked=True)
        else:  # a close-delimited body
            h.send_response(200)
            h.send_header("Content-Type", "application/json")
            h.send_header("Connection", "close")
            h.end_headers()
            h.close_connection = True
        write = (lambda b: h.wfile.write(b"%x\r\n%s\r\n" % (len(b), b))) if chunked else h.wfile.write
        write(head)
        while not self.stop.is_set():
            write(_PIECE)  # OSError once the client has cut the connection: the handler ends

    def _silent(self, h, req) -> None:
        """Accepted, never answered: no status line, no headers."""
        self.stop.wait(120)
        h.close_connection = True

    # -- answers that never end
    def _install_endless_watch_line(self) -> None:
        def watch(h, req):
            if _probe(req):
                return self._quiet_watch(h, req)
            self.started_watches += 1
            self._endless(h, b'{"type":"ADDED","object":{"metadata":{"name":"')

        self._serve_pods(on_watch=watch)

    def _install_endless_watch_line_unchunked(self) -> None:
        def watch(h, req):
            if _probe(req):
                return self._quiet_watch(h, req)
            self.started_watches += 1
            self._endless(h, b'{"type":"ADDED","object":{"metadata":{"name":"', chunked=False)

        self._serve_pods(on_watch=watch)

    def _install_endless_list_object(self) -> None:
        def lst(h, req):
            if _probe(req):
                return self._normal_list(h, req)
            self.started_lists += 1
            self._endless(
                h,
                b'{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"10"},'
                b'"items":[{"metadata":{"name":"web-1"}},{"metadata":{"name":"',
            )

        self._serve_pods(on_list=lst)

    def _install_endless_list_head(self) -> None:
        def lst(h, req):
            if _probe(req):
                return self._normal_list(h, req)
            self.started_lists += 1
            self._endless(h, b'{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"10","x":"')

        self._serve_pods(on_list=lst)

    def _install_endless_probe_list(self) -> None:
        def lst(h, req):
            self.started_lists += 1
            self._endless(h, b'{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"10","x":"')

        self._serve_pods(on_list=lst)

    def _install_endless_error_page(self) -> None:
        def lst(h, req):
            if _probe(req):
                return self._normal_list(h, req)
            self.started_lists += 1
            h.send_response(500)
            h.send_header("Content-Type", "text/html")
            h.send_header("Transfer-Encoding", "chunked")
            h.end_headers()
            h.wfile.write(b"%x\r\n%s\r\n" % (len(b"<html><title>500 oops</title>"), b"<html><title>500 oops</title>"))
            while not self.stop.is_set():
                h.wfile.write(b"%x\r\n%s\r\n" % (len(_PIECE), _PIECE))

        self._serve_pods(on_list=lst)

    # -- accepted, never answered
    def _install_silent_discovery(self) -> None:
        self.srv.routes["/api"] = Raw(self._silent)

    def _install_silent_list(self) -> None:
        def lst(h, req):
            if _probe(req):
                return self._normal_list(h, req)
            self._silent(h, req)

        self._serve_pods(on_list=lst)

    def _install_silent_watch(self) -> None:
        def watch(h, req):
            if _probe(req):
                return self._quiet_watch(h, req)
            self.started_watches += 1
            self._silent(h, req)

        self._serve_pods(on_watch=watch)

    def _install_trickle_then_silent_watch(self) -> None:
        """Six events, one every ``trickle_every`` seconds, then nothing, connection kept."""

        def watch(h, req):
            if _probe(req):
                return self._quiet_watch(h, req)
            self.started_watches += 1
            _send_head(h, chunked=True)
            for i in range(6):
                h.wfile.write(b"%x\r\n%s\r\n" % (len(line := _event("ADDED", pod(f"w{i}", 20 + i))), line))
                h.wfile.flush()
                if self.stop.wait(self.trickle_every):
                    return
            self.stop.wait(120)

        self._serve_pods(on_watch=watch)

    def _install_failing_list(self) -> None:
        """Every list after the probe fails: the reflector backs off, longer each time."""

        def lst(h, req):
            if _probe(req):
                return self._normal_list(h, req)
            self.started_lists += 1
            _json(h, status(500, "InternalError", "etcdserver: request timed out"), 500)

        self._serve_pods(on_list=lst)

    # -- a good start, then a failure
    def _later(self, fail) -> None:
        """The first list and watch go well (one event, then the watch ends);
        every request after them fails with ``fail(h)``."""

        def lst(h, req):
            if _probe(req):
                return self._normal_list(h, req)
            self.started_lists += 1
            if self.started_lists == 1:
                return self._normal_list(h, req)
            fail(h)

        def watch(h, req):
            if _probe(req):
                return self._quiet_watch(h, req)
            self.started_watches += 1
            if self.started_watches == 1:
                return _watch_lines(h, [_event("ADDED", pod("web-3", 11))], 1.2)
            fail(h)

        self._serve_pods(on_list=lst, on_watch=watch)

    def _install_later_401(self) -> None:
        self._later(lambda h: _json(h, status(401, "Unauthorized", "Unauthorized"), 401))

    def _install_later_403(self) -> None:
        self._later(
            lambda h: _json(
                h,
                status(
                    403,
                    "Forbidden",
                    'pods is forbidden: User "jane" cannot watch '
                    'resource "pods" in API group "" in the namespace '
                    '"default"',
                ),
                403,
            )
        )

    def _install_later_500(self) -> None:
        self._later(lambda h: _json(h, status(500, "InternalError", "etcdserver: leader changed"), 500))

    def _install_later_reset(self) -> None:
        def reset(h):
            _send_head(h, length=4096)
            h.wfile.write(b'{"kind":"PodList",')
            _reset(h)

        self._later(reset)

    # -- watch events the reflector cannot use
    def _install_no_metadata_events(self) -> None:
        def watch(h, req):
            if _probe(req):
                return self._quiet_watch(h, req)
            self.started_watches += 1
            _watch_lines(
                h,
                [
                    _event("ADDED", {"kind": "Pod"}),
                    _event("MODIFIED", None),
                    _event("ADDED", {"kind": "Pod", "metadata": "a string"}),
                    _event("SURPRISE", pod("web-9", 11)),
                    _event("ADDED", pod("web-3", 12)),
                ],
                30,
            )

        self._serve_pods(on_watch=watch)

    def _install_secret_same_length(self) -> None:
        """A Secret listed with one password, then watched changing to another
        of the same length, to the same again (a write that changes nothing in
        data), then to a longer one."""
        first, other, longer = PASSWORDS

        def handle(h, req):
            if req.query.get("watch") != "true":
                return _json(
                    h,
                    {
                        "kind": "SecretList",
                        "apiVersion": "v1",
                        "metadata": {"resourceVersion": "10"},
                        "items": [secret(10, first)],
                    },
                )
            if _probe(req):
                return self._quiet_watch(h, req)
            events = [
                _event("MODIFIED", secret(11, other)),
                _event("MODIFIED", secret(12, other)),
                _event("MODIFIED", secret(13, longer)),
            ]
            _watch_lines(h, events, 30)

        self.srv.routes[SECRETS] = Raw(handle)


# --- running the real command --------------------------------------------------------------

SCRIPT = Path(sys.executable).parent / "kubectl-informer"


def command(*args: str) -> list[str]:
    base = [str(SCRIPT)] if SCRIPT.exists() else [sys.executable, "-m", "kubectl_informer"]
    return base + list(args)


class _Popen(subprocess.Popen):
    """Popen that follows the child's own peak resident size: VmHWM, the
    high-water mark of the address space that exec gave it. (The rusage
    maxrss of a reaped child would also count the size of the pytest worker
    it was forked from, hundreds of MiB late in a run.)"""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.peak_kib = 0
        self._sampler = threading.Thread(target=self._sample, name="peak-rss", daemon=True)
        self._sampler.start()

    def _sample(self) -> None:
        path = f"/proc/{self.pid}/status"
        while self.returncode is None:
            try:
                with open(path, encoding="ascii") as f:
                    hwm = next((line for line in f if line.startswith("VmHWM:")), None)
            except OSError:
                return  # reaped
            if hwm is None:
                return  # exited: a zombie holds no memory
            self.peak_kib = max(self.peak_kib, int(hwm.split()[1]))
            time.sleep(0.02)

    @property
    def peak_mib(self) -> float:
        self._sampler.join(1.0)
        return self.peak_kib / 1024 if self.peak_kib else float("nan")


@dataclass
class Outcome:
    rc: int
    stdout: str
    stderr: str
    max_rss_mib: float
    started: float  # time.monotonic() when the child was started
    ended: float  # ... and when it had exited

    @property
    def events(self) -> list[dict]:
        return [json.loads(line) for line in self.stdout.splitlines() if line.startswith("{")]

    def kinds(self, kind: str) -> list[dict]:
        return [e for e in self.events if e["kind"] == kind]

    @property
    def stderr_lines(self) -> list[str]:
        return self.stderr.splitlines()


def write_kubeconfig(server: HostileServer, tmp: Path, client: str = "light") -> Path:
    """A kubeconfig for ``server``; ``client="kubernetes"`` adds a cluster
    key the light client leaves to the kubernetes client (urllib3)."""
    kc = kubeconfig_for(server.srv.url)
    if client == "kubernetes":
        kc["clusters"][0]["cluster"]["disable-compression"] = True
    path = tmp / f"{server.behaviour}-{client}.kubeconfig"
    path.write_text(json.dumps(kc))
    return path


def run_cli(kubeconfig: Path, *args: str, timeout: float = 60.0) -> Outcome:
    """``kubectl-informer ARGS --kubeconfig KUBECONFIG``, waited for at most
    ``timeout`` seconds (then killed, and the test fails)."""
    env = dict(os.environ, KUBECONFIG=os.devnull, PYTHONUNBUFFERED="1")
    started = time.monotonic()
    p = _Popen(command(*args, "--kubeconfig", str(kubeconfig)), stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()
        raise AssertionError(f"{args} still running after {timeout}s") from None
    ended = time.monotonic()
    rss = p.peak_mib
    return Outcome(p.returncode, out.decode(), err.decode(), rss, started, ended)


def run_here(kubeconfig, *args: str) -> Outcome:
    """``run_cli``'s run in this process (tests/security/in_process.py),
    ``ended`` when the process would have exited (the CLI's main returned,
    the run's non-daemon threads ended; its daemon threads must end too,
    within in_process's bound): for what the run's code does with what the
    server sent (how a process ends is ``run_cli``'s and ``run_until``'s)."""
    started = time.monotonic()
    r = run_in_process(*args, "--kubeconfig", str(kubeconfig))
    return Outcome(r.returncode, r.stdout, r.stderr, float("nan"), started, r.ended)


def run_until(kubeconfig: Path, *args: str, until: Callable[[Outcome], bool], timeout: float = 60.0) -> Outcome:
    """``kubectl-informer ARGS --kubeconfig KUBECONFIG`` (no ``--duration``),
    ended with SIGINT as soon as ``until`` holds for what it said so far
    (checked on every line it writes), instead of after a fixed time. A run
    that ends by itself first is returned as it ended (its exit code says
    so); one still short of ``until`` after ``timeout`` s is killed and fails."""
    env = dict(os.environ, KUBECONFIG=os.devnull, PYTHONUNBUFFERED="1")
    started = time.monotonic()
    p = _Popen(command(*args, "--kubeconfig", str(kubeconfig)), stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    out: list[str] = []
    err: list[str] = []
    said = threading.Event()

    def pump(stream, into: list[str]) -> None:
        for raw in stream:
            into.append(raw.decode())
            said.set()
        said.set()

    pumps = [threading.Thread(target=pump, args=a, daemon=True) for a in ((p.stdout, out), (p.stderr, err))]
    for t in pumps:
        t.start()
    so_far = Outcome(-1, "", "", float("nan"), started, float("nan"))
    try:
        while p.poll() is None:
            said.clear()
            so_far = Outcome(-1, "".join(out), "".join(err), float("nan"), started, float("nan"))
            if until(so_far):
                p.send_signal(signal.SIGINT)
                break
            if time.monotonic() - started > timeout:
                raise subprocess.TimeoutExpired(args, timeout)
            said.wait(0.1)
        p.wait(timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
        raise AssertionError(
            f"{args} still running after {timeout}s: {so_far.stdout[-1500:]} {so_far.stderr[-1500:]}"
        ) from None
    ended = time.monotonic()
    for t in pumps:
        t.join(10)
    return Outcome(p.returncode, "".join(out), "".join(err), p.peak_mib, started, ended)


def run_each_against_its_server(behaviours: dict, run: Callable, at_once: int) -> dict:
    """{key: (server, future of run(key, server))}: a HostileServer of its own
    for each key (``behaviours[key]``), ``at_once`` runs at a time — all at
    once, each start-up's imports (~0.4 CPU-s) would take both cores from the
    timing tests on other workers. The servers close once every run ended; a
    run that failed fails the test that reads its future."""
    from concurrent.futures import ThreadPoolExecutor

    servers = {key: HostileServer(behaviour) for key, behaviour in behaviours.items()}
    try:
        with ThreadPoolExecutor(at_once) as pool:
            futures = {key: pool.submit(run, key, server) for key, server in servers.items()}
    finally:
        for server in servers.values():
            server.close()
    return {key: (servers[key], future) for key, future in futures.items()}
