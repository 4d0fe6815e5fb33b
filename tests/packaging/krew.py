"""What krew does with a plugin manifest and its archive, in Python, for tests.

``validate`` applies the rules of krew's manifest validator (the structural
checks every index submission passes, the platform-selector checks and the
license-file check of validate-krew-manifest); ``install`` does what
``kubectl krew install --manifest=M --archive=A`` does: verify the sha256,
unpack (refusing what krew's extractor refuses), apply ``files``, link ``bin``.
"""

from __future__ import annotations

import glob
import hashlib
import os
import re
import shutil
import tarfile
import zipfile
from pathlib import Path

import yaml

API_VERSION = "krew.googlecontainertools.github.com/v1alpha2"
SAFE_NAME = re.compile(r"^[\w-]+$")
SHA256 = re.compile(r"^[a-f0-9]{64}$")
# Semantic Versioning 2.0.0 with krew's mandatory leading "v".
SEMVER = re.compile(
    r"^v(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)"
    r"(-[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?(\+[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?$"
)
WINDOWS_FORBIDDEN = {"con", "prn", "aux", "nul", *(f"com{i}" for i in range(1, 10)), *(f"lpt{i}" for i in range(1, 10))}
# Every os/arch krew's validator knows; each platform must select one, none two.
ALL_PLATFORMS = [
    ("windows", "386"),
    ("windows", "amd64"),
    ("windows", "arm64"),
    ("linux", "386"),
    ("linux", "amd64"),
    ("linux", "arm"),
    ("linux", "arm64"),
    ("linux", "ppc64le"),
    ("darwin", "386"),
    ("darwin", "amd64"),
    ("darwin", "arm64"),
]
LICENSE_NAMES = {
    "license",
    "license.txt",
    "license.md",
    "licenses",
    "licenses.txt",
    "licenses.md",
    "copying",
    "copying.txt",
}


def selector_matches(selector: dict, osname: str, arch: str) -> bool:
    labels = {"os": osname, "arch": arch}
    if any(labels.get(k) != v for k, v in (selector.get("matchLabels") or {}).items()):
        return False
    for e in selector.get("matchExpressions") or []:
        key, op, values = e.get("key"), e.get("operator"), e.get("values") or []
        ok = {
            "In": labels.get(key) in values,
            "NotIn": labels.get(key) not in values,
            "Exists": key in labels,
            "DoesNotExist": key not in labels,
        }.get(op, False)
        if not ok:
            return False
    return True


def _platform_errors(i: int, p: dict) -> list[str]:
    errs = []
    if not p.get("uri"):
        errs.append(f"platform {i}: uri has to be set")
    if not SHA256.match(str(p.get("sha256") or "")):
        errs.append(f"platform {i}: sha256 {p.get('sha256')!r} is not 64 lowercase hex digits")
    if not p.get("bin"):
        errs.append(f"platform {i}: bin has to be set")
    if not p.get("files"):
        errs.append(f"platform {i}: no file operations")
    sel = p.get("selector")
    if not sel or (not sel.get("matchLabels") and not sel.get("matchExpressions")):
        errs.append(f"platform {i}: empty selector")
        return errs
    keys = list(sel.get("matchLabels") or {}) + [e.get("key") for e in sel.get("matchExpressions") or []]
    errs += [f"platform {i}: selector key {k!r} not supported" for k in keys if k not in ("os", "arch")]
    if not any(selector_matches(sel, o, a) for o, a in ALL_PLATFORMS):
        errs.append(f"platform {i}: selector matches no supported platform")
    return errs


