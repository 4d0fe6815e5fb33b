"""Snapshots of the layout (pytest-textual-snapshot). Only the core panes are
drawn, so another pane's rendering changes cannot break these; the clock is a
FakeClock so ages in the header are fixed.

Regenerate after an intended change: pytest tests/tui/test_snapshots.py --snapshot-update
"""

from .helpers import make_app

CORE = ("deltas", "fifo", "cache", "inspector")


async def _pump(pilot):
    pilot.app.pump()
    await pilot.pause()


def test_snapshot_small_terminal_deltas(snap_compare):
    assert snap_compare(make_app(size_panes=CORE), terminal_size=(80, 24), run_before=_pump)


def test_snapshot_small_terminal_fifo(snap_compare):
    assert snap_compare(make_app(size_panes=CORE), terminal_size=(80, 24), run_before=_pump, press=["2"])


def test_snapshot_small_terminal_inspector(snap_compare):
    assert snap_compare(make_app(size_panes=CORE), terminal_size=(80, 24), run_before=_pump, press=["up", "enter"])


def test_snapshot_help(snap_compare):
    assert snap_compare(make_app(size_panes=CORE), terminal_size=(80, 24), run_before=_pump, press=["question_mark"])


def test_snapshot_large_terminal_grid(snap_compare):
    assert snap_compare(make_app(size_panes=CORE), terminal_size=(160, 50), run_before=_pump)


def test_snapshot_medium_terminal_two_panes(snap_compare):
    assert snap_compare(make_app(size_panes=CORE), terminal_size=(130, 30), run_before=_pump, press=["2"])
