"""Experiments from keys (x), one Pilot test each: a real run on the
simulated cluster (real HTTP, real threads), the app fed by its trace; each
test presses the keys a user would and asserts what the trace and the panes
show. Waits are for the other threads' effects, never fixed sleeps."""

from __future__ import annotations

import asyncio
from contextlib import contextmanager

import pytest

from kubectl_informer.clock.testing import wait_for
from kubectl_informer.core.trace import TraceBuffer, Tracer
from kubectl_informer.run.config import RunConfig
from kubectl_informer.run.runner import Run
from kubectl_informer.sim.demo import seed
from kubectl_informer.sim.server import SimServer
from kubectl_informer.tui.app import InformerApp
from kubectl_informer.tui.experiments import ExperimentsScreen

from .helpers import make_app, screen_text, type_ahead, type_line, typed, until

SIZE = (110, 40)


class Live:
    """A started run, the buffer the app drains, and every event seen."""

    def __init__(self, run: Run, buffer: TraceBuffer, seen: list) -> None:
        self.run, self.buffer, self.seen = run, buffer, seen

    def events(self, kind: str, **match) -> list:
        return [
            e
            for e in list(self.seen)
            if e.kind == kind and all((e.key if k == "key" else e.fields.get(k)) == v for k, v in match.items())
        ]

    def after(self, marker, kind: str, **match) -> list:
        return [e for e in self.events(kind, **match) if e.seq > marker.seq]

    @property
    def store(self):
        return self.run.demo.server.store

    def a_pod(self) -> str:
        return sorted(self.run.informer.indexer.list_keys())[0]

    def touch(self, key: str, times: int = 1) -> None:
        """Updates made on the server (the scenario's part), not experiments."""
        ns, _, name = key.partition("/")
        assert self.run.demo.server.faults.burst("pods", ns, name, times) == times


@contextmanager
def live(demo: str | None = "quiet", kubeconfig: str | None = None, **kw):
    tracer = Tracer()
    buffer = TraceBuffer()
    tracer.subscribe(buffer)
    seen: list = []
    tracer.subscribe(seen.append)
    opts = RunConfig.from_flags(resource="pods", demo=demo, kubeconfig=kubeconfig, work_time=0.0, **kw)
    run = Run(opts, tracer)
    try:
        run.prepare()
        run.start()
        yield Live(run, buffer, seen)
    finally:
        run.stop()


def drive(lv: Live, check, size=SIZE):
    app = InformerApp(lv.buffer, lv.run.info, experiments=lv.run.experiments, frame_rate=30)

    async def main():
        async with app.run_test(size=size) as pilot:
            assert await until(pilot, lambda: lv.events("informer.synced") and lv.events("watch.start"))
            return await check(pilot, app)

    result = asyncio.run(main())
    server = lv.run.demo.server if lv.run.demo is not None else None
    if server is not None:
        # The simulated server's faults act on itself: the plugin still only GETs.
        assert {m for m, _p, _s in server.request_log} == {"GET"}
    return result


async def an_event_on_the_watch(pilot, lv: Live) -> None:
    """One update seen on the open watch: ending it now is not a "very short
    watch" (no events within a second), which the reflector answers with a relist."""
    lv.touch(lv.a_pod())
    assert await until(pilot, lambda: lv.events("watch.event"))
    # the reflector says the event before it moves its last RV to the event's
    rv = lv.events("watch.event")[-1].fields["resource_version"]
    assert await until(pilot, lambda: lv.run.informer.last_sync_resource_version() == rv)


async def shown(pilot, app, pane: str) -> str:
    app.activate(pane)
    app.pump()
    await pilot.pause()
    return screen_text(app)


async def experiment(pilot, app, *keys: str) -> None:
    await pilot.press("x")
    assert isinstance(app.screen, ExperimentsScreen)
    await pilot.press(*keys)
    await pilot.pause()


async def select(pilot, key: str) -> None:
    """The way a user picks a key anywhere: / KEY enter; then until the app
    has it selected (its panes may not have drained the key's events yet)."""
    app = pilot.app
    await type_line(pilot, "slash", key)

    def picked() -> bool:
        app.pump()
        return app.selected_key() == key

    assert await until(pilot, picked)


# --- client-side ------------------------------------------------------------------


