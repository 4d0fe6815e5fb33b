"""A recording is untrusted input (a bug report's attachment, another user's
file): every field of every line is checked against the trace contract as it
is read, and a replay holds a bounded number of events.

On main, ``diff: 5``, ``key`` as an object, ``args: 5``, ``resync: "abc"``
ended in the crash report ("failed unexpectedly"); ``wall_time: 1e20``,
``time: "nan"`` and times running backwards replayed as if nothing were
wrong; a 2 M-event recording was held whole (929 MB RSS for ``-o text``).
Now each is one ``error: FILE line N: ...`` line and exit 1; ``-o json|text``
of a file streams it; the UI and stdin hold at most ``MAX_EVENTS`` and say
so in one line.
"""

from __future__ import annotations

import contextlib
import gzip
import json
import os
import re
import subprocess
import tracemalloc

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kubectl_informer.cli.main import cli
from kubectl_informer.cli.replay import replay
from kubectl_informer.core.trace import TraceBuffer, TraceEvent
from kubectl_informer.core.trace_kinds import KINDS
from kubectl_informer.panes.feed import FeedLoop
from kubectl_informer.replay import recording
from kubectl_informer.replay.recording import info_from_recording, read_recording
from kubectl_informer.tui.layout import PANES
from tests.replay.helpers import T0, header_fields, ndjson, story
from tests.security.conftest import command


def lines_of_a_run() -> list[dict]:
    """A recording of many kinds: the replay helpers' story, a queue and a FIFO."""
    evs = story()

    def e(t, kind, key=None, **fields):
        evs.append(TraceEvent.build(len(evs) + 1, T0 + t, kind, key, **fields))

    e(10.5, "watch.event", "default/web-1", type="MODIFIED", resource_version="10")
    e(10.5, "fifo.queue", "default/web-1", type="Updated", depth=1, pending=1, labels={"app": "web"})
    e(10.6, "fifo.pop", "default/web-1", types=["Updated"], is_in_initial_list=False, waited=0.1, depth=0)
    e(10.6, "handler.update", "default/web-1", listener="handler-1", is_sync=False)
    e(10.7, "queue.add", "default/web-1", outcome="queued", depth=1)
    e(10.8, "queue.done", "default/web-1", worked=0.01, requeued=False, worker=1, outcome="ok")
    e(11.0, "list.done", resource_version="10", items=2, duration=0.5, watch_list=False)
    return [json.loads(line) for line in ndjson(evs).splitlines()]


LINES = lines_of_a_run()


def write(tmp_path, lines, name="rec.ndjson") -> str:
    path = tmp_path / name
    path.write_text("".join(json.dumps(d) + "\n" for d in lines))
    return str(path)


def line_of(kind: str) -> int:
    """The (1-based) line number of the first event of ``kind``."""
    return next(i for i, d in enumerate(LINES, 1) if d["kind"] == kind)


def mutated(n: int, change) -> list[dict]:
    lines = json.loads(json.dumps(LINES))
    change(lines[n - 1])
    return lines


def field(name, value):
    return lambda d: d["fields"].__setitem__(name, value)


def member(name, value):
    return lambda d: d.__setitem__(name, value)


