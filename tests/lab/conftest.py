"""Tests against the real cluster lab (etcd, kube-apiserver and
kube-controller-manager on loopback; docs/design-notes.md says how to build
it). Marked ``lab``; skipped, with one line, unless ``LAB_KUBECONFIG`` names a
kubeconfig whose server answers ``/readyz``."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import uuid

import pytest

KUBECTL = shutil.which("kubectl") or "/usr/bin/kubectl"


def _lab_reason() -> str | None:
    kc = os.environ.get("LAB_KUBECONFIG")
    if not kc:
        return "no lab: LAB_KUBECONFIG is not set"
    try:
        r = subprocess.run(
            [KUBECTL, "--kubeconfig", kc, "get", "--raw", "/readyz", "--request-timeout=3s"],
            capture_output=True,
            text=True,
            timeout=10,
        )
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"no lab: /readyz did not answer ({e})"
    if r.returncode != 0 or r.stdout.strip() != "ok":
        return f"no lab: /readyz answered {(r.stdout or r.stderr).strip()[:80]!r}"
    return None


@pytest.hookimpl(tryfirst=True)  # before tests/conftest.py's module groups: this group is the one xdist reads
def pytest_collection_modifyitems(config, items):
    ours = [i for i in items if i.get_closest_marker("lab")]
    if not ours:
        return
    for item in ours:
        # One lab, one worker: a test that waits for the real controller's counters to stand
        # still cannot share the cluster with another test's rollout.
        item.add_marker(pytest.mark.xdist_group("lab"))
    reason = _lab_reason()
    if reason:
        for item in ours:
            item.add_marker(pytest.mark.skip(reason=reason))


@pytest.fixture
def lab_kubeconfig() -> str:
    return os.environ["LAB_KUBECONFIG"]


@pytest.fixture
def lab_side(lab_kubeconfig, tmp_path):
    """The lab's side: a namespace of its own with a fake kubelet for it; deleted after the test."""
    from tests.lab.sides import Side

    ns = f"kcm-sim-{uuid.uuid4().hex[:6]}"
    side = Side("lab", lab_kubeconfig, ns, str(tmp_path / "lab-cache"))
    subprocess.run(
        [KUBECTL, "--kubeconfig", lab_kubeconfig, "create", "namespace", ns],
        check=True,
        capture_output=True,
        timeout=30,
    )
    kubelet_script = os.path.join(os.environ.get("LAB_DIR", ""), "fake-kubelet.py")
    if not os.path.exists(kubelet_script):
        pytest.skip("no lab: $LAB_DIR/fake-kubelet.py is missing")
    kubelet = subprocess.Popen(
        [sys.executable, kubelet_script, lab_kubeconfig, ns, "1"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        yield side
    finally:
        kubelet.terminate()
        kubelet.wait(10)
        subprocess.run(
            [KUBECTL, "--kubeconfig", lab_kubeconfig, "delete", "namespace", ns, "--wait=false"],
            capture_output=True,
            timeout=30,
        )


@pytest.fixture
def sim_side(tmp_path):
    """The simulator's side: an in-process simulated server (TLS) and its controllers."""
    from kubectl_informer.sim.controllers.manager import ControllerManager
    from kubectl_informer.sim.server import SimServer
    from tests.lab.sides import SYNC_SECONDS, Side

    sim = SimServer(tls=True).start()  # kubectl sends the run's token only over TLS
    ns = "kcm-sim"
    sim.store.create("namespaces", {"metadata": {"name": ns}})
    sim.store.pod_stop_seconds = 0.2  # the lab's pods have no node: a delete removes them at once
    manager = ControllerManager(sim.store, pod_start_seconds=1.0, sync_seconds=SYNC_SECONDS).start()
    try:
        yield Side("sim", sim.write_kubeconfig(str(tmp_path / "kubeconfig")), ns, str(tmp_path / "sim-cache"))
    finally:
        manager.stop()
        sim.stop()