@pytest.mark.parametrize("key,name", [("w", "close-watch"), ("d", "drop-watches")])
def test_a_closed_or_dropped_watch_reopens_at_the_last_rv_without_a_list(key, name):
    # w is client-side (the reflector stops its watch); d is the simulated
    # server ending every watch stream: the reflector cannot tell them apart.
    with live() as lv:

        async def check(pilot, app):
            await an_event_on_the_watch(pilot, lv)
            rv = lv.run.informer.last_sync_resource_version()
            await experiment(pilot, app, key)
            mark = lv.events("experiment", name=name)[0]
            assert await until(pilot, lambda: lv.after(mark, "watch.start"))
            assert lv.after(mark, "watch.end")[0].fields["reason"] == "closed"
            assert lv.after(mark, "watch.start")[0].fields["resource_version"] == rv
            assert lv.after(mark, "list.start") == []
            text = await shown(pilot, app, "rv")
            assert f"experiment {name}" in text and f"watch from rv {rv}" in text

        drive(lv, check)


def test_forget_the_last_rv_relists_at_empty_rv():
    with live() as lv:

        async def check(pilot, app):
            await experiment(pilot, app, "r")
            mark = lv.events("experiment", name="forget-rv")[0]
            assert await until(pilot, lambda: lv.after(mark, "list.done"))
            assert [e.fields["reason"] for e in lv.after(mark, "relist")] == ["forgotten"]
            assert [e.fields["resource_version"] for e in lv.after(mark, "list.start")] == [""]
            text = await shown(pilot, app, "rv")
            assert "relist: forgotten" in text and 'asked rv "": a consistent read' in text
            assert "relists 1 (forgotten)" in await shown(pilot, app, "deltas")  # the header

        drive(lv, check)


@pytest.mark.parametrize(
    "client_go,holds",
    [
        ("1.32", "1 slots · 1 keys · 5 deltas DeltaFIFO: one slot per key"),
        ("1.35", "5 slots · 1 keys · 5 deltas RealFIFO: a slot per delta"),
    ],
)
def test_paused_fifo_consumer_builds_a_backlog_that_drains(client_go, holds):
    with live(client_go=client_go) as lv:

        async def check(pilot, app):
            key = lv.a_pod()
            await experiment(pilot, app, "f")
            mark = lv.events("experiment", name="pause-fifo")[0]
            lv.touch(key, 5)
            assert await until(pilot, lambda: len(lv.after(mark, "watch.event", key=key)) == 5)
            assert lv.after(mark, "fifo.pop") == [] and lv.after(mark, "store.update") == []
            text = await shown(pilot, app, "fifo")
            assert "⏸ consumer paused" in text and holds in text
            assert f"{key} [Updated ×5]" in text
            await experiment(pilot, app, "f")  # resume
            assert lv.events("experiment", name="resume-fifo")
            assert await until(pilot, lambda: len(lv.after(mark, "store.update", key=key)) == 5)
            pops = [e.fields["types"] for e in lv.after(mark, "fifo.pop", key=key)]
            assert pops == ([["Updated"] * 5] if client_go == "1.32" else [["Updated"]] * 5)
            text = await shown(pilot, app, "fifo")
            assert "consumer paused" not in text and "queue empty" in text

        drive(lv, check)


def test_paused_workers_let_the_queue_build_up_then_drain():
    with live(mode="queue", workers=2) as lv:

        async def check(pilot, app):
            assert await until(pilot, lambda: len(lv.events("queue.done")) >= 9)
            await experiment(pilot, app, "p")
            mark = lv.events("experiment", name="pause-workers")[0]
            keys = sorted(lv.run.informer.indexer.list_keys())[:3]
            for k in keys:
                lv.touch(k)
            assert await until(pilot, lambda: len(lv.after(mark, "queue.add")) == 3)
            assert lv.after(mark, "queue.get") == []
            text = await shown(pilot, app, "queue")
            assert "WORKERS PAUSED" in text and "depth 3" in text
            await experiment(pilot, app, "p")  # resume
            assert await until(pilot, lambda: len(lv.after(mark, "queue.done")) == 3)
            assert sorted(e.key for e in lv.after(mark, "queue.get")) == keys
            text = await shown(pilot, app, "queue")
            assert "WORKERS PAUSED" not in text and "depth 0" in text

        drive(lv, check)


