"""How the app spends a frame (tui/frames.py): its drain's share, and which
panes a frame redraws, keeping up and behind."""

from kubectl_informer.tui.frames import BEHIND_EVERY, BEHIND_FOCUSED_EVERY, clock_refresh, drain_budget, redraws_due


def test_a_ui_behind_after_the_sync_drains_a_bigger_share_and_during_the_list_does_not():
    keeping_up = drain_budget(15.0, behind=False, synced=True)
    assert keeping_up == drain_budget(15.0, behind=True, synced=False) == 0.3 / 15.0
    assert drain_budget(15.0, behind=True, synced=True) == 2 * keeping_up


def test_behind_the_focused_pane_redraws_every_third_frame_and_the_others_every_tenth():
    assert [redraws_due(f, behind=False) for f in range(3)] == [(True, True), (True, False), (True, False)]
    assert (BEHIND_FOCUSED_EVERY, BEHIND_EVERY) == (3, 10)
    behind = [redraws_due(f, behind=True) for f in range(30)]
    assert [f for f, (focused, _) in enumerate(behind) if focused] == list(range(0, 30, 3))
    assert [f for f, (_, others) in enumerate(behind) if others] == [0, 10, 20]


def test_the_header_says_when_the_ui_is_behind_and_when_the_informer_synced_ahead_of_the_panes():
    from kubectl_informer.core.trace import TraceEvent
    from kubectl_informer.panes.header import FeedStats, HeaderState
    from kubectl_informer.tui.header import HeaderPane

    state = HeaderState()
    state.feed(TraceEvent.build(1, 10.0, "list.start", None, resource_version="0", watch_list=False))
    pane = HeaderPane(state)
    pane.stats = FeedStats(absorbed=5000, per_s=2500.0, buffered=40_000, behind=True, summarised=1200)
    line = pane.draw_lines(200, 2)[1].plain
    assert "◌ listing" in line and "⚠ behind: 40,000 waiting · 1,200 rows summarised" in line
    state.synced_ahead = TraceEvent.build(2, 12.0, "informer.synced", None, items=3000, duration=2.0)
    line = pane.draw_lines(200, 2)[1].plain
    assert line.startswith("● synced 3000 in 2s (the panes catching up)")
    pane.stats = FeedStats(absorbed=45_000, summarised=1200)
    assert "1,200 rows summarised" in pane.draw_lines(200, 2)[1].plain


def test_the_header_says_how_many_events_a_ui_behind_summarised_while_behind_and_after():
    from kubectl_informer.panes.header import FeedStats, HeaderState
    from kubectl_informer.tui.header import HeaderPane

    pane = HeaderPane(HeaderState())
    pane.stats = FeedStats(absorbed=90_000, buffered=18_000, behind=True, events_summarised=81_920)
    assert "⚠ behind: 18,000 waiting · 81,920 events summarised" in pane.draw_lines(220, 2)[1].plain
    pane.stats = FeedStats(absorbed=120_000, events_summarised=81_920, summarised=40)
    line = pane.draw_lines(220, 2)[1].plain
    assert "81,920 events summarised, 40 rows summarised" in line and "behind" not in line
    pane.stats = FeedStats(absorbed=120_000)
    assert "summarised" not in pane.draw_lines(220, 2)[1].plain


def test_a_ui_behind_redraws_every_pane_for_the_clock_a_quarter_as_often():
    assert clock_refresh(behind=True) == 4 * clock_refresh(behind=False) == 2.0


def test_the_clock_redraws_the_panes_that_read_it_and_leaves_the_others_unchanged():
    from .helpers import make_app, run

    app = make_app()

    async def check(pilot):
        drawn = []

        def noting(draw, name):
            return lambda w, h: drawn.append(name) or draw(w, h)

        for name, pane in app.panes.items():
            pane.draw_lines = noting(pane.draw_lines, name)
        app._redraw(clock_due=True, header_due=False)  # nothing fed since the last frame
        assert {"deltas", "fifo", "inspector"}.isdisjoint(drawn)  # their rows are their state's
        assert {"queue", "rv", "resync", "server", "explain"} <= set(drawn)  # ages, countdowns, the cursor followed
        drawn.clear()
        app.states["deltas"].version += 1  # the state moved on: the clock redraws it too
        app._redraw(clock_due=True, header_due=False)
        assert "deltas" in drawn

    run(check, app, (160, 50))
