"""Keys a k9s user expects: ?, q, /, p, tab, enter, esc, jumps, zoom."""

import pytest

from kubectl_informer.clock.testing import wait_for
from kubectl_informer.tui.help import HelpScreen

from .helpers import TraceMaker, demo_trace, make_app, pane_text, run, screen_text, type_line


def test_question_mark_opens_help_and_escape_closes_it():
    app = make_app()

    async def check(pilot):
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        text = screen_text(app)
        assert "regex," in text and "label:app=web" in text and "Inspector" in text and "pause the view" in text
        await pilot.press("escape")
        assert not isinstance(app.screen, HelpScreen)
        await pilot.press("question_mark", "question_mark")
        assert not isinstance(app.screen, HelpScreen)

    run(check, app)


@pytest.mark.parametrize("key", ["q", "ctrl+c"])
def test_q_and_ctrl_c_quit(key):
    app = make_app()

    async def check(pilot):
        await pilot.press(key)
        await pilot.pause()
        return app.is_running

    assert run(check, app) is False
    assert app.return_code == 0


def test_slash_filters_deltas_fifo_and_inspector_and_escape_clears():
    app = make_app()

    async def check(pilot):
        await pilot.press("slash")
        assert app.filter_input.display and app.filter_input.has_focus
        await pilot.press(*"web-1")
        assert app.filter_text == "web-1"
        rows = pane_text(app.panes["deltas"]).splitlines()[2:]  # under the status and the legend
        keys = {ln.split()[2] for ln in rows if ln.strip()}
        assert keys == {"default/web-1"}
        assert "web-3" not in pane_text(app.panes["fifo"])
        assert "web-2" not in pane_text(app.panes["inspector"])
        # Letters typed into the filter are not pane jumps.
        assert app.active == "deltas"
        await pilot.press("enter")  # keeps the filter, closes the input
        assert not app.filter_input.display and app.filter_text == "web-1"
        assert "/web-1" in screen_text(app).splitlines()[2]
        await pilot.press("escape")
        assert app.filter_text == ""
        assert len([ln for ln in pane_text(app.panes["deltas"]).splitlines()[2:] if ln.strip()]) == 8

    run(check, app)


def test_filter_naming_a_key_exactly_picks_it_for_the_inspector():
    app = make_app()

    async def check(pilot):
        await type_line(pilot, "slash", "default/web-3")
        assert app.panes["inspector"].inspected == "default/web-3"

    run(check, app)


def test_p_pauses_the_view_and_the_buffer_keeps_events_until_resumed():
    app = make_app(frame_rate=50)

    async def check(pilot):
        deltas = app.states["deltas"]
        before = deltas.total
        await pilot.press("p")
        assert app.paused
        e = TraceMaker(start=500.0)
        for i in range(50):
            e("store.add", f"ns/p-{i}", resource_version=str(i), delta="Added")
        app.buffer.extend(e.events)
        await pilot.pause(0.2)  # ten frames pass
        assert deltas.total == before and len(app.buffer) == 50
        assert "PAUSED 50 buffered" in screen_text(app)
        await pilot.press("p")
        await pilot.pause(0.1)
        for _ in range(50):
            if deltas.total == before + 50:
                break
            await pilot.pause(0.05)
        assert deltas.total == before + 50 and len(app.buffer) == 0

    run(check, app)


def test_tab_and_shift_tab_cycle_panes_and_jump_keys_go_straight_there():
    app = make_app()

    async def check(pilot):
        order = [s.name for s in app.specs]
        assert app.active == order[0]
        await pilot.press("tab")
        assert app.active == order[1] and app.panes[order[1]].has_focus
        assert app.panes[order[1]].display and not app.panes[order[0]].display  # 80 columns: one pane
        await pilot.press("shift+tab", "shift+tab")
        assert app.active == order[-1]
        await pilot.press("1")
        assert app.active == order[0]
        nine = min(len(order), 9)  # 1-9 jump to the first nine; a pane after them has its letter only
        await pilot.press(str(nine))
        assert app.active == order[nine - 1]
        await pilot.press("s")
        assert app.active == "server"
        await pilot.press("n")
        assert app.active == "resync"
        await pilot.press("f")
        assert app.active == "fifo"
        await pilot.press("c")
        assert app.active == "cache"
        await pilot.press("d")
        assert app.active == "deltas"

    run(check, app)


