"""`:` commands, P and restarts in the real app, against the demo cluster over
real HTTP; and, on recorded traces, what the panes do at a run.restart."""

import threading
import time

import pytest

from kubectl_informer.run.config import RunConfig
from kubectl_informer.run.lifecycle import running
from kubectl_informer.tui.app import InformerApp

from .helpers import TraceMaker, demo_trace, make_app, pane_text, run, screen_text, type_line, until


async def command(pilot, text: str) -> None:
    await type_line(pilot, "colon", text)


def notices(app) -> list[str]:
    return [n.message for n in app._notifications]


def live(check, size=(160, 45), **opts):
    """Run ``check(pilot, app, r)`` on an app whose pipeline runs on the demo;
    afterwards no thread of ours is left (engine, demo, workers)."""
    before = set(threading.enumerate())
    opts.setdefault("demo", "steady")
    with running(RunConfig.from_flags(**opts), ui=False) as r:
        r.start()
        app = InformerApp(r.buffer, r.info, pipeline=r)
        run(lambda pilot: check(pilot, app, r), app, size)
    deadline = time.monotonic() + 10
    while set(threading.enumerate()) - before and time.monotonic() < deadline:
        time.sleep(0.05)
    assert set(threading.enumerate()) <= before, sorted(t.name for t in set(threading.enumerate()) - before)


def test_deploy_in_another_namespace_restarts_the_pipeline_and_the_panes_show_deployments():
    async def check(pilot, app, r):
        first = r.run
        assert await until(pilot, lambda: app.states["cache"].count == 9, pump=True)  # default's pods
        await command(pilot, "deploy -n kube-system")
        assert await until(pilot, lambda: app.header_state.info.namespace == "kube-system", pump=True)
        assert first.alive_threads() == [] and r.run is not first
        assert (
            app.header_state.info.resource == "deployments.apps"
            and "deployments.apps ↻1 ns kube-system" in screen_text(app)
        )
        assert await until(pilot, lambda: app.header_state.synced, pump=True)
        assert app.states["cache"].count == 0 and "cache empty" in pane_text(app.panes["cache"])
        await command(pilot, "deploy -A")
        want = {"default/web", "default/api", "shop/frontend", "shop/cart", "shop/payments", "batch/worker"}
        assert await until(pilot, lambda: set(app.states["cache"].keys) == want, pump=True)
        deltas = pane_text(app.panes["deltas"])
        assert "default/web " in deltas and "shop/cart " in deltas and "-7b2" not in deltas  # no pod keys left
        assert "deployments.apps ↻2 all namespaces" in screen_text(app)
        assert r.restarts == 2 and r.run.demo is first.demo  # the same simulated cluster

    live(check)


def test_profile_136_switches_the_fifo_on_the_same_traffic():
    async def check(pilot, app, r):
        fifo = app.states["fifo"]
        first_experiments = app.experiments = r.run.experiments  # as the CLI passes it
        assert await until(pilot, lambda: app.states["fifo"].fifo_label == "DeltaFIFO", pump=True)
        assert "one slot per key: deltas accumulate, pop together, handler gets each" in pane_text(app.panes["fifo"])
        await command(pilot, "profile 1.36")
        assert await until(pilot, lambda: app.states["fifo"].fifo_label == "RealFIFO (atomic)", pump=True)
        assert app.states["fifo"] is not fifo  # a fresh state: the old run's counts are gone
        text = pane_text(app.panes["fifo"])
        assert text.startswith("RealFIFO (atomic) ") and "entr" in text.splitlines()[0] and "appended" not in text
        assert "every delta its own entry; relist/resync: one ReplacedAll/SyncAll" in text
        header = screen_text(app).splitlines()[0]
        assert "client-go 1.36" in header and "RealFIFO (atomic) · WatchList stream" in header
        # Key x acts on the new run: the app follows the restart.
        assert await until(pilot, lambda: app.experiments is r.run.experiments, pump=True)
        assert r.run.experiments is not first_experiments
        # The scenario's traffic reaches the new pipeline.
        assert await until(pilot, lambda: app.states["deltas"].counts.get("Updated", 0) > 0, pump=True)
        await pilot.press("P")  # 1.36 -> 1.32, round
        assert await until(pilot, lambda: app.states["fifo"].fifo_label == "DeltaFIFO", pump=True)
        assert "client-go 1.32" in screen_text(app).splitlines()[0] and r.restarts == 2

    live(check, resource="pods", all_namespaces=True)


