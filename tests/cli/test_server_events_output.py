"""The server.* events in -o json, in a --record recording, and in its replay."""

from __future__ import annotations

import orjson
from click.testing import CliRunner

from kubectl_informer.cli.main import cli
from kubectl_informer.replay.recording import read_recording


def _server(lines):
    return [e for e in (orjson.loads(line) for line in lines if line.strip()) if e["kind"].startswith("server.")]


def test_json_record_and_replay_carry_the_server_window(tmp_path):
    rec = tmp_path / "rec.ndjson"
    r = CliRunner().invoke(
        cli, ["watch", "pods", "--demo", "small-window", "-o", "json", "--duration", "2500ms", "--record", str(rec)]
    )
    assert r.exit_code == 0, r.stderr
    printed = _server(r.stdout.splitlines())
    assert printed and {e["kind"] for e in printed} == {"server.window"}
    last = printed[-1]["fields"]
    assert last["source"] == "sim" and last["resource"] == "pods" and last["capacity"] == 8
    assert any(w.endswith(" ours") for w in last["watchers"]) and last["ours_rv"]
    recorded = [e for e in read_recording(str(rec)).events if e.kind.startswith("server.")]
    assert [(e.kind, e.fields) for e in recorded] == [(e["kind"], e["fields"]) for e in printed]
    replayed = CliRunner().invoke(cli, ["replay", str(rec), "-o", "json"])
    assert replayed.exit_code == 0, replayed.stderr
    assert [(e["kind"], e["fields"]) for e in _server(replayed.stdout.splitlines())] == [
        (e["kind"], e["fields"]) for e in printed
    ]


def test_server_scrape_must_not_be_negative():
    r = CliRunner().invoke(cli, ["watch", "pods", "--demo", "-o", "json", "--server-scrape", "-1s"])
    assert r.exit_code != 0 and r.stderr.startswith("error: ") and len(r.stderr.splitlines()) == 1


def test_server_scrape_zero_reads_nothing_from_the_server():
    r = CliRunner().invoke(
        cli, ["watch", "pods", "--demo", "small-window", "-o", "json", "--duration", "1500ms", "--server-scrape", "0"]
    )
    assert r.exit_code == 0, r.stderr
    lines = r.stdout.splitlines()
    assert any('"informer.synced"' in line for line in lines) and _server(lines) == []


def test_text_output_says_once_why_the_metrics_are_not_read():
    from kubectl_informer.cli.output import format_trouble
    from kubectl_informer.core.trace import TraceEvent

    ev = TraceEvent.build(
        1,
        10.0,
        "server.forbidden",
        None,
        source="metrics",
        status=403,
        rule='nonResourceURLs: ["/metrics"], verbs: ["get"]',
        message='forbidden: User "jane" cannot get path "/metrics"',
    )
    assert format_trouble(ev) == (
        'cannot read the API server\'s /metrics (HTTP 403: forbidden: User "jane" cannot '
        'get path "/metrics"); an RBAC rule allowing nonResourceURLs: ["/metrics"], '
        'verbs: ["get"] would (see --server-scrape)'
    )
    window = TraceEvent.build(2, 10.5, "server.window", None, source="sim", resource="pods")
    assert format_trouble(window) is None  # the window is the pane's, not a trouble
