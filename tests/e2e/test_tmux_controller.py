"""A controller's shape in a real terminal: `queue --controller deployment
--demo rollout` at 160x45 in tmux, the simulated controllers rolling
Deployment web. The Informers pane lists the three informers synced; the
Inspector, on the Deployment key, says which ReplicaSet or Pod event queued
it; `:pods` makes every pane show the pods
informer, tab in the Informers pane walks them; then the terminal is resized
through every common size (test_resize_sweep.py's sweep). One UI process."""

from __future__ import annotations

import re
import time

from .test_resize_sweep import informer_drawn, sweep
from .test_tmux import pane_title

ROLLOUT = "queue --controller deployment --demo rollout"
REVERSE = re.compile(r"\x1b\[(?:\d+;)*7m")  # SGR 7, alone or with others (1;7)
ROW = r"^│ [▶ ] {name}\s+✓ \d+\s+\d+"


def _synced_rows(screen: str) -> bool:
    return all(
        re.search(ROW.format(name=re.escape(n)), screen, re.M) for n in ("deployments.apps", "replicasets.apps", "pods")
    )


def test_rollout_informers_synced_the_owned_cause_switching_informers_and_a_resize_sweep(terminal):
    # One UI process walks through the checks: each start costs more CPU
    # than everything the test does after it.
    t = terminal(160, 45, ROLLOUT)
    informers_synced_and_the_deployment_key_with_its_owned_cause(t)
    switching_informers(t)
    sweep(t, informer_drawn)
    t.keys("q")
    assert t.exit_code() == 0


def informers_synced_and_the_deployment_key_with_its_owned_cause(t) -> None:
    screen = t.wait(
        lambda s: pane_title(s, "Informers") and _synced_rows(s) and "3/3 synced" in s,
        "three informers synced in the Informers pane",
    )
    assert re.search(r"^│ ▶ deployments\.apps", screen, re.M)  # the queue's resource is shown first
    assert "deployments.apps" in screen.splitlines()[0]
    # Wait until an owned object's event queued web, then follow web in the Inspector.
    t.wait(lambda s: re.search(r"why default/web", s), "a reason for default/web in the Queue pane")
    # Each key waits for the last one's effect: a key is read by the widget focused then.
    t.keys("/")
    t.wait(lambda s: "▔▔▔" in s, "the filter line open")
    t.keys("^default/web$")
    t.wait(lambda s: "/^default/web$" in s.splitlines()[2], "the filter in the tab bar")
    t.keys("Enter")
    t.wait(lambda s: "▔▔▔" not in s, "the filter line closed, the filter kept")
    t.keys("i")
    t.wait(
        lambda s: re.search(r"^│ .*│ default/web \d+ events", s, re.M) or "Inspector: default/web" in s,
        "the Inspector's key list filtered to default/web",
    )
    t.keys("Enter")
    screen = t.wait(
        lambda s: (
            "Inspector: default/web" in s
            and re.search(r"why: default/web( ← | · \d+ adds?)", s)
            and re.search(r"← (ReplicaSet default/web-\w+|Pod default/web-\w+-\w+) (Added|Updated|Deleted)", s)
        ),
        "the Inspector on default/web with a ReplicaSet or Pod cause",
    )
    lines = screen.splitlines()
    assert len(lines) == 45 and all(len(line) <= 160 for line in lines)


def _informers_focused(t) -> bool:
    """The Informers pane has the focus: its selected row is drawn reversed
    (read with the escapes: capture-pane -e). A key a pane binds goes to the
    pane focused when it is read, so the test waits for the focus to move."""
    styled = t.tmux("capture-pane", "-e", "-p", "-t", "ki")
    return any("▶" in line and REVERSE.search(line) for line in styled.splitlines())


def _focus_informers(t) -> None:
    t.keys("o")
    deadline = time.monotonic() + 10
    while not _informers_focused(t):
        assert time.monotonic() < deadline, t.screen()
        time.sleep(0.05)  # polling the screen


def switching_informers(t) -> None:
    t.wait(lambda s: _synced_rows(s), "three informers synced")
    t.keys(":", "pods", "Enter")
    screen = t.wait(
        lambda s: re.search(r"^│ ▶ pods ", s, re.M) and "informer  pods" in s.splitlines()[0],
        "the pods informer selected by :pods",
    )
    assert "panes show pods" in screen
    _focus_informers(t)
    t.keys("BTab")  # in the Informers pane, shift+tab is the previous informer
    t.wait(
        lambda s: re.search(r"^│ ▶ replicasets\.apps ", s, re.M) and "informer  replicasets.apps" in s.splitlines()[0],
        "shift+tab: the previous informer",
    )
    t.keys("Tab")
    t.wait(lambda s: re.search(r"^│ ▶ pods ", s, re.M), "tab: the next informer")
    t.keys("Tab")  # past the last informer: the next pane, the selection kept
    t.wait(lambda s: not _informers_focused(t) and re.search(r"^│ ▶ pods ", s, re.M), "tab past the last informer")
