"""Exec credential plugins fail loudly, never anonymously, and never linger.

The kubernetes Python client logs a plugin's failure and sends the request
without credentials (exit 0 against a server that serves anonymous
requests), and waits for ever on a plugin that hangs. Here every plugin is a
small shell script written by the test; the server is the simulated one,
which serves anonymous requests unless told otherwise, so any request that
went out without credentials would show in its log.
"""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import time
from pathlib import Path

import pytest

from kubectl_informer.clock.testing import wait_for
from kubectl_informer.sim.demo import seed
from kubectl_informer.sim.server import SimServer
from tests.security.conftest import assert_refused, command, run_cli, write_kubeconfig
from tests.security.in_process import run_in_process

pytestmark = pytest.mark.e2e

V1 = "client.authentication.k8s.io/v1"
TOKEN = "exec-token-5b1d0c"
CREDENTIAL = json.dumps({"apiVersion": V1, "kind": "ExecCredential", "status": {"token": TOKEN}})
HEADLESS = ("-o", "text", "--duration", "30s")
# What the plugin's configuration makes of a run is checked in this process (the CLI's code,
# tests/security/in_process.py), a hang that the bound or --duration ends too; a working plugin, a
# terminal and a hang that a signal ends run the real command.


def plugin(tmp_path: Path, body: str, name: str = "plugin.sh") -> Path:
    path = tmp_path / name
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(stat.S_IRWXU)
    return path


def exec_kubeconfig(
    tmp_path: Path, server: str, command_path: str, mode: str | None = "Never", api_version: str = V1, extra: str = ""
) -> str:
    lines = [f"apiVersion: {api_version}", f"command: {command_path}"]
    if mode is not None:
        lines.append(f"interactiveMode: {mode}")
    user = "exec:\n" + "\n".join("  " + ln for ln in lines + [x for x in extra.splitlines() if x])
    return write_kubeconfig(tmp_path / "kc", server, user=user)


@pytest.fixture
def authed_sim():
    srv = SimServer(tokens=frozenset({TOKEN})).start()
    seed(srv.store)
    yield srv
    srv.stop()


def test_a_working_plugin_authenticates_every_request(authed_sim, tmp_path):
    p = plugin(tmp_path, f"cat <<'EOF'\n{CREDENTIAL}\nEOF")
    kc = exec_kubeconfig(tmp_path, authed_sim.url, str(p))
    r = run_cli("watch", "pods", "--kubeconfig", kc, "-o", "text", "--max-events", "3")
    assert r.returncode == 0 and r.stdout.startswith("Replaced "), r.stderr
    assert authed_sim.request_log and all(code != 401 for _, _, code in authed_sim.request_log)


def test_the_plugin_gets_kubernetes_exec_info(authed_sim, tmp_path):
    seen = tmp_path / "info.json"
    p = plugin(
        tmp_path,
        f'printf "%s" "$KUBERNETES_EXEC_INFO" > {seen}\nprintf "%s" "$EXTRA" > {seen}.env\n'
        f"cat <<'EOF'\n{CREDENTIAL}\nEOF",
    )
    kc = exec_kubeconfig(
        tmp_path,
        authed_sim.url,
        str(p),
        extra="provideClusterInfo: true\nenv:\n- {name: EXTRA, value: from-kubeconfig}",
    )
    r = run_in_process("watch", "pods", "--kubeconfig", kc, "-o", "text", "--max-events", "1")
    assert r.returncode == 0, r.stderr
    info = json.loads(seen.read_text())
    assert info == {
        "apiVersion": V1,
        "kind": "ExecCredential",
        "spec": {"interactive": False, "cluster": {"server": authed_sim.url}},
    }
    assert (tmp_path / "info.json.env").read_text() == "from-kubeconfig"


