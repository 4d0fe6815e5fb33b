"""Rewrite the test modules' asserts once, before the xdist workers start.

pytest rewrites the asserts of every test module it imports and caches the
result beside the module (``__pycache__/*-pytest-X.pyc``), unless the
environment says PYTHONDONTWRITEBYTECODE (CI's does): then each of the
workers rewrote all of them again, 5-7 s of CPU a worker on this suite.
pytest still reads a cached rewrite when it may not write one, so the
controller writes them here, in two processes, and every worker reads them.

This uses pytest's own rewrite functions (private, so any failure only
leaves the workers to rewrite as before).
"""

from __future__ import annotations

import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path


def _test_files(config) -> list[Path]:
    from _pytest.pathlib import fnmatch_ex

    patterns = [*config.getini("python_files"), "conftest.py"]
    root = Path(config.rootpath) / "tests"
    return [p for p in sorted(root.rglob("*.py")) if any(fnmatch_ex(pat, p) for pat in patterns)]


_CONFIG = None  # the controller's config, inherited by the forked rewriters


def _rewrite(files: list[Path]) -> int:
    from _pytest.assertion import rewrite

    config = _CONFIG
    state = config.stash[rewrite.assertstate_key]
    written = 0
    for fn in files:
        cache_dir = rewrite.get_cache_dir(fn)
        if not rewrite.try_makedirs(cache_dir):
            continue
        pyc = cache_dir / (fn.name[:-3] + rewrite.PYC_TAIL)
        if rewrite._read_pyc(fn, pyc, state.trace) is not None:
            continue
        source_stat, co = rewrite._rewrite_test(fn, config)
        rewrite._write_pyc(state, co, source_stat, pyc)
        written += 1
    return written


def prewrite(config) -> None:
    """In the controller of a distributed run with assert rewriting on."""
    if not sys.dont_write_bytecode or hasattr(config, "workerinput"):
        return
    if config.getoption("assertmode", "rewrite") != "rewrite" or config.getoption("numprocesses", None) in (None, 0):
        return
    try:
        files = _test_files(config)
        global _CONFIG
        _CONFIG = config
        # fork: the children inherit the configured pytest state they rewrite with.
        import multiprocessing
        with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("fork")) as pool:
            list(pool.map(_rewrite, [files[0::2], files[1::2]]))
    except Exception:  # noqa: BLE001 - an optimisation only: the workers rewrite as before
        return