def test_enter_inspects_the_selected_delta_and_escape_goes_back():
    app = make_app()

    async def check(pilot):
        await pilot.press("up")  # from the tail (web-2 deleted) to web-1's last update
        assert app.panes["deltas"].selected_key() == "default/web-1"
        await pilot.press("enter")
        assert app.active == "inspector"
        insp = app.panes["inspector"]
        assert insp.inspected == "default/web-1"
        lines = pane_text(insp).splitlines()
        assert lines[0].startswith("default/web-1")
        kinds = [ln.split()[2] for ln in lines[2:] if ln.strip()]
        # Its life in order: listed, popped, stored, handled, then the watch.
        assert kinds.index("fifo.queue") < kinds.index("fifo.pop") < kinds.index("store.add")
        assert kinds.index("watch.event") < kinds.index("fifo.coalesce") < kinds.index("store.update")
        assert kinds[-2:] == ["queue.get", "queue.done"]
        await pilot.press("escape")
        assert app.active == "deltas"

    run(check, app, (100, 40))  # tall enough for web-1's 18 events


def test_enter_in_fifo_inspects_the_queued_key():
    app = make_app(start_pane="fifo")

    async def check(pilot):
        await pilot.press("enter")
        assert app.panes["inspector"].inspected == "default/web-3"

    run(check, app)


def test_enter_in_the_inspector_key_list_and_backspace():
    app = make_app(start_pane="inspector")

    async def check(pilot):
        await pilot.press("down", "enter")  # second most recent key
        insp = app.panes["inspector"]
        assert insp.inspected == "default/ghost"
        await pilot.press("backspace")
        assert insp.inspected is None

    run(check, app)


@pytest.mark.parametrize("size", [(160, 50), (130, 30), (80, 24)], ids=["grid", "two-panes", "tabs"])
def test_z_zooms_the_focused_pane_to_the_whole_screen(size):
    """The focused pane alone, as wide as the screen and as tall as it gets
    between the tab bar and the footer; z again restores the layout."""
    app = make_app()

    async def check(pilot):
        before = {n for n, p in app.panes.items() if p.display}
        await pilot.press("f", "z")
        await pilot.pause()
        shown = [n for n, p in app.panes.items() if p.display]
        assert shown == ["fifo"]
        region = app.panes["fifo"].region
        assert region.width == size[0]
        assert region.height == size[1] - 2 - 1 - 1  # header, tab bar, footer
        await pilot.press("z")
        await pilot.pause()
        assert {n for n, p in app.panes.items() if p.display} == (
            before if app.layout_mode == "grid" else app.shown_panes()
        )
        assert app.layout_mode == ("grid" if size == (160, 50) else "tabs")

    run(check, app, size)


def test_timer_drains_the_buffer_without_pump():
    app = make_app(trace=TraceMaker(), frame_rate=30)

    async def check(pilot):
        e = demo_trace()
        app.buffer.extend(e.events)
        for _ in range(100):
            if app.states["deltas"].total == 8:
                break
            await pilot.pause(0.02)
        assert app.states["deltas"].total == 8
        assert "default/web-2" in pane_text(app.panes["deltas"])

    run(check, app)


def test_a_frame_stops_draining_when_its_budget_is_spent():
    from kubectl_informer.panes.feed import CHUNK

    e = TraceMaker()
    for i in range(5 * CHUNK):
        e("store.add", f"ns/p-{i}", resource_version=str(i), delta="Added")
    app = make_app(e)
    # A zero budget: one chunk, then give the event loop back.
    assert app.drain(budget=0.0) == CHUNK
    assert len(app.buffer) == 4 * CHUNK
    assert app.drain(max_events=10) == 10
    assert app.drain() == 4 * CHUNK - 10
    assert wait_for(lambda: len(app.buffer) == 0, 1.0)


