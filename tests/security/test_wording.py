"""What the command says is worded for its user: no internal class name
(``UnicodeEncodeError``, ``ValueError``, ``ContinueLoopError``...), disk and
pipe errors that name the file or stdout, usage errors for values that
cannot run, and no urllib3 warning (the header says once that TLS is not
verified). The real command against the simulated API server (``--demo``,
``sim --tls``) and servers of the tests' own."""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path

import pytest
import yaml

from kubectl_informer.cache.reflector import _err_str
from tests.kube.hostile import PODS, Hostile, _send_head, kubeconfig_for
from tests.security.cli_process import Child, child_env, kubeconfig, needs_tmux, run
from tests.security.in_process import run_in_process

pytestmark = pytest.mark.e2e

CLASS_NAME = re.compile(r"\b[A-Z]\w*(Error|Exception|Warning)\b")


def here(args: list[str], tmp_path: Path):
    """The CLI's code in this process, with ``child_env``'s settings: for
    what a value or a server URL makes the command say. What reaches stderr
    through warnings and logging, a full stdout and signals run the real
    command (``run``, ``Child``)."""
    return run_in_process(*args, env={"KUBECONFIG": os.devnull, "XDG_STATE_HOME": str(tmp_path / "state")})


def one_line(stderr: str) -> str:
    lines = stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), stderr
    assert not CLASS_NAME.search(lines[0]) and "Traceback" not in stderr, lines[0]
    return lines[0]


# --- no class names -----------------------------------------------------------------


@pytest.mark.parametrize("server", ["http://[::1", "http://127.0.0.1:99999"], ids=["ipv6", "port"])
def test_a_bad_server_url_is_said_in_words(tmp_path, server):
    r = here(["watch", "pods", "-o", "json", "--kubeconfig", str(kubeconfig(tmp_path / "kc", server))], tmp_path)
    assert r.returncode in (1, 2) and r.stdout == ""
    one_line(r.stderr)


def test_a_non_ascii_namespace_is_said_in_words(tmp_path):
    r = here(["watch", "pods", "--demo", "-o", "json", "-n", "é"], tmp_path)
    assert r.returncode in (1, 2) and r.stdout == ""
    assert "UnicodeEncodeError" not in one_line(r.stderr)


def _retry_lines(h: Hostile, tmp_path: Path, enough) -> list[str]:
    kc = tmp_path / "kc"
    kc.write_text(json.dumps(kubeconfig_for(h.srv.url)))
    c = Child(["watch", "pods", "-o", "text", "--kubeconfig", str(kc)], child_env(tmp_path))
    try:
        deadline = time.monotonic() + 60
        while not enough(h):
            assert time.monotonic() < deadline and c.proc.poll() is None, "the run never retried"
            time.sleep(0.05)
        rc, err = c.signal(15)
    finally:
        h.stop.set()
        h.srv.stop()
    assert rc == 143
    return err.splitlines()


def test_a_continue_token_that_comes_back_is_said_in_words(tmp_path):
    h = Hostile("endless_continue")
    # Two pages with the same token, the back-off, two pages again, the
    # second back-off, and the next relist's first page: 2.4 s of back-offs
    # at least, so the stream (it begins once the first list has been
    # arriving for a second, run/first_contact.py) has written the first
    # retry line. At 4 requests a SIGTERM came before the stream began in 4
    # runs of 16 and stderr was empty. (No probe lists before the informer
    # any more: the 7 counted when three probes came first now waited out
    # a third back-off, 3.2 s more.)
    lines = _retry_lines(h, tmp_path, lambda h: len([r for r in h.srv.requests if r.path == PODS]) >= 5)
    retries = [line for line in lines if line.startswith("retrying in ")]
    assert retries and all(": the server sent continue token" in line for line in retries), lines
    assert not any(CLASS_NAME.search(line) for line in lines), lines


def test_a_very_short_watch_is_said_in_words(tmp_path):
    h = Hostile("pods")

    def closes_at_once(handler, req) -> None:
        _send_head(handler, chunked=True)
        handler.wfile.write(b"0\r\n\r\n")

    h._serve_pods(on_watch=closes_at_once)

    def watches(h) -> int:
        return len([r for r in h.srv.requests if r.path == PODS and r.query.get("watch") == "true"])

    lines = _retry_lines(h, tmp_path, lambda h: watches(h) >= 2)  # one short watch, its back-off, the next
    ended = [line for line in lines if line.startswith("watch ended: ")]
    assert ended and all(
        line.startswith("watch ended: very short watch: ")
        and line.endswith("the watch closed in less than a second with no items received")
        for line in ended
    ), lines
    assert not any(CLASS_NAME.search(line) for line in lines), lines


@pytest.mark.parametrize(
    "err, words",
    [
        (TimeoutError("timed out"), "timed out"),
        (TimeoutError(), "timed out"),
        (ConnectionRefusedError(111, "Connection refused"), "connection refused"),
        (
            ConnectionResetError(104, "Connection reset by peer"),
            "connection reset by the server: [Errno 104] Connection reset by peer",
        ),
        (RuntimeError(), "failed without a message"),
    ],
)
def test_the_reflectors_errors_in_words(err, words):
    assert _err_str(err) == words


# --- disks and pipes --------------------------------------------------------------------


