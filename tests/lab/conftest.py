"""Tests against the real cluster lab (etcd, kube-apiserver and
kube-controller-manager on loopback; docs/design-notes.md says how to build
it). Marked ``lab``; skipped, with one line, unless ``LAB_KUBECONFIG`` names a
kubeconfig whose server answers ``/readyz``."""

from __future__ import annotations

import os
import shutil
import subprocess

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
