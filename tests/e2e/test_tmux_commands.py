"""`:` commands in a real terminal: the real command on --demo in tmux,
after the terminal was resized through every common size (the sweep of
test_resize_sweep.py; one UI process for both)."""

import re

from .test_resize_sweep import informer_drawn, sweep
from .test_tmux import DELTA_LINE
from .test_tmux import pytestmark as tmux_marks

pytestmark = tmux_marks  # the tmux mark, and the skip where tmux is not installed

DEPLOYMENT_LINE = re.compile(r"\b(Added|Updated|Replaced|Sync)\s+shop/(frontend|cart|payments)\s")


def test_resize_sweep_then_colon_deploy_restarts_on_the_same_demo_then_profile_and_quit(terminal):
    t = terminal(80, 24)
    t.wait(lambda s: len(DELTA_LINE.findall(s)) >= 3 and informer_drawn(s, 80, 24), "pods' deltas")
    sweep(t, informer_drawn)  # it ends at 80x24
    t.wait(lambda s: len(DELTA_LINE.findall(s)) >= 3, "pods' deltas")
    t.keys(":")
    t.wait(lambda s: "deploy -n kube-system" in s, "the command line")
    t.keys("deploy -n shop", "Enter")
    screen = t.wait(
        lambda s: "deployments.apps ↻1 ns shop" in s.splitlines()[0] and DEPLOYMENT_LINE.search(s),
        "the deployments of shop after the restart",
    )
    assert not DELTA_LINE.search(screen)  # the pods' rows went with the old run
    t.keys("P", "f")  # client-go 1.32 -> 1.35; the FIFO pane says which FIFO runs
    t.wait(lambda s: "↻2" in s.splitlines()[0] and re.search(r"RealFIFO \d+ entr", s), "RealFIFO after P")
    t.keys(":")
    t.keys("nosuch", "Enter")
    t.wait(lambda s: 'resource type "nosuch"' in s, "the notification")
    t.keys(":")
    t.keys("q", "Enter")
    assert t.exit_code() == 0
