"""The replay UI driven with Pilot; its playhead runs on a FakeClock."""

import asyncio
import re

from kubectl_informer.cli.replay import replay_app
from kubectl_informer.clock.testing import FakeClock
from kubectl_informer.replay.recording import Recording
from kubectl_informer.tui.replay import SeekScreen, args_not_shown, fmt_offset, parse_seek

from ..tui.helpers import pane_text
from .helpers import story


def drive(check, events=None, speed=1.0, start=0.0, size=(100, 30)):
    rec = Recording("/tmp/rec.ndjson", events or story())
    clock = FakeClock(0.0)
    app = replay_app(rec, speed, start, clock=clock)

    async def main():
        async with app.run_test(size=size) as pilot:
            app.source.player.tick()
            app.pump()
            await pilot.pause()
            await check(app, pilot, clock)

    asyncio.run(main())


def header(app) -> list[str]:
    return pane_text(app.header).splitlines()


def deltas(app) -> str:
    return pane_text(app.panes["deltas"])


def advance(app, clock, seconds):
    clock.step(seconds)
    app.source.player.tick()
    app.pump()


def test_the_header_shows_the_recording_and_the_playhead():
    async def check(app, pilot, clock):
        one, two, three = header(app)
        assert "pods" in one and "ns default" in one and "ctx kind-dev" in one and "rec.ndjson" not in one
        assert three.count("rec.ndjson") == 1 and "replay rec.ndjson 0:00.0" in three
        assert "client-go 1.36" in one
        assert three.lstrip().startswith("▶") and "0:00.0/0:10.0" in three and "×1" in three
        # Each fact once: the first line has the resource, the profile and the resync, so the
        # recorded command adds only its verb; the day once, then the playhead's wall clock.
        assert "ran: watch" in three and "--client-go" not in three and "pods" not in three
        assert "recorded" not in three and len(re.findall(r"\d\d:\d\d:\d\d", three)) == 1
        assert re.search(r"0:00\.0/0:10\.0 \d{4}-\d\d-\d\d \d\d:\d\d:\d\d ×1", three)
        assert "3 marks ahead" in three
        assert "2 deltas" in deltas(app)  # only what is due at 0s
        from ..tui.helpers import screen_text

        assert "space  Play/pause" in screen_text(app).splitlines()[-1]
        advance(app, clock, 2.0)
        assert "4 deltas" in deltas(app) and "0:02.0/0:10.0" in header(app)[2]

    drive(check, size=(200, 30))


def test_space_pauses_dot_steps_and_speed_keys():
    async def check(app, pilot, clock):
        await pilot.press("space")
        assert not app.source.player.playing and "❚❚" in header(app)[2]
        advance(app, clock, 30)
        assert "2 deltas" in deltas(app)  # paused: nothing more
        await pilot.press("full_stop")
        assert "3 deltas" in deltas(app) and "restartCount 0→1" in deltas(app)
        assert "0:01.0" in header(app)[2]
        await pilot.press("greater_than_sign", "greater_than_sign")
        assert app.source.player.speed == 4 and "×4" in header(app)[2]
        await pilot.press("less_than_sign")
        assert app.source.player.speed == 2
        await pilot.press("space")
        advance(app, clock, 0.5)  # 1s recorded at 2x
        assert "4 deltas" in deltas(app)

    drive(check)


def test_p_pauses_the_playhead_not_the_view():
    async def check(app, pilot, clock):
        await pilot.press("p")  # the live app's pause key
        assert not app.source.player.playing and not app.paused
        await pilot.press("p")
        assert app.source.player.playing and not app.paused
        advance(app, clock, 2.0)
        assert "4 deltas" in deltas(app) and "0:02.0/0:10.0" in header(app)[2]

    drive(check)


def test_brackets_seek_to_the_next_and_previous_mark():
    async def check(app, pilot, clock):
        await pilot.press("right_square_bracket")
        assert "at watch ended 410 Gone" in header(app)[2] and "✕ 410 Gone" in header(app)[1]
        await pilot.press("right_square_bracket")
        assert "relists 1 (expired)" in header(app)[1]
        await pilot.press("right_square_bracket")
        assert "tombstone" in deltas(app) and "Deleted" in deltas(app)
        assert "at tombstone default/web-2" in header(app)[2]
        await pilot.press("right_square_bracket")  # none left: a notification, nowhere to go
        assert app.source.player.offset() == 6.0
        await pilot.press("left_square_bracket")  # back to the relist: the panes start over
        assert "Deleted" not in deltas(app) and "relists 1" in header(app)[1]
        assert app.source.player.offset() == 4.5

    drive(check)


def test_t_seeks_to_a_typed_time_and_from_starts_there():
    async def check(app, pilot, clock):
        await pilot.press("t")
        assert isinstance(app.screen, SeekScreen)
        await pilot.press(*"6s", "enter")
        assert app.source.player.offset() == 6.0 and "Deleted" in deltas(app)
        await pilot.press("t", "minus", *"5s", "enter")
        assert app.source.player.offset() == 1.0 and "Deleted" not in deltas(app)
        await pilot.press("t", *"nonsense", "enter")
        assert app.source.player.offset() == 1.0 and not isinstance(app.screen, SeekScreen)

    drive(check)

    async def from_offset(app, pilot, clock):
        assert app.source.player.offset() == 4.5 and "relists 1" in header(app)[1]

    drive(from_offset, start=4.5)


def test_parse_seek_reads_offsets_relative_moves_and_wall_clock():
    rec = Recording("r", story())
    assert parse_seek("90", rec, 0) == 90 and parse_seek("1m30s", rec, 0) == 90
    assert parse_seek("+10s", rec, 5) == 15 and parse_seek("-2s", rec, 5) == 3
    from datetime import datetime

    start = datetime.fromtimestamp(rec.wall_time(0.0))
    at = start.replace(microsecond=0).strftime("%H:%M:%S")
    assert abs(parse_seek(at, rec, 0) + start.microsecond / 1e6) < 1e-6
    assert fmt_offset(75.3) == "1:15.3" and fmt_offset(7.5) == "0:07.5"
    import pytest

    with pytest.raises(ValueError):
        parse_seek("", rec, 0)
    with pytest.raises(ValueError, match="no wall clock"):
        parse_seek("10:00:00", Recording("r", story(header=False)), 0)


def test_the_recorded_command_keeps_only_what_the_header_does_not_say():
    args = ["watch", "pods", "--demo", "-o", "json", "--duration", "2s", "--record", "/tmp/r.ndjson"]
    assert args_not_shown(args) == ["watch"]
    assert args_not_shown(
        [
            "queue",
            "pods",
            "--demo",
            "flaky",
            "-A",
            "--fail-rate",
            "0.5",
            "--workers=1",
            "--client-go=1.36",
            "-l",
            "app=web",
            "--max-retries",
            "3",
        ],
        "flaky",
    ) == ["queue", "--fail-rate", "0.5", "--workers=1", "--max-retries", "3"]
    # A NAME after the resource stays (the header does not name it); --demo without a value keeps what follows.
    assert args_not_shown(["watch", "pods", "web-1", "--demo=steady", "--handlers", "2"], "steady") == [
        "watch",
        "web-1",
        "--handlers",
        "2",
    ]
    # Only the word after the command is the resource: a flag's value is not.
    assert args_not_shown(["queue", "--fail-rate", "0.5", "pods"]) == ["queue", "--fail-rate", "0.5", "pods"]
