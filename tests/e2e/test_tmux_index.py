"""`--index byNode=spec.nodeName` in a real terminal: the Cache pane's `v`
turns from objects per namespace to the built-in namespace index, then to
byNode: each node with the keys under it (ByIndex), following the run as
the scheduler binds new pods; `v` again comes back to the objects."""

from __future__ import annotations

import re
import shutil

import pytest

from tests.e2e.test_tmux import pane_title

pytestmark = [
    pytest.mark.tmux,
    pytest.mark.e2e,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed (CI installs it)"),
]

FIGURES = re.compile(r"(\d+) values?, (\d+) keys, [\d.]+ keys per value")
NODE_ROW = re.compile(r"│ (node-\d+) +(\d+)  ([\w-]+/[\w.-]+)")


def _figures(screen: str) -> tuple[int, int] | None:
    m = FIGURES.search(screen)
    return (int(m.group(1)), int(m.group(2))) if m else None


def test_the_cache_pane_shows_each_index_live_and_v_walks_the_views(terminal):
    t = terminal(160, 45, "watch pods --demo -A --index byNode=spec.nodeName")
    t.wait(lambda s: "synced" in s and "v: 2 indexes" in s, "the Cache pane saying it has two indexes")
    t.keys("c")
    t.wait(lambda s: "Cache ▸" in s, "the Cache pane in focus (Explain follows it)")
    t.keys("v")
    screen = t.wait(lambda s: "index namespace = metadata.namespace" in s, "the namespace index")
    assert pane_title(screen, "Cache · index namespace")
    t.keys("v")
    screen = t.wait(lambda s: "index byNode = spec.nodeName" in s and NODE_ROW.search(s), "the byNode index")
    rows = NODE_ROW.findall(screen)
    first = _figures(screen)
    assert first is not None and first[0] == len(rows) >= 2, screen  # a row per value
    assert all(int(n) >= 1 for _, n, _ in rows)
    # Live: a pod the demo creates is bound to a node a moment later, and
    # the index takes it in (or a deleted one leaves it).
    t.wait(lambda s: _figures(s) not in (None, first), f"the byNode figures to move from {first}", timeout=40)
    t.keys("v")
    t.wait(
        lambda s: re.search(r"\d+ objects in \d+ namespaces", s) and "index byNode" not in s,
        "the objects per namespace again",
    )
