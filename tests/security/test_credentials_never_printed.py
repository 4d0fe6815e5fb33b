"""No credential is ever printed.

A token with a line break used to end in ``error: unexpected ValueError:
Invalid header value b'Bearer SECRET...'`` (twice with ``--debug``). Here a
marker credential is planted in a kubeconfig (a token, a tokenFile, a
basic-auth password, a client key, an exec plugin's token) and the real
command is run against the simulated API server in every output mode
(``-o json``, ``-o text``, ``--debug``, ``--record FILE``); the marker must
appear in none of what it prints or writes.
"""

from __future__ import annotations

import base64
import stat
from concurrent.futures import ThreadPoolExecutor

import pytest

from kubectl_informer.sim.server import SimServer
from tests.security.conftest import assert_refused, run_cli, write_kubeconfig
from tests.security.in_process import run_in_process

pytestmark = pytest.mark.e2e

MARKER = "MARKER-7f3a9c2e51"


def _outputs(r, *files) -> str:
    return r.stdout + r.stderr + "".join(f.read_text(errors="replace") for f in files if f.exists())


def _every_mode(kc: str, tmp_path, real: bool = False):
    """(result, files written) of each output mode against ``kc``. In this
    process (the CLI's own code, tests/security/in_process.py) unless
    ``real``: then the real command, the four runs at the same time (each
    waits on the server and on its start-up)."""
    record = tmp_path / "rec.ndjson"
    modes = (
        ["-o", "json"],
        ["-o", "text"],
        ["-o", "json", "--debug"],
        ["-o", "text", "--debug", "--record", str(record)],
    )

    def one(extra):
        # A run that works ends after a few lines; one that fails, at once.
        return (run_cli if real else run_in_process)(
            "watch", "pods", "--kubeconfig", kc, "--max-events", "5", "--duration", "30s", *extra
        )

    if not real:
        return [(one(extra), [record]) for extra in modes]
    with ThreadPoolExecutor(max_workers=len(modes)) as pool:
        results = list(pool.map(one, modes))
    return [(r, [record]) for r in results]


@pytest.fixture
def authed_sim():
    """A server that answers only the marker token (401 to the rest)."""
    from kubectl_informer.sim.demo import seed

    srv = SimServer(tokens=frozenset({MARKER})).start()
    seed(srv.store)
    yield srv
    srv.stop()


def test_a_working_token_is_sent_and_never_printed(authed_sim, tmp_path):
    kc = write_kubeconfig(tmp_path / "kc", authed_sim.url, user=f"token: {MARKER}")
    for r, files in _every_mode(kc, tmp_path, real=True):
        assert r.returncode == 0, r.stderr[-2000:]
        assert r.stdout, "the run printed nothing: was the token sent?"
        assert MARKER not in _outputs(r, *files)
    # Every request bore the token: the server answered none with 401.
    assert authed_sim.request_log and all(code != 401 for _, _, code in authed_sim.request_log)


def test_a_token_the_server_refuses_is_not_echoed(authed_sim, tmp_path):
    kc = write_kubeconfig(tmp_path / "kc", authed_sim.url, user=f"token: WRONG-{MARKER}")
    for r, files in _every_mode(kc, tmp_path):
        assert_refused(r, 1, contains=("Unauthorized",))
        assert MARKER not in _outputs(r, *files)


@pytest.mark.parametrize("token", [f"{MARKER}\\nX-Evil: 1", f"{MARKER}\\r\\n", f"ab\\x00{MARKER}", f"{MARKER}\\x7f"])
def test_a_token_with_a_control_character_is_refused_unshown(sim, tmp_path, token):
    kc = write_kubeconfig(tmp_path / "kc", sim.url, user=f'token: "{token}"')
    for r, files in _every_mode(kc, tmp_path):
        assert_refused(
            r,
            1,
            f'error: error loading config file "{kc}": field users[0].user.token contains a '
            f"control character (a line break?); its value is not shown",
        )
        assert MARKER not in _outputs(r, *files)
    assert list(sim.request_log) == []


def test_a_token_file_with_a_line_break_inside_is_refused_unshown(sim, tmp_path):
    token_file = tmp_path / "token"
    token_file.write_text(f"{MARKER}\nsecond-line\n")
    kc = write_kubeconfig(tmp_path / "kc", sim.url, user=f"tokenFile: {token_file}")
    for r, files in _every_mode(kc, tmp_path):
        assert_refused(
            r,
            1,
            f'error: user "me" in {kc}: tokenFile {token_file} holds a control character '
            f"(a line break inside the token?); its content is not shown",
        )
        assert MARKER not in _outputs(r, *files)
    assert list(sim.request_log) == []


def test_a_token_file_with_a_trailing_newline_works(authed_sim, tmp_path):
    token_file = tmp_path / "token"
    token_file.write_text(f"{MARKER}\n")
    kc = write_kubeconfig(tmp_path / "kc", authed_sim.url, user=f"tokenFile: {token_file}")
    r = run_cli("watch", "pods", "--kubeconfig", kc, "-o", "json", "--debug", "--max-events", "3")
    assert r.returncode == 0 and r.stdout, r.stderr[-2000:]
    assert MARKER not in r.stdout + r.stderr


