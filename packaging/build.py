#!/usr/bin/env python3
"""Build the krew archive of kubectl-informer for this machine and render its manifest.

    python packaging/build.py [--out dist] [--repository OWNER/NAME]

freezes the plugin with PyInstaller (--onedir: one folder, no Python needed,
fast start), packs it with LICENSE, README.md and the completion executable
into ``kubectl-informer-vVERSION-OS-ARCH.tar.gz`` (``.zip`` on Windows),
computes the archive's sha256 and renders ``krew-manifest.yaml`` for this one
platform into ``OUT/informer.yaml`` (installable as is:
``kubectl krew install --manifest=OUT/informer.yaml --archive=OUT/<archive>``).

    python packaging/build.py assemble --out release DIR [DIR ...]

merges the one-platform manifests that builds on other machines wrote into
DIRs into one ``informer.yaml`` for all platforms, after checking every
archive against the sha256 its build wrote. No checksum is ever typed in.
Needs the project installed with the ``build`` (or ``test``) extra.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import platform
import shutil
import stat
import subprocess
import sys
import tarfile
import tempfile
import time
import tomllib
import zipfile
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
SPEC = ROOT / "packaging" / "kubectl-informer.spec"
TEMPLATE = ROOT / "krew-manifest.yaml"
MANIFEST_NAME = "informer.yaml"  # krew: the file is named after the plugin
ARCHS = {"x86_64": "amd64", "amd64": "amd64", "aarch64": "arm64", "arm64": "arm64"}

# Run as kubectl_complete-informer: hand the words to the plugin binary beside
# it (or on PATH), which answers kubectl's completion protocol.
POSIX_COMPLETER = """#!/bin/sh
# kubectl runs this for `kubectl informer <TAB>` (kubectl 1.26+).
here=$(dirname -- "$0")
if [ -x "$here/kubectl-informer" ]; then
  exec "$here/kubectl-informer" __complete "$@"
fi
exec kubectl-informer __complete "$@"
"""


def fail(msg: str) -> None:
    sys.stderr.write(f"error: {msg}\n")
    raise SystemExit(1)


def this_platform() -> tuple[str, str]:
    """krew's os/arch names (Go's GOOS/GOARCH) for this machine."""
    osname = {"Linux": "linux", "Darwin": "darwin", "Windows": "windows"}.get(platform.system())
    arch = ARCHS.get(platform.machine().lower())
    if not osname or not arch:
        fail(f"no krew platform for {platform.system()}/{platform.machine()}")
    return osname, arch


def project() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def default_repository() -> str:
    if os.environ.get("GITHUB_REPOSITORY"):
        return os.environ["GITHUB_REPOSITORY"]
    url = project()["urls"]["Source"]
    return url.removeprefix("https://github.com/").strip("/")


def archive_name(version: str, osname: str, arch: str) -> str:
    ext = "zip" if osname == "windows" else "tar.gz"
    return f"kubectl-informer-v{version}-{osname}-{arch}.{ext}"


# --- freezing ---------------------------------------------------------------------------


def freeze(workdir: Path) -> Path:
    """Run PyInstaller on the spec; returns the --onedir folder."""
    cmd = [
        sys.executable,
        "-m",
        "PyInstaller",
        "--noconfirm",
        "--log-level",
        "WARN",
        "--distpath",
        str(workdir / "dist"),
        "--workpath",
        str(workdir / "build"),
        str(SPEC),
    ]
    r = subprocess.run(cmd, cwd=ROOT)
    if r.returncode != 0:
        fail("PyInstaller failed (is the project installed with its build extra: pip install '.[build]'?)")
    return workdir / "dist" / "kubectl-informer"


def stage(onedir: Path, osname: str, into: Path) -> Path:
    """The archive's content: the frozen folder, the completer, LICENSE, README.md."""
    shutil.copytree(onedir, into, symlinks=False)
    if osname != "windows":
        completer = into / "kubectl_complete-informer"
        completer.write_text(POSIX_COMPLETER)
        completer.chmod(0o755)
    for name in ("LICENSE", "README.md"):
        shutil.copyfile(ROOT / name, into / name)
    return into


