"""Scaffolding for testing one pane alone (the rv, resync and queue panes):
a one-pane app drawn at a fixed trace time, its screen as text, and
hand-written traces with explicit times, and an engine run in a thread."""

from __future__ import annotations

import asyncio
import threading
from contextlib import contextmanager

from hypothesis import strategies as hs
from textual.app import App

from kubectl_informer.core.trace import TraceEvent


class OnePane(App):
    """A tiny app holding one pane, drawn at a fixed trace time."""

    def __init__(self, pane, now):
        super().__init__()
        self.pane, self.now = pane, now

    def compose(self):
        yield self.pane

    def on_mount(self):
        self.pane.refresh_view(self.now)


def screen_text(app) -> str:
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


def shown(app, size) -> str:
    """What ``app`` shows at ``size``, as plain text."""

    async def run():
        async with app.run_test(size=size) as pilot:
            await pilot.pause()
            return screen_text(app)

    return asyncio.run(run())


class Trace:
    """Hand-written recorded traces: seq from 1, explicit times."""

    def __init__(self):
        self.events: list[TraceEvent] = []

    def __call__(self, t, kind, key=None, **fields):
        self.events.append(TraceEvent.build(len(self.events) + 1, t, kind, key, **fields))

    def malformed(self, t, kind, key=None, **fields):
        """An event outside the contract, as a hand-edited or foreign
        recording may hold: the panes must count it and carry on."""
        self.events.append(TraceEvent(len(self.events) + 1, t, kind, key, fields))


@contextmanager
def running(run, join: float = 5):
    """Run ``run(stop_event)`` (a reflector's or informer's ``run``) in a
    daemon thread for the ``with`` block; then stop it and join."""
    stop = threading.Event()
    th = threading.Thread(target=run, args=(stop,), daemon=True)
    th.start()
    try:
        yield
    finally:
        stop.set()
        th.join(join)


# Malformed field values for the panes' fuzz tests: every JSON shape, wrong types included.
json_values = hs.one_of(
    hs.none(),
    hs.booleans(),
    hs.integers(-5, 5),
    hs.floats(-10, 10, allow_nan=False),
    hs.text(max_size=5),
    hs.lists(hs.text(max_size=3), max_size=3),
)
