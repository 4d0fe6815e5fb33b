"""How the app spends a frame: how long it drains, which panes it redraws.

Drawing is most of a frame's cost on a big grid: the focused pane redraws
every frame, the others every ``BACKGROUND_EVERY`` frames (5 Hz at 15 Hz).
While the UI is behind the engine (``panes/pressure.py``) the focused pane
redraws every ``BEHIND_FOCUSED_EVERY`` frames (5 Hz) and the others every
``BEHIND_EVERY`` (1.5 Hz), the clock's redraw of every pane every
``BEHIND_CLOCK_REFRESH`` seconds: their rows move too fast to read then,
and the time goes to catching up (a key still redraws at once). A drain
takes ``DRAIN_SHARE`` of a frame, or ``BEHIND_SHARE`` while behind once
the informer has synced; a key arriving mid-drain stops it between chunks,
so keys wait no longer for a bigger share. During the initial list the
engine needs the CPU more: the panes catch up after, and the header reads
the informer's sync ahead of them.
"""

from __future__ import annotations

# Unchanged panes still redraw this often (seconds), for ages and
# countdowns (the panes that read the clock: Pane.READS_CLOCK); while
# behind, a quarter as often.
CLOCK_REFRESH = 0.5
BEHIND_CLOCK_REFRESH = 2.0
BACKGROUND_EVERY = 3
BEHIND_EVERY = 10
BEHIND_FOCUSED_EVERY = 3
DRAIN_SHARE = 0.3
BEHIND_SHARE = 0.6


def drain_budget(frame_rate: float, behind: bool, synced: bool) -> float:
    """Seconds of this frame the drain may take."""
    if behind and synced:
        return min(BEHIND_SHARE / frame_rate, 0.08)
    return min(DRAIN_SHARE / frame_rate, 0.05)


def clock_refresh(behind: bool) -> float:
    """Seconds between two redraws of every shown pane (ages, countdowns)."""
    return BEHIND_CLOCK_REFRESH if behind else CLOCK_REFRESH


def redraws_due(frame: int, behind: bool) -> tuple[bool, bool]:
    """(the focused pane, the others): whether frame number ``frame``
    redraws them when their state changed."""
    if behind:
        return frame % BEHIND_FOCUSED_EVERY == 0, frame % BEHIND_EVERY == 0
    return True, frame % BACKGROUND_EVERY == 0
