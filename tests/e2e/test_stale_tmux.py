"""``--demo stale`` in a real terminal at 160x45: with the read-your-own-writes
check on, the Queue pane counts the stale-sync skips and the catch-up and no
duplicate create; ``:consistency off`` on the same run, and the next scale
makes duplicate creates from the stale Pod cache. The Informers pane shows
each store's RV and how far it trails the server."""

from __future__ import annotations

import re

import pytest

from tests.e2e.test_tmux import pane_title

pytestmark = [pytest.mark.tmux, pytest.mark.e2e]

SKIPS = re.compile(r"stale-sync skips (\d+) \(pods \d+\)")
DUPLICATES = re.compile(r"(\d+) duplicate creates \(acted on a stale cache\)")


def test_stale_demo_skips_with_the_check_and_duplicates_without(terminal):
    t = terminal(160, 45, "queue replicasets --owns pods --demo stale --client-go 1.36")
    screen = t.wait(
        lambda s: pane_title(s, "Informers") and re.search(r"pods .* ✓ \d+ +\d+ +\d+ +\d+", s),
        "the Informers pane with each store's RV and lag",
    )
    assert (
        "store RV" in screen and "behind" in screen and "behind: RV units after the server's newest (exact)" in screen
    )
    t.keys("6", "z")  # the Queue pane, zoomed
    screen = t.wait(
        lambda s: "read-your-own-writes ON" in s and SKIPS.search(s) and "caught up 1×" in s,
        "skips counted, then the catch-up",
        timeout=30,
    )
    assert int(SKIPS.search(screen).group(1)) >= 1
    assert "no duplicate create" in screen and not DUPLICATES.search(screen)
    t.keys(":consistency off", "Enter")
    screen = t.wait(
        lambda s: "read-your-own-writes OFF" in s and DUPLICATES.search(s),
        "duplicate creates without the check",
        timeout=30,
    )
    assert int(DUPLICATES.search(screen).group(1)) >= 2
    t.keys("q")
    assert t.exit_code() == 0