def test_a_bad_command_is_one_notification_and_the_pipeline_keeps_running():
    async def check(pilot, app, r):
        old = r.run
        await command(pilot, "nosuch")
        assert await until(
            pilot, lambda: any("nosuch" in n and "still watching pods" in n for n in notices(app)), pump=True
        )
        assert r.run is old and not old.stop_event.is_set() and app.header_state.info.resource == "pods"
        await command(pilot, "fifo blue")
        await pilot.pause()
        assert "unknown FIFO 'blue': :fifo real or :fifo delta" in notices(app)
        await command(pilot, "pods -n")
        await pilot.pause()
        assert "-n needs a namespace, e.g. -n kube-system" in notices(app)
        assert all("\n" not in n for n in notices(app))
        assert not app.command_input.display and r.restarts == 0

    live(check, demo="quiet")


def test_escape_closes_the_command_line_and_q_quits():
    async def check(pilot, app, r):
        await pilot.press("colon")
        assert app.command_input.display and app.command_input.has_focus
        await pilot.press("escape")
        assert not app.command_input.display and app.panes[app.active].has_focus
        await command(pilot, "q")
        await pilot.pause()
        assert not app.is_running

    live(check, demo="quiet")


def test_the_command_line_completes_resource_names_from_discovery():
    async def check(pilot, app, r):
        assert await until(
            pilot,
            lambda: "deployments" in app.command_line.resource_names and "deploy" in app.command_line.resource_names,
            pump=True,
        )
        await type_line(pilot, "colon", "deplo", submit=False)
        await pilot.press("tab")
        assert app.command_input.value == "deployments" or app.command_input.value == "deploy"
        assert app.active == "deltas"  # tab completed, it did not move to another pane

    live(check, demo="quiet")


def test_a_replay_has_nothing_to_restart():
    app = make_app()

    async def check(pilot):
        await command(pilot, "profile 1.36")
        await pilot.press("P")
        await pilot.pause()
        assert any("nothing to restart here" in n for n in notices(app))

    run(check, app)


# --- what the panes do at a run.restart (recorded traces) ------------------------------------


def _delta_then_real() -> TraceMaker:
    e = TraceMaker()
    e("informer.start", fifo="DeltaFIFO", watch_list=False, resync_check_period=0.0)
    e("fifo.queue", "default/web-1", type="Updated", depth=1, pending=1)
    e("fifo.coalesce", "default/web-1", type="Updated", depth=1, pending=2)
    e("fifo.pop", "default/web-1", types=["Updated", "Updated"], is_in_initial_list=False, waited=0.01, depth=0)
    e(
        "store.update",
        "default/web-1",
        resource_version="5",
        old_resource_version="4",
        delta="Updated",
        summary="Running",
        diff=[],
        is_in_initial_list=False,
    )
    e(
        "run.restart",
        resource="pods",
        namespace="default",
        client_go="1.36",
        fifo="RealFIFO (atomic)",
        watch_list=True,
        restarts=1,
        took=0.02,
    )
    e("informer.start", fifo="RealFIFO (atomic)", watch_list=True, resync_check_period=0.0)
    e("fifo.queue", "default/web-1", type="Updated", depth=1, pending=1)
    e("fifo.queue", "default/web-1", type="Updated", depth=2, pending=2)
    return e


def test_the_panes_start_over_at_a_restart_and_the_fifo_pane_shows_realfifo_entries():
    app = make_app(_delta_then_real(), start_pane="fifo")

    async def check(pilot):
        fifo = pane_text(app.panes["fifo"])
        # RealFIFO: one entry per delta, no accumulation, nothing left from DeltaFIFO's run.
        assert fifo.splitlines()[0].startswith("RealFIFO (atomic) 2 entries · queued 2 skips 0 pops 0")
        assert "default/web-1 [Updated ×2] 2 entries" in fifo
        assert "append" not in fifo and app.states["fifo"].coalesces == 0
        assert app.states["deltas"].total == 0  # the old run's delta is gone
        head = screen_text(app).splitlines()[0]
        assert "pods ↻1 ns default" in head and "client-go 1.36" in head
        assert (app.header_state.info.fifo, app.header_state.info.initial_list) == (
            "RealFIFO (atomic)",
            "WatchList stream",
        )

    run(check, app)


