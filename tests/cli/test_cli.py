"""Parsing, help and the one-line error contract, through click's CliRunner.

Every failure the user can cause must end in exactly one ``error: ...`` line
on stderr and a non-zero exit, never a traceback.
"""

import re
import socket
import textwrap

import pytest
from click.testing import CliRunner

import kubectl_informer.cli.command as cli_command
from kubectl_informer.cli.main import cli


def invoke(*args, **kw):
    return CliRunner().invoke(cli, list(args), **kw)


def assert_one_line_error(result, code=None, contains=()):
    assert result.exit_code != 0, result.output
    if code is not None:
        assert result.exit_code == code, (result.exit_code, result.stderr)
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("error: "), lines[0]
    assert "Traceback" not in result.stderr and result.stdout == ""
    for part in contains:
        assert part in lines[0], lines[0]
    return lines[0]


# --- help and version ---------------------------------------------------------


def test_group_help_reads_like_kubectl():
    r = invoke("--help")
    assert r.exit_code == 0
    out = r.stdout
    assert out.index("Examples:") < out.index("Commands:") < out.index("Usage:")
    assert "Usage:\n  kubectl informer [command] [options]" in out
    for command in ("watch", "queue", "replay", "sim", "version"):
        assert f"  {command} " in out
    assert 'Use "kubectl informer <command> --help"' in out


def test_no_arguments_prints_help_and_succeeds():
    r = invoke()
    assert r.exit_code == 0 and "Usage:" in r.stdout


@pytest.mark.parametrize(
    "command,usage",
    [
        ("watch", "kubectl informer watch RESOURCE[,RESOURCE...] [NAME] [options]"),
        ("queue", "kubectl informer queue [RESOURCE] [options]"),
        ("replay", "kubectl informer replay FILE [options]"),
        ("sim", "kubectl informer sim [options]"),
    ],
)
def test_command_help_has_examples_and_kubectl_usage(command, usage):
    r = invoke(command, "--help")
    assert r.exit_code == 0
    assert "Examples:\n  # " in r.stdout
    assert f"Usage:\n  {usage}" in r.stdout


def test_watch_help_lists_every_flag_of_the_issue():
    out = invoke("watch", "-h").stdout
    for flag in (
        "-n, --namespace",
        "-A, --all-namespaces",
        "-l, --selector",
        "--field-selector",
        "--resync",
        "--client-go 1.32|1.35|1.36",
        "--fifo [delta|real]",
        "--watch-list / --no-watch-list",
        "--context",
        "--kubeconfig",
        "--demo [SCENARIO]",
        "-o, --output [tui|json|text]",
        "--show-secret-data",
        "--duration",
        "--max-events",
        "--record FILE",
    ):
        assert flag in out, flag


def test_queue_help_shows_client_go_like_defaults():
    # click wraps at hyphens; join those back before comparing
    out = " ".join(re.sub(r"-\n\s+", "-", invoke("queue", "--help").stdout).split())
    assert "--workers N Worker threads draining the queue (sample-controller runs 2). [default: 2; 1<=x<=256]" in out
    assert "--work-time DURATION How long each item takes to process. [default: 200ms]" in out
    assert "[default: 0s]" in out  # --resync off unless asked, as client-go


def test_version():
    r = invoke("version")
    assert r.exit_code == 0 and r.stdout.startswith("kubectl-informer v0.1.0 (python 3.")


def test_dash_dash_version_prints_what_version_prints():
    """The real executable: `--version` as well as `version`, exit 0, the same line."""
    import subprocess
    import sys

    runs = [
        subprocess.run([sys.executable, "-m", "kubectl_informer", *args], capture_output=True, text=True, timeout=30)
        for args in (["version"], ["--version"])
    ]
    assert [r.returncode for r in runs] == [0, 0]
    assert runs[1].stdout == runs[0].stdout and runs[1].stdout.startswith("kubectl-informer v0.1.0 (python 3.")
    assert runs[1].stderr == ""


# --- usage errors: one line, exit 2 ---------------------------------------------


