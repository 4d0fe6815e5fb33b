"""--handlers, --handler-resync, --handler-time: bad values are usage errors
(exit 2, one line); good ones register the lanes on a run against the demo."""

from __future__ import annotations

import json

import pytest

from tests.cli.test_cli import assert_one_line_error, invoke

HEADLESS = ["-o", "text", "--duration", "30s"]


@pytest.mark.parametrize(
    "args,expected",
    [
        (["watch", "pods", "--handlers", "0"], "invalid value for '--handlers'"),
        (["watch", "pods", "--handlers", "17"], "invalid value for '--handlers'"),
        (["queue", "--handlers", "two"], "invalid value for '--handlers'"),
        (["watch", "pods", "--handler-resync", "3x"], 'invalid duration "3x"'),
        (["watch", "pods", "--handler-resync", "3s,-1s"], "must not be negative"),
        (["watch", "pods", "--handler-resync", "3s,,5s"], "invalid value for '--handler-resync'"),
        (["queue", "--handler-time", "10"], "invalid value for '--handler-time'"),
        (
            ["watch", "pods", "--handlers", "2", "--handler-resync", "1s,2s,3s"],
            "--handler-resync has 3 values for 2 handlers",
        ),
        (
            ["queue", "--handlers", "3", "--handler-time", "0", "--handler-time", "1s"],
            "--handler-time has 2 values for 3 handlers",
        ),
        (
            ["watch", "pods", "--handler-resync", "1s,2s", "--handler-time", "0,0,1s"],
            "--handler-resync has 2 values for 3 handlers",
        ),
    ],
)
def test_bad_handler_flags_are_usage_errors(args, expected):
    assert_one_line_error(invoke(*args, *HEADLESS), code=2, contains=[expected])


def _events(result):
    assert result.exit_code == 0, result.stderr
    return [json.loads(line) for line in result.stdout.splitlines()]


def test_watch_registers_one_lane_per_resync_value():
    r = invoke(
        "watch",
        "pods",
        "--demo",
        "quiet",
        "--resync",
        "10s",
        "--handler-resync",
        "3s,5s",
        "--handler-time",
        "0,20ms",
        "-o",
        "json",
        "--duration",
        "2s",
    )
    events = _events(r)
    regs = {e["fields"]["listener"]: e["fields"] for e in events if e["kind"] == "handler.register"}
    assert set(regs) == {"handler-1", "handler-2"}
    assert (regs["handler-1"]["effective"], regs["handler-2"]["effective"]) == (3.0, 5.0)
    assert regs["handler-2"]["check_period"] == 3.0  # the shorter period lowered the check period
    start = next(e for e in events if e["kind"] == "informer.start")
    assert start["fields"]["resync_check_period"] == 3.0
    calls = [
        e["fields"]["call"]
        for e in events
        if e["kind"] == "handler.lane" and e["fields"]["listener"] == "handler-2" and e["fields"]["handled"] > 0
    ]
    assert calls and min(calls) >= 0.02  # its --handler-time


def test_queue_gives_lane_one_to_the_controller():
    r = invoke(
        "queue",
        "--demo",
        "quiet",
        "--resync",
        "5s",
        "--handlers",
        "2",
        "--handler-resync",
        "3s",
        "-o",
        "json",
        "--duration",
        "2s",
    )
    regs = {e["fields"]["listener"]: e["fields"] for e in _events(r) if e["kind"] == "handler.register"}
    assert set(regs) == {"controller", "handler-2"}
    assert all(f["requested"] == 3.0 and f["effective"] == 3.0 for f in regs.values())
