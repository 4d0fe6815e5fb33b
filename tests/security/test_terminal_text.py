"""What the terminal shows: a server's (or a recording's, or a metrics
page's) text never reaches it raw. The real command runs against a server
whose every string carries an OSC 52 clipboard write, a CSI colour, a C1
CSI, a bidi override and a zero-width space (terminal_payload.py), once per
sink: ``-o text`` (stdout, its stderr notes, a recording), the ``error:``
line, ``replay`` of that recording (text and UI), ``attach``'s text and UI,
shell completion, a crash log, and the live UI read byte for byte through
a pseudo-terminal. Each fails on a plugin that prints the payload raw."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from kubectl_informer.core.printable import printable
from tests.security.cli_process import SCRIPT, child_env, run
from tests.security.terminal_payload import (
    EVIL_NAME,
    OSC52,
    SHELL_NAME,
    SHOWN,
    Pty,
    assert_no_payload_sequence,
    assert_shown_printable,
    pty_env,
)

pytestmark = pytest.mark.e2e


def _ui(tmp_path: Path, args: list[str], keys: list[tuple[str, bytes]], shown: tuple[bytes, ...]) -> bytes:
    """The UI of ``args`` in a pty until each of ``shown`` is on screen, then
    each key with what the screen says after it; q; every byte it wrote."""
    term = Pty(args, pty_env(tmp_path))
    try:
        term.read_until(lambda out: all(piece in out for piece in shown), repr(shown))
        for key, after in keys:
            mark = len(term.out)
            term.send(key)
            term.read_until(lambda out, after=after, mark=mark: after in out[mark:], f"{after!r} after {key!r}")
        term.send("q")
        assert term.wait_exit() == 0, bytes(term.out[-2000:])
        return bytes(term.out)
    finally:
        term.close()


@pytest.mark.long_wait
def test_text_output_its_notes_the_error_line_and_replay_show_the_payload_escaped(payload_server, tmp_path):
    kc = str(payload_server.kubeconfig(tmp_path))
    rec = tmp_path / "run.ndjson"
    r = run(
        ["watch", "pods", "-o", "text", "--duration", "3s", "--record", str(rec), "--kubeconfig", kc],
        child_env(tmp_path, XDG_CACHE_HOME=str(tmp_path / "cache")),
    )
    assert r.returncode == 0, r.stderr[-2000:]
    # stdout: the name (Added, Updated) and the phase, and its diff.
    assert_shown_printable(r.stdout, "-o text's stdout")
    assert f"Replaced default/evil-{SHOWN} rv=7 Pending [initial list]" in r.stdout, r.stdout
    assert f"Updated default/evil-{SHOWN} rv=11 " in r.stdout, r.stdout
    # stderr: the watch ERROR's message and the 500 after it ("retrying in ...").
    assert_shown_printable(r.stderr, "-o text's stderr")
    assert "watch ended: " in r.stderr and SHOWN in r.stderr, r.stderr
    assert any(line.startswith("retrying in ") and SHOWN in line for line in r.stderr.splitlines()), r.stderr

    # Discovery's "retrying in" line (a 503 on /api), then the error line: a
    # 403 at the start whose message is the payload.
    payload_server.api_failures = 1
    e = run(
        ["watch", "services", "-o", "text", "--duration", "5s", "--kubeconfig", kc],
        child_env(tmp_path, XDG_CACHE_HOME=str(tmp_path / "other-cache")),
    )
    assert e.returncode == 1 and e.stdout == "", e.stderr
    assert_shown_printable(e.stderr, "the retrying and error lines")
    retrying, error = e.stderr.splitlines()
    assert retrying.startswith("retrying in ") and SHOWN in retrying, e.stderr
    assert error.startswith("error: ") and SHOWN in error, e.stderr

    # replay of the recording (which holds the payload as JSON escapes: data).
    assert "\\u001b]52" in rec.read_text()
    # A copy under a name holding the payload, its last line cut: the warning quotes the name.
    cut = tmp_path / f"rec-{OSC52}.ndjson"
    cut.write_text(rec.read_text()[:-10])
    p = run(["replay", str(cut), "-o", "text"], child_env(tmp_path))
    assert p.returncode == 0, p.stderr
    assert_shown_printable(p.stdout + p.stderr, "replay -o text")
    assert f"Replaced default/evil-{SHOWN} rv=7" in p.stdout, p.stdout
    assert p.stderr.startswith("warning: ") and "rec-\\x1b]52;c;" in p.stderr, p.stderr

    # -o json (the same renderer live and in replay): JSON's escapes, for C1 and bidi too; the same data.
    j = run(["replay", str(rec), "-o", "json"], child_env(tmp_path))
    assert j.returncode == 0, j.stderr
    assert_shown_printable(j.stdout, "-o json")
    keys = [json.loads(line).get("key") for line in j.stdout.splitlines()]
    assert f"default/{EVIL_NAME}" in keys

    # replay in the UI: the Deltas rows, the Inspector (enter), Explain (e), and
    # y's notification (a recording holds no objects) quoting the key.
    out = _ui(
        tmp_path,
        ["replay", str(rec), "--speed", "0"],
        [("k", b"Updated"), ("y", b"no object held for"), ("\r", b"Inspector"), ("e", b"Explain")],
        shown=(b"ZXZpbA==", b"Updated"),
    )
    assert_no_payload_sequence(out, "replay's UI")
    assert SHOWN[:12].encode() in out


@pytest.mark.long_wait
def test_the_live_ui_never_writes_the_payload_to_the_terminal(payload_server, tmp_path):
    """Deltas, the header (the context), the experiments' selected key (x),
    the Inspector's title and diff, the YAML view (y) and Explain, read as
    the terminal reads them."""
    kc = str(payload_server.kubeconfig(tmp_path))
    out = _ui(
        tmp_path,
        ["watch", "pods", "--kubeconfig", kc],
        [
            ("k", b"Updated"),
            ("x", b"selected key"),
            ("x", b"Updated"),
            ("\r", b"Inspector"),
            ("y", b"esc closes"),
            ("\x1b", b"Inspector"),
            ("e", b"Explain"),
        ],
        shown=(b"ZXZpbA==", b"Updated"),
    )
    assert_no_payload_sequence(out, "the live UI")
    assert SHOWN[:12].encode() in out  # the name was drawn, escaped


@pytest.mark.long_wait
def test_attach_text_and_ui_show_the_metrics_page_labels_escaped(payload_server, tmp_path):
    target = payload_server.url + "/metrics"
    r = run(["attach", target, "-o", "text", "--count", "1"], child_env(tmp_path))
    assert r.returncode == 0, r.stderr
    assert_shown_printable(r.stdout + r.stderr, "attach -o text")
    assert f"queue deploy-{SHOWN}:" in r.stdout, r.stdout
    # The cards, then the table (t).
    out = _ui(tmp_path, ["attach", target], [("t", b"queues, busiest first")], shown=(b"ZXZpbA==",))
    assert_no_payload_sequence(out, "attach's UI")


def test_completion_offers_no_name_a_shell_or_terminal_would_act_on(payload_server, tmp_path):
    kc = str(payload_server.kubeconfig(tmp_path))
    env = dict(child_env(tmp_path), KUBECONFIG=kc)
    script = SCRIPT.parent / "kubectl_complete-informer"
    r = subprocess.run([str(script), "watch", "pods", ""], capture_output=True, text=True, env=env, timeout=60)
    assert r.returncode == 0 and r.stderr == "", r.stderr
    names = r.stdout.splitlines()
    assert names[-1].startswith(":")
    assert "web-1" in names  # the server answered
    assert not any(SHELL_NAME in n or "evil-" in n for n in names), names
    assert_shown_printable(r.stdout, "the completion list")


def test_a_crash_log_and_its_line_show_a_quoted_payload_escaped(tmp_path):
    """A crash whose message quotes a server (an exception raised with the
    payload): the error line, --debug's traceback and the log file."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(
        "from kubectl_informer.cli import output\n"
        "def render(self, events):\n"
        f"    raise ValueError({EVIL_NAME!r})\n"
        "output.JsonRenderer.render = render\n"
    )
    env = child_env(tmp_path, PYTHONPATH=str(site))
    r = run(["watch", "pods", "--demo", "quiet", "-o", "json", "--duration", "5s", "--debug"], env)
    assert r.returncode == 1, r.stderr[-2000:]
    assert_shown_printable(r.stderr, "the crash line and --debug's traceback")
    assert SHOWN in r.stderr.splitlines()[-1], r.stderr[-1000:]
    logs = list((tmp_path / "state" / "kubectl-informer").glob("crash-*.log"))
    assert len(logs) == 1
    text = logs[0].read_text()
    assert_shown_printable(text, "the crash log")
    assert SHOWN in text


@pytest.mark.parametrize("ch", list("$`;&|<>(){}*?[]!#~'\"\\^% \t\n\x1b\x9b\u202e\u200b\u00a0"))
def test_no_candidate_holding_a_shell_metacharacter_whitespace_or_control_is_offered(ch):
    from kubectl_informer.cli.completion import _with_deadline, offered, shell_safe

    assert not shell_safe(f"web{ch}1")
    names = [f"web{ch}1", "web-1", "deployments.apps"]
    assert _with_deadline(lambda: names) == ["web-1", "deployments.apps"]  # a cluster's or kubeconfig's names
    if ch != "\t":  # in a candidate, a TAB starts its description
        assert offered([*names, "--output=json"]) == ["web-1", "deployments.apps", "--output=json"]
    assert offered([f"quiet\tdescribed {ch}x"]) == [f"quiet\tdescribed {printable(ch)}x"]
