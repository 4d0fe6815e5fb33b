"""Benchmark: the krew archive as a user gets it.

Builds the archive for this machine with ``packaging/build.py`` (or takes one
built before: ``--out DIR`` holding the archive and informer.yaml), installs
it the way krew does into a temporary krew root, and then, through the real
kubectl on a PATH with no Python:

- archive size;
- ``kubectl informer version``: the first run after installing (cold; the
  OS may still cache the files just written) and the median of 7 more (warm),
  interleaved with 7 ``kubectl version --client`` (kubectl's own start) and 7
  ``kubectl informer version`` with the pip-installed plugin of the
  interpreter running the bench (peers under the same load, for a ratio);
- the live UI's first frame: from starting ``kubectl informer watch pods
  --demo`` in tmux to the screen showing the header and the Deltas pane,
  first run and the median of 3 more.

Targets (issue 10): archive <= 60 MiB, version warm <= 0.5 s, first frame <= 2 s.

    python bench/ship.py              # builds first (about a minute)
    python bench/ship.py --out dist   # an archive packaging/build.py already made
    BENCH_SMOKE=1 python bench/ship.py --out dist   # each timing once: the test suite's smoke run

The last line is ``bench ship: archive_mib=F version_warm_s=F first_frame_s=F``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.packaging import krew
from tests.packaging.conftest import bare_env, this_platform

ROOT = Path(__file__).resolve().parent.parent
KUBECTL = "/usr/bin/kubectl"
TMUX = shutil.which("tmux") or "/usr/bin/tmux"
TARGETS = {"archive_mib": 60.0, "version_warm_s": 0.5, "first_frame_s": 2.0}


def build(out: Path) -> float:
    t0 = time.perf_counter()
    subprocess.run(
        [sys.executable, str(ROOT / "packaging" / "build.py"), "--out", str(out)], check=True, stdout=subprocess.DEVNULL
    )
    return time.perf_counter() - t0


def time_version(env: dict, *args: str) -> float:
    """Seconds for ``kubectl informer version`` (``args``: another kubectl command)."""
    t0 = time.perf_counter()
    r = subprocess.run(
        [KUBECTL, *(args or ("informer", "version"))], env=env, capture_output=True, text=True, timeout=60
    )
    elapsed = time.perf_counter() - t0
    if r.returncode != 0:
        raise SystemExit(f"error: kubectl {' '.join(args or ('informer', 'version'))} failed: {r.stderr.strip()}")
    return elapsed


def time_first_frame(env: dict, sock: Path) -> float:
    """Seconds from starting the UI in tmux to its first full frame on screen."""
    env = dict(env, TERM="xterm-256color")
    tmux = [TMUX, "-S", str(sock)]
    t0 = time.perf_counter()
    subprocess.run(
        [*tmux, "new-session", "-d", "-x", "160", "-y", "45", f"{KUBECTL} informer watch pods --demo"],
        env=env,
        check=True,
    )
    try:
        while True:
            screen = subprocess.run([*tmux, "capture-pane", "-p"], env=env, capture_output=True, text=True).stdout
            if "informer  pods" in screen and "Deltas" in screen:
                return time.perf_counter() - t0
            if time.perf_counter() - t0 > 60:
                raise SystemExit(f"error: the UI drew no frame in 60 s:\n{screen}")
            time.sleep(0.02)
    finally:
        subprocess.run([*tmux, "kill-server"], env=env, capture_output=True)


def find_build(out: Path) -> tuple[Path, Path]:
    archives = [p for p in out.glob("kubectl-informer-v*") if not p.name.endswith(".sha256")]
    if len(archives) != 1 or not (out / "informer.yaml").is_file():
        raise SystemExit(f"error: {out} holds no single archive with its informer.yaml (run packaging/build.py)")
    return archives[0], out / "informer.yaml"


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", type=Path, help="use the archive packaging/build.py wrote here instead of building")
    args = p.parse_args()
    # BENCH_SMOKE=1 (the test suite's run, with --out): each timing once.
    smoke = os.environ.get("BENCH_SMOKE") == "1"
    if smoke:
        print("smoke mode (BENCH_SMOKE=1): the same code path for a few seconds; its figures measure nothing")
    repeats, frames_n = (1, 2) if smoke else (7, 4)
    with tempfile.TemporaryDirectory(prefix="bench-ship-") as tmp:
        tmp = Path(tmp)
        if args.out is None:
            print(f"build: {build(tmp / 'dist'):.1f} s (packaging/build.py)")
        archive, manifest = find_build(args.out or tmp / "dist")
        mib = archive.stat().st_size / 2**20
        bindir = krew.install(manifest, archive, tmp / "krew", *this_platform())
        tools = tmp / "tools"
        tools.mkdir()
        for name, path in (("kubectl", KUBECTL), ("tmux", TMUX)):
            os.symlink(path, tools / name)
        env = bare_env(f"{bindir}{os.pathsep}{tools}", tmp)

        version_cold = time_version(env)
        # Peers, interleaved with the runs measured so that load hits all alike: kubectl starting
        # alone (every plugin call pays it first) and the pip-installed plugin of this interpreter.
        pip_env = dict(env, PATH=f"{Path(sys.executable).parent}{os.pathsep}{tools}")
        runs: dict[str, list[float]] = {"frozen": [], "kubectl": [], "pip": []}
        for _ in range(repeats):
            runs["frozen"].append(time_version(env))
            runs["kubectl"].append(time_version(env, "version", "--client"))
            runs["pip"].append(time_version(pip_env))
        version_warm, kubectl_alone, pip_warm = (statistics.median(runs[k]) for k in ("frozen", "kubectl", "pip"))
        frames = [time_first_frame(env, tmp / f"tmux-{i}.sock") for i in range(frames_n)]
        frame_cold, frame_warm = frames[0], statistics.median(frames[1:])

    print(f"archive:        {mib:.1f} MiB {archive.name}  (target <= {TARGETS['archive_mib']:.0f})")
    print(
        f"version:        cold {version_cold:.3f} s, warm {version_warm:.3f} s  "
        f"(target warm <= {TARGETS['version_warm_s']})"
    )
    print(
        f"  peers:        kubectl version --client {kubectl_alone:.3f} s, "
        f"pip-installed kubectl informer version {pip_warm:.3f} s"
    )
    print(f"first frame:    cold {frame_cold:.3f} s, warm {frame_warm:.3f} s  (target <= {TARGETS['first_frame_s']})")
    print(f"bench ship: archive_mib={mib:.1f} version_warm_s={version_warm:.3f} first_frame_s={frame_warm:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