def test_record_to_a_full_disk_names_the_file(tmp_path):
    r = here(["watch", "pods", "--demo", "-o", "json", "--duration", "30s", "--record", "/dev/full"], tmp_path)
    assert r.returncode == 1
    assert one_line(r.stderr) == "error: cannot write the recording to /dev/full: No space left on device"


@pytest.mark.parametrize(
    "args",
    [
        ["watch", "pods", "--demo", "-o", "json"],
        ["watch", "pods", "--demo", "-o", "text"],
        ["queue", "--demo", "-o", "text", "--work-time", "1ms"],
    ],
    ids=["watch-json", "watch-text", "queue-text"],
)
def test_stdout_on_a_full_disk_is_named(tmp_path, args):
    with open("/dev/full", "w") as full:
        r = run([*args, "--duration", "30s"], child_env(tmp_path), stdout=full)
    assert r.returncode == 1
    assert one_line(r.stderr) == "error: cannot write to stdout: No space left on device"


def test_replay_to_a_full_disk_names_stdout(tmp_path):
    rec = tmp_path / "rec.ndjson"
    recorded = here(["watch", "pods", "--demo", "-o", "json", "--max-events", "50"], tmp_path)
    assert recorded.returncode == 0
    rec.write_text(recorded.stdout)
    with open("/dev/full", "w") as full:
        r = run(["replay", str(rec), "-o", "json"], child_env(tmp_path), stdout=full)
    assert r.returncode == 1
    assert one_line(r.stderr) == "error: cannot write to stdout: No space left on device"


# --- usage errors ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "args, flag",
    [
        (["watch", "pods", "--demo", "-o", "json", "--record", ""], "--record"),
        (["watch", "pods", "--demo", "-o", "json", "--duration", "0"], "--duration"),
        (["watch", "pods", "--demo", "-o", "json", "--duration", "-1s"], "--duration"),
        (["queue", "--demo", "-o", "json", "--fail-rate", "nan"], "--fail-rate"),
        (["replay", "x.ndjson", "-o", "json", "--speed", "nan"], "--speed"),
        (["attach", "http://127.0.0.1:1/metrics", "-o", "json", "--duration", "0"], "--duration"),
    ],
    ids=["record-empty", "duration-0", "duration-negative", "fail-rate-nan", "speed-nan", "attach-duration-0"],
)
def test_values_that_cannot_run_are_usage_errors(tmp_path, args, flag):
    r = here(args, tmp_path)
    assert (r.returncode, r.stdout) == (2, "")
    assert one_line(r.stderr).startswith(f"error: invalid value for '{flag}': ")


# --- TLS verification off ---------------------------------------------------------------


@pytest.fixture(scope="module")
def tls_sim(tmp_path_factory):
    """``sim --tls``, and kubeconfigs for it that skip TLS verification: a
    token (the light client) and an exec plugin (the kubernetes client, urllib3)."""
    tmp = tmp_path_factory.mktemp("tls")
    c = Child(["sim", "--tls", "--write-kubeconfig", str(tmp / "kc")], child_env(tmp))
    c.wait_line(lambda line: "Press Ctrl-C" in line)
    doc = yaml.safe_load((tmp / "kc").read_text())
    cluster = doc["clusters"][0]["cluster"]
    cluster.pop("certificate-authority-data", None)
    cluster["insecure-skip-tls-verify"] = True
    (tmp / "token").write_text(yaml.safe_dump(doc))
    cred = json.dumps(
        {
            "apiVersion": "client.authentication.k8s.io/v1",
            "kind": "ExecCredential",
            "status": {"token": doc["users"][0]["user"]["token"]},
        }
    )
    doc["users"][0]["user"] = {
        "exec": {
            "apiVersion": "client.authentication.k8s.io/v1",
            "command": "sh",
            "args": ["-c", f"echo '{cred}'"],
            "interactiveMode": "Never",
        }
    }
    (tmp / "exec").write_text(yaml.safe_dump(doc))
    yield tmp
    c.signal(15)


@pytest.mark.parametrize("user", ["token", "exec"])
def test_no_insecure_request_warning_and_run_info_says_tls_is_not_verified(tmp_path, tls_sim, user):
    r = run(
        ["watch", "pods", "-o", "json", "--max-events", "30", "--kubeconfig", str(tls_sim / user)], child_env(tmp_path)
    )
    assert (r.returncode, r.stderr) == (0, "")
    info = json.loads(r.stdout.splitlines()[0])
    assert info["kind"] == "run.info" and info["fields"]["tls_verify"] is False


def test_a_verified_server_is_not_flagged(tmp_path):
    r = here(["watch", "pods", "--demo", "-o", "json", "--max-events", "5"], tmp_path)
    assert json.loads(r.stdout.splitlines()[0])["fields"]["tls_verify"] is True


@needs_tmux
@pytest.mark.tmux
def test_the_header_says_once_that_tls_is_not_verified(tmp_path, tls_sim, terminal):
    t = terminal(f"watch pods --kubeconfig {tls_sim / 'token'}", child_env(tmp_path), 100, 30)
    screen = t.wait(lambda s: "synced" in s, "the UI synced")
    assert screen.count("TLS unverified") == 1 and "InsecureRequestWarning" not in screen
    t.tmux("send-keys", "-t", "ki", "q")
    assert t.exit_code() == 0
