import importlib.util
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests import krew_build as krew_build_mod
from tests.packaging import krew

ROOT = Path(__file__).resolve().parents[2]
KUBECTL = "/usr/bin/kubectl"


@dataclass
class Build:
    archive: Path
    manifest: Path
    output: str  # what the build printed


@pytest.fixture(scope="session")
def krew_build(pytestconfig) -> Build:
    """The archive and manifest for this machine, built once per session by
    the documented command (about a minute of one core: PyInstaller). The
    build started in the background when the session collected this test
    (tests/krew_build.py); this waits for it."""
    archive, manifest, printed = krew_build_mod.wait(krew_build_mod.shared_dir(pytestconfig), krew_build_mod.TIMEOUT)
    return Build(archive, manifest, printed)


@pytest.fixture(scope="session")
def krew_root(krew_build, tmp_path_factory) -> Path:
    """A krew root with the archive installed the way krew installs it."""
    root = tmp_path_factory.mktemp("krew-root")
    osname, arch = this_platform()
    krew.install(krew_build.manifest, krew_build.archive, root, osname, arch)
    return root


def build_module():
    """packaging/build.py as a module (a file, not an installed package)."""
    spec = importlib.util.spec_from_file_location("ki_packaging_build", ROOT / "packaging" / "build.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def this_platform() -> tuple[str, str]:
    return build_module().this_platform()


@pytest.fixture(scope="session")
def no_python_path(krew_root, tmp_path_factory) -> str:
    """A PATH with krew's bin/ and a folder holding only kubectl, tmux and
    openssl (what ``sim`` makes its certificate with when the frozen build
    has no ``cryptography``): no interpreter, no virtualenv to fall back on."""
    tools = tmp_path_factory.mktemp("tools")
    for name in ("kubectl", "tmux", "openssl"):
        found = shutil.which(name, path="/usr/bin:/bin:/usr/local/bin")
        assert found, f"{name} is needed (CI installs it)"
        os.symlink(found, tools / name)
    return f"{krew_root / 'bin'}{os.pathsep}{tools}"


def bare_env(path: str, home: Path) -> dict:
    """No Python of ours anywhere: the given PATH, no PYTHONPATH/PYTHONHOME,
    no virtualenv, an empty HOME."""
    env = {
        k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV", "KUBECTL_INFORMER", "TMUX"))
    }
    env.update(PATH=path, HOME=str(home), KUBECONFIG=os.devnull)
    return env
