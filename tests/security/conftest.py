"""The real command (a subprocess) against the simulated API server (real
HTTP or HTTPS on 127.0.0.1, port 0), for the security tests."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from kubectl_informer.sim.demo import seed
from kubectl_informer.sim.server import SimServer

SCRIPT = Path(sys.executable).parent / "kubectl-informer"


def command(*args: str) -> list[str]:
    base = [str(SCRIPT)] if SCRIPT.exists() else [sys.executable, "-m", "kubectl_informer"]
    return base + list(args)


def run_cli(
    *args: str,
    env: dict | None = None,
    timeout: float = 60,
    cwd: str | None = None,
) -> subprocess.CompletedProcess:
    """Run ``kubectl-informer ARGS`` to its end, no terminal, no stdin."""
    full_env = {k: v for k, v in os.environ.items() if k != "KUBECONFIG"}
    full_env.update(env or {})
    return subprocess.run(
        command(*args), capture_output=True, text=True, timeout=timeout, env=full_env, stdin=subprocess.DEVNULL, cwd=cwd
    )


def assert_refused(
    r: subprocess.CompletedProcess, code: int, line: str | None = None, contains: tuple[str, ...] = ()
) -> str:
    """Exit ``code``, nothing on stdout, exactly one ``error:`` line on
    stderr (equal to ``line`` when given), no traceback."""
    assert r.returncode == code, (r.returncode, r.stdout[-500:], r.stderr[-2000:])
    assert r.stdout == "", r.stdout[-500:]
    lines = r.stderr.splitlines()
    assert len(lines) == 1, r.stderr[-2000:]
    assert lines[0].startswith("error: "), lines[0]
    assert "Traceback" not in r.stderr
    if line is not None:
        assert lines[0] == line
    for part in contains:
        assert part in lines[0], lines[0]
    return lines[0]


SIM_TOKEN = "sim-token"  # what the sim fixtures accept, and write_kubeconfig's user gives


def write_kubeconfig(
    path: Path, server: str, user: str = f"token: {SIM_TOKEN}", context_extra: str = "", cluster_extra: str = ""
) -> str:
    """A kubeconfig for ``server``; ``user`` and the extras are YAML lines
    put under the user, the context and the cluster."""
    path.write_text(
        textwrap.dedent("""\
        apiVersion: v1
        kind: Config
        clusters:
        - name: sim
          cluster:
            server: "{server}"
        {cluster_extra}
        users:
        - name: me
          user:
        {user}
        contexts:
        - name: here
          context:
            cluster: sim
            user: me
        {context_extra}
        current-context: here
        """).format(
            server=server,
            user=textwrap.indent(user, "    "),
            cluster_extra=textwrap.indent(cluster_extra, "    "),
            context_extra=textwrap.indent(context_extra, "    "),
        )
    )
    path.chmod(0o600)
    return str(path)


@pytest.fixture
def sim():
    """A fresh simulated cluster (its request log starts empty), accepting
    the token ``write_kubeconfig`` gives by default."""
    srv = SimServer(tokens=frozenset({SIM_TOKEN})).start()
    seed(srv.store)
    yield srv
    srv.stop()


@pytest.fixture
def sim_tls():
    srv = SimServer(tls=True, tokens=frozenset({SIM_TOKEN})).start()
    seed(srv.store)
    yield srv
    srv.stop()


@pytest.fixture
def server_for(tmp_path):
    """``server_for(behaviour, client="light")``: a hostile server
    (hostile_server.HostileServer) and a kubeconfig for it; closed after the test."""
    from tests.security.hostile_server import HostileServer, write_kubeconfig

    servers = []

    def start(behaviour: str, client: str = "light"):
        s = HostileServer(behaviour)
        servers.append(s)
        return s, write_kubeconfig(s, tmp_path, client)

    yield start
    for s in servers:
        s.close()


@pytest.fixture
def terminal():
    """``terminal(args, env, width=80, height=24)``: the real command in a
    tmux window of its own (cli_process.Terminal); closed after the test."""
    from tests.security.cli_process import Terminal

    made: list[Terminal] = []

    def make(args: str, env: dict, width: int = 80, height: int = 24) -> Terminal:
        t = Terminal(args, env, width, height)
        made.append(t)
        return t

    yield make
    for t in made:
        t.close()


@pytest.fixture
def payload_server():
    """A server whose every string carries the terminal payload
    (terminal_payload.PayloadServer); closed after the test."""
    from tests.security.terminal_payload import PayloadServer

    s = PayloadServer()
    yield s
    s.close()
