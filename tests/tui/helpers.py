"""Deterministic traces and screen reading for the TUI tests."""

from __future__ import annotations

from kubectl_informer.core.run_info import RunInfo
from kubectl_informer.core.trace import TraceBuffer, TraceEvent


class TraceMaker:
    """Builds a recorded trace: seq from 1, time from ``start`` in ``step`` s."""

    def __init__(self, start: float = 100.0, step: float = 0.01) -> None:
        self.events: list[TraceEvent] = []
        self.t = start
        self.step = step

    def __call__(self, kind: str, key: str | None = None, **fields) -> TraceEvent:
        self.t += self.step
        ev = TraceEvent.build(len(self.events) + 1, round(self.t, 6), kind, key, **fields)
        self.events.append(ev)
        return ev

    def buffer(self) -> TraceBuffer:
        buf = TraceBuffer()
        buf.extend(self.events)
        return buf


def life_of_pod(e: TraceMaker, key: str, rv: int, phase: str = "Pending") -> None:
    """One object through every stage: watch → FIFO → pop → store → handler → queue (a worker)."""
    e("watch.event", key, type="ADDED", resource_version=str(rv))
    e("fifo.queue", key, type="Added", depth=1, pending=1)
    e("fifo.pop", key, types=["Added"], is_in_initial_list=False, waited=0.002, depth=0)
    e("store.add", key, resource_version=str(rv), delta="Added", summary=phase, is_in_initial_list=False)
    e("handler.add", key, listener="handler-1", is_sync=False, buffered=0)
    e("queue.add", key, outcome="queued", depth=1)
    e("queue.get", key, waited=0.001, depth=0, worker=0)
    e("queue.done", key, worked=0.2, requeued=False, worker=0, outcome="ok")


def demo_trace() -> TraceMaker:
    """An initial list of 5 pods, sync, a watch with updates, a coalesce, a
    dedup, a skip and a delete: every core pane has something to show."""
    e = TraceMaker()
    e("informer.start", fifo="DeltaFIFO", watch_list=False, resync_check_period=0.0)
    e("list.start", resource_version="0", watch_list=False)
    keys = [f"default/web-{i}" for i in range(4)] + ["kube-system/dns-0"]
    for i, k in enumerate(keys):
        e("fifo.queue", k, type="Replaced", depth=i + 1, pending=1)
    e("list.done", resource_version="100", items=5, duration=0.05, watch_list=False)
    e("rv.advance", old="", new="100", source="list")
    for k in keys:
        e("fifo.pop", k, types=["Replaced"], is_in_initial_list=True, waited=0.001, depth=4)
        e("store.add", k, resource_version="90", delta="Replaced", summary="Pending", is_in_initial_list=True)
        e("handler.add", k, listener="handler-1", is_sync=False, buffered=0)
    e("informer.synced", items=5, duration=0.25)
    e("watch.start", resource_version="100")
    k = "default/web-1"
    e("watch.event", k, type="MODIFIED", resource_version="101")  # the last synced RV moves with it
    e("fifo.queue", k, type="Updated", depth=1, pending=1)
    e("watch.event", k, type="MODIFIED", resource_version="102")
    e("fifo.coalesce", k, type="Updated", depth=1, pending=2)
    e("fifo.pop", k, types=["Updated", "Updated"], is_in_initial_list=False, waited=0.01, depth=0)
    e(
        "store.update",
        k,
        resource_version="101",
        old_resource_version="90",
        delta="Updated",
        summary="Running",
        diff=["status.phase Pending→Running"],
        is_in_initial_list=False,
    )
    e("handler.update", k, listener="handler-1", is_sync=False, buffered=0)
    e(
        "store.update",
        k,
        resource_version="102",
        old_resource_version="101",
        delta="Updated",
        summary="Running",
        diff=["labels.app +"],
        is_in_initial_list=False,
    )
    e("handler.update", k, listener="handler-1", is_sync=False, buffered=0)
    e("queue.add", k, outcome="queued", depth=1)
    e("queue.get", k, waited=0.001, depth=0, worker=0)
    e("queue.done", k, worked=0.2, requeued=False, worker=0, outcome="ok")
    # Still queued at the end: an update then two deletions, deduped (the
    # engine reports the second deletion as the dedup, not as a coalesce).
    k = "default/web-3"
    e("fifo.queue", k, type="Updated", depth=1, pending=1)
    e("fifo.coalesce", k, type="Deleted", depth=1, pending=2)
    e("fifo.dedup", k, type="Deleted", dropped="tombstone", kept="object", pending=2, depth=1)
    e("fifo.skip", "default/ghost", type="Deleted", reason="unknown_delete")
    k = "default/web-2"
    e("watch.event", k, type="DELETED", resource_version="103")
    e("fifo.queue", k, type="Deleted", depth=2, pending=1)
    e("fifo.pop", k, types=["Deleted"], is_in_initial_list=False, waited=0.01, depth=1)
    e("store.delete", k, resource_version="103", delta="Deleted", summary="", tombstone=False, is_in_initial_list=False)
    e("handler.delete", k, listener="handler-1", is_sync=False, buffered=0)
    e("watch.bookmark", None, resource_version="110")
    return e


