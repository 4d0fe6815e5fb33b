import gc
import os
import signal

import pytest

from kubectl_informer.clock.testing import FakeClock, wait_for
from kubectl_informer.core.trace import TraceBuffer, Tracer
from tests import krew_build

# A shell that starts the suite as a background job (`... &`) hands it SIGINT
# ignored, every process it starts inherits that, and Python then installs no
# Ctrl-C handler: the tests that press Ctrl-C on a child would hang. A user's
# terminal never ignores it, so the suite puts the default back.
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

# pytest-xdist's workers run with COLUMNS=80 and LINES=24 in their
# environment, and a size there overrides the terminal's own (Textual, like
# shutil.get_terminal_size, reads them first): every UI started in a tmux
# window of another size would draw 80x24. A serial run has neither.
for _name in ("COLUMNS", "LINES"):
    os.environ.pop(_name, None)

# Discovery asks the server in every run of the suite (no disk cache read or
# written): its servers, hostile ones among them, reuse each other's ports,
# and a cache is keyed by host:port as kubectl's is. The tests of the caches
# (tests/kube/test_discovery_sources.py, tests/e2e/test_polite_startup.py)
# turn them back on, each with directories of its own.
os.environ["KUBECTL_INFORMER_DISCOVERY_CACHE"] = "0"

# Every Tracer built in the tests (and in the CLI processes they start)
# checks each event against kubectl_informer.core.trace_kinds as it is emitted.
os.environ["KUBECTL_INFORMER_TRACE_CHECK"] = "1"

# The suite starts hundreds of processes of the plugin. Where the environment
# says PYTHONDONTWRITEBYTECODE (CI's does), each would compile every module of
# the package again (about 0.2 s of CPU a start); compiled once here, before
# the workers start, each process reads the bytecode.
if "PYTEST_XDIST_WORKER" not in os.environ:
    import compileall
    from pathlib import Path

    _root = Path(__file__).resolve().parents[1]
    for _dir in ("kubectl_informer", "tests", "tools", "bench"):
        compileall.compile_dir(_root / _dir, quiet=2, workers=0)


@pytest.fixture
def clock():
    return FakeClock(start=1000.0)


@pytest.fixture
def tmux_sock():
    """A tmux socket path short enough under xdist, in a directory of its own."""
    from tests.short_paths import remove, short_dir, socket_in

    d = short_dir()
    yield socket_in(d)
    remove(d)


@pytest.fixture
def tracer(clock):
    return Tracer(clock)


@pytest.fixture
def trace(tracer):
    """A TraceBuffer subscribed to ``tracer``."""
    buf = TraceBuffer()
    tracer.subscribe(buf)
    return buf


__all__ = ["wait_for"]


@pytest.hookimpl(tryfirst=True)  # before xdist reads the xdist_group marks
def pytest_collection_modifyitems(items):
    for item in items:
        if krew_build.FIXTURE in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.timeout(krew_build.TIMEOUT))
        # A module-scoped fixture (a simulator, a set of CLI runs made once)
        # is made once per worker that runs a test using it: the tests of a
        # module that use one go to one worker (--dist loadgroup), so it is
        # made once, as in a serial run.
        if _uses_a_module_fixture(item):
            item.add_marker(pytest.mark.xdist_group(f"module:{item.module.__name__}"))
    # Most tests wait (on a server, a terminal, a --duration) and some only
    # compute: each directory's tests are spread evenly over the run, so the
    # waiting ones of tests/docs or tests/security do not all come at once
    # and leave the cores idle while the computing ones of tests/tui queue.
    # The ones that wait long (a terminal, a screenshot's moment: marked
    # ``tmux`` or ``long_wait``) are spread over the first three quarters of
    # the run only: started among the last tests they held the run open with
    # the cores a third idle for its last 40 s.
    # The tests of the krew archive last: its build runs in the background
    # meanwhile (tests/krew_build.py), and is done when they come.
    place = _spread_by_directory(items)
    items.sort(
        key=lambda item: (
            krew_build.FIXTURE in getattr(item, "fixturenames", ()),
            place[item.nodeid] * (LONG_WAITS_WITHIN if _waits_long(item) else 1.0),
        )
    )


LONG_WAITS_WITHIN = 0.75  # the share of the run the long-waiting tests are spread over


def _waits_long(item) -> bool:
    return any(item.get_closest_marker(name) is not None for name in ("tmux", "long_wait"))


def _spread_by_directory(items) -> dict[str, float]:
    """Each test's place in the run, 0 to 1: the k-th of a directory's n
    tests at (k + 0.5) / n. Deterministic, as every xdist worker must collect
    the same order."""
    by_dir: dict[str, list[str]] = {}
    for item in items:
        by_dir.setdefault(item.nodeid.split("/", 2)[1], []).append(item.nodeid)
    return {nodeid: (k + 0.5) / len(ids) for ids in by_dir.values() for k, nodeid in enumerate(ids)}


def pytest_collection_finish(session):
    if session.config.option.collectonly:
        return
    _freeze_what_collection_loaded()
    if any(krew_build.FIXTURE in getattr(item, "fixturenames", ()) for item in session.items):
        session.config.stash[_KREW_BUILD] = krew_build.start(krew_build.shared_dir(session.config))


def pytest_sessionfinish(session, exitstatus):
    proc = session.config.stash.get(_KREW_BUILD, None)
    if proc is not None:
        krew_build.finish(proc, interrupted=exitstatus == pytest.ExitCode.INTERRUPTED or bool(session.shouldstop))


_KREW_BUILD = pytest.StashKey()


def _freeze_what_collection_loaded() -> None:
    """Move every object alive after collection (the modules of the package,
    Textual, kubernetes, hypothesis, the test modules and their parameters)
    out of the collector's reach. They live to the end of the session anyway,
    and every full collection the tests set off walked all of them again:
    5-6 s of CPU a worker over tests/tui, and pytest's five collections at the
    end of a session. Objects the tests make are collected as before."""
    gc.collect()
    gc.freeze()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item, nextitem):
    """After a test module's last test (its module fixtures torn down), what
    it left alive (modules it imported late, as the first Textual app loads
    Textual's widgets and CSS, and their caches) joins the frozen objects
    once its garbage is collected: else each later full collection of the
    session walks it again."""
    try:
        return (yield)
    finally:
        if nextitem is None or getattr(nextitem, "module", None) is not getattr(item, "module", None):
            _freeze_what_collection_loaded()


def _uses_a_module_fixture(item) -> bool:
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return False
    return any(d.scope == "module" for defs in info.name2fixturedefs.values() for d in defs)


@pytest.fixture(autouse=True)
def _private_discovery_caches(tmp_path_factory, monkeypatch):
    """Every test (and the processes it starts) gets caches of its own: the
    plugin reads kubectl's discovery cache and writes one of its own, keyed by
    the server's host:port, and two tests' servers on one reused port must
    not read each other's."""
    base = tmp_path_factory.mktemp("caches")
    monkeypatch.setenv("XDG_CACHE_HOME", str(base / "xdg"))
    monkeypatch.setenv("KUBECACHEDIR", str(base / "kube"))


def pytest_configure(config):
    from tests.rewrite_cache import prewrite

    prewrite(config)
