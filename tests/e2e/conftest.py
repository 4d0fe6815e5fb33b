"""Fixtures the end-to-end tests of several modules share."""

from __future__ import annotations

import pytest


@pytest.fixture
def terminal(tmp_path):
    """``terminal(width, height, args="watch pods --demo", env_extra=None)``:
    the real command in a tmux window (test_tmux.Terminal); closed after the test."""
    from tests.e2e.test_tmux import Terminal

    made = []

    def make(width, height, args="watch pods --demo", env_extra=None):
        t = Terminal(tmp_path, width, height, args, env_extra)
        made.append(t)
        return t

    yield make
    for t in made:
        t.close()


@pytest.fixture
def sim(tmp_path):
    """The simulated API server of the convergence tests: a watch cache of
    100 events, the namespaces of test_convergence.NAMESPACES, and a
    kubeconfig for it in ``sim.kubeconfig``."""
    from kubectl_informer.sim.server import SimServer
    from tests.e2e.test_convergence import NAMESPACES

    # kubectl, the judge, sends no credentials to an http:// server (clientcmd): served as anonymous.
    srv = SimServer(watch_cache_size=100, anonymous=True).start()
    for ns in NAMESPACES:
        srv.store.create("namespaces", {"metadata": {"name": ns}})
    srv.kubeconfig = srv.write_kubeconfig(str(tmp_path / "kubeconfig"))
    yield srv
    srv.stop()