# What the issue found, and its neighbours: (kind of the line changed, change, what the error says).
BAD = {
    "diff: 5": ("store.update", field("diff", 5), "store.update: diff=5 is not list[str]"),
    "key as an object": ("store.update", member("key", {"a": 1}), "key={'a': 1} is not a string or null"),
    "args: 5": ("run.info", field("args", 5), "run.info: args=5 is not list[str]"),
    "resync: abc": ("run.info", field("resync", "abc"), "run.info: resync='abc' is not float"),
    "wall_time: 1e20": (
        "run.info",
        field("wall_time", 1e20),
        "run.info: wall_time=1e+20 is not seconds since the epoch",
    ),
    "time: nan": ("store.update", member("time", "nan"), "time='nan' is not a time in seconds"),
    "time: 1e300": ("relist", member("time", 1e300), "time=1e+300 is not a time in seconds"),
    "seq: true": ("relist", member("seq", True), "seq=True is not a whole number"),
    "v: 3": ("relist", member("v", 3), "v=3 is not a trace format this version reads"),
    "an unknown kind": ("relist", member("kind", "rm.rf"), "unknown event kind 'rm.rf'"),
    "an unknown field": ("relist", field("exec", "sh"), "relist: unknown field 'exec'"),
    "an unknown member": ("relist", lambda d: (d.pop("v"), d.update({"x": 1})), "unknown member 'x'"),
    "an object recorded": ("store.add", field("object", {"kind": "Pod"}), "store.add: unknown field 'object'"),
    "a choice not declared": (
        "relist",
        field("reason", "\x1b]52;c;aGk=\x07"),
        "relist: reason='\\x1b]52;c;aGk=\\x07' is not one of expired",
    ),
    "labels not strings": (
        "fifo.queue",
        field("labels", {"app": 5}),
        "fifo.queue: labels={'app': 5} is not dict[str,str]",
    ),
    "fields a list": ("relist", member("fields", [1]), "fields=[1] is not an object"),
    "an empty object": ("relist", lambda d: d.clear(), "seq=None is not a whole number"),
}


def replay_in_process(path: str, output: str):
    return CliRunner().invoke(cli, ["replay", path, "-o", output])


def assert_one_error_at(result, path: str, at_least: int) -> str:
    """Exit 1 and one ``error: PATH line N:`` line, N >= ``at_least``; no crash report."""
    assert result.exit_code == 1, (result.exit_code, result.stdout[-300:], result.stderr)
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and "failed unexpectedly" not in result.stderr, result.stderr
    m = re.match(rf"error: {re.escape(path)} line (\d+): ", lines[0])
    assert m and int(m.group(1)) >= at_least, lines[0]
    assert result.stdout == ""  # checked whole before the first line is printed
    return lines[0]


@pytest.mark.parametrize("case", list(BAD))
def test_a_wrong_field_is_one_line_naming_it(tmp_path, case):
    kind, change, says = BAD[case]
    n = line_of(kind)
    path = write(tmp_path, mutated(n, change))
    for output in ("text", "json"):
        line = assert_one_error_at(replay_in_process(path, output), path, n)
        assert line.startswith(f"error: {path} line {n}: ") and says in line, line
    with pytest.raises(recording.RecordingError, match=f"line {n}: "):
        read_recording(path)  # what the UI reads


def test_time_running_backwards_is_an_error_a_thread_switch_is_not(tmp_path):
    n = line_of("relist")
    back = mutated(n, member("time", LINES[n - 2]["time"] - 3.0))
    path = write(tmp_path, back)
    line = assert_one_error_at(replay_in_process(path, "text"), path, n)
    assert "time runs backwards" in line
    # A few milliseconds back: one thread stamped its event before another wrote its own.
    near = write(tmp_path, mutated(n, member("time", LINES[n - 2]["time"] - 0.003)), "near.ndjson")
    rec = read_recording(near)
    offsets = rec.offsets()
    assert offsets == sorted(offsets) and rec.duration == LINES[-1]["time"] - LINES[0]["time"]


def test_the_real_command_says_one_line_for_the_issues_probes(tmp_path):
    """Through the real CLI (a subprocess): main's crash report, and main's
    silent acceptance, are each one line."""
    for i, case in enumerate(("args: 5", "diff: 5", "time: nan")):
        kind, change, says = BAD[case]
        n = line_of(kind)
        path = write(tmp_path, mutated(n, change), f"rec{i}.ndjson")
        r = subprocess.run(
            command("replay", path, "-o", "text"), capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL
        )
        assert (r.returncode, r.stdout) == (1, ""), (case, r.stderr)
        assert r.stderr.startswith(f"error: {path} line {n}: {says}") and r.stderr.count("\n") == 1, r.stderr


# --- the caps -----------------------------------------------------------------------------


def relists(count: int, start: int = 1) -> str:
    return "".join(
        json.dumps(
            {"v": 2, "seq": i, "time": 1.5 + i / 1000, "kind": "relist", "key": None, "fields": {"reason": "error"}}
        )
        + "\n"
        for i in range(start, start + count)
    )