@pytest.mark.parametrize(
    "args,expected",
    [
        (["watch", "pods", "--resync", "3x"], "invalid value for '--resync': invalid duration \"3x\""),
        (["queue", "--work-time", "fast"], "invalid value for '--work-time'"),
        (["watch"], "you must specify the type of resource"),
        (["watch", "pods", "--bogus"], "no such option '--bogus'"),
        (["watch", "pods", "-n", "a", "-A"], "-n/--namespace and -A/--all-namespaces cannot be used together"),
        (["watch", "pods", "-o", "yaml"], "invalid value for '-o' / '--output'"),
        (["watch", "pods", "--fifo", "lifo"], "invalid value for '--fifo'"),
        (["watch", "pods", "--duration", "5s"], "--duration and --max-events apply to -o json and -o text only"),
        (["watch", "pods", "-o", "text", "--max-events", "0"], "invalid value for '--max-events'"),
        (["nope"], "no such command 'nope'"),
    ],
)
def test_usage_errors_are_one_line(args, expected):
    line = assert_one_line_error(invoke(*args), code=2, contains=[expected])
    assert line.endswith("--help')")  # points at the help, on the same line


def test_unknown_client_go_is_one_line():
    assert_one_line_error(
        invoke("watch", "pods", "-o", "text", "--client-go", "2.0"),
        code=2,
        contains=["invalid value for '--client-go'", '"2.0"'],
    )


def test_tui_without_a_terminal_says_how_to_run_headless():
    assert_one_line_error(
        invoke("watch", "pods", "--demo"), code=1, contains=["needs a terminal", "-o json", "-o text"]
    )


def test_a_bad_resource_is_reported_before_the_missing_terminal():
    # The typo is the user's real problem; the terminal only matters once the run can start.
    assert_one_line_error(
        invoke("watch", "podz", "--demo"),
        code=1,
        contains=['doesn\'t have a resource type "podz"', "did you mean pods?"],
    )


# --- replay -----------------------------------------------------------------------

TRACE = (
    '{"seq": 1, "time": 0.0, "kind": "informer.start", "key": null, '
    '"fields": {"fifo": "DeltaFIFO", "watch_list": false, "resync_check_period": 0}}\n'
    '{"seq": 2, "time": 0.1, "kind": "list.done", "key": null, "fields": {"resource_version": "7", "items": 1}}\n'
    '{"seq": 3, "time": 0.2, "kind": "store.add", "key": "default/web-1", '
    '"fields": {"delta": "Replaced", "resource_version": "5", "summary": "Running", "is_in_initial_list": true}}\n'
    "\n"  # a blank line between records
    '{"seq": 4, "time": 3.2, "kind": "store.update", "key": "default/web-1", "fields": {"delta": "Sync", '
    '"resource_version": "5", "old_resource_version": "5", "summary": "Running", "diff": []}}\n'
    '{"seq": 5, "time": 4.0, "kind": "store.delete", "key": "default/web-1", '
    '"fields": {"delta": "Deleted", "resource_version": "5", "tombstone": true}}\n'
)


def test_replay_text_prints_the_recorded_deltas(tmp_path):
    f = tmp_path / "trace.ndjson"
    f.write_text(TRACE)
    r = invoke("replay", str(f), "-o", "text")
    assert r.exit_code == 0, r.stderr
    assert r.stdout.splitlines() == [
        "Replaced default/web-1 rv=5 Running [initial list]",
        "Sync default/web-1 rv=5 Running (no change)",
        "Deleted default/web-1 rv=5 (tombstone: DeletedFinalStateUnknown)",
    ]


def test_replay_json_from_stdin_reemits_every_event():
    r = invoke("replay", "-", "-o", "json", input=TRACE)
    assert r.exit_code == 0
    assert [line.split('"kind": ')[0] for line in r.stdout.splitlines()] and len(r.stdout.splitlines()) == 5


def test_replay_info_comes_from_the_trace(tmp_path):
    from kubectl_informer.replay.recording import info_from_recording, read_recording

    info = info_from_recording(read_recording(str(_write(tmp_path, TRACE))))
    assert (info.fifo, info.initial_list, info.mode) == ("DeltaFIFO", "paged LIST", "watch")


def _write(tmp_path, text):
    f = tmp_path / "t.ndjson"
    f.write_text(text)
    return f


def test_replay_errors_are_one_line(tmp_path):
    assert_one_line_error(
        invoke("replay", str(tmp_path / "missing.ndjson"), "-o", "text"),
        code=1,
        contains=["cannot read", "No such file or directory"],
    )
    bad = _write(tmp_path, TRACE.splitlines()[0] + "\nnot json at all\n")
    assert_one_line_error(
        invoke("replay", str(bad), "-o", "text"), code=1, contains=[f"{bad} line 2: not a trace event"]
    )
    assert_one_line_error(
        invoke("replay", str(_write(tmp_path, "\n\n")), "-o", "text"), code=1, contains=["no trace events"]
    )
    assert_one_line_error(
        invoke("replay", str(_write(tmp_path, TRACE)), "-o", "text", "--from", "1m"),
        code=1,
        contains=["--from 60s is past the end of", "(4.0s long)"],
    )
    assert_one_line_error(
        invoke("replay", str(_write(tmp_path, TRACE)), "--no-wait", "--speed", "2"),
        code=2,
        contains=["--no-wait and --speed cannot be used together"],
    )
    assert_one_line_error(invoke("replay", str(_write(tmp_path, TRACE)), "--speed", "-1"), code=2, contains=["--speed"])