def test_before_the_restart_deltafifo_accumulated_the_same_deltas_in_one_slot():
    e = _delta_then_real()
    e.events = e.events[:3]  # up to the coalesce, before the pop
    app = make_app(e, start_pane="fifo")

    async def check(pilot):
        fifo = pane_text(app.panes["fifo"])
        assert fifo.splitlines()[0].startswith("DeltaFIFO 1 key/2 deltas · queued 1 appended 1")
        assert "default/web-1 [Updated ×2]" in fifo and "entries" not in fifo.splitlines()[2]
        assert "append   default/web-1 +Updated → slot [Updated ×2]" in fifo

    run(check, app)


# --- filters in the panes ---------------------------------------------------------------------


def _labelled() -> TraceMaker:
    e = TraceMaker()
    e("informer.start", fifo="DeltaFIFO", watch_list=False, resync_check_period=0.0)
    rows = [
        ("default/web-1", "Added", {"app": "web"}),
        ("default/api-1", "Added", {"app": "api"}),
        ("kube-system/dns-0", "Added", {"k8s-app": "dns"}),
        ("default/web-2", "Added", {"app": "web"}),
    ]
    for key, delta, labels in rows:
        e("fifo.queue", key, type=delta, depth=1, pending=1, labels=labels)
        e("fifo.pop", key, types=[delta], is_in_initial_list=False, waited=0.0, depth=0)
        e("store.add", key, resource_version="1", delta=delta, summary="", is_in_initial_list=False, labels=labels)
    e("fifo.pop", "default/web-2", types=["Deleted"], is_in_initial_list=False, waited=0.0, depth=0)
    e(
        "store.delete",
        "default/web-2",
        resource_version="2",
        delta="Deleted",
        summary="",
        tombstone=False,
        is_in_initial_list=False,
        labels={"app": "web"},
    )
    e("fifo.queue", "default/api-1", type="Updated", depth=1, pending=1, labels={"app": "api"})
    e("fifo.queue", "kube-system/dns-0", type="Sync", depth=2, pending=1, labels={"k8s-app": "dns"})
    return e


def _rows(pane) -> list[str]:
    return [ln.split()[2] for ln in pane_text(pane).splitlines()[1:] if ln.strip() and ln.split()[0][0].isdigit()]


DELTAS_FILTERS = [
    ("web", ["default/web-1", "default/web-2", "default/web-2"]),
    ("^default/(api|web)-1$", ["default/web-1", "default/api-1"]),
    ("!default", ["kube-system/dns-0"]),
    ("type:Deleted", ["default/web-2"]),
    ("!type:Added", ["default/web-2"]),
    ("label:app=web", ["default/web-1", "default/web-2", "default/web-2"]),
    ("label:app in (api,web),app!=web", ["default/api-1"]),
    ("!label:app", ["kube-system/dns-0"]),
]


def test_the_deltas_pane_filters_by_regex_type_and_label():
    # One app walked through every filter: each replaces the one before, as a
    # user typing a new filter does (an app each cost eight app start-ups).
    app = make_app(_labelled(), size_panes=("deltas", "fifo", "cache", "inspector"))

    async def check(pilot):
        for text, keys in DELTAS_FILTERS:
            app.set_filter(text)  # what typing it after / does, key by key
            assert (text, _rows(app.panes["deltas"])) == (text, keys)
            assert f"filter /{text}" in pane_text(app.panes["deltas"])

    run(check, app, (160, 45))


def test_typing_a_filter_after_slash_applies_it():
    app = make_app(_labelled())

    async def check(pilot):
        await type_line(pilot, "slash", "type:Deleted")
        assert app.filter_text == "type:Deleted" and not app.filter_input.display
        assert _rows(app.panes["deltas"]) == ["default/web-2"]
        assert "/type:Deleted" in screen_text(app)

    run(check, app, (160, 45))


def test_an_invalid_regex_filters_as_text_and_says_so():
    app = make_app(_labelled())

    async def check(pilot):
        await type_line(pilot, "slash", "web(")
        text = pane_text(app.panes["deltas"])
        assert "not a regular expression" in text and "(0 match)" in text

    run(check, app, (160, 45))


def test_the_fifo_cache_and_inspector_panes_filter_by_type_and_label():
    app = make_app(_labelled(), size_panes=("deltas", "fifo", "cache", "inspector"))

    async def check(pilot):
        app.set_filter("type:Sync")
        fifo = pane_text(app.panes["fifo"])
        assert "kube-system/dns-0 [Sync]" in fifo and "default/api-1" not in fifo
        app.set_filter("label:app=api")
        fifo = pane_text(app.panes["fifo"])
        assert "default/api-1 [Updated]" in fifo and "dns-0" not in fifo
        cache = pane_text(app.panes["cache"])
        assert "1 objects match" in cache and "default 1" in cache and "kube-system" not in cache
        app.set_filter("!label:app=api")
        cache = pane_text(app.panes["cache"])
        assert "2 objects match" in cache and "kube-system 1" in cache
        # The Inspector's key list: keys whose history has a Deleted delta.
        app.set_filter("type:Deleted")
        keys = pane_text(app.panes["inspector"]).splitlines()[1:]
        assert [k.split()[0] for k in keys if k.strip()] == ["default/web-2"]

    run(check, app, (160, 45))


