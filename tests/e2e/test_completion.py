"""Shell completion through the real kubectl: `kubectl __complete informer ...`
runs the `kubectl_complete-informer` that pip installed, which answers from
the command tree, the kubeconfig and the (simulated) cluster over HTTP."""

import contextlib
import io
import os
import subprocess
import sys
from pathlib import Path
from unittest import mock

import pytest
import yaml

from kubectl_informer.cli import completion
from kubectl_informer.sim.demo import start_demo

pytestmark = pytest.mark.e2e

KUBECTL = "/usr/bin/kubectl"
BIN = Path(sys.executable).parent


# The answers themselves come from ``kubectl_complete-informer``'s main run in this
# process; kubectl finding and running the script, its directives for the shell and
# an unreachable cluster's silence go through the real kubectl (the tests given plugin_path).
HERE = None


# Both fixtures are per test (two symlinks; an in-process simulator): a
# module-scoped one would send every test of the module to one worker
# (tests/conftest.py), one after another.
@pytest.fixture
def plugin_path(tmp_path_factory):
    """A PATH holding the two console scripts and the system's tools."""
    d = tmp_path_factory.mktemp("bin")
    for name in ("kubectl-informer", "kubectl_complete-informer"):
        assert (BIN / name).exists(), f"{BIN / name} missing: pip install -e . puts it there"
        os.symlink(BIN / name, d / name)
    return f"{d}{os.pathsep}/usr/bin{os.pathsep}/bin"


@pytest.fixture
def sim_kubeconfig(tmp_path_factory):
    path = tmp_path_factory.mktemp("sim") / "kubeconfig"
    demo = start_demo("quiet", kubeconfig_path=str(path))
    yield path
    demo.stop()