def test_fail_next_n_requeues_with_growing_back_off():
    with live(mode="queue", workers=1) as lv:

        async def check(pilot, app):
            assert await until(pilot, lambda: len(lv.events("queue.done")) >= 9)
            key = lv.a_pod()
            await select(pilot, key)
            await experiment(pilot, app, "n")
            assert app.screen.prompt.has_focus and app.screen.prompt.value == "3"
            await pilot.press("backspace", *"3x", "enter")  # a typo: told, not run
            assert isinstance(app.screen, ExperimentsScreen) and not lv.events("experiment")
            await pilot.press("backspace", "backspace", "4", "enter")
            assert not isinstance(app.screen, ExperimentsScreen)
            mark = lv.events("experiment", name="fail-next", count=4, key=key)[0]
            assert await until(pilot, lambda: lv.after(mark, "queue.forget", key=key))
            limited = lv.after(mark, "queue.rate_limited", key=key)
            assert [e.fields["requeues"] for e in limited] == [1, 2, 3, 4]
            delays = [e.fields["delay"] for e in limited]
            assert delays == sorted(delays) and delays[-1] > delays[0]
            assert [e.fields["left"] for e in lv.after(mark, "experiment.failed")] == [3, 2, 1, 0]
            text = await shown(pilot, app, "queue")
            assert "injected failures 4" in text and "retries 4" in text

        drive(lv, check)


def test_add_a_handler_now_shows_the_resync_asked_and_got():
    # The "asked 3s, got 4s" case: the informer started with 4s, so a later
    # handler's 3s is raised to the 4s check period.
    with live(resync=4.0) as lv:

        async def check(pilot, app):
            await experiment(pilot, app, "h")
            await pilot.press(*["backspace"] * 2, *"3x", "enter")  # bad duration: a notification
            assert isinstance(app.screen, ExperimentsScreen) and not lv.events("experiment")
            await pilot.press("backspace", "s", "enter")
            assert await until(pilot, lambda: lv.events("handler.register", listener="experiment-1"))
            reg = lv.events("handler.register", listener="experiment-1")[0]
            assert (reg.fields["requested"], reg.fields["effective"]) == (3.0, 4.0)
            assert lv.events("experiment", name="add-handler", period=3.0)
            assert await until(pilot, lambda: len(lv.events("handler.add", listener="experiment-1")) == 9)
            text = await shown(pilot, app, "resync")
            assert "experiment-1" in text and "raised to the resync check period" in text

        drive(lv, check)


# --- on the simulated cluster -------------------------------------------------------------


def _write_elsewhere(lv: Live) -> None:
    """A write to another resource: the pods client's last RV is now behind the server's."""
    lv.store.create("configmaps", {"metadata": {"name": "moved-on", "namespace": "default"}})


@pytest.mark.parametrize("key,name,before", [("g", "expired-storm", None), ("c", "compaction", _write_elsewhere)])
def test_410_storm_and_compaction_send_the_reflector_to_relist(key, name, before):
    with live() as lv:

        async def check(pilot, app):
            await an_event_on_the_watch(pilot, lv)
            if before is not None:
                before(lv)
            await experiment(pilot, app, key)
            mark = lv.events("experiment", name=name)[0]
            assert await until(pilot, lambda: lv.after(mark, "list.done"))
            ends = lv.after(mark, "watch.end")
            assert ends[0].fields.get("reason") == "closed" or ends[0].fields["expired"]
            assert any(e.fields["expired"] for e in ends)
            assert lv.after(mark, "relist")[0].fields["reason"] == "expired"
            if name == "expired-storm":
                assert lv.run.demo.server.faults.pending_failures() <= 2  # the storm goes on
            text = await shown(pilot, app, "rv")
            assert "410 Gone: watch at rv" in text and "relist: expired" in text

        drive(lv, check)


def test_burst_on_the_selected_key():
    with live() as lv:

        async def check(pilot, app):
            key = lv.a_pod()
            await select(pilot, key)
            await pilot.press("x")
            assert f"selected key: {key}" in screen_text(app)
            await pilot.press("b")
            await pilot.pause()
            assert lv.events("experiment", name="burst", key=key, count=20)
            mark = lv.events("experiment", name="burst")[0]
            assert await until(pilot, lambda: len(lv.after(mark, "store.update", key=key)) == 20)
            assert len(lv.after(mark, "watch.event", key=key, type="MODIFIED")) == 20
            text = await shown(pilot, app, "deltas")
            assert text.count("Updated") >= 10 and key in text

        drive(lv, check)