def smoke_test(staged: Path, osname: str, version: str) -> None:
    exe = staged / ("kubectl-informer.exe" if osname == "windows" else "kubectl-informer")
    r = subprocess.run([str(exe), "version"], capture_output=True, text=True, timeout=120)
    if r.returncode != 0 or not r.stdout.startswith(f"kubectl-informer v{version} "):
        fail(f"the frozen binary does not run: {exe} version -> {r.returncode} {r.stdout!r} {r.stderr!r}")


# --- archiving --------------------------------------------------------------------------


def _entries(root: Path) -> list[Path]:
    return sorted(root.rglob("*"), key=lambda p: p.relative_to(root).as_posix())


def make_tar(staged: Path, dest: Path, mtime: int) -> None:
    """Only directories and regular files: krew's extractor refuses links.
    Level 6: level 9 takes four times as long for 0.3% less."""
    with (
        open(dest, "wb") as raw,
        tarfile.open(fileobj=raw, mode="w:gz", format=tarfile.PAX_FORMAT, compresslevel=6) as tar,
    ):
        for path in _entries(staged):
            info = tarfile.TarInfo(path.relative_to(staged).as_posix())
            st = path.stat()  # follows links: their targets are archived as plain files
            info.mtime, info.uid, info.gid, info.uname, info.gname = mtime, 0, 0, "", ""
            if stat.S_ISDIR(st.st_mode):
                info.type, info.mode = tarfile.DIRTYPE, 0o755
                tar.addfile(info)
            else:
                info.mode = 0o755 if st.st_mode & 0o111 else 0o644
                info.size = st.st_size
                with open(path, "rb") as f:
                    tar.addfile(info, f)


def make_zip(staged: Path, dest: Path, mtime: int) -> None:
    stamp = time.gmtime(max(mtime, 315532800))[:6]  # zip dates start in 1980
    with zipfile.ZipFile(dest, "w", zipfile.ZIP_DEFLATED, compresslevel=6) as z:
        for path in _entries(staged):
            name = path.relative_to(staged).as_posix() + ("/" if path.is_dir() else "")
            info = zipfile.ZipInfo(name, stamp)
            info.external_attr = (0o40755 if path.is_dir() else 0o100755) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, b"" if path.is_dir() else path.read_bytes())


