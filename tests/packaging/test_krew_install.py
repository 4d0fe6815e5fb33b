"""The krew archive, installed as krew installs it, works through the real
kubectl on a PATH with no Python: plugin discovery, version, help, a headless
demo run and the live UI in tmux."""

import re
import shutil
import signal
import subprocess
import time

import pytest
import yaml

from tests.packaging import krew
from tests.packaging.conftest import KUBECTL, bare_env, this_platform

pytestmark = [pytest.mark.e2e, pytest.mark.tmux]

TMUX = shutil.which("tmux") or "/usr/bin/tmux"


def kubectl(path: str, home, *args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run([KUBECTL, *args], env=bare_env(path, home), capture_output=True, text=True, timeout=timeout)


def test_install_puts_the_plugin_license_and_readme_in_place(krew_root):
    store = next((krew_root / "store" / "informer").iterdir())
    assert store.name == "v0.1.0"
    names = {p.name for p in store.iterdir()}
    assert {"kubectl-informer", "kubectl_complete-informer", "_internal", "LICENSE", "README.md"} <= names
    assert "Apache License" in (store / "LICENSE").read_text()
    assert store / "LICENSE" in krew.installed_license_files(krew_root)  # validate-krew-manifest's check
    link = krew_root / "bin" / "kubectl-informer"
    assert link.is_symlink() and link.resolve() == (store / "kubectl-informer").resolve()


def test_install_refuses_an_archive_that_is_not_the_manifests(krew_build, tmp_path):
    tampered = tmp_path / krew_build.archive.name
    tampered.write_bytes(krew_build.archive.read_bytes() + b"\0")
    with pytest.raises(AssertionError, match="sha256"):
        krew.install(krew_build.manifest, tampered, tmp_path / "root", *this_platform())


def test_kubectl_plugin_list_finds_the_installed_plugin(krew_root, no_python_path, tmp_path):
    r = kubectl(no_python_path, tmp_path, "plugin", "list")
    assert r.returncode == 0, r.stderr
    assert str(krew_root / "bin" / "kubectl-informer") in r.stdout.splitlines()


def test_version_and_help_run_without_python(no_python_path, tmp_path):
    r = kubectl(no_python_path, tmp_path, "informer", "version")
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("kubectl-informer v0.1.0 (python 3.")
    r = kubectl(no_python_path, tmp_path, "informer", "--help")
    assert r.returncode == 0, r.stderr
    assert "Usage:\n  kubectl informer [command] [options]" in r.stdout
    r = kubectl(no_python_path, tmp_path, "informer", "watch", "pods", "--resync", "soon")
    assert r.returncode == 2 and r.stderr.startswith("error: invalid value for '--resync'")


def test_headless_demo_streams_deltas(no_python_path, tmp_path):
    # Ends at the 12th line (the initial list's 9 or 10, then the scenario's), ~2 s; 5 s at most.
    r = kubectl(
        no_python_path,
        tmp_path,
        "informer",
        "watch",
        "pods",
        "--demo",
        "-o",
        "text",
        "--duration",
        "5s",
        "--max-events",
        "12",
    )
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    # The demo seeds 9 pods in "default" (the scenario may add one before the list).
    initial = [line for line in lines if line.endswith(" [initial list]")]
    assert len(initial) >= 9 and all(line.startswith("Replaced default/") for line in initial), r.stdout
    live = [line for line in lines if not line.endswith(" [initial list]")]
    assert live and all(line.split()[0] in ("Added", "Updated", "Deleted") for line in live), r.stdout
    assert r.stderr == ""


def test_sim_serves_kubectl_explain_and_a_run_from_its_kubeconfig(no_python_path, tmp_path):
    # Two paths of the frozen binary the spec trims the kubernetes client for:
    # the simulator's OpenAPI schemas (derived from the client's models, looked
    # up by name) and a run through the client's kubeconfig loader and ApiClient
    # (a cluster key the plugin's light loader leaves to it: disable-compression).
    kubeconfig, printed = tmp_path / "sim.kubeconfig", tmp_path / "sim.out"
    with open(printed, "w") as out:
        sim = subprocess.Popen(
            [KUBECTL, "informer", "sim", "--write-kubeconfig", str(kubeconfig), "--scenario", "quiet"],
            env=bare_env(no_python_path, tmp_path),
            stdout=out,
            stderr=subprocess.PIPE,
            text=True,
        )
    try:
        deadline = time.monotonic() + 60
        while "Press Ctrl-C" not in printed.read_text():
            assert sim.poll() is None and time.monotonic() < deadline, printed.read_text()
            time.sleep(0.1)  # polls a file the server writes
        r = kubectl(
            no_python_path,
            tmp_path,
            "--kubeconfig",
            str(kubeconfig),
            "explain",
            "deployments.spec.template.spec.containers.image",
        )
        assert r.returncode == 0, r.stderr
        assert "KIND:       Deployment" in r.stdout and "FIELD: image <string>" in r.stdout, r.stdout
        config = yaml.safe_load(kubeconfig.read_text())
        config["clusters"][0]["cluster"]["disable-compression"] = True
        through_client = tmp_path / "client.kubeconfig"
        through_client.write_text(yaml.safe_dump(config))
        r = kubectl(
            no_python_path,
            tmp_path,
            "informer",
            "watch",
            "pods",
            "--kubeconfig",
            str(through_client),
            "-o",
            "text",
            "--max-events",
            "3",
        )
        assert r.returncode == 0 and r.stderr == "", r.stderr
        lines = r.stdout.splitlines()
        assert len(lines) == 3 and all(
            line.startswith("Replaced default/") and line.endswith(" [initial list]") for line in lines
        ), r.stdout
    finally:
        sim.send_signal(signal.SIGINT)
        _, err = sim.communicate(timeout=30)
    assert sim.returncode == 130 and err == "", err
    assert "Simulated API server stopped." in printed.read_text()


def _tmux(sock, env, *args):
    r = subprocess.run([TMUX, "-S", str(sock), *args], env=env, capture_output=True, text=True, timeout=20)
    assert r.returncode == 0, r.stderr
    return r.stdout


def test_live_ui_runs_in_a_terminal(no_python_path, tmp_path, tmux_sock):
    env = dict(bare_env(no_python_path, tmp_path), TERM="xterm-256color")
    sock, done = tmux_sock, tmp_path / "exit"
    _tmux(
        sock,
        env,
        "new-session",
        "-d",
        "-x",
        "150",
        "-y",
        "40",
        f"{KUBECTL} informer watch pods --demo; echo $? > {done}; sleep 30",
    )
    try:
        deadline, screen = time.monotonic() + 30, ""
        while "Deltas" not in screen or "synced" not in screen:
            assert time.monotonic() < deadline, f"the UI never drew its panes:\n{screen}"
            time.sleep(0.2)  # polling the terminal
            screen = _tmux(sock, env, "capture-pane", "-p")
        assert "informer  pods" in screen and "ctx sim (demo: steady)" in screen
        # Live updates drawn (polled, not slept for): the Deltas pane's rows and the Explain line.
        deltas = re.compile(r"(Replaced|Added|Updated|Deleted) +default/")
        while not (deltas.search(screen) and "Deltas ▸" in screen) and time.monotonic() < deadline + 10:
            time.sleep(0.2)
            screen = _tmux(sock, env, "capture-pane", "-p")
        # Deltas of the watched namespace: the initial list's, or the scenario's since (it acts there).
        assert re.search(r"(Replaced|Added|Updated|Deleted) +default/", screen), screen
        # The Explain pane's texts (package data) made it into the archive.
        assert "Deltas ▸" in screen
        _tmux(sock, env, "send-keys", "q")
        deadline = time.monotonic() + 15
        while not (done.exists() and done.read_text().strip()):
            assert time.monotonic() < deadline, "q did not end the UI"
            time.sleep(0.1)
        assert done.read_text().strip() == "0"
    finally:
        subprocess.run([TMUX, "-S", str(sock), "kill-server"], env=env, capture_output=True)


def test_completion_through_the_link_the_caveats_suggest(krew_root, no_python_path, tmp_path):
    # `ln -s kubectl-informer ~/.krew/bin/kubectl_complete-informer`: the binary answers by its name.
    link = krew_root / "bin" / "kubectl_complete-informer"
    link.symlink_to("kubectl-informer")
    try:
        r = kubectl(no_python_path, tmp_path, "__complete", "informer", "watch", "--demo", "b")
    finally:
        link.unlink()
    assert r.returncode == 0, r.stderr
    assert [line.split("\t")[0] for line in r.stdout.splitlines()] == ["burst", ":4"]


def test_completion_through_the_archives_completer(krew_root, no_python_path, tmp_path):
    # The archive's own kubectl_complete-informer, its folder on PATH.
    store = next((krew_root / "store" / "informer").iterdir())
    r = kubectl(f"{store}:{no_python_path}", tmp_path, "__complete", "informer", "qu")
    assert r.returncode == 0, r.stderr
    assert [line.split("\t")[0] for line in r.stdout.splitlines()] == ["queue", ":4"]
