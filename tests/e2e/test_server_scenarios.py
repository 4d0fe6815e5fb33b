"""The API server's side of the watch, through the real pipeline against the
simulated API server: each server scenario stepped by hand, the client's
410 / too-large / relist behaviour as client-go's reflector has it, and the
``server.window`` the plugin read over HTTP equal to the simulator's own
window, read from the sim object in-process."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from kubectl_informer.clock.testing import wait_for
from kubectl_informer.kube.config import USER_AGENT
from tests.explain.harness import Driven

pytestmark = pytest.mark.e2e

# While a wait below is for the reflector to come back from a fault, its clock
# is stepped this much every real hundredth of a second: the back-offs it
# waits out on that clock (0.8 s, then 1.6 s, ...) pass ten times faster,
# through the same code; the server side keeps real time.
BACK_OFF_STEP = 0.1


def _windows(d: Driven) -> list[dict]:
    with d._lock:
        return [e.fields for e in d.events if e.kind == "server.window"]


def _sim_window(store) -> dict:
    """What the simulator's watch cache holds for pods, from its own objects."""
    with store.lock:
        st = store._state(store.resource("pods"))
        rvs = [ev.rv for ev in st.window]
        watchers = sorted(st.watchers, key=lambda w: w.id)
        [ours] = [w for w in watchers if w.user_agent == USER_AGENT]
        turnover = st.turnover()
        return {
            "source": "sim",
            "resource": "pods",
            "oldest_rv": str(st.too_old_below()),
            "newest_rv": str(rvs[-1] if rvs else st.window_start),
            "capacity": st.window_size,
            "events": len(rvs),
            "turnover": round(turnover, 2),
            "initialisations": st.initialisations,
            "bookmarks_sent": st.bookmarks_sent,
            "watchers": [f"{w.id} rv={w.last_rv} sent={w.sent}" + (" ours" if w is ours else "") for w in watchers],
            "ours_rv": str(ours.last_rv),
        }


def _without_forecast(window: dict) -> dict:
    """A server.window's fields but the old countdown (recordings from before the dynamic window)."""
    return {k: v for k, v in window.items() if k != "ours_seconds_left"}


def _window_equals_the_sims(d: Driven) -> None:
    """Freeze the simulator's clock (its turnover rate stays put), then the
    plugin's latest server.window must be the sim's own window."""
    store = d.run.demo.server.store

    def one_idle_watcher() -> bool:
        watchers = store.watchers("pods")  # one read: a relist may replace the watcher between two
        return len(watchers) == 1 and watchers[0].pending() == 0

    assert wait_for(one_idle_watcher, 10)
    frozen = time.monotonic()
    store._state(store.resource("pods")).now = lambda: frozen
    assert wait_for(lambda: _windows(d) and _without_forecast(_windows(d)[-1]) == _sim_window(store), timeout=10), (
        _windows(d)[-1:],
        _sim_window(store),
    )


def test_small_window_a_slow_watcher_falls_out_gets_410_and_relists():
    with Driven("small-window") as d:
        d.settle()
        d.step(19)
        d.wait("server.window", capacity=8)
        d.step(12)  # the streams stall from the 20th step while events come
        # The plugin sees its own position fall out of the window.
        assert wait_for(lambda: any(w["ours_rv"] and int(w["ours_rv"]) < int(w["oldest_rv"]) for w in _windows(d)), 10)
        d.step()  # the 32nd: the server ends the watcher that fell behind
        d.wait("watch.end", expired=True)
        d.wait("relist", reason="expired", advance=BACK_OFF_STEP)
        d.wait("list.done", n=2)
        d.wait("watch.start", n=2)
        _window_equals_the_sims(d)


def _pod_events(d: Driven) -> list[int]:
    with d._lock:
        return [int(e.fields["resource_version"]) for e in d.events if e.kind == "watch.event"]


