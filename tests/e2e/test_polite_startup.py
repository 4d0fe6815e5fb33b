"""A polite start-up: what `watch pods` sends before its first list.

The real command against the simulated API server (real HTTP), with HOME
and XDG_CACHE_HOME in temporary directories, counting every request the
server saw before the informer's first list or watch of pods: cold (no
cache: aggregated discovery, two requests), warm (our cache: none), warm
from kubectl's own cache (the real kubectl writes it first: none, and its
files are left as they were), and a server without aggregated discovery
(the legacy requests, one per group version, then a warm cache again).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from kubectl_informer.sim.demo import seed
from kubectl_informer.sim.server import SimServer
from tests.security.in_process import run_in_process

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(180)]

SCRIPT = Path(sys.executable).parent / "kubectl-informer"
KUBECTL = shutil.which("kubectl")
PODS = "/api/v1/namespaces/default/pods"
LEGACY_GROUP_VERSIONS = [
    "/api/v1",
    "/apis/apps/v1",
    "/apis/apiextensions.k8s.io/v1",
    "/apis/example.com/v1",
    "/apis/authorization.k8s.io/v1",
]


def command(*args: str) -> list[str]:
    base = [str(SCRIPT)] if SCRIPT.exists() else [sys.executable, "-m", "kubectl_informer"]
    return base + list(args)


@pytest.fixture
def home(tmp_path, monkeypatch):
    """HOME and XDG_CACHE_HOME of their own; kubectl's cache where HOME puts it."""
    monkeypatch.delenv("KUBECTL_INFORMER_DISCOVERY_CACHE", raising=False)
    monkeypatch.delenv("KUBECACHEDIR", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    (tmp_path / "home").mkdir()
    return tmp_path


def start_sim(tmp: Path, **kw) -> tuple[SimServer, str]:
    srv = SimServer(**kw).start()
    seed(srv.store)
    return srv, srv.write_kubeconfig(str(tmp / f"kubeconfig-{srv.port}"))


def watch_pods(kc: str, real: bool = False) -> subprocess.CompletedProcess:
    """The run; the CLI's code in this process (tests/security/in_process.py:
    the caches are files, read afresh by each run) unless ``real``."""
    args = ("watch", "pods", "--kubeconfig", kc, "-o", "json", "--max-events", "5")
    if real:
        r = subprocess.run(command(*args), capture_output=True, text=True, timeout=90, env=dict(os.environ))
    else:
        r = run_in_process(*args)
    assert r.returncode == 0 and r.stderr == "", r.stderr
    return r


def before_first_list(srv: SimServer) -> list[str]:
    """Every request before the first list or watch of pods (which must come)."""
    log = [path for _m, path, _s in srv.request_log]
    first = next(i for i, p in enumerate(log) if urlsplit(p).path == PODS)
    return [urlsplit(p).path for p in log[:first]]


def files_of(root: Path) -> dict[str, tuple[int, bytes]]:
    return {str(p): (p.stat().st_mtime_ns, p.read_bytes()) for p in sorted(root.rglob("*")) if p.is_file()}


def test_cold_then_warm(home):
    srv, kc = start_sim(home)
    try:
        watch_pods(kc)
        assert before_first_list(srv) == ["/api", "/apis"]  # at most 5 cold: aggregated discovery
        srv.request_log.clear()
        watch_pods(kc, real=True)
        assert before_first_list(srv) == []  # at most 3 warm: our cache answered
        ours = home / "xdg" / "kubectl-informer" / "discovery" / f"127.0.0.1_{srv.port}"
        written = files_of(ours)
        assert str(ours / "servergroups.json") in written and str(ours / "v1" / "serverresources.json") in written
        assert all(srv.token.encode() not in body for _t, body in written.values())
        assert not (home / "home" / ".kube").exists()  # kubectl's cache: never written by us
    finally:
        srv.stop()


@pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed")
def test_kubectls_own_cache_is_read_and_left_as_it_was(home):
    srv, kc = start_sim(home, anonymous=True)  # kubectl sends no credentials to an http:// server
    try:
        got = subprocess.run(
            [KUBECTL, "--kubeconfig", kc, "get", "pods"],
            capture_output=True,
            text=True,
            timeout=60,
            env=dict(os.environ),
        )
        assert got.returncode == 0, got.stderr
        theirs = home / "home" / ".kube" / "cache" / "discovery" / f"127.0.0.1_{srv.port}"
        before = files_of(theirs)
        assert str(theirs / "servergroups.json") in before
        srv.request_log.clear()
        watch_pods(kc)
        assert before_first_list(srv) == []  # kubectl's cache answered
        assert files_of(theirs) == before  # not a byte, not an mtime changed
        assert not (home / "xdg" / "kubectl-informer").exists()  # nothing asked of the server, nothing kept
    finally:
        srv.stop()


def test_a_server_without_aggregated_discovery(home):
    srv, kc = start_sim(home, aggregated_discovery=False)
    try:
        watch_pods(kc)
        asked = before_first_list(srv)
        assert asked[:2] == ["/api", "/apis"] and sorted(asked[2:]) == sorted(LEGACY_GROUP_VERSIONS)
        srv.request_log.clear()
        watch_pods(kc)
        assert before_first_list(srv) == []
    finally:
        srv.stop()


def test_a_corrupt_cache_is_asked_again_without_a_word(home):
    srv, kc = start_sim(home)
    try:
        watch_pods(kc)
        groups = home / "xdg" / "kubectl-informer" / "discovery" / f"127.0.0.1_{srv.port}" / "servergroups.json"
        groups.write_bytes(b'{"kind": "APIGroupList", "groups": [{"name": "", "versions": [{"groupVersion": "../x"')
        srv.request_log.clear()
        watch_pods(kc)  # rc 0 and nothing on stderr
        assert before_first_list(srv) == ["/api", "/apis"]
    finally:
        srv.stop()
