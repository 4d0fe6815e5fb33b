"""A terminal resized through every common size, up and back down, and in
big jumps: the app stays alive and draws each size (tmux, the real command).

Starting at 80x24 and maximising to 160x45 gave a pane two rows for one
frame and crashed the Cache pane; `queue` crashed on 160x45 -> 80x24 -> 200x60.

Each sweep runs in a UI process another test already started, after (or
before) that test's own checks: the queue's and a replay's here, `watch` in
tests/e2e/test_tmux_commands.py, several informers in
tests/e2e/test_tmux_controller.py, attach in tests/attach/test_tmux_attach.py.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from tests.e2e.test_tmux import DELTA_LINE, SCRIPT, Terminal, pane_title

pytestmark = [
    pytest.mark.tmux,
    pytest.mark.e2e,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed (CI installs it)"),
]

SIZES = [(20, 5), (80, 24), (120, 40), (160, 45), (200, 60), (300, 80)]
# Up through every size, back down, then the jumps a window manager makes.
STEPS = SIZES + SIZES[-2::-1] + [(300, 80), (20, 5), (80, 24), (160, 45), (80, 24), (200, 60), (80, 24)]
BORDER_ENDS = ("╮", "╯", "│", "┤")
FOOTER_WORDS = ("Help", "Play")  # watch and queue, replay


@pytest.fixture
def short_dir():
    """tmux's socket path must stay short: not under pytest's tmp_path."""
    d = tempfile.mkdtemp(prefix="ki-", dir="/tmp")
    yield Path(d)
    shutil.rmtree(d, ignore_errors=True)


def informer_drawn(screen: str, width: int, height: int) -> bool:
    """The informer UI at this size: the header on top, the footer on the
    last row, and where panes have room a border on the right edge (the
    layout is this width's, not a cropped older one)."""
    rows = screen.split("\n")
    if len(rows) < height or "informer" not in rows[0] or not any(w in rows[height - 1] for w in FOOTER_WORDS):
        return False
    return height < 8 or any(len(r) == width and r.endswith(BORDER_ENDS) for r in rows)


def attach_drawn(screen: str, width: int, height: int) -> bool:
    """The attach screen at this size: its status on top, its keys on the
    last row, our informer's Deltas pane reaching the right edge."""
    rows = screen.split("\n")
    if len(rows) < height or "attach" not in rows[0] or "Quit" not in rows[height - 1]:
        return False
    return any(len(r) == width and r.endswith(BORDER_ENDS) for r in rows)


def sweep(term: Terminal, drawn) -> None:
    for width, height in STEPS:
        term.tmux("resize-window", "-t", "ki", "-x", str(width), "-y", str(height))
        screen = term.wait(
            lambda s, width=width, height=height: drawn(s, width, height) or term.exit_file.exists(),
            f"the app drawn at {width}x{height}",
            timeout=30,
        )
        assert not term.exit_file.exists(), f"the app exited at {width}x{height}:\n{screen}"
        assert "Traceback" not in screen
    pid = term.command_pid()
    os.kill(pid, 0)  # still running after the sweep


def quit_with_0(term: Terminal) -> None:
    term.keys("q")
    assert term.exit_code() == 0


def start(dirpath: Path, args: str) -> Terminal:
    term = Terminal(dirpath, 80, 24, args)
    term.wait(lambda s: informer_drawn(s, 80, 24) or term.exit_file.exists(), "the first screen", timeout=40)
    return term


def test_queue_starts_on_the_queue_pane_and_resize_sweep(short_dir):
    term = Terminal(short_dir, 100, 30, "queue pods --demo --resync 2s --fail-rate 0.2 --work-time 50ms")
    try:
        screen = term.wait(
            lambda s: pane_title(s, "Queue") and "processing" in s and "workers" in s and "default/" in s,
            "the Queue pane with work in it",
            timeout=40,
        )
        assert not pane_title(screen, "Deltas")
        sweep(term, informer_drawn)
        quit_with_0(term)
    finally:
        term.close()


def test_replay_in_the_ui_resize_sweep_then_pause_seek_step(short_dir):
    rec = short_dir / "trace.ndjson"
    with rec.open("w") as out:
        subprocess.run(
            [str(SCRIPT), "watch", "pods", "--demo", "disconnect", "-o", "json", "--duration", "3s"],
            stdout=out,
            check=True,
            timeout=60,
            env=dict(os.environ, KUBECONFIG=os.devnull),
        )
    term = start(short_dir, f"replay {rec} --speed 0.5")
    try:
        screen = term.wait(lambda s: len(DELTA_LINE.findall(s)) >= 3, "the recorded deltas")
        assert "replay" in screen
        sweep(term, informer_drawn)
        # The playhead on the header's third line: pause, back to the start, step one event.
        term.keys("Space")
        term.wait(lambda s: "❚❚" in s or "■ end" in s, "the replay paused")
        term.keys("t")
        term.wait(lambda s: "seek to:" in s, "the seek prompt")
        term.keys("0", "Enter")
        term.wait(
            lambda s: re.search(r"❚❚\s+replay trace\.ndjson 0:00\.0/\S+ .*ev 1/\d+", s),
            "the replay paused at its first event",
        )
        term.keys(".")
        term.wait(lambda s: re.search(r"❚❚\s+replay trace\.ndjson 0:00\.\d/\S+ .*ev 2/\d+", s), "one event stepped")
        quit_with_0(term)
    finally:
        term.close()
