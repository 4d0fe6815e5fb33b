"""Fixtures the cache tests of several modules share."""

from __future__ import annotations

import pytest

from tests.cache.running import Runner, Running, each_closed


@pytest.fixture
def runners():
    """``runners(reflector)`` runs it on a thread (running.Runner), stopped after the test."""
    yield from each_closed(Runner)


@pytest.fixture
def start():
    """``start(informer)`` runs it on a thread (running.Running), stopped after the test."""
    yield from each_closed(Running)
