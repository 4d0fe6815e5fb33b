"""Every pane draws at any size: hypothesis over widths and heights from 1.

A terminal resized from 80x24 to 160x45 hands a pane a few rows for one
frame (it crashed the Cache pane with ``max()`` of nothing). Each pane's
draw function is fed a realistic state, a trace recorded from the CLI
against the simulated cluster (a burst, a resync, a failing workqueue) or
the hand-written demo trace, or nothing at all, and must return at most
``height`` lines, none wider than ``width`` cells.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hs
from rich.cells import cell_len
from rich.text import Text

from kubectl_informer.core.trace import read_trace
from kubectl_informer.panes.handlers import HandlersState
from kubectl_informer.panes.queue import QueueState
from kubectl_informer.panes.resync import ResyncState
from kubectl_informer.panes.rv import RVState
from kubectl_informer.panes.server import ServerState
from kubectl_informer.tui.handlers import render_handlers
from kubectl_informer.tui.queue import render_queue
from kubectl_informer.tui.resync import render_resync
from kubectl_informer.tui.rv import render_rv
from kubectl_informer.tui.server import render_server

from .helpers import TraceMaker, demo_trace, make_app

SIZES = dict(width=hs.integers(1, 320), height=hs.integers(1, 100))
# The sizes a resize passes through on its way, and the few-rows and
# few-columns ones that broke panes, checked every run; hypothesis draws the
# rest. Each draw costs a render (up to 5 ms at 320 wide) and a millisecond
# of hypothesis: 150 draws per render function and trace took up to 3 s,
# 5.4 s of CPU for the file. A render function meets 3 traces, so 50 draws
# each put 150 drawn sizes through it; a text pane's draws share one run
# with 5 others, in 6 states (3 traces, the Inspector's 2 views): 90 a run
# put ~90 through each.
EDGES = [(1, 1), (1, 40), (200, 1), (78, 2), (20, 3), (2, 2), (3, 5), (8, 1), (40, 4), (320, 100)]
DRAWS = 50
TEXT_PANE_DRAWS = 90
RENDERS = [
    (RVState, render_rv),
    (ResyncState, render_resync),
    (QueueState, render_queue),
    (HandlersState, render_handlers),
    (ServerState, render_server),
]


@pytest.fixture(scope="module")
def recorded() -> TraceMaker:
    """500 events (about five seconds) of `queue --demo burst` with a resync
    and failing items, recorded by the CLI as NDJSON (the real engine against the simulated server)."""
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "kubectl_informer",
            "queue",
            "pods",
            "--demo",
            "burst",
            "-o",
            "json",
            "--max-events",
            "500",
            "--duration",
            "90s",
            "--resync",
            "1s",
            "--fail-rate",
            "0.3",
            "--work-time",
            "50ms",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    tm = TraceMaker()
    tm.events = read_trace(out.stdout.splitlines())
    tm.t = tm.events[-1].time
    kinds = {ev.kind for ev in tm.events}
    assert {"store.update", "resync.tick", "queue.add", "handler.update"} <= kinds
    return tm


def trace_events(trace: str) -> list:
    """The events of the hand-written demo trace, or none."""
    return demo_trace().events if trace == "demo" else []


def assert_fits(text: Text, width: int, height: int) -> None:
    rows = text.plain.split("\n")
    assert len(rows) <= height, f"{len(rows)} lines in a pane {height} high"
    wide = [r for r in rows if cell_len(r) > width]
    assert not wide, f"{wide[0]!r} is wider than {width}"


def check_render(state_cls, render, events) -> None:
    st = state_cls()
    st.mode = "queue"
    st.feed_all(events)
    now = events[-1].time + 0.5 if events else None

    @settings(max_examples=DRAWS, deadline=None, suppress_health_check=list(HealthCheck))
    @given(**SIZES)
    def check(width, height):
        assert_fits(render(st, now, width, height), width, height)

    check()
    for width, height in EDGES:
        assert_fits(render(st, now, width, height), width, height)


# The recorded trace's tests share its module fixture (and so one xdist
# worker); the demo's and the empty trace's need no recording and spread.
@pytest.mark.parametrize("state_cls,render", RENDERS, ids=[r.__name__ for _, r in RENDERS])
def test_render_functions_fit_any_size_recorded(recorded, state_cls, render):
    check_render(state_cls, render, recorded.events)


@pytest.mark.parametrize("state_cls,render", RENDERS, ids=[r.__name__ for _, r in RENDERS])
@pytest.mark.parametrize("trace", ["demo", "empty"])
def test_render_functions_fit_any_size(trace, state_cls, render):
    check_render(state_cls, render, trace_events(trace))


def _text_pane_sizes(app, names) -> None:
    @settings(max_examples=TEXT_PANE_DRAWS, deadline=None, suppress_health_check=list(HealthCheck))
    @given(name=hs.sampled_from(names), **SIZES)
    def check(name, width, height):
        pane = app.panes[name] if name != "header" else app.header
        assert_fits(pane.render_at(width, height), width, height)

    check()
    for name in names:
        pane = app.panes[name] if name != "header" else app.header
        for width, height in EDGES:
            assert_fits(pane.render_at(width, height), width, height)


def check_text_panes(trace: TraceMaker) -> None:
    """Deltas, FIFO, Cache, Inspector (its key list, then one key's life),
    Explain and the header, mounted in the app as a user has them: one app
    for both views of the Inspector, the key list checked before a key is
    inspected."""
    app = make_app(trace)
    names = ["header", "deltas", "fifo", "cache", "inspector", "explain"]

    async def main():
        async with app.run_test(size=(160, 45)) as pilot:
            app.pump()
            await pilot.pause()
            _text_pane_sizes(app, names)  # the Inspector's key list
            key = next(app.states["inspector"].history.keys_newest_first(), "default/none")
            app.panes["inspector"].inspect(key)
            app.activate("fifo")  # the Explain pane explains the FIFO's cursor
            app.panes["fifo"].focus()
            await pilot.pause()
            assert app.panes["inspector"].inspected == key  # the one-key view from here
            _text_pane_sizes(app, names)  # one key's life

    asyncio.run(main())


def test_text_panes_fit_any_size_recorded(recorded):
    check_text_panes(recorded)


@pytest.mark.parametrize("trace", ["demo", "empty"])
def test_text_panes_fit_any_size(trace):
    check_text_panes(demo_trace() if trace == "demo" else TraceMaker())
