"""The Server pane in a real terminal: `kubectl informer watch pods --demo
small-window` in tmux, `s`, and the screen shows our watcher in the API
server's window, its fall (410) and the relist that follows. SIGINT then
ends that process (130, the terminal restored, no temp dir left): the check
of tests/e2e/test_tmux.py's signal test for SIGINT, in a process already
running instead of one more."""

from __future__ import annotations

import os
import re
import signal

import pytest

from tests.e2e.test_tmux import pane_title

pytestmark = [pytest.mark.tmux, pytest.mark.e2e]

WINDOW_BAR = re.compile(r"\b(\d+) ├[─▲│◀]+┤ (\d+)\b")


def counted(screen: str, what: str) -> int:
    m = re.search(rf"{what} ×(\d+)", screen)
    return int(m.group(1)) if m else 0


def test_small_window_shows_ours_falling_out_and_the_relist_then_sigint(terminal, tmp_path):
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    t = terminal(100, 30, "watch pods --demo small-window", env_extra={"TMPDIR": str(tmp)})
    t.wait(lambda s: re.search(r"q\s+Quit", s) and "synced" in s, "the app")
    t.keys("s")
    # The scenario sets the window to 8 events once it runs.
    screen = t.wait(
        lambda s: pane_title(s, "Server") and WINDOW_BAR.search(s) and "◀ ours" in s and "/8 events" in s,
        "the Server pane with the window and ours",
    )
    lo, hi = map(int, WINDOW_BAR.search(screen).groups())
    assert lo <= hi and "simulator, exact" in screen and "ours  RV" in screen
    # Every 8 s the streams stall while pods change; the server ends our watcher, its re-watch is too old.
    screen = t.wait(
        lambda s: (
            counted(s, "410") >= 1
            and re.search(r"our relists [1-9]", s)
            and "410 Gone: ours at RV" in s
            and "our informer relisted (expired)" in s
        ),
        "a 410 and the relist",
        timeout=40,
    )
    assert re.search(r"410 Expired|relists \d+ \(expired\)", screen.splitlines()[1])  # the header says it too
    # Back in the window after the relist: a watcher of ours again.
    t.wait(lambda s: "◀ ours" in s and "▲" in s, "ours back in the window")
    os.kill(t.command_pid(), signal.SIGINT)
    assert t.exit_code() == 128 + signal.SIGINT
    t.wait(lambda s: not pane_title(s, "Server") and "Quit" not in s, "the shell's screen again")
    assert not [f for f in tmp.iterdir() if f.name.startswith("kubectl-informer-demo-")]
