"""The krew archive's PyInstaller build, once per test session, in the background.

The build (``packaging/build.py``, the documented command) takes a minute of
one core. Run inside a fixture it would hold a worker idle for that minute,
so it starts as soon as the session has collected a test that needs it
(``start``, from tests/conftest.py) and runs beside the other tests; those
tests are collected last (tests/conftest.py), and the ``krew_build`` fixture
waits for the result (``wait``). Under pytest-xdist every worker collects the
same tests: the first to take the lock starts the build, in the session's
shared tmp dir, and every worker waits for that one build.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from filelock import FileLock

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = "krew_build"
# The build's limit, and the limit of each test that waits for it: a
# minute alone, several on a loaded machine, far past the suite's 120 s a test.
TIMEOUT = 900

# Runs the build with its stdout and stderr in files, then writes its exit
# code (atomically: whoever waits sees no half-written code).
_RUN_AND_RECORD = (
    "import os, subprocess, sys\n"
    "out, err, rc = sys.argv[1:4]\n"
    "with open(out, 'w') as o, open(err, 'w') as e:\n"
    "    code = subprocess.run(sys.argv[4:], stdout=o, stderr=e).returncode\n"
    "with open(rc + '.tmp', 'w') as f:\n"
    "    f.write(str(code))\n"
    "os.replace(rc + '.tmp', rc)\n"
)


def shared_dir(config) -> Path:
    """The session's tmp dir that every xdist worker shares (a serial run's own)."""
    base = config._tmp_path_factory.getbasetemp()
    return base.parent if "PYTEST_XDIST_WORKER" in os.environ else base


def paths(shared: Path) -> dict[str, Path]:
    return {name: shared / f"krew-build.{name}" for name in ("lock", "started", "stdout", "stderr", "rc")} | {
        "out": shared / "krew-build"
    }


def start(shared: Path) -> subprocess.Popen | None:
    """Start the build unless a worker of this session already did; the
    process if this call started it."""
    p = paths(shared)
    with FileLock(str(p["lock"])):
        if p["started"].exists():
            return None
        p["out"].mkdir(exist_ok=True)
        build = [
            sys.executable,
            str(ROOT / "packaging" / "build.py"),
            "--out",
            str(p["out"]),
            "--repository",
            "example/kubectl-informer",
        ]
        proc = subprocess.Popen(
            [sys.executable, "-c", _RUN_AND_RECORD, str(p["stdout"]), str(p["stderr"]), str(p["rc"]), *build],
            cwd=ROOT,
            start_new_session=True,
            stdin=subprocess.DEVNULL,
        )
        p["started"].write_text(str(proc.pid))
        return proc


def wait(shared: Path, timeout: float) -> tuple[Path, Path, str]:
    """(archive, manifest, what the build printed) once the build has
    ended; fails if it failed or did not end within ``timeout`` seconds."""
    p = paths(shared)
    if not p["started"].exists():  # a session that did not see the test coming (a plugin reordering)
        start(shared)
    deadline = time.monotonic() + timeout
    while not p["rc"].exists():
        assert time.monotonic() < deadline, f"the krew archive build did not end within {timeout:g}s"
        time.sleep(0.2)  # polls a file another process writes
    rc = p["rc"].read_text()
    printed = p["stdout"].read_text()
    assert rc == "0", f"packaging/build.py exited {rc}\n{printed}{p['stderr'].read_text()}"
    [archive] = [
        f for f in p["out"].iterdir() if f.name.startswith("kubectl-informer-v") and not f.name.endswith(".sha256")
    ]
    return archive, p["out"] / "informer.yaml", printed


def finish(proc: subprocess.Popen, interrupted: bool) -> None:
    """At the end of the session that started it: a build nobody waits for
    any more (an interrupted run) is ended, else waited for (another worker
    may still be waiting on it); never left behind."""
    if proc.poll() is not None:
        return
    if interrupted:
        os.killpg(proc.pid, signal.SIGTERM)
    proc.wait()
