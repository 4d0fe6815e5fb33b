"""Bad input, flag by flag: one ``error:`` line, exit 2 for a bad flag or
value (click's usage errors), 1 for what the run meets (files, clusters)."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from tests.cli.test_cli import TRACE, _kubeconfig, assert_one_line_error, invoke

# Long enough that a loaded machine still answers the first requests in time:
# every run here ends with its error before that.
HEADLESS = ["-o", "text", "--duration", "30s"]


@pytest.mark.parametrize(
    "args,expected",
    [
        (["queue", "--fail-rate", "2"], "invalid value for '--fail-rate'"),
        (["queue", "--fail-rate", "-0.1"], "invalid value for '--fail-rate'"),
        (["queue", "--fail-rate", "lots"], "invalid value for '--fail-rate'"),
        (["queue", "--rate-limiter", "foo"], 'invalid rate limiter "foo"'),
        (["queue", "--rate-limiter", "bucket:ten,1"], "invalid value for '--rate-limiter'"),
        (["watch", "pods", "--client-go", "2.0"], "invalid value for '--client-go'"),
        (["watch", "pods", "--client-go", "latest"], "invalid value for '--client-go'"),
        (["queue", "--workers", "0"], "invalid value for '--workers'"),
        (["queue", "--max-retries", "-1"], "invalid value for '--max-retries'"),
        (["watch", "pods", "--client-go", "1.36", "--no-fifo-known-objects"], "not with the RealFIFO"),
        (["queue", "--max-retries", "two"], "invalid value for '--max-retries'"),
        (["queue", "--workers", "-1"], "invalid value for '--workers'"),
        (["queue", "--workers", "100000"], "invalid value for '--workers'"),
        (["watch", "pods", "--resync", "10"], "invalid value for '--resync'"),
        (["watch", "pods", "--resync", "3x"], 'invalid duration "3x"'),
        (["watch", "pods", "--resync", "-1s"], "must not be negative"),
        (["watch", "pods", "--resync", "1e9h"], 'invalid duration "1e9h"'),
        (["watch", "pods", "--resync", "9999999h"], "out of range"),
        (["queue", "--work-time", "-1s"], "invalid value for '--work-time'"),
        (["watch", "pods", "--max-events", "many"], "invalid value for '--max-events'"),
        (["watch", "pods", "-l", "a%b"], "invalid value for '-l' / '--selector'"),
        (
            ["watch", "pods", "-l", "app in (a"],
            "'--selector': unable to parse requirement: found '', expected: ',' or ')'",
        ),
        (["watch", "pods", "--field-selector", "status.phase"], "invalid value for '--field-selector'"),
        (["watch", "pods", "--field-selector", "a=b,c"], '"c" is not a field selector term'),
        (["watch", "pods", "--demo", "nosuch"], 'unknown scenario "nosuch"'),
        (["queue", "pods", "--demo=nosuch"], 'unknown scenario "nosuch"'),
        (["watch", "pods", "--request-timeout", "-1"], "invalid value for '--request-timeout'"),
        (["watch", "pods", "--request-timeout", "1x"], "invalid value for '--request-timeout'"),
    ],
)
def test_bad_flag_values_are_usage_errors(args, expected):
    # Rejected before any cluster is touched: --demo is not even needed.
    assert_one_line_error(invoke(*args, *HEADLESS), code=2, contains=[expected])


def test_a_field_selector_the_server_refuses_ends_the_run_at_once_as_kubectl_does():
    # The server's 400 on the first list is the user's to fix: one line, exit 1, no retry for --duration.
    r = invoke("watch", "pods", "--demo", "--field-selector", "spec.foo=bar", *HEADLESS)
    assert_one_line_error(r, code=1, contains=["400 BadRequest", "field label not supported: spec.foo"])


def test_sim_unknown_scenario_is_a_usage_error():
    assert_one_line_error(invoke("sim", "--scenario", "nosuch"), code=2, contains=['unknown scenario "nosuch"'])


def test_request_timeout_takes_a_bare_integer_as_seconds_as_kubectl_does():
    from kubectl_informer.cli.command import REQUEST_TIMEOUT

    assert REQUEST_TIMEOUT.convert("1", None, None) == 1.0
    assert REQUEST_TIMEOUT.convert("0", None, None) == 0.0
    assert REQUEST_TIMEOUT.convert("2m", None, None) == 120.0
    assert REQUEST_TIMEOUT.convert("500ms", None, None) == 0.5


def test_top_level_help_lists_each_command_with_its_first_sentence_whole():
    r = invoke("--help")
    assert r.exit_code == 0
    commands = r.stdout.split("Available Commands:")[1].split("Usage:")[0]
    assert "..." not in commands and "…" not in commands
    assert "Run an informer on RESOURCE and show every step" in " ".join(commands.split())


def test_watch_help_says_the_demo_resyncs_every_5s():
    r = invoke("watch", "--help")
    assert "resyncs every 5s" in " ".join(r.stdout.split())


def test_good_selectors_pass_the_checks():
    # 3 s: room for the demo's start-up on a loaded machine (--duration counts it), and nothing
    # after it is needed: the selectors passed once the server answered the list.
    r = invoke(
        "watch",
        "pods",
        "--demo",
        "-l",
        "app=web,tier!=db,env in (a,b),!legacy",
        "--field-selector",
        "status.phase!=Failed,metadata.namespace==default",
        "-o",
        "text",
        "--duration",
        "3s",
    )
    assert r.exit_code == 0, r.stderr


def test_namespace_with_a_cluster_scoped_resource_is_a_usage_error():
    assert_one_line_error(
        invoke("watch", "namespaces", "-n", "team-a", "--demo", *HEADLESS),
        code=2,
        contains=['"namespaces" is cluster-scoped: drop -n/--namespace'],
    )


def test_a_name_that_does_not_exist_is_one_line():
    assert_one_line_error(
        invoke("watch", "pods", "no-such-pod", "--demo", *HEADLESS),
        code=1,
        contains=['pods "no-such-pod" not found in namespace "default"'],
    )


def test_record_to_an_unwritable_path_is_one_line(tmp_path):
    assert_one_line_error(
        invoke("watch", "pods", "--demo", *HEADLESS, "--record", str(tmp_path / "no" / "x")),
        code=1,
        contains=["cannot record to", "No such file or directory"],
    )
    assert_one_line_error(
        invoke("watch", "pods", "--demo", *HEADLESS, "--record", str(tmp_path)),
        code=1,
        contains=["cannot record to", "Is a directory"],
    )


def test_replay_reads_gzip_and_reports_truncation(tmp_path):
    gz = tmp_path / "trace.ndjson.gz"
    gz.write_bytes(gzip.compress(TRACE.encode()))
    r = invoke("replay", str(gz), "-o", "text")
    assert r.exit_code == 0 and r.stdout.splitlines()[0].startswith("Replaced default/web-1"), r.stderr
    # A recording cut mid-write (the run was killed): one warning, the events before the cut.
    cut = tmp_path / "cut.ndjson"
    cut.write_text(TRACE.rstrip("\n")[:-20])
    r = invoke("replay", str(cut), "-o", "text")
    assert r.exit_code == 0 and len(r.stdout.splitlines()) == 2
    assert (
        r.stderr == f"warning: {cut} line 6: the last line is cut mid-event (the recording was interrupted); "
        "replaying the events before it\n"
    )
    cutgz = tmp_path / "cut.gz"
    cutgz.write_bytes(gzip.compress(TRACE.encode() * 50)[:200])
    r = invoke("replay", str(cutgz), "-o", "text")
    assert r.exit_code == 0 and r.stderr.startswith("warning: ") and "ends early" in r.stderr
    assert_one_line_error(invoke("replay", str(tmp_path), "-o", "text"), code=1, contains=["Is a directory"])
    binary = tmp_path / "corrupt"
    binary.write_bytes(b"\x00\xff\xfe garbage\n")
    assert_one_line_error(invoke("replay", str(binary), "-o", "text"), code=1, contains=["not a trace event"])


@pytest.mark.parametrize(
    "body,expected",
    [
        ("", "file is empty"),
        ("clusters: [1, 2]\n", "cannot unmarshal number into field clusters[0] of type struct"),
        ("apiVersion: v1\nkind: Config\nclusters: []\ncontexts: []\nusers: []\n", "current-context is not set"),
        (": : :\n", "invalid YAML"),
    ],
)
def test_kubeconfig_problems_are_one_line(tmp_path, body, expected):
    kc = tmp_path / "kc"
    kc.write_text(body)
    assert_one_line_error(invoke("watch", "pods", *HEADLESS, "--kubeconfig", str(kc)), code=1, contains=[expected])


def test_context_pointing_at_a_missing_cluster_or_user(tmp_path):
    kc = _kubeconfig(tmp_path, "http://127.0.0.1:1")
    text = kc.read_text()
    kc.write_text(text.replace("cluster: c, user: u", "cluster: gone, user: u"))
    assert_one_line_error(
        invoke("watch", "pods", *HEADLESS, "--kubeconfig", str(kc)), code=1, contains=['cluster "gone" does not exist']
    )
    kc.write_text(text.replace("cluster: c, user: u", "cluster: c, user: nobody"))
    r = invoke("watch", "pods", *HEADLESS, "--kubeconfig", str(kc))
    assert_one_line_error(r, code=1, contains=['user "nobody" does not exist'])


@pytest.mark.parametrize(
    "user,cluster",
    [
        (
            '{client-certificate-data: "Y2VydA==", client-key-data: "S2V5LVNFQ1JFVC0xMjM=!", token: "tok-SECRET-123"}',
            '{server: "https://127.0.0.1:1"}',
        ),
        (
            '{client-certificate-data: "Y2VydA==", client-key-data: "S2V5LVNFQ1JFVC0xMjM=", token: "tok-SECRET-123"}',
            '{server: "https://127.0.0.1:1"}',
        ),
        ('{token: "tok-SECRET-123"}', '{server: "https://127.0.0.1:1", certificate-authority-data: "!!x"}'),
        ('{token: "tok-SECRET-123"}', '{server: "http://127.0.0.1:1"}'),
    ],
)
def test_credentials_never_appear_in_errors_even_with_debug(tmp_path, user, cluster):
    kc = tmp_path / "kc"
    kc.write_text(
        f"apiVersion: v1\nkind: Config\nclusters: [{{name: c, cluster: {cluster}}}]\n"
        f"users: [{{name: u, user: {user}}}]\ncontexts: [{{name: x, context: {{cluster: c, user: u}}}}]\n"
        f"current-context: x\n"
    )
    r = invoke("watch", "pods", *HEADLESS, "--kubeconfig", str(kc), "--debug")
    assert r.exit_code == 1
    for secret in ("tok-SECRET-123", "S2V5LVNFQ1JFVC0xMjM", "Key-SECRET-123"):
        assert secret not in r.stderr + r.stdout


def test_a_tls_verification_failure_is_one_line(tmp_path):
    import yaml

    from kubectl_informer.sim.server import SimServer

    srv = SimServer(tls=True).start()
    try:
        doc = yaml.safe_load(Path(srv.write_kubeconfig(str(tmp_path / "kc"))).read_text())
        del doc["clusters"][0]["cluster"]["certificate-authority-data"]  # the self-signed CA is not trusted
        (tmp_path / "noca").write_text(yaml.safe_dump(doc))
        assert_one_line_error(
            invoke("watch", "pods", *HEADLESS, "--kubeconfig", str(tmp_path / "noca")),
            code=1,
            contains=["certificate verify failed", srv.url],
        )
    finally:
        srv.stop()