def test_help_says_what_every_pane_shows_and_what_the_predicates_column_means():
    from kubectl_informer.tui.app import PANE_NAMES
    from kubectl_informer.tui.help import PANE_HELP

    assert all(PANE_HELP.get(name, "").strip() for name in PANE_NAMES)
    app = make_app()

    async def check(pilot):
        await pilot.press("question_mark")
        await pilot.pause()
        text = " ".join(screen_text(app).split())
        assert "Handlers one lane per event handler" in " ".join(text.replace("│", " ").split())
        assert "GenerationChanged" in text

    run(check, app, (200, 120))  # tall enough for the whole help


def test_deltas_pane_has_a_legend_for_the_predicates_column():
    e = demo_trace()
    e(
        "store.update",
        "default/web-0",
        resource_version="120",
        old_resource_version="90",
        delta="Updated",
        summary="Running",
        predicates=["ResourceVersionChanged", "LabelChanged"],
        is_in_initial_list=False,
    )
    app = make_app(e, start_pane="deltas")

    async def check(pilot):
        lines = pane_text(app.panes["deltas"]).splitlines()
        assert lines[1].startswith(
            "GRLA predicates an update passes: G GenerationChanged  R ResourceVersionChanged"
            "  L LabelChanged  A AnnotationChanged  · drops it  resync same RV"
        )
        # The marker it explains is on the update rows below.
        assert any("·RL· Running" in ln for ln in lines[2:])

    run(check, app, (160, 50))


def test_escape_goes_back_one_step_everywhere():
    """k9s habits: esc un-zooms, leaves a key for the Inspector's list, and
    leaves the Inspector and Explain for the pane they came from, however
    they were reached (started there, jumped to, opened from another pane)."""
    app = make_app(start_pane="inspector")

    async def check(pilot):
        insp = app.panes["inspector"]
        await pilot.press("enter")
        assert insp.inspected is not None
        await pilot.press("z")
        assert app.zoomed
        await pilot.press("escape")
        assert not app.zoomed and app.active == "inspector" and insp.inspected is not None
        await pilot.press("escape")
        assert app.active == "inspector" and insp.inspected is None
        await pilot.press("escape")
        assert app.active == "deltas"
        await pilot.press("f", "e")
        assert app.active == "explain"
        await pilot.press("escape")
        assert app.active == "fifo"
        await pilot.press("e", "i", "escape", "escape")  # Explain, then the Inspector: back to a stream pane
        assert app.active not in ("inspector", "explain")

    run(check, app, (100, 40))


def test_help_names_the_key_that_really_jumps_to_the_informers_pane():
    from kubectl_informer.tui.keymap import HELP_KEYS, PANE_LETTERS

    text = " ".join(what for _, what in HELP_KEYS)
    assert f"{PANE_LETTERS['informers']} jumps to the Informers pane" in text
    assert PANE_LETTERS["informers"] == "o" and PANE_LETTERS["resync"] == "n"


@pytest.mark.parametrize("size", [(80, 24), (60, 15)])
def test_narrow_tab_bars_keep_labels_a_reader_can_tell_apart(size):
    """Cut to four letters (80 columns) the tabs read `4 Resy 5 Queu`, to one
    (60) `2 F 3 R 4 R`; now three-letter abbreviations, then the keys alone,
    and the active tab whole."""
    app = make_app()

    async def check(pilot):
        bar = next(ln for ln in screen_text(app).splitlines() if " 1 " in ln and " 2 " in ln)
        assert "Deltas" in bar  # the active tab, whole
        words = bar.split()
        labels = [w for w in words if not w.isdigit() and w not in ("s",)]
        assert len(labels) == len(set(labels))  # no two tabs with the same label
        assert not any(w in ("Resy", "Queu", "F", "R") for w in words)

    run(check, app, size)


def test_a_several_informer_runs_footer_keeps_the_filter_key_at_80_columns():
    from kubectl_informer.tui.keyhints import hints_line
    from kubectl_informer.tui.keymap import FOOTER_HINTS_SEVERAL

    line = hints_line(FOOTER_HINTS_SEVERAL, 80).plain
    assert " / " in line and " ? " in line and " q " in line