def info(**kw) -> RunInfo:
    base = dict(
        resource="pods", namespace="default", context="sim", profile="1.32", fifo="DeltaFIFO", initial_list="paged LIST"
    )
    base.update(kw)
    return RunInfo(**base)


def screen_text(app) -> str:
    """The screen as plain text, line per row (what a user reads)."""
    update = app.screen._compositor.render_update(full=True)
    return "\n".join("".join(s.text for s in line) for line in update.strips)


def pane_text(pane) -> str:
    """A pane's visible lines as plain text."""
    size = pane.content_region.size
    return "\n".join(line.plain for line in pane.draw_lines(size.width, size.height))


def run(coro_fn, app, size=(80, 24)):
    """Run ``coro_fn(pilot)`` against ``app`` headless at ``size`` (no pytest-asyncio here)."""
    import asyncio

    async def main():
        async with app.run_test(size=size) as pilot:
            app.pump()
            await pilot.pause()
            return await coro_fn(pilot)

    return asyncio.run(main())


def make_app(trace=None, size_panes=None, **kw):
    from kubectl_informer.clock.testing import FakeClock
    from kubectl_informer.tui.app import InformerApp

    trace = trace or demo_trace()
    kw.setdefault("clock", FakeClock(start=trace.t + 1.0))
    return InformerApp(trace.buffer(), kw.pop("info", None) or info(), panes=size_panes, **kw)


POLL = 0.02  # seconds between two looks at a condition
PUMP_POLL = 0.05  # between two pumps: each redraws every shown pane


async def until(pilot, cond, timeout: float = 15.0, pump: bool = False) -> bool:
    """Whether ``cond()`` held within ``timeout`` seconds, looked at every
    ``POLL`` s while the app runs on (its frames drain the feed), or after
    draining it at once with ``pump`` every ``PUMP_POLL`` s; once it holds
    the app settles (a pause). The TUI tests' one way to wait: a plain sleep between looks, as a
    pilot's pause each time also waited for every widget's queue and redrew
    the screen."""
    import asyncio
    import time

    app = pilot.app
    deadline = time.monotonic() + timeout
    while True:
        if pump and app.is_running:
            app.pump()
        if cond():
            if app.is_running:
                await pilot.pause()
            return True
        if time.monotonic() >= deadline:
            return False
        await asyncio.sleep(PUMP_POLL if pump else POLL)


def typed(text: str, enter: bool = False) -> list:
    """The key events of typing ``text`` (then ⏎)."""
    from textual import events
    from textual.keys import _character_to_key

    keys = [events.Key(_character_to_key(c), c) for c in text]
    return keys + [events.Key("enter", "\r")] if enter else keys


async def type_ahead(pilot, keys: list) -> None:
    """Post ``keys`` as the driver posts what it reads, as a paste or a fast
    typist sends them: every key reaches the app before the first is handled.
    ``pilot.press`` instead waits for the whole process to go idle after each
    key: with an engine's threads running that is up to a second a key, and a
    redraw each."""
    for key in keys:
        pilot.app.post_message(key)
    await pilot.pause()


async def type_line(pilot, opener: str, text: str, submit: bool = True) -> None:
    """Type ``opener`` (``colon`` or ``slash``), ``text`` and ⏎ ahead of the
    app (``type_ahead``), which the command and filter lines must cope with
    (test_command_mode's keys-typed-right-after-the-opener test)."""
    from textual import events

    app = pilot.app
    await type_ahead(pilot, [events.Key(opener, None), *typed(text, enter=submit)])
    if submit:
        # The line closes on ⏎: the keys before it reached it by then.
        line = app.command_input if opener == "colon" else app.filter_input
        await until(pilot, lambda: not line.display or not app.is_running, timeout=10)
