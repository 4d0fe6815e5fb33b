"""How the app spends a frame (tui/frames.py): its drain's share, and which
panes a frame redraws, keeping up and behind."""

from kubectl_informer.tui.frames import BEHIND_EVERY, drain_budget, redraws_due


def test_a_ui_behind_after_the_sync_drains_a_bigger_share_and_during_the_list_does_not():
    keeping_up = drain_budget(15.0, behind=False, synced=True)
    assert keeping_up == drain_budget(15.0, behind=True, synced=False) == 0.3 / 15.0
    assert drain_budget(15.0, behind=True, synced=True) == 2 * keeping_up


def test_behind_the_focused_pane_redraws_every_second_frame_and_the_others_every_sixth():
    assert [redraws_due(f, behind=False) for f in range(3)] == [(True, True), (True, False), (True, False)]
    behind = [redraws_due(f, behind=True) for f in range(2 * BEHIND_EVERY)]
    assert sum(focused for focused, _ in behind) == BEHIND_EVERY
    assert [f for f, (_, others) in enumerate(behind) if others] == [0, BEHIND_EVERY]