@pytest.mark.parametrize(
    "body,line",
    [
        (
            "echo 'error: SSO session expired, run aws sso login' >&2\nexit 3",
            "error: exec: executable {p} failed with exit code 3: error: SSO session expired, run aws sso login",
        ),
        ("exit 1", "error: exec: executable {p} failed with exit code 1"),
        (
            "echo 'garbage, not JSON'",
            "error: decoding stdout: the plugin's output is not an ExecCredential (not JSON); it is not shown",
        ),
        (
            'echo \'{"apiVersion":"client.authentication.k8s.io/v1beta1","kind":"ExecCredential","status":'
            '{"token":"x"}}\'',
            "error: exec plugin is configured to use API version client.authentication.k8s.io/v1, plugin returned "
            'version "client.authentication.k8s.io/v1beta1"',
        ),
        (
            'echo \'{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential"}\'',
            "error: exec plugin didn't return a status field",
        ),
        (
            'echo \'{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{}}\'',
            "error: exec plugin didn't return a token or cert/key pair",
        ),
        (
            'echo \'{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":'
            '{"clientCertificateData":"x"}}\'',
            "error: exec plugin returned only certificate or key, not both",
        ),
    ],
)
def test_a_failing_plugin_is_one_line_and_nothing_is_sent(sim, tmp_path, body, line):
    p = plugin(tmp_path, body)
    kc = exec_kubeconfig(tmp_path, sim.url, str(p))
    assert_refused(run_in_process("watch", "pods", "--kubeconfig", kc, *HEADLESS), 1, line.format(p=p))
    assert list(sim.request_log) == []


def test_a_missing_plugin_is_named_with_its_install_hint(sim, tmp_path):
    kc = exec_kubeconfig(tmp_path, sim.url, "no-such-auth-plugin", extra="installHint: install it with brew")
    assert_refused(
        run_in_process("watch", "pods", "--kubeconfig", kc, *HEADLESS),
        1,
        "error: exec: executable no-such-auth-plugin not found (install it with brew)",
    )
    assert list(sim.request_log) == []


def test_a_relative_command_is_found_beside_the_kubeconfig(authed_sim, tmp_path):
    (tmp_path / "bin").mkdir()
    plugin(tmp_path / "bin", f"cat <<'EOF'\n{CREDENTIAL}\nEOF", name="auth.sh")
    kc = exec_kubeconfig(tmp_path, authed_sim.url, "./bin/auth.sh")
    r = run_in_process("watch", "pods", "--kubeconfig", kc, "-o", "text", "--max-events", "1", cwd="/")
    assert r.returncode == 0, r.stderr


@pytest.mark.parametrize(
    "mode,api_version,line",
    [
        ("Always", V1, "error: exec plugin cannot support interactive mode: standard input is not a terminal"),
        (None, V1, 'error: interactiveMode must be specified for user "me" to use exec authentication plugin'),
        (
            "Sometimes",
            V1,
            'error: invalid interactiveMode for user "me": "Sometimes" (valid values are Never, IfAvailable, Always)',
        ),
        (
            "Never",
            "client.authentication.k8s.io/v1alpha1",
            'error: exec plugin: invalid apiVersion "client.authentication.k8s.io/v1alpha1"',
        ),
    ],
)
def test_interactive_mode_and_api_version_as_client_go(sim, tmp_path, mode, api_version, line):
    ran = tmp_path / "ran"
    p = plugin(tmp_path, f"touch {ran}\ncat <<'EOF'\n{CREDENTIAL}\nEOF")
    kc = exec_kubeconfig(tmp_path, sim.url, str(p), mode=mode, api_version=api_version)
    assert_refused(run_in_process("watch", "pods", "--kubeconfig", kc, *HEADLESS), 1, line)
    assert not ran.exists() and list(sim.request_log) == []


@pytest.mark.parametrize("mode", ["Never", "IfAvailable"])
def test_without_a_terminal_the_plugin_runs_non_interactive(authed_sim, tmp_path, mode):
    seen = tmp_path / "info.json"
    p = plugin(tmp_path, f'printf "%s" "$KUBERNETES_EXEC_INFO" > {seen}\ncat <<\'EOF\'\n{CREDENTIAL}\nEOF')
    kc = exec_kubeconfig(tmp_path, authed_sim.url, str(p), mode=mode)
    assert run_in_process("watch", "pods", "--kubeconfig", kc, "-o", "text", "--max-events", "1").returncode == 0
    assert json.loads(seen.read_text())["spec"]["interactive"] is False


