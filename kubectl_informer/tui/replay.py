"""The UI of ``replay``: the app fed by a ``Player`` instead of an engine.

``ReplayScreen`` is the app's source and base screen (``InformerApp(...,
source=screen)``: the same panes and feed loop as a live run, no subclass):
each frame the player hands the buffer the events now due (at ``--speed``),
the header's third line says where the playhead is (offset from the start
and wall clock), and the replay keys move it: space pause/play, ``.`` one event, ``]``/``[`` the
next/previous relist, 410 or tombstone, ``t`` a time, ``<``/``>`` speed.
A seek backwards drops every pane's state and feeds again from the start.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen, Screen
from textual.widgets import Input, Static

from kubectl_informer.core.durations import parse_duration
from kubectl_informer.core.trace import TraceBuffer
from kubectl_informer.replay.player import Player, describe_mark
from kubectl_informer.replay.recording import Recording
from kubectl_informer.tui.app import InformerApp
from kubectl_informer.tui.keyhints import KeyHints

REPLAY_BINDINGS = [
    Binding("space", "replay_toggle", "Play/pause"),
    Binding("full_stop", "replay_step", "Step", show=False),
    Binding("right_square_bracket", "replay_next_mark", "Next mark", show=False),
    Binding("left_square_bracket", "replay_prev_mark", "Prev mark", show=False),
    Binding("t", "replay_seek_prompt", "Seek", show=False),
    Binding("greater_than_sign", "replay_speed(2.0)", "Faster", show=False),
    Binding("less_than_sign", "replay_speed(0.5)", "Slower", show=False),
]

REPLAY_HINTS = (
    ("space", "Play/pause", "Play", 10),
    (".", "Step", "Step", 8),
    ("] [", "Next/prev mark", "Mark", 7),
    ("t", "Seek", "Seek", 6),
    ("?", "Help", "Help", 10),
    ("q", "Quit", "Quit", 10),
)
SPEEDS_MAX = 1024.0


def fmt_offset(seconds: float) -> str:
    """A playhead position: ``0:07.5``, ``12:03.0``."""
    m, s = divmod(max(seconds, 0.0), 60)
    return f"{int(m)}:{s:04.1f}"


def parse_seek(text: str, rec: Recording, current: float) -> float:
    """A seek target: ``90``/``1m30s`` (from the start), ``+10s``/``-5s``
    (from the playhead), ``15:04:30`` (wall clock, recordings with a
    header). ValueError with a message otherwise."""
    text = text.strip()
    if not text:
        raise ValueError("type an offset (1m30s), +10s / -5s, or a wall-clock time (15:04:30)")
    if text.count(":") == 2:
        return _wall_offset(text, rec)
    sign = 0
    if text[0] in "+-":
        sign, text = (1 if text[0] == "+" else -1), text[1:]
    try:
        value = float(text)
    except ValueError:
        value = parse_duration(text)
    return current + sign * value if sign else value


def _wall_offset(text: str, rec: Recording) -> float:
    from datetime import datetime

    start = rec.wall_time(0.0)
    if start is None:
        raise ValueError("this recording has no wall clock (recorded before the run.info header)")
    day = datetime.fromtimestamp(start)
    try:
        h, m, s = (int(x) for x in text.split(":"))
        target = day.replace(hour=h, minute=m, second=s, microsecond=0)
    except ValueError:
        raise ValueError(f'"{text}" is not a time of day (HH:MM:SS)') from None
    return target.timestamp() - start


class SeekScreen(ModalScreen[str | None]):
    """A one-line prompt for ``t``: where to seek to."""

    DEFAULT_CSS = """
    SeekScreen { align: center middle; }
    SeekScreen > Vertical { width: 64; height: auto; border: tall $accent; background: $panel; padding: 0 1; }
    """
    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, hint: str) -> None:
        super().__init__()
        self.hint = hint

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(self.hint)
            yield Input(placeholder="1m30s · +10s · -5s · 15:04:30", id="seek")

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value)

    def action_cancel(self) -> None:
        self.dismiss(None)


class ReplayScreen(Screen):
    """``ReplayScreen(rec, speed=1.0, start=0.0, clock=None)``: the replay's
    part of the app, its ``source`` and base screen: the player (paced by
    ``clock``; tests pass a FakeClock) feeds ``buffer``, the app's feed loop
    drains it; the replay keys and the header's third line are here."""

    BINDINGS = [*REPLAY_BINDINGS, Binding("p", "replay_toggle", "Play/pause", show=False)]  # p pauses the replay

    def __init__(self, rec: Recording, *, speed: float = 1.0, start: float = 0.0, clock=None) -> None:
        super().__init__()
        self.rec = rec
        self.buffer = TraceBuffer(maxlen=len(rec.events) + 1)
        self.player = Player(rec, self.buffer.extend, clock, speed=speed, reset=self._reset_states)
        self._start = start
        self.last_mark: str | None = None
        self.informer: InformerApp  # set by start(), when the app is mounted

    # -- the app's source ---------------------------------------------------------------
    def start(self, app: InformerApp) -> None:
        """The app is mounted: the header's third line, the first seek, the footer."""
        self.informer = app
        app.header.extra_line = self.replay_line
        if self._start:
            self.player.seek_to(self._start)
        for w in self.rec.warnings:
            app.notify(w, severity="warning", timeout=10)
        app.call_after_refresh(self._replay_hints)

    def tick(self) -> None:
        self.player.tick()

    def now(self) -> float | None:
        # Ages and countdowns at the playhead, not at the wall clock.
        return self.rec.t0 + self.player.offset()

    def _replay_hints(self) -> None:
        """The footer says the replay's keys (the live keys stay in ? help)."""
        self.query_one("#keyhints", KeyHints).set_hints(REPLAY_HINTS)

    def _reset_states(self) -> None:
        """A seek backwards: every pane starts over (fed again by the player)."""
        self.buffer.drain()
        self.informer.feed_loop.reset(self.informer.info)

    def after_move(self) -> None:
        self.informer.pump()

    # -- keys -----------------------------------------------------------------------------
    def action_replay_toggle(self) -> None:
        self.player.toggle()
        self.after_move()

    def action_replay_step(self) -> None:
        ev = self.player.step()
        self.last_mark = None
        if ev is None:
            self.notify("end of the recording")
        self.after_move()

    def action_replay_next_mark(self) -> None:
        self._went_to(self.player.next_mark(), "no relist, 410 or tombstone after this point")

    def action_replay_prev_mark(self) -> None:
        self._went_to(self.player.prev_mark(), "no relist, 410 or tombstone before this point")

    def _went_to(self, ev, none: str) -> None:
        if ev is None:
            self.notify(none)
            return
        self.last_mark = describe_mark(ev)
        self.after_move()

    def action_replay_speed(self, factor: float) -> None:
        p = self.player
        speed = p.speed or SPEEDS_MAX
        p.set_speed(min(max(speed * factor, 1 / 64), SPEEDS_MAX))
        self.informer.header.refresh_view(self.now())

    def action_replay_seek_prompt(self) -> None:
        hint = (
            f"seek to: offset from the start (0..{fmt_offset(self.player.duration)}), "
            "+/- from the playhead, or a wall-clock time"
        )
        self.app.push_screen(SeekScreen(hint), self._seek_answer)

    def _seek_answer(self, text: str | None) -> None:
        if text is None:
            return
        try:
            target = parse_seek(text, self.rec, self.player.offset())
        except ValueError as e:
            self.notify(str(e), severity="error")
            return
        self.seek(target)

    def seek(self, offset: float) -> None:
        self.player.seek_to(offset)
        self.last_mark = None
        self.after_move()

    # -- the header's third line ------------------------------------------------------------
    # (what the first line says already, from the recording's run.info, is not said again)
    def replay_line(self) -> Text:
        p, rec = self.player, self.rec
        at = p.offset()
        t = Text(no_wrap=True)
        state = "■ end" if p.finished and not p.playing else ("▶" if p.playing else "❚❚")
        t.append(f" {state} ", "bold reverse green" if p.playing else "bold reverse yellow")
        if rec.header:  # without one, the context names the file
            import os

            t.append(f" replay {os.path.basename(rec.path)}", "bold")
        t.append(f" {fmt_offset(at)}/{fmt_offset(p.duration)}", "bold")
        start = rec.wall_time(0.0) if rec.header else None
        if start is not None:
            # The day once, then the wall clock at the playhead (the time it was recorded is 0:00.0's).
            from datetime import datetime

            t.append(f" {datetime.fromtimestamp(start):%Y-%m-%d}", "dim")
        wall = rec.wall_clock(at)
        if wall:
            t.append(f" {wall}", "cyan")
        t.append(f" ×{p.speed:g}" if p.speed else " ×max", "bold")
        t.append(f"  ev {p.position}/{len(rec.events)}", "dim")
        if self.last_mark:
            t.append(f"  at {self.last_mark}", "red")
        ahead = p.marks_ahead()
        t.append(f"  ] {ahead} mark{'s' if ahead != 1 else ''} ahead", "dim")
        h = rec.header
        if h:
            args = args_not_shown(list(h.get("args") or ()), h.get("demo"))
            if args:
                t.append(f"  ran: {' '.join(args)}", "dim")
        else:
            t.append("  (no header: recorded by an older version)", "dim")
        return t