def sha256_of(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


# --- the manifest -----------------------------------------------------------------------


class _NoAliases(yaml.SafeDumper):
    def ignore_aliases(self, data):  # krew's index reviewers read plain YAML
        return True


def _str(dumper: yaml.SafeDumper, data: str) -> yaml.Node:
    return dumper.represent_scalar("tag:yaml.org,2002:str", data, style="|" if "\n" in data else None)


_NoAliases.add_representer(str, _str)


def load_template(version: str, repository: str) -> dict:
    text = TEMPLATE.read_text().replace("${VERSION}", version).replace("${REPOSITORY}", repository)
    return yaml.safe_load(text)


def render(version: str, repository: str, osname: str, arch: str, sha256: str) -> dict:
    """The template with only this platform's entry, its uri and ``sha256``."""
    manifest = load_template(version, repository)
    mine = [p for p in manifest["spec"]["platforms"] if p["selector"]["matchLabels"] == {"os": osname, "arch": arch}]
    if len(mine) != 1:
        fail(f"krew-manifest.yaml has {len(mine)} platform entries for {osname}/{arch}, expected 1")
    entry = mine[0]
    entry["uri"] = f"https://github.com/{repository}/releases/download/v{version}/" + archive_name(
        version, osname, arch
    )
    entry["sha256"] = sha256
    manifest["spec"]["platforms"] = [entry]
    return manifest


def dump(manifest: dict, dest: Path) -> None:
    dest.write_text(yaml.dump(manifest, Dumper=_NoAliases, sort_keys=False, width=100))


# --- commands ---------------------------------------------------------------------------


def build(out: Path, repository: str, expect: str | None, workdir: Path | None) -> Path:
    osname, arch = this_platform()
    if expect and expect != f"{osname}/{arch}":
        fail(f"this machine is {osname}/{arch}, not {expect}")
    version = project()["version"]
    out.mkdir(parents=True, exist_ok=True)
    mtime = int(os.environ.get("SOURCE_DATE_EPOCH") or time.time())
    with tempfile.TemporaryDirectory(prefix="kubectl-informer-build-") as tmp:
        onedir = freeze(workdir or Path(tmp))
        staged = stage(onedir, osname, Path(tmp) / "stage")
        smoke_test(staged, osname, version)
        archive = out / archive_name(version, osname, arch)
        (make_zip if osname == "windows" else make_tar)(staged, archive, mtime)
    digest = sha256_of(archive)
    Path(f"{archive}.sha256").write_text(f"{digest}  {archive.name}\n")
    dump(render(version, repository, osname, arch, digest), out / MANIFEST_NAME)
    print(f"archive  {archive} ({archive.stat().st_size / 2**20:.1f} MiB)")
    print(f"sha256   {digest}")
    print(f"manifest {out / MANIFEST_NAME}")
    return archive


def assemble(out: Path, dirs: list[Path]) -> Path:
    """One manifest for every platform from the builds' one-platform ones."""
    merged = None
    for d in dirs:
        part = yaml.safe_load((d / MANIFEST_NAME).read_text())
        for p in part["spec"]["platforms"]:
            archive = d / p["uri"].rsplit("/", 1)[1]
            if not archive.is_file() or sha256_of(archive) != p["sha256"]:
                fail(f"{archive}: missing, or not the archive whose sha256 its build wrote")
        if merged is None:
            merged = part
        elif {k: v for k, v in part["spec"].items() if k != "platforms"} != {
            k: v for k, v in merged["spec"].items() if k != "platforms"
        }:
            fail(f"{d / MANIFEST_NAME} was rendered for another version or repository")
        else:
            merged["spec"]["platforms"].extend(part["spec"]["platforms"])
    if merged is None:
        fail("nothing to assemble")
    version = merged["spec"]["version"].removeprefix("v")
    repository = merged["spec"]["homepage"].removeprefix("https://github.com/")
    wanted = [p["selector"]["matchLabels"] for p in load_template(version, repository)["spec"]["platforms"]]
    got = [p["selector"]["matchLabels"] for p in merged["spec"]["platforms"]]
    if sorted(map(str, got)) != sorted(map(str, wanted)):
        fail(f"platforms built {got}, krew-manifest.yaml lists {wanted}")
    merged["spec"]["platforms"].sort(key=lambda p: [wanted.index(p["selector"]["matchLabels"])])
    out.mkdir(parents=True, exist_ok=True)
    dump(merged, out / MANIFEST_NAME)
    print(f"manifest {out / MANIFEST_NAME} ({len(got)} platforms)")
    return out / MANIFEST_NAME


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["assemble"]:
        p = argparse.ArgumentParser(prog="packaging/build.py assemble")
        p.add_argument("--out", type=Path, default=Path("release"))
        p.add_argument("dirs", type=Path, nargs="+", help="folders that builds wrote (archive + informer.yaml)")
        a = p.parse_args(args[1:])
        assemble(a.out, a.dirs)
        return 0
    p = argparse.ArgumentParser(prog="packaging/build.py", description=__doc__.split("\n\n")[0])
    p.add_argument("--out", type=Path, default=ROOT / "dist", help="where the archive and manifest go (dist/)")
    p.add_argument(
        "--repository",
        default=None,
        help="GitHub OWNER/NAME the release lives in (default: $GITHUB_REPOSITORY, else pyproject's Source URL)",
    )
    p.add_argument("--expect", metavar="OS/ARCH", help="fail unless this machine is OS/ARCH (release runners)")
    p.add_argument("--workdir", type=Path, help="keep PyInstaller's work here (faster rebuilds)")
    a = p.parse_args(args)
    build(a.out.resolve(), a.repository or default_repository(), a.expect, a.workdir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