@pytest.mark.parametrize("mode", ["Always", "IfAvailable"])
def test_with_a_terminal_the_plugin_gets_it(authed_sim, tmp_path, mode):
    """Standard input a terminal (a pty here): Always and IfAvailable run the
    plugin interactive, with that terminal as its standard input."""
    import pty

    seen = tmp_path / "info.json"
    p = plugin(
        tmp_path,
        f'printf "%s" "$KUBERNETES_EXEC_INFO" > {seen}\n[ -t 0 ] && touch {seen}.tty\ncat <<\'EOF\'\n{CREDENTIAL}\nEOF',
    )
    kc = exec_kubeconfig(tmp_path, authed_sim.url, str(p), mode=mode)
    leader, follower = pty.openpty()
    try:
        r = subprocess.run(
            command("watch", "pods", "--kubeconfig", kc, "-o", "text", "--max-events", "1"),
            stdin=follower,
            capture_output=True,
            text=True,
            timeout=60,
        )
    finally:
        os.close(follower)
        os.close(leader)
    assert r.returncode == 0, r.stderr
    assert json.loads(seen.read_text())["spec"]["interactive"] is True
    assert (tmp_path / "info.json.tty").exists()


def _hanging_plugin(tmp_path: Path) -> tuple[Path, Path]:
    """A plugin that starts a helper and hangs; both write their pids."""
    pids = tmp_path / "pids"
    p = plugin(tmp_path, f"sleep 600 &\necho $! >> {pids}\necho $$ >> {pids}\nwait")
    return p, pids


def _alive(pids: Path) -> list[int]:
    """The pids still running (a zombie waiting for its reaper is not)."""
    out = []
    for pid in (int(x) for x in pids.read_text().split()):
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (FileNotFoundError, ProcessLookupError, IndexError):
            continue
        if state != "Z":
            out.append(pid)
    return out


def _all_gone(pids: Path) -> bool:
    """Every pid is gone soon after the run ends: the group got SIGKILL, but a
    killed helper the shell left behind is reparented and exits when the
    kernel next schedules it, which on a loaded machine is not at once."""
    return wait_for(lambda: _alive(pids) == [], timeout=10, interval=0.05)


def _reap(pids: Path) -> None:
    for pid in _alive(pids):
        os.kill(pid, signal.SIGKILL)


def test_a_hanging_plugin_is_killed_at_its_bound(sim, tmp_path):
    p, pids = _hanging_plugin(tmp_path)
    kc = exec_kubeconfig(tmp_path, sim.url, str(p))
    try:
        started = time.monotonic()
        r = run_in_process(
            "watch", "pods", "--kubeconfig", kc, "-o", "text", env={"KUBECTL_INFORMER_EXEC_TIMEOUT": "1s"}
        )
        assert time.monotonic() - started < 30
        assert_refused(
            r,
            1,
            f"error: exec: executable {p} did not finish within 1s; it was stopped "
            f"(KUBECTL_INFORMER_EXEC_TIMEOUT sets the bound)",
        )
        assert len(pids.read_text().split()) == 2 and _all_gone(pids)
        assert list(sim.request_log) == []
    finally:
        _reap(pids)


def test_a_hanging_plugin_ends_with_the_run(sim, tmp_path):
    p, pids = _hanging_plugin(tmp_path)
    kc = exec_kubeconfig(tmp_path, sim.url, str(p))
    try:
        r = run_in_process("watch", "pods", "--kubeconfig", kc, "-o", "text", "--duration", "2s")
        assert_refused(r, 1, contains=("--duration passed",))
        assert len(pids.read_text().split()) == 2 and _all_gone(pids)
        assert list(sim.request_log) == []
    finally:
        _reap(pids)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP])
