"""A kubeconfig is typed as client-go types it (clientcmd/api/v1).

``insecure-skip-tls-verify: "false"`` used to turn verification off (a
non-empty string is true in Python); kubectl refuses the file. A value of
the wrong kind is one ``error:`` line naming the field and the file, exit 1,
and nothing is sent.
"""

from __future__ import annotations

import pytest

from tests.security.conftest import assert_refused, run_cli, write_kubeconfig
from tests.security.in_process import run_in_process

pytestmark = pytest.mark.e2e

HEADLESS = ("-o", "text", "--duration", "20s")


def _run(kc: str, *extra: str):
    """The CLI's code in this process: one case is one kubeconfig read
    (test_a_server_url_with_a_password_is_never_echoed runs the real command)."""
    return run_in_process("watch", "pods", "--kubeconfig", kc, *HEADLESS, *extra)


@pytest.mark.parametrize("value", ['"false"', '"no"', '"0"', '"true"', "0", "1", "[false]"])
def test_a_quoted_boolean_never_turns_verification_off(sim_tls, tmp_path, value):
    kc = write_kubeconfig(tmp_path / "kc", sim_tls.url, cluster_extra=f"insecure-skip-tls-verify: {value}")
    kind = {"[": "array", '"': "string"}.get(value[0], "number")
    assert_refused(
        _run(kc),
        1,
        f'error: error loading config file "{kc}": cannot unmarshal {kind} into field '
        f"clusters[0].cluster.insecure-skip-tls-verify of type bool",
    )
    assert list(sim_tls.request_log) == []


def test_a_real_false_verifies_and_a_real_true_does_not(sim_tls, tmp_path):
    """The self-signed server with no CA given: false (a bool) fails the
    handshake, true (a bool) connects; the type check changes neither."""
    kc = write_kubeconfig(tmp_path / "kc", sim_tls.url, cluster_extra="insecure-skip-tls-verify: false")
    line = assert_refused(_run(kc), 1)
    assert "certificate" in line.lower(), line
    assert list(sim_tls.request_log) == []
    kc = write_kubeconfig(tmp_path / "kc2", sim_tls.url, cluster_extra="insecure-skip-tls-verify: true")
    r = run_in_process("watch", "pods", "--kubeconfig", kc, "-o", "text", "--max-events", "1")
    assert r.returncode == 0 and r.stdout.startswith("Replaced "), r.stderr


@pytest.mark.parametrize(
    "where,text,field,kind,expected",
    [
        ("user", "token: [1]", "users[0].user.token", "array", "string"),
        ("user", "token: 12345", "users[0].user.token", "number", "string"),
        ("user", "token: true", "users[0].user.token", "bool", "string"),
        ("context", "namespace: [a]", "contexts[0].context.namespace", "array", "string"),
        ("context", "namespace: 5", "contexts[0].context.namespace", "number", "string"),
        ("cluster", "server: [x]", "clusters[0].cluster.server", "array", "string"),
        (
            "cluster",
            "certificate-authority-data: 42",
            "clusters[0].cluster.certificate-authority-data",
            "number",
            "[]byte",
        ),
        (
            "user",
            "exec: {command: [a], apiVersion: client.authentication.k8s.io/v1}",
            "users[0].user.exec.command",
            "array",
            "string",
        ),
        (
            "user",
            "exec: {command: a, args: a, apiVersion: client.authentication.k8s.io/v1}",
            "users[0].user.exec.args",
            "string",
            "[]string",
        ),
        ("user", "as-groups: admin", "users[0].user.as-groups", "string", "[]string"),
    ],
)
def test_a_value_of_the_wrong_kind_names_the_field_and_the_file(sim, tmp_path, where, text, field, kind, expected):
    extra = {"user": {"user": text}, "context": {"context_extra": text}, "cluster": {"cluster_extra": text}}[where]
    kc = write_kubeconfig(tmp_path / "kc", sim.url, **extra)
    assert_refused(
        _run(kc),
        1,
        f'error: error loading config file "{kc}": cannot unmarshal {kind} into field {field} of type {expected}',
    )
    assert list(sim.request_log) == []


@pytest.mark.parametrize(
    "doc,field,kind,expected",
    [
        ("users:\n- name: me\n  user: [token, abc]\n", "users[0].user", "array", "struct"),
        ("current-context: [x]\n", "current-context", "array", "string"),
        ("clusters: {a: 1}\n", "clusters", "object", "[]struct"),
        ("contexts:\n- name: here\n  context: here\n", "contexts[0].context", "string", "struct"),
        ('preferences: {colors: "yes"}\n', "preferences.colors", "string", "bool"),
    ],
)
def test_a_whole_entry_of_the_wrong_kind(sim, tmp_path, doc, field, kind, expected):
    kc = tmp_path / "kc"
    kc.write_text(f"apiVersion: v1\nkind: Config\n{doc}")
    assert_refused(
        _run(str(kc)),
        1,
        f'error: error loading config file "{kc}": cannot unmarshal {kind} into field {field} of type {expected}',
    )
    assert list(sim.request_log) == []


def test_the_file_named_is_the_one_with_the_wrong_value(sim, tmp_path):
    good = write_kubeconfig(tmp_path / "good", sim.url)
    bad = tmp_path / "bad"
    bad.write_text("apiVersion: v1\nkind: Config\ncontexts:\n- name: other\n  context: {namespace: [a]}\n")
    r = run_in_process("watch", "pods", *HEADLESS, env={"KUBECONFIG": f"{good}:{bad}"})
    assert_refused(
        r,
        1,
        f'error: error loading config file "{bad}": cannot unmarshal array into field '
        f"contexts[0].context.namespace of type string",
    )
    assert list(sim.request_log) == []


@pytest.mark.parametrize(
    "server,words",
    [
        ("ftp://127.0.0.1:21", 'the server URL must start with https:// or http:// (scheme "ftp" is not supported)'),
        ("file:///etc/passwd", 'the server URL must start with https:// or http:// (scheme "file" is not supported)'),
        (
            "unix:///var/run/k.sock",
            'the server URL must start with https:// or http:// (scheme "unix" is not supported)',
        ),
        ("https://[::1", "the server URL is invalid (Invalid IPv6 URL)"),
        ("https://127.0.0.1:99999", "the server URL is invalid (Port out of range 0-65535)"),
        ("https://", "the server URL has no host"),
    ],
)
def test_only_http_and_https_servers(tmp_path, server, words):
    kc = write_kubeconfig(tmp_path / "kc", server)
    assert_refused(_run(kc), 1, f'error: cluster "sim" in {kc}: {words}')


def test_a_server_url_with_a_password_is_never_echoed(tmp_path):
    kc = write_kubeconfig(tmp_path / "kc", "gopher://admin:PASSWORD-MARKER@127.0.0.1:70")
    line = assert_refused(
        run_cli("watch", "pods", "--kubeconfig", kc, *HEADLESS), 1, contains=('scheme "gopher" is not supported',)
    )
    assert "PASSWORD-MARKER" not in line
