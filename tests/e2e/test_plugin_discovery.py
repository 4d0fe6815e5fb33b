"""The real kubectl finds and runs the plugin (kubectl's plugin mechanism:
any executable named kubectl-informer on PATH is ``kubectl informer``)."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e

KUBECTL = shutil.which("kubectl") or "/usr/bin/kubectl"


def _console_script() -> Path:
    """The `kubectl-informer` that `pip install` put beside this interpreter
    (a venv's bin/ in CI)."""
    script = Path(sys.executable).parent / "kubectl-informer"
    assert script.exists(), f"{script} missing: install the package (pip install -e .)"
    return script


@pytest.fixture
def plugin_path(tmp_path):
    """A PATH on which kubectl-informer is the only plugin, so `plugin list`
    shows exactly ours and no shadowing warnings from the machine's others."""
    bindir = tmp_path / "bin"
    bindir.mkdir()
    os.symlink(_console_script(), bindir / "kubectl-informer")
    return bindir


def kubectl(bindir, *args):
    env = dict(os.environ, PATH=f"{bindir}{os.pathsep}/usr/bin{os.pathsep}/bin", KUBECONFIG=os.devnull)
    return subprocess.run([KUBECTL, *args], env=env, capture_output=True, text=True, timeout=60)


@pytest.fixture(scope="module", autouse=True)
def _need_kubectl():
    assert os.path.exists(KUBECTL), "the real kubectl is needed (CI installs kubernetes-client)"


def test_plugin_list_finds_kubectl_informer(plugin_path):
    r = kubectl(plugin_path, "plugin", "list")
    assert r.returncode == 0, r.stderr
    assert str(plugin_path / "kubectl-informer") in r.stdout.splitlines()


def test_kubectl_informer_help_runs_through_kubectl(plugin_path):
    r = kubectl(plugin_path, "informer", "--help")
    assert r.returncode == 0, r.stderr
    assert "Usage:\n  kubectl informer [command] [options]" in r.stdout
    assert "watch" in r.stdout and "queue" in r.stdout


def test_kubectl_informer_version_runs_through_kubectl(plugin_path):
    r = kubectl(plugin_path, "informer", "version")
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("kubectl-informer v0.1.0")


def test_errors_and_exit_codes_pass_through_kubectl(plugin_path):
    r = kubectl(plugin_path, "informer", "watch", "pods", "--resync", "soon")
    assert r.returncode == 2
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: invalid value for '--resync': invalid duration \"soon\"")