def test_etcd_restore_a_rewatch_ahead_is_accepted_and_skips_then_a_relist_gets_504_and_lists_from_empty():
    with Driven("etcd-restore") as d:
        d.settle()
        d.step(44)
        store = d.run.demo.server.store
        store.too_large_wait = 0.05  # kube-apiserver's 3 s, in real time: a twentieth of it here
        snapshot = store.current_rv()
        d.wait("server.window")  # the poller's baseline, before the restore it reports
        d.step(15)
        ahead = store.cache_rv("pods")
        assert wait_for(lambda: d.run.informer.last_sync_resource_version() == str(ahead), 10)
        d.step()  # the 60th step restores etcd to the 44th's RV: the API server restarts
        assert store.current_rv() == snapshot < ahead
        d.wait("server.reinit", advance=BACK_OFF_STEP)
        # The re-watch from our RV, ahead of the server, is accepted (no 504 on a watch)...
        d.wait("watch.start", resource_version=str(ahead), n=1, advance=BACK_OFF_STEP)
        seen = len(_pod_events(d))
        d.step(40)  # churn past our RV
        assert wait_for(lambda: any(rv > ahead for rv in _pod_events(d)[seen:]), 10)
        # ...and every change between the restore and our RV was skipped without a word.
        written = [ev.rv for ev in store._state(store.resource("pods")).history if snapshot < ev.rv <= ahead]
        assert written and not [rv for rv in _pod_events(d)[seen:] if rv <= ahead]
        assert d.seen("server.too_large") == 0 and d.seen("relist") == 0
        # The second restore also fails the re-watch (500): the relist at our RV waits for the cache, is
        # answered 504 (the REST client retries it ten times), then the reflector lists at "".
        d.step(60 - d.runner.ctx.tick % 60)
        d.wait("request.retry", n=10, status=504, verb="list", timeout=30, advance=BACK_OFF_STEP)
        d.wait("server.too_large", advance=BACK_OFF_STEP)
        d.wait("relist", reason="too_large", advance=BACK_OFF_STEP)
        d.wait("list.start", resource_version="", timeout=20, advance=BACK_OFF_STEP)
        d.wait("list.done", n=2, timeout=20)
        d.wait("watch.start", n=3, advance=BACK_OFF_STEP)
        _window_equals_the_sims(d)


def test_cache_reinit_ends_every_watch_stops_bookmarks_then_410_and_relist():
    with Driven("cache-reinit") as d:
        d.settle()
        d.step(31)
        store = d.run.demo.server.store
        d.wait("watch.bookmark")
        d.wait("server.window")  # the poller's baseline, before the re-initialisation it reports
        d.step()  # the 32nd step: the cache re-initialises
        d.wait("watch.end", reason="closed")
        # The re-watch gets 429 with Retry-After: client-go's REST client waits and sends it again.
        d.wait("request.retry", status=429, verb="watch")
        bookmarks = store.watch_cache_figures("pods")["bookmarksSent"]
        d.step(7)
        assert store.watch_cache_figures("pods")["bookmarksSent"] == bookmarks  # none while it is down
        d.step()  # the 40th: re-listed, its window starts now
        d.wait("server.reinit", initialisations=2, advance=BACK_OFF_STEP)
        d.wait("relist", reason="expired", timeout=20, advance=BACK_OFF_STEP)
        d.wait("list.done", n=2, timeout=20)
        d.wait("watch.start", n=2)
        _window_equals_the_sims(d)


def test_a_kubeconfig_naming_the_simulator_reads_its_watch_cache(tmp_path):
    """Not a --demo: a simulator started apart, reached through the kubeconfig
    it wrote, whose cluster entry names it; one without that entry is a real
    cluster to the plugin (its /metrics would be scraped instead)."""
    import yaml

    from kubectl_informer.core.trace import Tracer
    from kubectl_informer.kube.config import load_kube
    from kubectl_informer.run.config import RunConfig
    from kubectl_informer.run.runner import Run
    from kubectl_informer.sim.server import SimServer

    with SimServer() as sim:
        sim.store.create("namespaces", {"metadata": {"name": "default"}})
        kc = sim.write_kubeconfig(str(tmp_path / "kc"))
        plain = yaml.safe_load(Path(kc).read_text())
        del plain["clusters"][0]["cluster"]["extensions"]
        (tmp_path / "plain").write_text(yaml.safe_dump(plain))
        assert load_kube(kc).simulator and not load_kube(str(tmp_path / "plain")).simulator
        tracer, seen = Tracer(), []
        tracer.subscribe(seen.append)
        run = Run(RunConfig(resource="pods", kubeconfig=kc), tracer)
        run.prepare()
        run.start()
        try:
            assert wait_for(lambda: any(e.kind == "server.window" and e.fields["ours_rv"] for e in list(seen)), 15)
        finally:
            assert run.stop() == []
        assert any(path.startswith("/debug/informer/watchcache?resource=pods") for _, path, _ in sim.request_log)
