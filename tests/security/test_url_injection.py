"""No user string reaches a URL unchecked.

``watch pods -n 'default/secrets?x='`` used to send ``GET
/api/v1/namespaces/default/secrets?x=/pods`` and print Secrets as pods. Each
value that becomes part of a URL path (namespace from -n or the kubeconfig,
NAME, RESOURCE, attach's target, -n and --path, the UI's ``:`` line) is
refused where it is read, in kubectl's words, before anything is sent.
"""

from __future__ import annotations

import base64
import shutil
import subprocess
from urllib.parse import parse_qs, urlsplit

import pytest

from kubectl_informer.core import names
from tests.security.conftest import assert_refused, run_cli, write_kubeconfig
from tests.security.in_process import run_in_process

pytestmark = pytest.mark.e2e

HEADLESS = ("-o", "text", "--duration", "20s")
# The many inputs run the CLI's code in this process (tests/security/in_process.py); the issue's
# reproduction and a request through the pods proxy run the real command.
KUBECTL = shutil.which("kubectl") or "/usr/bin/kubectl"

BAD_NAMESPACES = [
    ("default/secrets?x=", "error: invalid namespace \"default/secrets?x=\": [may not contain '/']"),
    ("..", "error: invalid namespace \"..\": [may not be '..']"),
    (".", "error: invalid namespace \".\": [may not be '.']"),
    ("a%2Fb", "error: invalid namespace \"a%2Fb\": [may not contain '%']"),
    ("x/../y", "error: invalid namespace \"x/../y\": [may not contain '/']"),
    ("a/%b", "error: invalid namespace \"a/%b\": [may not contain '/' may not contain '%']"),
]


def test_the_reproduction_from_the_issue_exits_2_and_prints_nothing():
    r = run_cli("watch", "pods", "-n", "default/secrets?x=", "-o", "text", "--demo", "--duration", "2s")
    assert_refused(r, 2, "error: invalid namespace \"default/secrets?x=\": [may not contain '/']")


@pytest.mark.parametrize("namespace,line", BAD_NAMESPACES)
@pytest.mark.parametrize("command", [("watch", "pods"), ("queue", "pods")])
def test_a_bad_namespace_is_refused_before_any_request(sim, tmp_path, command, namespace, line):
    kc = write_kubeconfig(tmp_path / "kc", sim.url)
    r = run_in_process(*command, "-n", namespace, "--kubeconfig", kc, *HEADLESS)
    assert_refused(r, 2, line)
    assert list(sim.request_log) == []


def test_an_empty_namespace_is_not_given_as_in_kubectl(sim, tmp_path):
    kc = write_kubeconfig(tmp_path / "kc", sim.url)
    r = run_in_process("watch", "pods", "-n", "", "--kubeconfig", kc, "-o", "text", "--max-events", "1")
    assert r.returncode == 0 and r.stdout.startswith("Replaced default/"), r.stderr
    assert all("/namespaces/default/" in p for _, p, _ in sim.request_log if "/pods" in p)


def test_kubectl_words_the_same_refusal(sim_tls, tmp_path):
    """The real kubectl against the same server: our line is its line (over
    TLS: kubectl sends a token to no other server)."""
    ca = base64.b64encode(sim_tls.ca_pem).decode()
    kc = write_kubeconfig(tmp_path / "kc", sim_tls.url, cluster_extra=f"certificate-authority-data: {ca}")
    for namespace, _ in BAD_NAMESPACES:
        k = subprocess.run(
            [KUBECTL, "--kubeconfig", kc, "get", "pods", "-n", namespace], capture_output=True, text=True, timeout=30
        )
        ours = run_in_process("watch", "pods", "-n", namespace, "--kubeconfig", kc, *HEADLESS)
        assert k.returncode != 0 and ours.returncode == 2
        assert ours.stderr.strip().removeprefix("error: ") == k.stderr.strip().removeprefix("error: ")


@pytest.mark.parametrize("namespace", ["défaut", "Default", "a\x1b[31mb", "a" * 64, "a b"])
def test_a_namespace_no_cluster_can_have_is_a_clean_usage_error(sim, tmp_path, namespace):
    kc = write_kubeconfig(tmp_path / "kc", sim.url)
    r = run_in_process("watch", "pods", "-n", namespace, "--kubeconfig", kc, *HEADLESS)
    line = assert_refused(r, 2, contains=(f"error: invalid namespace {names.go_quote(namespace)}: [",))
    assert "UnicodeEncodeError" not in line and "\x1b" not in r.stderr
    assert list(sim.request_log) == []


@pytest.mark.parametrize(
    "args,line",
    [
        (("watch", "pods", ".."), "error: invalid resource name \"..\": [may not be '..']"),
        (("watch", "pods", "a%2F..%2Fb"), "error: invalid resource name \"a%2F..%2Fb\": [may not contain '%']"),
        (("watch", "pods", "a/b"), "error: invalid resource name \"a/b\": [may not contain '/']"),
        (("watch", "secrets/x"), "error: invalid resource \"secrets/x\": [may not contain '/']"),
        (("watch", ".."), "error: invalid resource \"..\": [may not be '..']"),
        (("queue", "pods%2F.."), "error: invalid resource \"pods%2F..\": [may not contain '%']"),
    ],
)
def test_a_bad_name_or_resource_is_refused_before_any_request(sim, tmp_path, args, line):
    kc = write_kubeconfig(tmp_path / "kc", sim.url)
    assert_refused(run_in_process(*args, "--kubeconfig", kc, *HEADLESS), 2, line)
    assert list(sim.request_log) == []