# Flags the header's first line shows already (resource, scope, selectors, profile, resync,
# demo) or that made the recording rather than the run (output, duration, record).
_SHOWN_FLAGS = frozenset(
    (
        "-o",
        "--output",
        "--duration",
        "--max-events",
        "--record",
        "-n",
        "--namespace",
        "-l",
        "--selector",
        "--field-selector",
        "--client-go",
        "--resync",
        "--kubeconfig",
        "--context",
    )
)
_SHOWN_SWITCHES = frozenset(("-A", "--all-namespaces"))


def args_not_shown(args: list[str], demo: str | None = None) -> list[str]:
    """The recorded command line (after ``kubectl informer``) without what
    the replay header shows elsewhere: ``watch pods --demo -o json
    --duration 2s --record r.ndjson --fail-rate 0.5`` gives ``watch
    --fail-rate 0.5``. The command (watch, queue) stays; the resource,
    right after it as kubectl's usage puts it, goes."""
    out: list[str] = []
    i = 0
    while i < len(args):
        a = str(args[i])
        name = a.split("=", 1)[0]
        if name in _SHOWN_FLAGS:
            i += 1 if "=" in a else 2
            continue
        if a in _SHOWN_SWITCHES:
            i += 1
            continue
        if name == "--demo":
            # --demo takes its scenario as an optional value.
            nxt = args[i + 1] if i + 1 < len(args) else None
            i += 2 if "=" not in a and demo and nxt == demo else 1
            continue
        if i == 1 and not a.startswith("-"):  # the resource
            i += 1
            continue
        out.append(a)
        i += 1
    return out
