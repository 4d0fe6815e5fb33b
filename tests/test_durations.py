"""Go duration syntax (time.ParseDuration / Duration.String); cases follow
Go's time/time_test.go parseDurationTests and durationTests."""

import pytest

from kubectl_informer.core.durations import format_duration, format_short, parse_duration


@pytest.mark.parametrize(
    "s,seconds",
    [
        ("0", 0.0),
        ("+0", 0.0),
        ("-0", 0.0),
        ("5s", 5.0),
        ("30s", 30.0),
        ("1478s", 1478.0),
        ("+5s", 5.0),
        ("5.0s", 5.0),
        ("5.6s", 5.6),
        ("5.s", 5.0),
        (".5s", 0.5),
        ("1.0s", 1.0),
        ("1.00s", 1.0),
        ("1.004s", 1.004),
        ("1.0040s", 1.004),
        ("100.00100s", 100.001),
        ("10ns", 10e-9),
        ("11us", 11e-6),
        ("12µs", 12e-6),  # U+00B5
        ("12μs", 12e-6),  # U+03BC
        ("300us", 300e-6),
        ("300µs", 300e-6),
        ("13ms", 0.013),
        ("500ms", 0.5),
        ("14s", 14.0),
        ("15m", 900.0),
        ("16h", 57600.0),
        ("1.5h", 5400.0),
        ("1m30s", 90.0),
        ("3h30m", 12600.0),
        ("10.5s4m", 250.5),
        ("1h2m3s4ms5us6ns", 3723.004005006),
        ("39h9m14.425s", 140954.425),
        ("52763797000ns", 52.763797),
        ("0.3333333333333333333h", 1200.0),
    ],
)
def test_parse_duration(s, seconds):
    assert parse_duration(s) == pytest.approx(seconds, abs=1e-9)


@pytest.mark.parametrize(
    "s", ["", "3", "-", "s", ".", ".s", "+.s", "1d", "3x", "1.5.s", "1s 2s", "1e3s", "9223372037s", " 5s"]
)
def test_parse_duration_errors(s):
    with pytest.raises(ValueError) as e:
        parse_duration(s)
    assert str(e.value).startswith(f'invalid duration "{s}"')
    assert "\n" not in str(e.value)


def test_parse_duration_message_matches_contract():
    with pytest.raises(ValueError) as e:
        parse_duration("3x")
    assert str(e.value) == 'invalid duration "3x"'


def test_negative_durations_rejected_for_cli():
    with pytest.raises(ValueError) as e:
        parse_duration("-5s")
    assert str(e.value) == 'invalid duration "-5s": must not be negative'
    assert parse_duration("-1m30s", allow_negative=True) == -90.0


@pytest.mark.parametrize(
    "seconds,s",
    [
        (0, "0s"),
        (1e-9, "1ns"),
        (1.1e-6, "1.1µs"),
        (2.2e-3, "2.2ms"),
        (0.2, "200ms"),
        (3.3, "3.3s"),
        (4, "4s"),
        (90, "1m30s"),
        (4 * 60 + 5.001, "4m5.001s"),
        (5 * 3600 + 6 * 60 + 7.001, "5h6m7.001s"),
        (8 * 60 + 1e-9, "8m0.000000001s"),
        (3600, "1h0m0s"),
        (-90, "-1m30s"),
        (1000, "16m40s"),
    ],
)
def test_format_duration(seconds, s):
    assert format_duration(seconds) == s


@pytest.mark.parametrize("s", ["1m30s", "200ms", "1h0m0s", "1.5µs", "4s", "16m40s"])
def test_format_parse_round_trip(s):
    assert format_duration(parse_duration(s)) == s


@pytest.mark.parametrize(
    "seconds,s",
    [
        (None, "-"),
        (0, "0s"),
        (0.0005, "500µs"),
        (0.0052, "5.2ms"),
        (0.25, "250ms"),
        (3.0, "3s"),
        (12.4, "12.4s"),
        (75, "1m15s"),
        (120, "2m"),
        (7300, "2h1m"),
        (7200, "2h"),
        (-1.5, "-1.5s"),
    ],
)
def test_format_short_is_the_one_display_duration(seconds, s):
    # Every pane, the header, the inspector and -o text print durations with it.
    assert format_short(seconds) == s


def test_format_short_says_what_it_cannot_show():
    from kubectl_informer.core.durations import format_short

    assert [format_short(v) for v in (float("nan"), float("inf"), float("-inf"))] == ["?", "?", "?"]