def test_bang_inverts_the_current_filter():
    app = make_app(_labelled())

    async def check(pilot):
        await type_line(pilot, "slash", "web")
        await pilot.press("exclamation_mark")
        assert app.filter_text == "!web"
        assert set(_rows(app.panes["deltas"])) == {"default/api-1", "kube-system/dns-0"}
        await pilot.press("exclamation_mark")
        assert app.filter_text == "web"
        app.set_filter("")
        await pilot.press("exclamation_mark")
        await pilot.pause()
        assert any("type a filter with / first" in n for n in notices(app))

    run(check, app, (160, 45))


@pytest.mark.parametrize("opener, line", [("colon", "command_input"), ("slash", "filter_input")])
def test_keys_typed_right_after_the_opener_reach_the_line_not_the_pane(opener, line):
    # Textual hands each key to the widget focused when it reads it; a
    # binding's focus() moved the focus only later. A fast ":q⏎" (or a
    # paste) gave the q to the pane, where the line's claim on printable
    # keys hid it from the app's bindings (q quits, w jumps to Queue), and
    # the line got only the ⏎. All the keys are read before any is handled.
    app = make_app()

    async def check(pilot):
        from textual import events

        active = app.active
        assert app.panes[active].has_focus
        for key, char in ((opener, None), ("w", "w"), ("e", "e"), ("b", "b")):
            app.post_message(events.Key(key, char))  # as the driver posts what it reads
        await pilot.pause()
        widget = getattr(app, line)
        assert widget.has_focus and widget.value.endswith("web")
        assert app.active == active  # the w did not jump to the Queue pane

    run(check, app, (160, 45))


def test_a_restart_drops_the_old_runs_cursor_the_deltas_pane_follows_the_new_run():
    """`:deploy` with the Deltas cursor on a row: "paused at cursor" stayed for
    ever, on a row of the run that was gone."""
    e = demo_trace()
    app = make_app(e)

    async def check(pilot):
        await pilot.press("d", "k", "k")
        assert "paused at cursor" in pane_text(app.panes["deltas"])
        fed = len(e.events)
        e(
            "run.restart",
            resource="deployments.apps",
            namespace="default",
            client_go="1.32",
            fifo="DeltaFIFO",
            watch_list=False,
            restarts=1,
            took=0.02,
        )
        e("informer.start", fifo="DeltaFIFO", watch_list=False, resync_check_period=0.0)
        e("store.add", "default/web", resource_version="7", delta="Replaced", summary="", is_in_initial_list=True)
        app.buffer.extend(e.events[fed:])
        app.pump()
        await pilot.pause()
        text = pane_text(app.panes["deltas"])
        assert "paused at cursor" not in text and "default/web " in text

    run(check, app)


def test_ns_switches_the_namespace_and_ctx_says_why_not_on_the_demo():
    async def check(pilot, app, r):
        assert await until(pilot, lambda: app.states["cache"].count == 9, pump=True)
        await command(pilot, "ns kube-system")
        assert await until(pilot, lambda: app.header_state.info.namespace == "kube-system", pump=True)
        assert app.header_state.info.resource == "pods"
        await command(pilot, "ns -A")
        assert await until(pilot, lambda: app.header_state.info.namespace is None, pump=True)
        assert "pods ↻2 all namespaces" in screen_text(app)
        await command(pilot, "ctx other")
        assert await until(
            pilot, lambda: any(":ctx needs a kubeconfig's contexts" in n for n in notices(app)), pump=True
        )
        await command(pilot, "ns bad/name")
        assert await until(pilot, lambda: any("bad/name" in n for n in notices(app)), pump=True)
        assert r.restarts == 2

    live(check)


def test_a_successor_in_another_context_connects_anew():
    from kubectl_informer.run.runner import Run

    run_ = Run(RunConfig.from_flags(context="a"), None, None)
    run_._connection = object()
    assert run_.successor(run_.config.with_context("a"))._connection is run_.target
    assert run_.successor(run_.config.with_context("b"))._connection is None
