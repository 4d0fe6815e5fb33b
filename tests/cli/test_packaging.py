"""The krew manifest template and the launcher its archive installs."""

import hashlib
import os
import string
import subprocess
import sys
import tomllib
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
LAUNCHER = ROOT / "packaging" / "kubectl-informer-launcher.py"


def manifest():
    return yaml.safe_load((ROOT / "krew-manifest.yaml").read_text())


def test_manifest_is_a_krew_plugin_for_every_platform():
    m = manifest()
    assert m["apiVersion"] == "krew.googlecontainertools.github.com/v1alpha2"
    assert m["kind"] == "Plugin" and m["metadata"]["name"] == "informer"
    spec = m["spec"]
    assert spec["shortDescription"] and len(spec["shortDescription"]) < 60
    assert "Python 3.11" in spec["caveats"]
    plats = {(p["selector"]["matchLabels"]["os"], p["selector"]["matchLabels"]["arch"]): p for p in spec["platforms"]}
    assert set(plats) == {("linux", "amd64"), ("linux", "arm64"), ("darwin", "amd64"), ("darwin", "arm64"),
                          ("windows", "amd64")}
    assert plats[("windows", "amd64")]["bin"] == "kubectl-informer.exe"  # krew runs only .exe on Windows
    assert plats[("linux", "amd64")]["bin"] == "kubectl-informer"


def test_manifest_checksums_come_only_from_the_release_workflow():
    text = (ROOT / "krew-manifest.yaml").read_text()
    for p in manifest()["spec"]["platforms"]:
        assert p["sha256"] in ("${SHA256_POSIX}", "${SHA256_WINDOWS}")
    workflow = (ROOT / ".github" / "workflows" / "release.yml").read_text()
    assert "envsubst '${VERSION} ${REPOSITORY} ${SHA256_POSIX} ${SHA256_WINDOWS}' < krew-manifest.yaml" in workflow
    # Rendered the way the workflow renders it, the template is a complete manifest.
    sha = hashlib.sha256(b"archive").hexdigest()
    rendered = yaml.safe_load(string.Template(text).substitute(
        VERSION="0.1.0", REPOSITORY="o/r", SHA256_POSIX=sha, SHA256_WINDOWS=sha))
    assert rendered["spec"]["version"] == "v0.1.0"
    for p in rendered["spec"]["platforms"]:
        assert p["sha256"] == sha and p["uri"].startswith("https://github.com/o/r/releases/download/v0.1.0/")


def test_launcher_version_matches_the_package():
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert f'VERSION = "{version}"' in LAUNCHER.read_text()
    assert f'version: "v${{VERSION}}"' in (ROOT / "krew-manifest.yaml").read_text()


def _run_launcher(env_extra, *args):
    env = {k: v for k, v in os.environ.items() if not k.startswith("KUBECTL_INFORMER_")}
    env.update(env_extra)
    return subprocess.run([sys.executable, str(LAUNCHER), *args], env=env, capture_output=True, text=True, timeout=60)


def test_launcher_starts_the_plugin_from_its_environment(tmp_path):
    # An environment already made (as after the first run): this interpreter has the plugin installed.
    # A wrapper, not a symlink: a symlinked venv interpreter would lose its venv.
    (tmp_path / "bin").mkdir()
    py = tmp_path / "bin" / "python"
    py.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    py.chmod(0o755)
    r = _run_launcher({"KUBECTL_INFORMER_HOME": str(tmp_path)}, "version")
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("kubectl-informer v")


def test_launcher_without_a_usable_python_says_so_in_one_line(tmp_path):
    old = tmp_path / "python2"
    old.write_text("#!/bin/sh\necho False\n")
    old.chmod(0o755)
    r = _run_launcher({"KUBECTL_INFORMER_HOME": str(tmp_path / "home"), "KUBECTL_INFORMER_PYTHON": str(old)},
                      "version")
    assert r.returncode == 1
    assert r.stderr.splitlines() == ["error: kubectl informer needs Python 3.11 or newer on PATH "
                                     "(or set KUBECTL_INFORMER_PYTHON to one)"]
    assert not (tmp_path / "home").exists()