def test_the_kubeconfig_namespace_is_checked_too(sim, tmp_path):
    kc = write_kubeconfig(tmp_path / "kc", sim.url, context_extra="namespace: default/secrets?x=")
    r = run_in_process("watch", "pods", "--kubeconfig", kc, *HEADLESS)
    assert_refused(
        r,
        1,
        f"error: invalid namespace \"default/secrets?x=\": [may not contain '/'] "
        f'(the namespace of context "here" in {kc})',
    )
    assert list(sim.request_log) == []


@pytest.mark.parametrize(
    "args,line",
    [
        (
            ("pod/web", "-n", "kube-system/secrets"),
            "error: invalid namespace \"kube-system/secrets\": [may not contain '/']",
        ),
        (("pod/..",), "error: invalid resource name \"..\": [may not be '..']"),
        (("deploy/a%2Fb",), "error: invalid resource name \"a%2Fb\": [may not contain '%']"),
        (
            ("pod/web:8080", "--path", "/../../secrets"),
            "error: invalid --path \"/../../secrets\": [may not contain a '..' segment]",
        ),
        (
            ("pod/web:8080", "--path", "/metrics/./x"),
            "error: invalid --path \"/metrics/./x\": [may not contain a '.' segment]",
        ),
        (("pod/web:8080", "--path", "/metrics?x=1"), "error: invalid --path \"/metrics?x=1\": [may not contain '?']"),
        (("pod/web:8080", "--path", "/metrics#x"), "error: invalid --path \"/metrics#x\": [may not contain '#']"),
        (("pod/web:8080", "--path", "/%2e%2e/x"), "error: invalid --path \"/%2e%2e/x\": [may not contain '%']"),
    ],
)
def test_attach_refuses_what_would_leave_the_pods_proxy_path(sim, tmp_path, args, line):
    kc = write_kubeconfig(tmp_path / "kc", sim.url)
    r = run_in_process("attach", *args, "--kubeconfig", kc, "-o", "text", "--count", "1")
    assert_refused(r, 2, line)
    assert list(sim.request_log) == []


def test_attach_path_may_hold_slashes(sim, tmp_path):
    """A deeper path passes the check and reaches the proxy (the pod is
    missing, so the cluster's answer is the error, exit 1)."""
    kc = write_kubeconfig(tmp_path / "kc", sim.url)
    r = run_cli("attach", "pod/nope:8080", "--path", "/a/b/metrics", "--kubeconfig", kc, "-o", "text", "--count", "1")
    assert_refused(r, 1, contains=('pods "nope" not found',))
    assert [p for _, p, _ in sim.request_log] == ["/api/v1/namespaces/default/pods/nope"]


def test_name_is_escaped_in_the_field_selector(sim, tmp_path):
    """NAME becomes ``metadata.name=NAME`` escaped as client-go's
    fields.EscapeValue: a comma in NAME cannot add a term that widens the
    watch to another object."""
    sim.store.create(
        "pods",
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": "web"},
            "spec": {"containers": [{"name": "c", "image": "x"}]},
        },
        namespace="default",
    )
    kc = write_kubeconfig(tmp_path / "kc", sim.url)
    name = "web,metadata.namespace=default"
    r = run_in_process("watch", "pods", name, "--kubeconfig", kc, *HEADLESS)
    assert_refused(r, 1, contains=(f'pods "{name}" not found',))
    selectors = [parse_qs(urlsplit(p).query).get("fieldSelector") for _, p, _ in sim.request_log]
    sent = {s[0] for s in selectors if s}
    assert sent == {r"metadata.name=web\,metadata.namespace\=default"}


@pytest.mark.parametrize("value", ["a,b", "a=b", "a\\b", "\\,=", "plain"])
def test_field_values_escape_and_unescape_as_apimachinery(value):
    escaped = names.escape_field_value(value)
    assert names.split_terms(f"metadata.name={escaped},x=y") == [f"metadata.name={escaped}", "x=y"]
    field, op, raw = names.split_term(f"metadata.name={escaped}")
    assert (field, op, names.unescape_field_value(raw)) == ("metadata.name", "=", value)


def test_the_ui_command_line_is_checked_as_the_flags():
    from kubectl_informer.tui.command import CommandError, parse_scope, switch_resource

    with pytest.raises(CommandError) as e:
        parse_scope(["-n", "default/secrets?x="])
    assert str(e.value) == "invalid namespace \"default/secrets?x=\": [may not contain '/']"
    with pytest.raises(CommandError) as e:
        parse_scope(["--namespace=.."])
    assert str(e.value) == "invalid namespace \"..\": [may not be '..']"

    restarted = []

    class App:
        def restart_pipeline(self, *a, **kw):
            restarted.append((a, kw))

    with pytest.raises(CommandError) as e:
        switch_resource(App(), "secrets/x", [])
    assert str(e.value) == "invalid resource \"secrets/x\": [may not contain '/']"
    assert restarted == []
    switch_resource(App(), "deploy", ["-n", "kube-system"])
    from kubectl_informer.run.config import RunConfig

    derived = restarted[0][0][1](RunConfig.from_flags(namespace="default"))
    assert derived.scope.namespace == "kube-system"