def test_replay_text_from_an_offset_in_recorded_time(tmp_path, monkeypatch):
    import kubectl_informer.replay.player as player
    from tests.replay.helpers import SteppingClock

    clock = SteppingClock()
    monkeypatch.setattr(player, "RealClock", lambda: clock)
    r = invoke("replay", str(_write(tmp_path, TRACE)), "-o", "text", "--speed", "2", "--from", "3s")
    assert r.exit_code == 0, r.stderr
    assert r.stdout.splitlines() == [
        "Sync default/web-1 rv=5 Running (no change)",
        "Deleted default/web-1 rv=5 (tombstone: DeletedFinalStateUnknown)",
    ]
    assert clock.sleeps == [0.1, 0.4]  # 3.2s and 4.0s, from 3s, at 2x


# --- the last guard ------------------------------------------------------------------


def test_unexpected_exception_is_one_line_and_debug_shows_the_traceback(tmp_path, monkeypatch):
    def boom(path):
        raise RuntimeError("boom")

    import kubectl_informer.cli.replay as replay_run

    monkeypatch.setattr(replay_run, "scan_recording", boom)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    line = assert_one_line_error(invoke("replay", "x", "-o", "text"), code=1)
    log = str(tmp_path / "kubectl-informer" / "crash-")
    assert line.startswith(f"error: kubectl informer failed unexpectedly: boom (the traceback is in {log}")
    r = invoke("replay", "x", "-o", "text", "--debug")
    assert r.exit_code == 1
    assert "Traceback (most recent call last)" in r.stderr and "RuntimeError: boom" in r.stderr
    assert r.stderr.splitlines()[-1].startswith("error: kubectl informer failed unexpectedly: boom (the traceback")


def test_closed_pipe_ends_quietly(tmp_path, monkeypatch):
    class Closed:
        def render(self, events):
            raise BrokenPipeError()

    import kubectl_informer.cli.replay as replay_run

    monkeypatch.setattr(replay_run, "make_renderer", lambda *a, **k: Closed())
    monkeypatch.setattr(cli_command, "_silence_stdout", lambda: None)
    r = invoke("replay", str(_write(tmp_path, TRACE)), "-o", "text")
    assert r.exit_code == 0 and r.stderr == ""


# --- kubeconfig and server errors (no cluster needed) -------------------------------------


def _kubeconfig(tmp_path, server):
    f = tmp_path / "kubeconfig"
    f.write_text(
        textwrap.dedent(f"""\
        apiVersion: v1
        kind: Config
        clusters:
        - name: c
          cluster: {{server: "{server}"}}
        users:
        - name: u
          user: {{token: abc}}
        contexts:
        - name: here
          context: {{cluster: c, user: u, namespace: team-a}}
        current-context: here
        """)
    )
    return f


def test_missing_kubeconfig_is_one_line(tmp_path):
    assert_one_line_error(invoke("watch", "pods", "-o", "text", "--kubeconfig", str(tmp_path / "nope")), code=1)


def test_unknown_context_is_one_line(tmp_path):
    kc = _kubeconfig(tmp_path, "http://127.0.0.1:1")
    assert_one_line_error(
        invoke("watch", "pods", "-o", "text", "--kubeconfig", str(kc), "--context", "nope"),
        code=1,
        contains=['context "nope" does not exist'],
    )


def test_unreachable_server_is_one_line(tmp_path):
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()  # nothing listens there now
    kc = _kubeconfig(tmp_path, f"http://127.0.0.1:{port}")
    assert_one_line_error(
        invoke("watch", "pods", "-o", "text", "--kubeconfig", str(kc)), code=1, contains=["127.0.0.1", "refused"]
    )


def test_demo_refuses_a_kubeconfig(tmp_path):
    assert_one_line_error(
        invoke("watch", "pods", "--demo", "-o", "text", "--kubeconfig", "x"),
        code=1,
        contains=["--demo runs its own simulated cluster"],
    )