def test_a_basic_auth_password_is_never_printed(tmp_path):
    from kubectl_informer.sim.demo import seed

    sim = SimServer(anonymous=True).start()  # no basic authenticator in kube-apiserver: served as anonymous
    seed(sim.store)
    kc = write_kubeconfig(tmp_path / "kc", sim.url, user=f"username: admin\npassword: {MARKER}")
    for r, files in _every_mode(kc, tmp_path):
        assert r.returncode == 0 and r.stdout, r.stderr[-2000:]
        assert MARKER not in _outputs(r, *files)
    sim.stop()


def test_a_password_with_a_control_character_is_refused_unshown(sim, tmp_path):
    kc = write_kubeconfig(tmp_path / "kc", sim.url, user=f'username: admin\npassword: "{MARKER}\\n"')
    r = run_in_process("watch", "pods", "--kubeconfig", kc, "-o", "json", "--debug", "--duration", "20s")
    assert_refused(r, 1, contains=("field users[0].user.password contains a control character",))
    assert MARKER not in r.stdout + r.stderr


@pytest.mark.parametrize(
    "key",
    [MARKER, base64.b64encode(f"-----BEGIN PRIVATE KEY-----\n{MARKER}\n-----END PRIVATE KEY-----\n".encode()).decode()],
)
def test_a_client_key_is_never_printed(sim_tls, tmp_path, key):
    """A key the TLS library cannot load (not base64; not a key): the error
    says so, without the key."""
    cert = base64.b64encode(b"-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n").decode()
    ca = base64.b64encode(sim_tls.ca_pem).decode()
    kc = write_kubeconfig(
        tmp_path / "kc",
        sim_tls.url,
        user=f"client-certificate-data: {cert}\nclient-key-data: {key}",
        cluster_extra=f"certificate-authority-data: {ca}",
    )
    for r, files in _every_mode(kc, tmp_path):
        assert_refused(r, 1)
        assert MARKER not in _outputs(r, *files)


def test_an_exec_plugins_token_is_never_printed(authed_sim, tmp_path):
    plugin = tmp_path / "plugin.sh"
    plugin.write_text(
        '#!/bin/sh\nprintf \'{"apiVersion":"client.authentication.k8s.io/v1","kind":'
        f'"ExecCredential","status":{{"token":"{MARKER}"}}}}\'\n'
    )
    plugin.chmod(stat.S_IRWXU)
    kc = write_kubeconfig(
        tmp_path / "kc",
        authed_sim.url,
        user=(f"exec:\n  apiVersion: client.authentication.k8s.io/v1\n  command: {plugin}\n  interactiveMode: Never"),
    )
    for r, files in _every_mode(kc, tmp_path):
        assert r.returncode == 0 and r.stdout, r.stderr[-2000:]
        assert MARKER not in _outputs(r, *files)
    assert authed_sim.request_log and all(code != 401 for _, _, code in authed_sim.request_log)


def test_an_exec_plugins_token_with_a_line_break_is_refused_unshown(sim, tmp_path):
    plugin = tmp_path / "plugin.sh"
    plugin.write_text(
        '#!/bin/sh\nprintf \'{"apiVersion":"client.authentication.k8s.io/v1","kind":'
        f'"ExecCredential","status":{{"token":"{MARKER}\\\\nX"}}}}\'\n'
    )
    plugin.chmod(stat.S_IRWXU)
    kc = write_kubeconfig(
        tmp_path / "kc",
        sim.url,
        user=(f"exec:\n  apiVersion: client.authentication.k8s.io/v1\n  command: {plugin}\n  interactiveMode: Never"),
    )
    for r, files in _every_mode(kc, tmp_path):
        assert_refused(r, 1, "error: exec plugin returned a token holding a control character; it is not shown")
        assert MARKER not in _outputs(r, *files)
    assert list(sim.request_log) == []


def test_attach_token_with_a_line_break_is_refused_unshown(tmp_path):
    r = run_in_process(
        "attach", "http://127.0.0.1:9/metrics", "--token", f"{MARKER}\nX", "-o", "text", "--count", "1", "--debug"
    )
    assert_refused(r, 2, contains=("the bearer token holds a control character",))
    assert MARKER not in r.stdout + r.stderr


def test_the_last_guard_hides_a_remembered_credential_in_any_form():
    """core.redact: what error lines and --debug tracebacks pass through."""
    from kubectl_informer.core import redact

    redact.forget_all()
    try:
        redact.remember(f"{MARKER}\n")
        assert (
            redact.redact(f"Invalid header value b'Bearer {MARKER}\\n'") == "Invalid header value b'Bearer <redacted>'"
        )
        assert redact.redact(f"x {MARKER} y") == "x <redacted> y"
        redact.remember("short")  # too short to tell from a word: never matched
        assert redact.redact("a short word") == "a short word"
    finally:
        redact.forget_all()