def complete(path: str | None, *words: str, kubeconfig=os.devnull) -> tuple[list[str], str]:
    """Candidates (without descriptions) and the directive kubectl printed.
    ``path`` (a plugin_path): through the real kubectl, which finds and runs
    ``kubectl_complete-informer``; None: that script's ``main`` in this
    process, with the same environment and output (each kubectl call starts
    two processes, one of them a Python; kubectl's part is the same for all)."""
    if path is None:
        return _complete_here(words, kubeconfig)
    env = dict(os.environ, PATH=path, KUBECONFIG=str(kubeconfig))
    r = subprocess.run([KUBECTL, "__complete", "informer", *words], env=env, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    return _read(r.stdout, r.stderr)


def _complete_here(words, kubeconfig) -> tuple[list[str], str]:
    out, err = io.StringIO(), io.StringIO()
    with (
        mock.patch.dict(os.environ, KUBECONFIG=str(kubeconfig)),
        contextlib.redirect_stdout(out),
        contextlib.redirect_stderr(err),
    ):
        assert completion.main(list(words)) == 0
    return _read(out.getvalue(), err.getvalue())


def _read(stdout: str, stderr: str) -> tuple[list[str], str]:
    lines = stdout.splitlines()
    assert lines and lines[-1].startswith(":"), stdout
    assert "Traceback" not in stderr
    return [c.split("\t")[0] for c in lines[:-1]], lines[-1]


def test_subcommands(plugin_path):
    assert complete(plugin_path, "") == (["watch", "queue", "attach", "replay", "sim", "version"], ":4")
    assert complete(plugin_path, "re") == (["replay"], ":4")
    assert complete(plugin_path, "nosuch", "") == ([], ":4")


def test_flags_of_a_subcommand():
    cands, directive = complete(HERE, "watch", "--re")
    assert (cands, directive) == (["--request-timeout", "--resync", "--record"], ":4")
    cands, _ = complete(HERE, "queue", "--")
    assert {"--workers", "--rate-limiter", "--namespace", "--demo", "--help"} <= set(cands)
    assert "--workers" not in complete(HERE, "watch", "--")[0]
    assert complete(HERE, "attach", "--to")[0] == ["--token", "--token-file"]
    cands, _ = complete(HERE, "watch", "pods", "--resync", "3s", "-o", "text", "--")
    assert "--resync" not in cands and "--output" not in cands and "--duration" in cands


def test_flag_values_from_choices():
    assert complete(HERE, "watch", "pods", "-o", "") == (["tui", "json", "text"], ":4")
    assert complete(HERE, "watch", "pods", "--output=j") == (["--output=json"], ":4")
    assert complete(HERE, "watch", "--client-go", "1.3") == (["1.32", "1.35", "1.36"], ":4")


def test_demo_offers_the_scenarios():
    from kubectl_informer.sim.scenarios import SCENARIOS

    assert complete(HERE, "watch", "--demo", "") == (list(SCENARIOS), ":4")
    assert complete(HERE, "queue", "--demo=re") == (["--demo=relist-storm"], ":4")
    assert complete(HERE, "sim", "--scenario", "b") == (["burst"], ":4")


def test_demo_resources_and_namespaces_need_no_cluster():
    cands, _ = complete(HERE, "watch", "--demo", "burst", "")
    assert {"pods", "deployments.apps", "widgets.example.com"} <= set(cands)
    assert complete(HERE, "watch", "pods", "--demo", "-n", "")[0] == ["default", "shop", "batch"]


def test_resources_from_the_clusters_discovery(plugin_path, sim_kubeconfig):
    cands, directive = complete(plugin_path, "watch", "", kubeconfig=sim_kubeconfig)
    assert directive == ":4"
    assert {"pods", "namespaces", "deployments.apps", "customresourcedefinitions.apiextensions.k8s.io"} <= set(cands)
    assert complete(plugin_path, "queue", "dep", kubeconfig=sim_kubeconfig)[0] == ["deployments.apps"]


def test_object_names_for_watch_name(sim_kubeconfig):
    cands, directive = complete(HERE, "watch", "deployments.apps", "-n", "shop", "", kubeconfig=sim_kubeconfig)
    assert (cands, directive) == (["cart", "frontend", "payments"], ":4")
    cands, _ = complete(HERE, "watch", "configmaps", "-A", "w", kubeconfig=sim_kubeconfig)
    assert cands == ["web-config", "worker-config"]
    assert complete(HERE, "watch", "pods", "x", "", kubeconfig=sim_kubeconfig) == ([], ":4")


def test_namespaces_from_the_cluster(sim_kubeconfig):
    cands, _ = complete(HERE, "watch", "pods", "-n", "", kubeconfig=sim_kubeconfig)
    assert {"default", "shop", "batch"} <= set(cands)
    assert complete(HERE, "watch", "pods", "--namespace=sh", kubeconfig=sim_kubeconfig)[0] == ["--namespace=shop"]


def test_contexts_from_the_kubeconfig_named_before(tmp_path):
    cfg = {
        "apiVersion": "v1",
        "kind": "Config",
        "current-context": "prod",
        "clusters": [{"name": "c", "cluster": {"server": "https://127.0.0.1:1"}}],
        "users": [{"name": "u", "user": {}}],
        "contexts": [{"name": n, "context": {"cluster": "c", "user": "u"}} for n in ("prod", "staging", "kind")],
    }
    path = tmp_path / "config"
    path.write_text(yaml.safe_dump(cfg))
    assert complete(HERE, "watch", "--kubeconfig", str(path), "--context", "") == (["prod", "staging", "kind"], ":4")
    assert complete(HERE, "watch", "--context", "st", kubeconfig=path) == (["staging"], ":4")


def test_an_unreachable_cluster_gives_no_candidates_and_no_noise(plugin_path, tmp_path):
    cfg = {
        "apiVersion": "v1",
        "kind": "Config",
        "current-context": "gone",
        "clusters": [{"name": "c", "cluster": {"server": "http://127.0.0.1:9"}}],
        "users": [{"name": "u", "user": {}}],
        "contexts": [{"name": "gone", "context": {"cluster": "c", "user": "u"}}],
    }
    path = tmp_path / "config"
    path.write_text(yaml.safe_dump(cfg))
    assert complete(plugin_path, "watch", "", kubeconfig=path) == ([], ":4")


def test_file_arguments_leave_it_to_the_shell(plugin_path):
    assert complete(plugin_path, "replay", "") == ([], ":0")
    assert complete(plugin_path, "watch", "--kubeconfig", "") == ([], ":0")


def test_several_resources_complete_in_a_comma_list_and_after_owns(sim_kubeconfig):
    assert complete(HERE, "watch", "pods,dep", kubeconfig=sim_kubeconfig)[0] == ["pods,deployments.apps"]
    cands, directive = complete(HERE, "queue", "deploy", "--owns", "po", kubeconfig=sim_kubeconfig)
    assert (cands, directive) == (["pods"], ":4")
    assert complete(HERE, "queue", "--demo", "quiet", "--owns", "pods,wid")[0] == ["pods,widgets.example.com"]
    assert complete(HERE, "queue", "--demo", "quiet", "--owns=pods,wid")[0] == ["--owns=pods,widgets.example.com"]