def validate(path: Path) -> list[str]:
    """krew's complaints about the manifest at ``path`` (none: valid)."""
    m = yaml.safe_load(path.read_text())
    spec = m.get("spec") or {}
    name = path.name.removesuffix(".yaml")
    errs = []
    if path.suffix != ".yaml":
        errs.append("manifest file must end in .yaml")
    if m.get("apiVersion") != API_VERSION:
        errs.append(f"apiVersion {m.get('apiVersion')!r} is not {API_VERSION}")
    if m.get("kind") != "Plugin":
        errs.append(f"kind {m.get('kind')!r} is not Plugin")
    if not SAFE_NAME.match(name) or name.lower() in WINDOWS_FORBIDDEN:
        errs.append(f"plugin name {name!r} is not allowed")
    if (m.get("metadata") or {}).get("name") != name:
        errs.append(f"plugin should be named {name!r} (its file name), not {(m.get('metadata') or {}).get('name')!r}")
    short = spec.get("shortDescription") or ""
    if not short or "\n" in short.strip():
        errs.append("shortDescription must be one line")
    # krew warns about longer lines (unless one long word, such as a URL).
    for key, most in (("shortDescription", 70), ("description", 80), ("caveats", 80)):
        if any(len(line) > most and " " in line.strip() for line in str(spec.get(key) or "").splitlines()):
            errs.append(f"{key} has lines longer than {most} characters")
    if not SEMVER.match(str(spec.get("version") or "")):
        errs.append(f"version {spec.get('version')!r} is not a semantic version with a leading v")
    platforms = spec.get("platforms") or []
    if not platforms:
        errs.append("no platforms")
    for i, p in enumerate(platforms):
        errs += _platform_errors(i, p)
    for o, a in ALL_PLATFORMS:
        hits = [i for i, p in enumerate(platforms) if selector_matches(p.get("selector") or {}, o, a)]
        if len(hits) > 1:
            errs.append(f"platforms {hits} overlap on {o}/{a}")
    return errs


# --- installing ---------------------------------------------------------------------------


def _suspicious(name: str) -> bool:
    return ".." in name or name.startswith(("/", "\\"))


def extract(archive: Path, into: Path) -> None:
    """As krew: only directories and regular files, no '..', no absolute paths."""
    if zipfile.is_zipfile(archive):
        with zipfile.ZipFile(archive) as z:
            assert not [n for n in z.namelist() if _suspicious(n)]
            z.extractall(into)
        return
    with tarfile.open(archive, "r:gz") as tar:
        for m in tar.getmembers():
            assert not _suspicious(m.name), f"krew refuses the entry {m.name!r}"
            assert m.isdir() or m.isreg(), f"krew cannot unpack {m.name!r} (tar type {m.type!r})"
        tar.extractall(into, filter="tar")


def apply_files(src: Path, dest: Path, files: list[dict]) -> None:
    """krew's file operations: ``from`` is a file or a glob in the archive,
    ``to`` a clean path in the install folder."""
    dest.mkdir(parents=True)
    for op in files:
        to = op["to"]
        assert os.path.normpath(to) == to, f"{to!r} is not a clean path"
        direct = src / op["from"]
        if direct.exists():
            target = dest / (direct.name if to == "." else to)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.move(str(direct), str(target))
            continue
        hits = glob.glob(str(src / op["from"]))
        assert hits, f"no files in the archive match {op['from']!r}"
        for h in hits:
            (dest / to).mkdir(parents=True, exist_ok=True)
            shutil.move(h, str(dest / to / Path(h).name))


def sha256_of(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def install(manifest: Path, archive: Path, root: Path, osname: str, arch: str) -> Path:
    """Install into krew root ``root``; returns its bin/ folder (for PATH)."""
    m = yaml.safe_load(manifest.read_text())
    [plat] = [p for p in m["spec"]["platforms"] if selector_matches(p["selector"], osname, arch)]
    assert sha256_of(archive) == plat["sha256"], "the archive's sha256 is not the manifest's"
    staging = root / "downloads"
    staging.mkdir(parents=True)
    extract(archive, staging)
    store = root / "store" / m["metadata"]["name"] / m["spec"]["version"]
    apply_files(staging, store, plat["files"])
    shutil.rmtree(staging)
    binary = store / plat["bin"]
    assert binary.resolve().is_relative_to(store.resolve())
    bindir = root / "bin"
    bindir.mkdir()
    link = bindir / ("kubectl-" + m["metadata"]["name"].replace("-", "_") + (".exe" if osname == "windows" else ""))
    os.symlink(os.path.relpath(binary, bindir), link)  # krew links relatively
    return bindir


def installed_license_files(root: Path) -> list[Path]:
    return [p for p in (root / "store").rglob("*") if p.is_file() and p.name.lower() in LICENSE_NAMES]
