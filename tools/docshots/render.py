"""Render one shot: the command's own options, the real pipeline on the
simulated cluster, the real app headless, Textual's SVG."""

from __future__ import annotations

import asyncio
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from unittest import mock

from textual.events import Paste

from kubectl_informer.core.trace import TraceEvent
from kubectl_informer.run.config import RunConfig
from tools.docshots.registry import Shot

POLL = 0.1
# Shots may render side by side in one process's threads (the tests do): the
# CLI's parse swaps a module's function for the while, one parse at a time.
_PARSING = threading.Lock()


class ShotError(Exception):
    """A shot that could not show what it is about: one line."""


class _Missed(Exception):
    """The run went past the shot's point without showing it (``Shot.missed``)."""


def options_for(argv: tuple[str, ...] | list[str]) -> tuple[RunConfig, str]:
    """The RunConfig and first pane the CLI would run ``argv`` with: the
    CLI's own parsing decides (so a shot cannot drift from the command the
    docs quote); its ``execute`` is swapped for one that only takes them."""
    import kubectl_informer.cli.execute as execute_mod
    import kubectl_informer.cli.main as cli_mod

    got: dict[str, Any] = {}

    def capture(opts: RunConfig, output: str, start_pane: str = "deltas", **_: Any) -> int:
        got.update(opts=opts, output=output, start_pane=start_pane)
        return 0

    with (
        _PARSING,
        mock.patch.object(execute_mod, "execute", capture),
        cli_mod.cli.make_context(cli_mod.PROG, list(argv)) as ctx,
    ):
        cli_mod.cli.invoke(ctx)
    if not got:
        raise ShotError(f"{' '.join(argv)!r} does not run an informer")
    if got["output"] != "tui":
        raise ShotError(f"{' '.join(argv)!r}: a shot needs the live UI, not -o {got['output']}")
    if got["opts"].demo is None:
        raise ShotError(f"{' '.join(argv)!r}: a shot runs on the simulated cluster: add --demo")
    return got["opts"], got["start_pane"]


class _Seen:
    """The run's trace as it comes, for the shot's condition (thread-safe append)."""

    def __init__(self) -> None:
        self.events: list[TraceEvent] = []
        self._lock = threading.Lock()

    def __call__(self, ev: TraceEvent) -> None:
        with self._lock:
            self.events.append(ev)

    def snapshot(self) -> list[TraceEvent]:
        with self._lock:
            return list(self.events)


def _keys(shot: Shot, events: list[TraceEvent]) -> list[str | Paste]:
    """The shot's keys, with "{key}" the followed key, pasted."""
    followed = next((ev.key for ev in reversed(events) if shot.follow and shot.follow.matches(ev)), None)
    out: list[str | Paste] = []
    for key in shot.keys:
        if key != "{key}":
            out.append(key)
        elif followed is None:
            raise ShotError(f"{shot.name}: no event to follow ({shot.follow})")
        else:
            # Pasted into the focused line, not typed: Pilot.press waits for
            # the app to go idle after each key, up to a second on a busy run.
            out.append(Paste(followed))
    return out


async def _wait(shot: Shot, condition, seen: _Seen, deadline: float, missed=None) -> None:
    while not condition(events := seen.snapshot()):
        if missed is not None and missed(events):
            raise _Missed(f"{missed} before {condition}")
        if time.monotonic() > deadline:
            raise ShotError(f"{shot.name}: waited {shot.timeout:g}s for {condition}")
        await asyncio.sleep(POLL)


async def _shoot(shot: Shot, app, seen: _Seen, out: Path) -> None:
    async with app.run_test(size=shot.size) as pilot:
        deadline = time.monotonic() + shot.timeout
        await _wait(shot, shot.until, seen, deadline, shot.missed)
        app.pump()
        await pilot.pause()
        for key in _keys(shot, seen.snapshot()):
            if isinstance(key, Paste):
                app.focused.post_message(key)
                await pilot.pause()
            else:
                await pilot.press(key)
        await pilot.pause()
        if shot.then is not None:
            await _wait(shot, shot.then, seen, deadline)
        app.pump()
        await pilot.pause()
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(app.export_screenshot(title=shot.command))


class _FirstTick:
    """Where this thread's demo scenario starts: one patch of the demo's
    ScenarioRunner stands while any thread's shot runs, and starts a runner
    at the tick of the shot of the thread that makes it."""

    def __init__(self) -> None:
        self.mine = threading.local()
        self.lock = threading.Lock()
        self.users = 0
        self.real: Any = None

    def runner(self, *args: Any, **kwargs: Any):
        runner = self.real(*args, **kwargs)
        runner.ctx.tick = getattr(self.mine, "tick", 0)  # before start(): the first step is tick + 1
        return runner

    @contextmanager
    def at(self, tick: int):
        import kubectl_informer.sim.demo as demo_mod

        with self.lock:
            if not self.users:
                self.real, demo_mod.ScenarioRunner = demo_mod.ScenarioRunner, self.runner
            self.users += 1
        self.mine.tick = tick
        try:
            yield
        finally:
            self.mine.tick = 0
            with self.lock:
                self.users -= 1
                if not self.users:
                    demo_mod.ScenarioRunner = self.real


_FIRST_TICK = _FirstTick()


def _scenario_from(tick: int):
    """The demo's scenario runner, made by this thread in the block, starting
    at ``tick`` (its clock and steps unchanged): the shot's point comes
    sooner in a scenario on a period."""
    return _FIRST_TICK.at(tick)


def render(shot: Shot, root: Path) -> Path:
    """Run ``shot`` and write its SVG under ``root``; returns the path. A run
    that missed the shot's point (``Shot.missed``) is followed by a fresh one,
    up to ``Shot.runs``."""
    opts, start_pane = options_for(shot.argv)
    out = root / shot.path
    why = ""
    for _ in range(shot.runs):
        try:
            _run_once(shot, opts, start_pane, out)
            return out
        except _Missed as e:
            why = str(e)
    raise ShotError(f"{shot.name}: {shot.runs} runs missed the point ({why})")


def _run_once(shot: Shot, opts: RunConfig, start_pane: str, out: Path) -> None:
    from kubectl_informer.cli.execute import live_app
    from kubectl_informer.run.lifecycle import running

    seen = _Seen()
    with _scenario_from(shot.from_tick), running(opts, ui=True) as r:
        r.run.tracer.subscribe(seen)
        app = live_app(r, start_pane)
        r.start()
        asyncio.run(_shoot(shot, app, seen, out))
