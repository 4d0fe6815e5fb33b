"""Rewrite the test modules' asserts once, before the xdist workers start.

pytest rewrites the asserts of every test module it imports and caches the
result beside the module (``__pycache__/*-pytest-X.pyc``), unless the
environment says PYTHONDONTWRITEBYTECODE (CI's does): then each of the
workers rewrote all of them again, 5-7 s of CPU a worker on this suite.
pytest still reads a cached rewrite when it may not write one, so the
controller writes them here, in two processes, and every worker reads them.
The packages of the installed pytest plugins are rewritten too (pytest marks
every module of a plugin's distribution): hypothesis alone cost each worker
1 s of CPU at collection, every run, in an environment that writes no bytecode.

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


def _plugin_files(config) -> list[Path]:
    """The modules of the packages pytest marked for rewriting (the plugins'
    distributions: hypothesis, syrupy, xdist...), found without importing them."""
    import importlib.util

    from _pytest.assertion import rewrite

    hook = config.stash[rewrite.assertstate_key].hook
    files: list[Path] = []
    for name in sorted(getattr(hook, "_must_rewrite", ())):
        if "." in name:  # a submodule: finding it imports its package; its package is marked if it is a plugin's
            continue
        spec = importlib.util.find_spec(name)
        if spec is None or not spec.origin or not spec.origin.endswith(".py"):
            continue
        origin = Path(spec.origin)
        files += sorted(origin.parent.rglob("*.py")) if spec.submodule_search_locations else [origin]
    return files


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
        try:
            source_stat, co = rewrite._rewrite_test(fn, config)
        except (SyntaxError, UnicodeDecodeError, OSError):  # a worker would meet it too, and say so
            continue
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
        files = _test_files(config) + _plugin_files(config)
        global _CONFIG
        _CONFIG = config
        # fork: the children inherit the configured pytest state they rewrite with.
        import multiprocessing

        with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("fork")) as pool:
            list(pool.map(_rewrite, [files[0::2], files[1::2]]))
    except Exception:  # noqa: BLE001 - an optimisation only: the workers rewrite as before
        return
