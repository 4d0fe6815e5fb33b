"""Run: prepare (all user-caused failures before any thread), start, stop with
no thread left behind. Against the simulated cluster over real HTTP."""

import re
import threading
from pathlib import Path

import pytest

from kubectl_informer.clock.testing import FakeClock, wait_for
from kubectl_informer.core.trace import TraceBuffer, Tracer
from kubectl_informer.run.config import RunConfig
from kubectl_informer.run.runner import Run, RunError

pytestmark = pytest.mark.e2e


def _run(**kw):
    tracer = Tracer()
    buf = TraceBuffer()
    tracer.subscribe(buf)
    kw.setdefault("demo", "steady")
    return Run(RunConfig.from_flags(**kw), tracer), buf


def _collect(buf, seen, kind):
    seen.extend(buf.drain())
    return any(e.kind == kind for e in seen)


@pytest.mark.parametrize("mode", ["watch", "queue"])
def test_run_syncs_then_stops_every_thread_it_started(mode):
    before = set(threading.enumerate())
    run, buf = _run(mode=mode, work_time=0.01)
    info = run.prepare()
    assert info.resource == "pods" and info.namespace == "default" and info.mode == mode
    assert info.fifo == "DeltaFIFO" and info.initial_list == "paged LIST"
    run.start()
    seen = []
    assert wait_for(lambda: _collect(buf, seen, "informer.synced"), timeout=20)
    if mode == "queue":
        assert wait_for(lambda: _collect(buf, seen, "queue.done"), timeout=20)
        assert info.workers == 2
    assert run.stop() == []
    # Not only our threads: the informer's listeners, the workers and the demo server's too.
    assert wait_for(lambda: set(threading.enumerate()) <= before, timeout=10), sorted(
        t.name for t in set(threading.enumerate()) - before
    )


def test_secrets_reach_the_cache_redacted():
    run, buf = _run(resource="secrets")
    run.prepare()
    run.start()
    try:
        assert wait_for(lambda: run.informer.has_synced(), timeout=20)
        for obj in run.informer.get_store().list():
            assert "managedFields" not in obj["metadata"]
            for v in (obj.get("data") or {}).values():
                assert v.startswith("<redacted ")
    finally:
        run.stop()


@pytest.mark.parametrize(
    "kw,message",
    [
        ({"client_go": "one"}, 'invalid --client-go "one"'),
        ({"fifo": "lifo"}, 'invalid --fifo "lifo"'),
    ],
)
def test_bad_profile_flags_fail_when_the_config_is_read(kw, message):
    """The profile is resolved once, with the flags: no Run is made of them."""
    with pytest.raises(ValueError, match=message):
        RunConfig.from_flags(**kw)


@pytest.mark.parametrize(
    "kw,message",
    [
        ({"mode": "queue", "rate_limiter": "bucket:ten"}, "bucket"),
        ({"mode": "queue", "workers": 0}, "--workers must be at least 1"),
        ({"demo": "nosuch"}, 'unknown scenario "nosuch"'),
        ({"resync": -1.0}, "--resync must not be negative"),
    ],
)
def test_bad_options_fail_in_prepare_before_any_thread(kw, message):
    before = set(threading.enumerate())
    run, _ = _run(**kw)
    try:
        run.prepare()
    except RunError as e:
        assert "\n" not in str(e)
        if message:
            assert message in str(e)
    else:
        pytest.fail(f"{kw} was accepted")
    assert run.threads == []
    assert wait_for(lambda: set(threading.enumerate()) <= before, timeout=10)


def test_a_crashed_engine_thread_ends_a_headless_run_with_one_line(monkeypatch, tmp_path):
    from click.testing import CliRunner

    from kubectl_informer.cli.main import cli
    from kubectl_informer.run import pipeline

    real = pipeline.new_informer

    def crashing(*a, **kw):
        informer = real(*a, **kw)

        def run(stop_event):
            raise RuntimeError("boom")

        informer.run = run
        return informer

    monkeypatch.setattr(pipeline, "new_informer", crashing)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    r = CliRunner().invoke(cli, ["watch", "pods", "--demo", "-o", "text"])
    assert r.exit_code == 1
    [line] = r.stderr.splitlines()
    log = re.fullmatch(
        r"error: the informer thread stopped unexpectedly: boom \(the traceback is in (\S+); "
        r"please report it\)",
        line,
    ).group(1)
    assert log.startswith(str(tmp_path)) and "RuntimeError: boom" in Path(log).read_text()


def test_record_writes_the_trace_replay_reads(tmp_path):
    import time

    from click.testing import CliRunner

    from kubectl_informer.cli.main import cli
    from kubectl_informer.replay.recording import info_from_recording, read_recording

    rec = tmp_path / "rec.ndjson"
    before = time.time()
    args = [
        "watch",
        "pods",
        "--demo",
        "quiet",
        "-o",
        "text",
        "--max-events",
        "4",
        "--resync",
        "3s",
        "--record",
        str(rec),
    ]
    r = CliRunner().invoke(cli, args)
    assert r.exit_code == 0, r.stderr
    printed = [line.split()[1] for line in r.stdout.splitlines()]
    recording = read_recording(str(rec))
    events = recording.events
    # The header first: what was recorded, how, and when.
    assert events[0].kind == "run.info" and events[1].kind in ("handler.register", "informer.start")
    h = recording.header
    assert (h["resource"], h["namespace"], h["context"], h["profile"], h["fifo"], h["demo"], h["resync"]) == (
        "pods",
        "default",
        "sim",
        "1.32",
        "DeltaFIFO",
        "quiet",
        3.0,
    )
    assert h["args"] == args and before <= h["wall_time"] <= time.time()
    info = info_from_recording(recording)
    assert info.demo_scenario == "quiet" and info.context == "sim"
    stored = [e.key for e in events if e.kind.startswith("store.")]
    assert stored[:4] == printed
    bad = CliRunner().invoke(cli, ["watch", "pods", "--demo", "-o", "text", "--record", str(tmp_path / "no" / "f")])
    assert bad.exit_code == 1
    assert bad.stderr.startswith("error: cannot record to ") and len(bad.stderr.splitlines()) == 1


def test_all_namespaces_watches_every_namespace():
    run, buf = _run(all_namespaces=True, demo="quiet")
    info = run.prepare()
    assert info.namespace is None
    run.start()
    try:
        assert wait_for(lambda: run.informer.has_synced(), timeout=20)
        namespaces = {key.split("/")[0] for key in run.informer.get_store().list_keys()}
        assert len(namespaces) > 1 and "default" in namespaces
    finally:
        run.stop()


def test_the_pipeline_runs_on_the_clock_the_run_is_given():
    # A worker's 5 s of work ends when the FakeClock moves 5 s, not before:
    # the clock reaches the controller as it reaches the informer.
    clock = FakeClock(start=50.0)
    tracer, buf = Tracer(), TraceBuffer()
    tracer.subscribe(buf)
    run = Run(RunConfig.from_flags(demo="steady", mode="queue", workers=1, work_time=5.0), tracer, clock)
    run.prepare()
    run.start()
    try:
        seen = []
        assert wait_for(lambda: _collect(buf, seen, "queue.get"), timeout=20)
        assert run.informer.clock is clock and run.controller.clock is clock
        assert wait_for(clock.has_waiters)
        assert not wait_for(lambda: _collect(buf, seen, "queue.done"), timeout=0.2)
        clock.step(5.0)
        assert wait_for(lambda: _collect(buf, seen, "queue.done"), timeout=20)
        assert run.successor(run.config).clock is clock  # a restart keeps the run's clock
    finally:
        assert run.stop() == []