def test_the_ui_and_stdin_hold_at_most_the_cap_and_say_so_once(tmp_path, monkeypatch):
    monkeypatch.setattr(recording, "MAX_EVENTS", 1000)
    path = tmp_path / "big.ndjson.gz"
    path.write_bytes(gzip.compress(relists(1500).encode(), 1))
    rec = read_recording(str(path))
    assert len(rec.events) == 1000
    assert rec.warnings == [
        f"{path} line 1001: the replay's cap is reached (it holds 1,000 events and 128 MiB "
        "of lines at most); replaying the 1,000 events before it (-o json and -o text of a "
        "file read it all)"
    ]
    r = CliRunner().invoke(cli, ["replay", "-", "-o", "json"], input=relists(1500))
    assert r.exit_code == 0 and len(r.stdout.splitlines()) == 1000
    assert r.stderr.splitlines() == [
        "warning: - line 1001: the replay's cap is reached (it holds 1,000 events "
        "and 128 MiB of lines at most); replaying the 1,000 events before it (-o "
        "json and -o text of a file read it all)"
    ]
    # The bytes cap: fat lines stop the read before the count does.
    rec = read_recording(str(path), max_bytes=200 * 90)
    assert len(rec.events) < 200 and "cap is reached" in rec.warnings[0]


def test_a_file_replayed_headless_is_streamed_not_held(tmp_path):
    """-o json of 8,000 events: held whole (main), ~3.5 MiB of Python objects;
    streamed, well under 1 MiB at any time."""
    path = tmp_path / "many.ndjson.gz"
    path.write_bytes(gzip.compress(relists(8_000).encode(), 1))
    out = tmp_path / "out.ndjson"
    with open(out, "w") as sink, contextlib.redirect_stdout(sink):
        tracemalloc.start()
        try:
            assert replay(str(path), "json", None) == 0
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
    assert out.read_text().count("\n") == 8_000
    assert peak < 1 << 20, peak


# --- any mutation -------------------------------------------------------------------------


def _nested(inner):
    return st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)


JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8),
    _nested,
    max_leaves=6,
)
NAMES = sorted({name for k in KINDS.values() for name in k.fields})  # every declared field, local ones too


@st.composite
def mutations(draw):
    n = draw(st.integers(1, len(LINES)))
    what = draw(st.sampled_from(["field", "drop field", "member", "drop member", "raw"]))
    if what == "field":
        return n, field(draw(st.sampled_from(NAMES) | st.text(max_size=6)), draw(JSON))
    if what == "drop field":
        name = draw(st.sampled_from(NAMES))
        return n, lambda d: d["fields"].pop(name, None)
    if what == "member":
        return n, member(draw(st.sampled_from(["seq", "time", "kind", "key", "fields", "v", "x"])), draw(JSON))
    if what == "drop member":
        name = draw(st.sampled_from(["seq", "time", "kind", "key", "fields", "v"]))
        return n, lambda d: d.pop(name, None)
    value = draw(JSON)
    return n, lambda d: (d.clear(), d.update({"raw": value}))


@settings(
    max_examples=int(os.environ.get("RECORDING_MUTATIONS", "150")),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(mutations())
def test_any_mutated_line_replays_or_is_one_error_line(tmp_path, mutation):
    n, change = mutation
    path = write(tmp_path, mutated(n, change))
    outputs = [replay_in_process(path, output) for output in ("text", "json")]
    if outputs[0].exit_code != 0:
        for r in outputs:
            assert_one_error_at(r, path, n)
        return
    for r in outputs:
        assert r.exit_code == 0 and "failed unexpectedly" not in r.stderr, r.stderr
    # What the UI does with it, without drawing: the header's facts and every pane's state.
    rec = read_recording(path)
    buf = TraceBuffer()
    buf.extend(rec.events)
    loop = FeedLoop(buf, {s.name: s.state_cls for s in PANES}, info=info_from_recording(rec))
    assert loop.drain() == len(rec.events)


def test_a_recording_the_engine_wrote_still_replays(tmp_path):
    path = write(tmp_path, LINES)
    assert replay_in_process(path, "text").exit_code == 0
    assert read_recording(path).header == header_fields()