def test_a_hanging_plugin_dies_with_an_interrupted_run(sim, tmp_path, sig):
    p, pids = _hanging_plugin(tmp_path)
    kc = exec_kubeconfig(tmp_path, sim.url, str(p))
    proc = subprocess.Popen(
        command("watch", "pods", "--kubeconfig", kc, "-o", "text"),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        assert wait_for(lambda: pids.exists() and len(pids.read_text().split()) == 2, timeout=30, interval=0.05)
        proc.send_signal(sig)
        proc.wait(30)
        assert wait_for(lambda: _alive(pids) == [], timeout=10, interval=0.05)
        assert proc.returncode != 0 and proc.stdout.read() == b""
        assert list(sim.request_log) == []
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stdout.close()
        proc.stderr.close()
        _reap(pids)


def test_a_token_in_the_kubeconfig_wins_over_the_plugin(authed_sim, tmp_path):
    ran = tmp_path / "ran"
    p = plugin(tmp_path, f"touch {ran}\nexit 1")
    kc = write_kubeconfig(
        tmp_path / "kc",
        authed_sim.url,
        user=(f"token: {TOKEN}\nexec:\n  apiVersion: {V1}\n  command: {p}\n  interactiveMode: Never"),
    )
    r = run_in_process("watch", "pods", "--kubeconfig", kc, "-o", "text", "--max-events", "1")
    assert r.returncode == 0, r.stderr
    assert not ran.exists()


def test_the_kubernetes_client_path_uses_the_plugin_too(authed_sim, tmp_path):
    """A user entry the light client leaves to the kubernetes client (here
    a cluster that disables compression) still gets its token from our run of the plugin, and a
    failing plugin is still an error there."""
    p = plugin(tmp_path, f"cat <<'EOF'\n{CREDENTIAL}\nEOF")
    kc = write_kubeconfig(
        tmp_path / "kc",
        authed_sim.url,
        user=(f"exec:\n  apiVersion: {V1}\n  command: {p}\n  interactiveMode: Never"),
        cluster_extra="disable-compression: true",
    )
    r = run_in_process("watch", "pods", "--kubeconfig", kc, "-o", "text", "--max-events", "1")
    assert r.returncode == 0, r.stderr
    assert authed_sim.request_log and all(code != 401 for _, _, code in authed_sim.request_log)
    bad = plugin(tmp_path, "echo nope >&2\nexit 2", name="bad.sh")
    kc2 = write_kubeconfig(
        tmp_path / "kc2",
        authed_sim.url,
        user=(f"exec:\n  apiVersion: {V1}\n  command: {bad}\n  interactiveMode: Never"),
        cluster_extra="disable-compression: true",
    )
    before = len(authed_sim.request_log)
    assert_refused(
        run_in_process("watch", "pods", "--kubeconfig", kc2, *HEADLESS),
        1,
        f"error: exec: executable {bad} failed with exit code 2: nope",
    )
    assert len(authed_sim.request_log) == before


def test_a_signal_while_the_plugin_is_being_started_still_kills_it(tmp_path, monkeypatch):
    """SIGTERM arriving while Popen still waits for the exec (a loaded machine):
    the plugin must not be left running with nothing holding its process."""
    from kubectl_informer.kube import exec_plugin
    from kubectl_informer.run import signals

    p, pids = _hanging_plugin(tmp_path)
    real_popen = exec_plugin.subprocess.Popen

    def popen_then_signal(*args, **kwargs):
        proc = real_popen(*args, **kwargs)
        assert wait_for(lambda: pids.exists() and len(pids.read_text().split()) == 2, timeout=30, interval=0.02)
        os.kill(os.getpid(), signal.SIGTERM)  # its handler runs here, before Popen's caller has the process
        return proc

    monkeypatch.setattr(exec_plugin.subprocess, "Popen", popen_then_signal)
    restore = signals.install()
    try:
        with pytest.raises(signals.Terminated):
            exec_plugin.run_plugin(
                [str(p)], dict(os.environ), interactive=False, timeout=30, not_found=lambda: "not found"
            )
        assert wait_for(lambda: _alive(pids) == [], timeout=10, interval=0.05)
    finally:
        restore()
        _reap(pids)
