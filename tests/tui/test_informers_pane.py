"""The Informers pane in the app (Textual pilot): one row per informer, the
other panes following the selected one, and the ways to switch (tab in the
pane, ↑ ↓, :rs); a one-informer run has no such pane."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hs
from rich.cells import cell_len

from kubectl_informer.clock.testing import FakeClock
from kubectl_informer.panes.informers import InformersState
from kubectl_informer.panes.queue import QueueState
from kubectl_informer.tui.app import InformerApp
from kubectl_informer.tui.informers import InformersPane
from kubectl_informer.tui.queue import render_queue

from ..panes.controller_trace import DEPLOY, INFO, PODS, RS, rollout
from .helpers import make_app, pane_text, run, screen_text


def controller_app(**kw) -> InformerApp:
    t = rollout(rs_updates=4)
    buf = t.events
    from kubectl_informer.core.trace import TraceBuffer

    b = TraceBuffer()
    b.extend(buf)
    return InformerApp(b, INFO, clock=FakeClock(start=t.events[-1].time + 1.0), **kw)


def test_one_informer_run_has_no_informers_pane():
    app = make_app()

    async def check(pilot):
        assert "informers" not in app.panes
        assert app.specs[0].name == "deltas"  # the tab order and numbers as they were
        assert not app.informer_choice.step(1)

    run(check, app, size=(160, 45))


def test_rows_list_every_informer_synced_and_the_selected_one():
    app = controller_app(start_pane="informers")

    async def check(pilot):
        text = pane_text(app.panes["informers"])
        for name in (DEPLOY, RS, PODS):
            assert name in text
        assert "3/3 synced" in text
        assert f"▶ {DEPLOY}" in text
        screen = screen_text(app)
        assert "Informers" in screen
        footer = screen.splitlines()[-1]
        assert " o " in footer and "Informers" in footer and "Next pane/informer" in footer

    run(check, app, size=(160, 45))


def test_tab_in_the_informers_pane_walks_the_informers_then_the_panes():
    app = controller_app(start_pane="informers")

    async def check(pilot):
        assert app.feed_loop.selected == DEPLOY
        await pilot.press("tab")
        assert app.feed_loop.selected == RS and app.active == "informers"
        await pilot.press("tab")
        assert app.feed_loop.selected == PODS and app.active == "informers"
        await pilot.press("tab")
        assert app.active == "deltas" and app.feed_loop.selected == PODS
        await pilot.press("tab")
        assert app.active == "fifo"  # elsewhere tab is the next pane, as before
        await pilot.press("o")
        await pilot.press("shift+tab")
        assert app.feed_loop.selected == RS and app.active == "informers"

    run(check, app, size=(160, 45))


def test_enter_in_the_informers_pane_shows_the_selected_informers_deltas():
    # The pane's bindings reach the app through tui/host.py's typed accessor.
    app = controller_app(start_pane="informers")

    async def check(pilot):
        await pilot.press("down", "enter")
        assert app.feed_loop.selected == RS and app.active == "deltas"

    run(check, app, size=(160, 45))


def test_panes_show_only_the_selected_informers_events():
    app = controller_app(start_pane="inspector")

    async def check(pilot):
        inspector = pane_text(app.panes["inspector"])
        assert "default/web " in inspector and "default/web-5887-0" not in inspector
        await pilot.press("o", "down", "down")
        assert app.feed_loop.selected == PODS
        assert app.panes["inspector"].state is app.feed_loop.sets[PODS]["inspector"]
        await pilot.pause()
        inspector = pane_text(app.panes["inspector"])
        assert "default/web-5887-0" in inspector and "default/web " not in inspector
        assert "pods" in screen_text(app).splitlines()[0]  # the header names the informer shown

    run(check, app, size=(160, 45))


def test_colon_short_name_selects_an_informer_without_a_restart():
    app = controller_app()

    async def check(pilot):
        await pilot.press(":", "r", "s", "enter")
        await pilot.pause()
        assert app.feed_loop.selected == RS
        await pilot.press(":", *"deployments.apps", "enter")
        await pilot.pause()
        assert app.feed_loop.selected == DEPLOY
        await pilot.press(":", *"pod", "enter")
        await pilot.pause()
        assert app.feed_loop.selected == PODS

    run(check, app, size=(120, 40))


def test_inspector_says_why_the_deployment_key_was_queued():
    app = controller_app(start_pane="inspector")

    async def check(pilot):
        app.panes["inspector"].inspect("default/web")
        await pilot.pause()
        text = pane_text(app.panes["inspector"])
        # Too long for the grid's Inspector: the key and its adds, then the chain.
        assert "why: default/web ← ReplicaSet default/web-5887 Updated · 4 adds → 1 reconcile" in text
        assert "by updateReplicaSet" in text  # the timeline's adds name the handler

    run(check, app, size=(160, 45))


def test_queue_pane_says_why_keys_were_queued_and_what_was_dropped():
    app = controller_app(start_pane="queue")

    async def check(pilot):
        pane = app.panes["queue"]
        text = render_queue(pane.state, None, 150, 30).plain
        assert "default/web ← ReplicaSet default/web-5887 Updated" in text and "← Pod" not in text
        assert "4 adds → 1 reconcile" in text
        assert "orphan (no controller owner) 1" in text and "UID mismatch 1" in text
        assert "pod deleted, not Recreate 1" in text

    run(check, app, size=(160, 45))


def test_layout_survives_every_size_with_several_informers():
    app = controller_app()

    async def check(pilot):
        for size in ((20, 5), (80, 24), (150, 36), (160, 45), (300, 80), (40, 10)):
            await pilot.resize_terminal(*size)
            await pilot.pause()
            app.pump()
            assert len(screen_text(app).splitlines()) == size[1]

    run(check, app, size=(80, 24))


SIZES = dict(width=hs.integers(1, 320), height=hs.integers(1, 100))


def _fed(state_cls):
    st = state_cls()
    run_info = getattr(st, "run_info", None)
    if run_info is not None:
        run_info(INFO)
    st.feed_all(rollout(rs_updates=6).events)
    return st


def test_informers_pane_draws_at_any_size():
    pane = InformersPane(_fed(InformersState))  # fed once: the examples vary the size alone

    @settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(**SIZES)
    def check(width, height):
        text = pane.render_at(width, height)
        lines = text.plain.split("\n")
        assert len(lines) <= height and all(cell_len(line) <= width for line in lines)

    check()


def test_queue_pane_with_causes_draws_at_any_size():
    state = _fed(QueueState)  # fed once: the examples vary the size alone

    @settings(max_examples=150, deadline=None)
    @given(**SIZES)
    def check(width, height):
        text = render_queue(state, None, width, height)
        lines = text.plain.split("\n")
        assert len(lines) <= height and all(cell_len(line) <= width for line in lines)

    check()
