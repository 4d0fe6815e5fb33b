"""The demo scenarios show what they promise in the view a user opens:
the scenario acts in the watched namespace (all of them with -A), and its
first burst, deletes, tombstone or fault lands within a few seconds, after
the client has listed and watches. Real runs: the CLI's Run against the
demo server, the scenario on its own thread and clock, as ``--demo`` runs."""

from __future__ import annotations

import threading
import time

import pytest

from kubectl_informer.clock.testing import wait_for
from kubectl_informer.core.trace import Tracer
from kubectl_informer.run.config import RunConfig
from kubectl_informer.run.runner import Run

pytestmark = pytest.mark.e2e


class Watched:
    def __init__(self, scenario: str, **opts) -> None:
        self.events: list = []
        tracer = Tracer()
        tracer.subscribe(self.events.append)
        self.run = Run(RunConfig.from_flags(demo=scenario, **opts), tracer)

    def start(self) -> Watched:
        self.run.prepare()
        self.t0 = time.monotonic()
        self.run.start()
        return self

    def first(self, pred, timeout: float) -> float | None:
        """Seconds from the start to the first event matching ``pred``."""
        found = []

        def look():
            for ev in list(self.events):
                if pred(ev):
                    found.append(time.monotonic() - self.t0)
                    return True
            return False

        return found[0] if wait_for(look, timeout=timeout) else None


def _in_default(ev) -> bool:
    return (ev.key or "").startswith("default/")


def _recovered_after_backoff(events) -> bool:
    """A back-off, then a watch that opened and delivered an event."""
    evs = list(events)
    for i, ev in enumerate(evs):
        if ev.kind == "reflector.backoff":
            rest = evs[i + 1 :]
            opened = next((j for j, e in enumerate(rest) if e.kind == "watch.start"), None)
            if opened is not None and any(e.kind == "watch.event" for e in rest[opened + 1 :]):
                return True
    return False


def test_scenarios_show_their_point_in_the_default_view_within_seconds():
    runs = {
        "burst": Watched("burst"),
        "mass-delete": Watched("mass-delete"),
        "disconnect": Watched("disconnect"),
        "flaky": Watched("flaky"),
    }
    checks = {
        # burst: 20 updates to one pod of the watched namespace (it showed none before: it acted elsewhere).
        "burst": (lambda e: e.kind == "store.update" and e.fields.get("delta") == "Updated" and _in_default(e), 8),
        "mass-delete": (lambda e: e.kind == "store.delete" and not e.fields.get("tombstone") and _in_default(e), 8),
        "disconnect": (lambda e: e.kind == "store.delete" and e.fields.get("tombstone") and _in_default(e), 10),
    }
    results: dict[str, object] = {}

    def watch(name: str, w: Watched) -> None:
        try:
            w.start()
            if name == "flaky":
                ok = wait_for(
                    lambda: _recovered_after_backoff(w.events) and w.run.demo.runner.ctx.state.get("faults", 0) >= 3,
                    timeout=30,
                )
                results[name] = ok
            else:
                pred, limit = checks[name]
                results[name] = w.first(pred, timeout=limit + 5)
        finally:
            results[name + ".threads"] = w.run.stop()

    threads = [threading.Thread(target=watch, args=item) for item in runs.items()]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    for name, (_, limit) in checks.items():
        took = results.get(name)
        assert took is not None and took <= limit, f"{name}: first sign after {took}s (limit {limit}s)"
        assert results[name + ".threads"] == []
    # flaky: a back-off, then a watch that delivers again, and the next fault only after that.
    assert results.get("flaky") is True


def test_the_scenario_acts_where_the_view_looks():
    for opts, expect in (
        ({}, ["default"]),
        ({"namespace": "shop"}, ["shop"]),
        ({"all_namespaces": True}, ["batch", "default", "shop"]),
    ):
        run = Run(RunConfig.from_flags(demo="mass-delete", **opts), Tracer())
        try:
            run.prepare()
            assert run.demo.runner.ctx.namespaces == expect, opts
        finally:
            run.stop()
