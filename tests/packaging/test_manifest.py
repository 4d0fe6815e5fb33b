"""The krew manifest: the template in the repo holds no checksum, the build
renders a manifest krew accepts, and assembling refuses what no build made."""

import copy
import hashlib
import os
import re
import subprocess
import sys
import tomllib
import zipfile

import pytest
import yaml

import kubectl_informer
from tests.packaging import krew
from tests.packaging.conftest import ROOT, build_module

PLATFORMS = [("linux", "amd64"), ("linux", "arm64"), ("darwin", "amd64"), ("darwin", "arm64"), ("windows", "amd64")]


def test_template_lists_every_platform_and_no_checksum():
    text = (ROOT / "krew-manifest.yaml").read_text()
    assert "sha256:" not in text and not re.search(r"[0-9a-fA-F]{64}", text)
    m = build_module().load_template("1.2.3", "o/r")
    got = [(p["selector"]["matchLabels"]["os"], p["selector"]["matchLabels"]["arch"]) for p in m["spec"]["platforms"]]
    assert got == PLATFORMS
    for p in m["spec"]["platforms"]:
        assert "sha256" not in p and "uri" not in p  # only a build knows them
        exe = ".exe" if p["selector"]["matchLabels"]["os"] == "windows" else ""
        assert p["bin"] == f"kubectl-informer{exe}"  # krew runs only .exe entry points on Windows
        assert {"from": "LICENSE", "to": "."} in p["files"]
        assert {"from": f"kubectl_complete-informer{exe}", "to": "."} in p["files"]
    assert m["spec"]["version"] == "v1.2.3" and m["spec"]["homepage"] == "https://github.com/o/r"


def test_versions_agree():
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert kubectl_informer.__version__ == version


@pytest.mark.parametrize("osname,arch", PLATFORMS)
def test_rendering_for_each_platform_passes_krews_rules(osname, arch, tmp_path):
    b = build_module()
    digest = hashlib.sha256(b"an archive").hexdigest()
    path = tmp_path / "informer.yaml"
    b.dump(b.render("0.1.0", "o/r", osname, arch, digest), path)
    assert krew.validate(path) == []
    [p] = yaml.safe_load(path.read_text())["spec"]["platforms"]
    assert p["sha256"] == digest
    assert p["uri"] == f"https://github.com/o/r/releases/download/v0.1.0/{b.archive_name('0.1.0', osname, arch)}"


def test_built_manifest_passes_krews_rules_and_names_the_built_archive(krew_build):
    assert krew.validate(krew_build.manifest) == []
    m = yaml.safe_load(krew_build.manifest.read_text())
    [p] = m["spec"]["platforms"]
    assert p["uri"].endswith("/" + krew_build.archive.name)
    assert p["sha256"] == krew.sha256_of(krew_build.archive)
    assert f"sha256   {p['sha256']}" in krew_build.output
    assert "\n" not in m["spec"]["shortDescription"].strip()


@pytest.mark.parametrize(
    "breakage,complaint",
    [
        (lambda m: m["metadata"].update(name="other"), "should be named 'informer'"),
        (lambda m: m["spec"].update(version="0.1.0"), "semantic version"),
        (lambda m: m["spec"].update(shortDescription="two\nlines"), "one line"),
        (lambda m: m["spec"].update(caveats="a line " * 20), "caveats has lines longer than 80"),
        (lambda m: m["spec"]["platforms"][0].update(sha256="A" * 64), "64 lowercase hex"),
        (
            lambda m: m["spec"]["platforms"][0]["selector"]["matchLabels"].update(distro="debian"),
            "'distro' not supported",
        ),
        (lambda m: m["spec"]["platforms"].append(copy.deepcopy(m["spec"]["platforms"][0])), "overlap on linux/amd64"),
        (lambda m: m["spec"]["platforms"][0].pop("files"), "no file operations"),
        (lambda m: m.update(kind="Plugins"), "kind"),
    ],
)
def test_krew_rules_catch_a_broken_manifest(breakage, complaint, tmp_path):
    b = build_module()
    m = b.render("0.1.0", "o/r", "linux", "amd64", hashlib.sha256(b"x").hexdigest())
    breakage(m)
    path = tmp_path / "informer.yaml"
    b.dump(m, path)
    assert any(complaint in e for e in krew.validate(path)), krew.validate(path)


def _fake_build(b, tmp_path, osname, arch, version="0.1.0"):
    """What a build on (osname, arch) leaves in its output folder."""
    d = tmp_path / f"{osname}-{arch}"
    d.mkdir()
    archive = d / b.archive_name(version, osname, arch)
    archive.write_bytes(f"archive for {osname}/{arch}".encode())
    b.dump(b.render(version, "o/r", osname, arch, b.sha256_of(archive)), d / "informer.yaml")
    return d


