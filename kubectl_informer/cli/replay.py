"""``kubectl informer replay FILE``: what the CLI calls, for each output."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from kubectl_informer.cli.output import make_renderer, stdout
from kubectl_informer.core.printable import printable
from kubectl_informer.core.trace import TraceEvent
from kubectl_informer.replay.player import play_headless
from kubectl_informer.replay.recording import (
    Recording,
    RecordingError,
    info_from_recording,
    read_recording,
    scan_recording,
    stream_recording,
)

if TYPE_CHECKING:  # replay_app imports it: -o json|text never loads textual
    from kubectl_informer.clock import Clock
    from kubectl_informer.tui.app import InformerApp

__all__ = ["RecordingError", "replay"]


def replay(
    path: str,
    output: str,
    speed: float | None,
    start: float = 0.0,
    show_secret_data: bool = False,
    need_terminal: Callable[[], None] | None = None,
    run_app: Callable[[InformerApp], None] | None = None,
    clock: Clock | None = None,
) -> int:
    """Play the recording at ``path``. ``speed`` None: in time (1) in the
    UI, as fast as possible (0) headless, as before replays had a clock.
    ``run_app`` runs the UI (the CLI's closes it on SIGTERM too); without
    one, the app's own ``run``."""
    if output == "tui" and need_terminal is not None:
        need_terminal()
    if output != "tui":
        return _headless(path, output, 0.0 if speed is None else speed, start, clock)
    rec = read_recording(path)
    _check_start(start, rec.duration, path)
    app = replay_app(rec, 1.0 if speed is None else speed, start, show_secret_data, clock)
    if run_app is None:
        app.run()
    else:
        run_app(app)
    return 0


def _check_start(start: float, duration: float, path: str) -> None:
    if start > duration:
        raise RecordingError(f"--from {start:g}s is past the end of {path} ({duration:.1f}s long)")


def _headless(path: str, output: str, speed: float, start: float, clock: Clock | None) -> int:
    """-o json|text: a file is read twice, checked whole before the first
    line is printed and then streamed, holding no event; stdin is held
    (within read_recording's caps)."""
    events: Iterable[TraceEvent]
    if path == "-":
        rec = read_recording(path)
        events, t0, header, warnings = rec.events, rec.t0, rec.header, rec.warnings
        _check_start(start, rec.duration, path)
        workers = any(e.kind.startswith("worker.") for e in events)
    else:
        scan = scan_recording(path)
        _check_start(start, scan.duration, path)
        events, t0, header, warnings, workers = (
            stream_recording(path),
            scan.t0,
            scan.header,
            scan.warnings,
            scan.workers,
        )
    for w in warnings:
        sys.stderr.write(f"warning: {printable(w)}\n")
    informers = tuple((header or {}).get("informers") or ())
    # Several informers: the adds' causes and the owner mapping's drops are worker lines too.
    renderer = make_renderer(output, stdout(), workers=bool(informers) or workers, informers=len(informers))
    play_headless(events, t0, renderer.render, speed, start, clock)
    return 0


def replay_app(
    rec: Recording, speed: float, start: float = 0.0, show_secret_data: bool = False, clock: Clock | None = None
) -> InformerApp:
    from kubectl_informer.tui.app import InformerApp
    from kubectl_informer.tui.replay import ReplayScreen

    info = info_from_recording(rec)
    info.show_secret_data = show_secret_data
    # The live app's panes and feed loop, with the player as their source.
    player = ReplayScreen(rec, speed=speed, start=start, clock=clock)
    return InformerApp(player.buffer, info, source=player, start_pane="queue" if info.mode == "queue" else "deltas")