# --- where they cannot run ----------------------------------------------------------


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """A simulated API server reached through a kubeconfig only: to the
    plugin, a real cluster."""
    srv = SimServer().start()
    seed(srv.store)
    srv.kubeconfig = srv.write_kubeconfig(str(tmp_path_factory.mktemp("exp") / "kubeconfig"))
    yield srv
    srv.stop()


def test_on_a_real_cluster_sim_and_queue_experiments_say_why_not(cluster):
    with live(demo=None, kubeconfig=cluster.kubeconfig) as lv:

        async def check(pilot, app):
            await pilot.press("x")
            text = screen_text(app)
            assert text.count("✕ --demo only") == 4 and "never a real cluster" in text
            assert text.count("✕ queue mode only") == 2
            for key in "gcdbpn":
                await pilot.press(key)
            await pilot.pause()
            assert isinstance(app.screen, ExperimentsScreen) and not lv.events("experiment")
            await pilot.press("escape")
            assert not isinstance(app.screen, ExperimentsScreen)

        drive(lv, check, size=(80, 24))


def test_a_replay_has_no_experiments():
    app = make_app()

    async def main():
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("x")
            await pilot.pause()
            assert not isinstance(app.screen, ExperimentsScreen)
            assert any("not in a replay" in str(n.message) for n in app._notifications)

    asyncio.run(main())


def test_the_control_refuses_in_one_line_what_it_cannot_do():
    from kubectl_informer.run.experiments import (
        ExperimentError,
        parse_count,
        parse_resync,
    )

    idle = Run(RunConfig.from_flags(resource="pods", demo="quiet"))
    with pytest.raises(ExperimentError, match="not running yet"):
        idle.experiments.run("close-watch")
    with pytest.raises(ExperimentError, match="unknown experiment"):
        idle.experiments.run("reboot-the-cluster")
    with pytest.raises(ExperimentError, match="queue mode only"):
        idle.experiments.run("pause-workers")
    with live() as lv:
        assert wait_for(lv.run.informer.has_started)
        with pytest.raises(ExperimentError, match="select a key first"):
            lv.run.experiments.run("burst")
        assert "not on the simulated server" in lv.run.experiments.run("burst", key="default/gone")
    assert parse_count(" 7 ") == 7 and parse_resync("1m30s") == 90.0 and parse_resync("0") == 0.0
    for bad in ("0", "1001", "three", ""):
        with pytest.raises(ExperimentError):
            parse_count(bad)
    for bad in ("3x", "-1s", ""):
        with pytest.raises(ExperimentError, match="resync period"):
            parse_resync(bad)


def test_the_x_menu_is_a_side_panel_and_the_panes_stay_in_sight():
    with live(demo="quiet") as lv:

        async def check(pilot, app):
            app.pump()
            before = screen_text(app).splitlines()
            await pilot.press("x")
            await pilot.pause()
            assert isinstance(app.screen, ExperimentsScreen)
            # What the terminal gets: the panel over the screens under it.
            update = app.screen._compositor.render_update(full=True, screen_stack=app._background_screens)
            rows = ["".join(seg.text for seg in line) for line in update.strips]
            panel = app.screen.query_one("#experiments-body").region
            assert panel.right == 160 and panel.height == 45 and panel.width <= 72
            # Left of the panel, the screen is as it was: tabs and panes (the
            # header's ages move on), untinted.
            left = panel.x
            assert [r[:left] for r in rows[2:12]] == [r[:left] for r in before[2:12]]
            assert "Deltas" in rows[3][:left] and "informer" in rows[0][:left]
            assert "experiments · on this run" in rows[0][left:]

        drive(lv, check, size=(160, 45))


def test_keys_typed_ahead_of_the_prompt_reach_it():
    # n and enter arriving together (typed fast, or a busy terminal): the
    # prompt has the focus before enter is read, so enter runs fail-next with
    # its default instead of going to the menu behind it.
    with live(mode="queue", workers=1) as lv:

        async def check(pilot, app):
            await pilot.press("x")
            assert isinstance(app.screen, ExperimentsScreen)
            await type_ahead(pilot, typed("n", enter=True))
            assert await until(pilot, lambda: lv.events("experiment", name="fail-next", count=3))
            assert not isinstance(app.screen, ExperimentsScreen)

        drive(lv, check)