def test_assemble_merges_every_platform_into_one_valid_manifest(tmp_path):
    b = build_module()
    dirs = [_fake_build(b, tmp_path, o, a) for o, a in reversed(PLATFORMS)]
    path = b.assemble(tmp_path / "release", dirs)
    assert krew.validate(path) == []
    m = yaml.safe_load(path.read_text())
    got = [(p["selector"]["matchLabels"]["os"], p["selector"]["matchLabels"]["arch"]) for p in m["spec"]["platforms"]]
    assert got == PLATFORMS  # the template's order
    for (o, a), p in zip(PLATFORMS, m["spec"]["platforms"], strict=True):
        assert p["sha256"] == b.sha256_of(tmp_path / f"{o}-{a}" / b.archive_name("0.1.0", o, a))


def test_assemble_refuses_a_changed_archive_or_a_missing_platform(tmp_path, capsys):
    b = build_module()
    dirs = [_fake_build(b, tmp_path, o, a) for o, a in PLATFORMS]
    with pytest.raises(SystemExit):
        b.assemble(tmp_path / "out1", dirs[:-1])
    assert "platforms built" in capsys.readouterr().err
    (dirs[0] / b.archive_name("0.1.0", "linux", "amd64")).write_bytes(b"something else")
    with pytest.raises(SystemExit):
        b.assemble(tmp_path / "out2", dirs)
    assert "not the archive whose sha256 its build wrote" in capsys.readouterr().err
    assert not (tmp_path / "out2").exists()


def test_release_workflow_runs_the_build_command_on_every_platform():
    wf = yaml.safe_load((ROOT / ".github" / "workflows" / "release.yml").read_text())
    build_job = wf["jobs"]["build"]
    got = [(m["os"], m["arch"]) for m in build_job["strategy"]["matrix"]["include"]]
    assert sorted(got) == sorted(PLATFORMS)
    runs = "\n".join(s.get("run", "") for s in build_job["steps"])
    assert (
        'python packaging/build.py --out dist --repository "${GITHUB_REPOSITORY}" '
        '--expect "${{ matrix.os }}/${{ matrix.arch }}"' in runs
    )
    assert "pip install '.[build]'" in runs
    release = "\n".join(s.get("run", "") for s in wf["jobs"]["release"]["steps"])
    assert "python packaging/build.py assemble --out release artifacts/krew-*" in release
    text = (ROOT / ".github" / "workflows" / "release.yml").read_text()
    assert not re.search(r"[0-9a-fA-F]{64}", text)


def test_the_wheel_installs_both_executables_with_complete_metadata(tmp_path):
    # Built with the setuptools and wheel the test extra installs (pyproject's
    # build requirements): an isolated build env would fetch them again each run.
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(tmp_path),
            str(ROOT),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stderr
    [wheel] = tmp_path.glob("kubectl_informer-*.whl")
    with zipfile.ZipFile(wheel) as z:
        meta = z.read("kubectl_informer-0.1.0.dist-info/METADATA").decode()
        entry_points = z.read("kubectl_informer-0.1.0.dist-info/entry_points.txt").decode()
        assert "Apache License" in z.read("kubectl_informer-0.1.0.dist-info/licenses/LICENSE").decode()
    assert "License-Expression: Apache-2.0" in meta and "License-File: LICENSE" in meta
    assert "Project-URL: Source, https://github.com/" in meta and "Requires-Python: >=3.11" in meta
    assert "Classifier: Environment :: Console" in meta
    assert "kubectl-informer = kubectl_informer.cli.main:main" in entry_points
    assert "kubectl_complete-informer = kubectl_informer.cli.completion:main" in entry_points
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(venv / "bin" / "python"),
            "install",
            "-q",
            "--no-deps",
            str(wheel),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stderr
    for name in ("kubectl-informer", "kubectl_complete-informer"):
        script = venv / "bin" / name
        assert script.exists() and os.access(script, os.X_OK)


def test_build_refuses_to_run_on_another_platform_than_expected(tmp_path):
    osname, arch = build_module().this_platform()
    r = subprocess.run(
        [
            sys.executable,
            str(ROOT / "packaging" / "build.py"),
            "--out",
            str(tmp_path / "out"),
            "--expect",
            "plan9/mips",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 1
    assert r.stderr.splitlines() == [f"error: this machine is {osname}/{arch}, not plan9/mips"]
    assert not (tmp_path / "out").exists()
