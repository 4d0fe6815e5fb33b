"""kubectl's connection flags (--server, --token, --as, ...) against the
simulated API server over HTTPS, laid over the kubeconfig by client-go's
clientcmd rules (kube/overrides.py); impersonation checked on the server's
side (SimServer.impersonation_log). Runs are in-process and stop at the first
delta (``-o text --max-events 1``)."""

from __future__ import annotations

import base64
import copy
import os
from pathlib import Path

import orjson
import pytest

from kubectl_informer.sim.demo import seed
from kubectl_informer.sim.kubeconfig import kubeconfig_dict
from kubectl_informer.sim.server import SimServer
from kubectl_informer.sim.tls import make_self_signed
from tests.security.in_process import run_in_process

FIRST_DELTA = ("-o", "text", "--max-events", "1")


@pytest.fixture(scope="module")
def sim():
    srv = SimServer(tls=True).start()
    seed(srv.store)
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def anonymous_sim():
    """Serves a request without a bearer token (basic auth then sends none):
    the user entry that sends the kubernetes client's path."""
    srv = SimServer(tls=True, anonymous=True).start()
    seed(srv.store)
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def other_pair(tmp_path_factory):
    """A certificate and key the simulator does not know (a wrong CA, a client certificate)."""
    return make_self_signed(str(tmp_path_factory.mktemp("other")))


def write(tmp_path, doc, name="kubeconfig"):
    path = tmp_path / name
    path.write_bytes(orjson.dumps(doc))
    os.chmod(path, 0o600)
    return str(path)


def base(srv, token=None):
    return copy.deepcopy(kubeconfig_dict(srv.url, ca_pem=srv.ca_pem, token=srv.token if token is None else token))


def watch(kubeconfig, *flags, env=None, cwd=None):
    args = ["watch", "pods", *FIRST_DELTA, *flags]
    if kubeconfig:
        args += ["--kubeconfig", kubeconfig]
    return run_in_process(*args, env=env, cwd=cwd)


def ok(r):
    assert r.returncode == 0 and "Replaced" in r.stdout, (r.returncode, r.stderr)
    return r


def one_line_error(r, code, *parts):
    lines = r.stderr.splitlines()
    assert r.returncode == code and len(lines) == 1 and lines[0].startswith("error: "), (r.returncode, r.stderr)
    for p in parts:
        assert p in lines[0], lines[0]
    return lines[0]


def utf8(headers):
    """The headers as sent (the server's parser reads the bytes as Latin-1)."""
    return tuple((k, v.encode("latin-1").decode()) for k, v in headers)


def test_impersonation_headers_on_every_request_of_the_light_client(sim, tmp_path):
    doc = base(sim)
    doc["users"][0]["user"]["as-user-extra"] = {"scopes/x": ["read"]}  # the kubeconfig's own, kept
    sim.impersonation_log.clear()
    before = len(sim.request_log)
    ok(
        watch(
            write(tmp_path, doc),
            "--as",
            "alice",
            "--as-group",
            "devs",
            "--as-group",
            "équipe sre",
            "--as-uid",
            "u-1",
            "--request-timeout",
            "5",
        )
    )  # a bare integer: seconds, as kubectl
    sent = list(sim.request_log)[before:]
    seen = list(sim.impersonation_log)
    assert sent and len(seen) == len(sent)  # every request of the run, discovery to watch
    assert {method for method, _path, _status in sent} == {"GET"}
    for _method, _path, headers in seen:
        # client-go's ImpersonatingRoundTripper: the user, the uid, one header per group, the extras
        # (headerKeyEscape: "/" is no token character); values as UTF-8, as Go sends them
        assert utf8(headers) == (
            ("Impersonate-User", "alice"),
            ("Impersonate-Uid", "u-1"),
            ("Impersonate-Group", "devs"),
            ("Impersonate-Group", "équipe sre"),
            ("Impersonate-Extra-scopes%2Fx", "read"),
        )


def test_impersonation_on_the_kubernetes_client_path_merges_the_users_as(anonymous_sim, tmp_path):
    """A basic-auth user goes through the kubernetes client's ApiClient: the
    headers go there too; the kubeconfig's own ``as`` stays and --as-group adds
    to it (getAuthInfo's merge); --token on that user is two auth methods."""
    doc = base(anonymous_sim)
    doc["users"][0]["user"] = {"username": "u", "password": "p4ssw0rd-secret", "as": "carol"}
    kc = write(tmp_path, doc)
    anonymous_sim.impersonation_log.clear()
    ok(watch(kc, "--as-group", "g1", "--as-group", "gröup"))
    seen = list(anonymous_sim.impersonation_log)
    assert seen and all(
        utf8(h) == (("Impersonate-User", "carol"), ("Impersonate-Group", "g1"), ("Impersonate-Group", "gröup"))
        for _m, _p, h in seen
    )
    one_line_error(
        watch(kc, "--token", "another-token-value"),
        1,
        "more than one authentication method found for sim; found [token basicAuth]",
    )
    # The loader's copy of the kubeconfig gets the flags too: another server, another user entry.
    doc["clusters"][0]["cluster"]["server"] = "https://127.0.0.1:1"
    doc["users"].append({"name": "other", "user": {"username": "v", "password": "p4ssw0rd-other", "as": "dave"}})
    anonymous_sim.impersonation_log.clear()
    ok(watch(write(tmp_path, doc, "moved"), "-s", anonymous_sim.url, "--user", "other"))
    assert {h for _m, _p, h in anonymous_sim.impersonation_log} == {(("Impersonate-User", "dave"),)}


def test_groups_or_uid_without_a_user_to_impersonate_are_refused(sim, tmp_path):
    r = watch(write(tmp_path, base(sim)), "--as-group", "devs")
    one_line_error(r, 1, "requesting uid, groups or user-extra for sim without impersonating a user")


def test_token_replaces_the_users_token_and_its_exec_plugin_and_is_never_shown(sim, tmp_path):
    doc = base(sim, token="wrong-token")
    doc["users"][0]["user"]["exec"] = {
        "apiVersion": "client.authentication.k8s.io/v1",
        "command": "/nonexistent",
        "interactiveMode": "Never",
    }
    kc = write(tmp_path, doc)
    record = tmp_path / "trace.ndjson"
    ok(watch(kc, "--token", sim.token, "--record", str(record)))
    assert sim.token not in record.read_text()  # the recording's command line hides it
    r = watch(kc, "--token", "not-the-token-9f8e7d")
    one_line_error(r, 1)
    assert "not-the-token-9f8e7d" not in r.stderr + r.stdout
    r = watch(kc, "--token", "bad\ntoken-value")
    one_line_error(r, 2, "--token holds a control character")
    assert "token-value" not in r.stderr


def test_server_keeps_the_clusters_ca_and_clears_its_tls_server_name(sim, tmp_path):
    doc = base(sim)
    doc["clusters"][0]["cluster"].update(server="https://127.0.0.1:1", **{"tls-server-name": "wrong.example"})
    kc = write(tmp_path, doc)
    ok(watch(kc, "--server", sim.url))  # verified against the kubeconfig's CA; the wrong name gone
    ok(watch(kc, "-s", sim.url, "--tls-server-name", "localhost"))
    # host:port is plain HTTP, as kubectl makes it (its TLS settings are merged after the scheme is chosen)
    r = watch(kc, "-s", sim.url.removeprefix("https://"))
    one_line_error(r, 1, "http://127.0.0.1:")
    one_line_error(
        watch(kc, "-s", "ftp://127.0.0.1"), 2, "--server: the server URL must start with https:// or http://"
    )


def test_tls_server_name_is_checked_against_the_certificate(sim, tmp_path):
    kc = write(tmp_path, base(sim))
    ok(watch(kc, "--tls-server-name", "localhost"))  # a name the certificate has
    one_line_error(watch(kc, "--tls-server-name", "wrong.example"), 1)


def test_insecure_skip_tls_verify_drops_the_kubeconfigs_ca(sim, tmp_path, other_pair):
    doc = base(sim)
    wrong_ca = Path(other_pair[0]).read_bytes()
    doc["clusters"][0]["cluster"]["certificate-authority-data"] = base64.b64encode(wrong_ca).decode()
    kc = write(tmp_path, doc)
    one_line_error(watch(kc), 1)  # the kubeconfig's CA did not sign the server's certificate
    ok(watch(kc, "--insecure-skip-tls-verify"))  # no "root certificates with the insecure flag" either
    one_line_error(
        watch(kc, "--insecure-skip-tls-verify", "--certificate-authority", other_pair[0]),
        2,
        "specifying a root certificates file with the insecure flag is not allowed",
    )


def test_certificate_authority_replaces_the_kubeconfigs_trust(sim, tmp_path):
    doc = base(sim)
    cluster = doc["clusters"][0]["cluster"]
    del cluster["certificate-authority-data"]
    cluster["insecure-skip-tls-verify"] = True  # replaced too: no conflict with the flag's CA
    (tmp_path / "cwd").mkdir()
    ca = tmp_path / "cwd" / "ca.pem"
    ca.write_bytes(sim.ca_pem)
    kc = write(tmp_path, doc)
    # A relative flag path is the working directory's (not the kubeconfig's: it is elsewhere).
    ok(watch(kc, "--certificate-authority", "ca.pem", cwd=str(ca.parent)))
    one_line_error(watch(kc, "--certificate-authority", "nosuch.pem", cwd=str(ca.parent)), 2, "nosuch.pem")


def test_user_and_cluster_pick_kubeconfig_entries_by_name(sim, tmp_path):
    doc = base(sim, token="wrong-token")
    doc["clusters"].append({"name": "good", "cluster": dict(doc["clusters"][0]["cluster"])})
    doc["clusters"][0]["cluster"]["server"] = "https://127.0.0.1:1"
    doc["users"].append({"name": "good", "user": {"token": sim.token}})
    kc = write(tmp_path, doc)
    one_line_error(watch(kc), 1)
    ok(watch(kc, "--user", "good", "--cluster", "good"))
    one_line_error(watch(kc, "--user", "nosuch"), 1, 'auth info "nosuch" does not exist')
    one_line_error(watch(kc, "--cluster", "nosuch"), 1, 'no server found for cluster "nosuch"')  # kubectl's words
    one_line_error(watch(kc, "--cluster", "nosuch", "-s", sim.url), 1, 'no server found for cluster "nosuch"')


def test_client_certificate_and_key_are_the_users(tmp_path, other_pair):
    cert, key = other_pair
    srv = SimServer(tls=True, client_ca=cert).start()  # asks for a certificate that CA signed
    try:
        seed(srv.store)
        kc = write(tmp_path, base(srv))
        ok(watch(kc))
        assert set(srv.client_cert_log) == {False}
        srv.client_cert_log.clear()
        ok(watch(kc, "--client-certificate", cert, "--client-key", key))
        assert set(srv.client_cert_log) == {True}  # presented on every connection
        # --client-key replaces the entry's client-key-data (else both would be set: getAuthInfo clears it)
        doc = base(srv)
        doc["users"][0]["user"].update(
            {
                "client-certificate-data": base64.b64encode(Path(cert).read_bytes()).decode(),
                "client-key-data": base64.b64encode(b"not a key").decode(),
            }
        )
        srv.client_cert_log.clear()
        ok(watch(write(tmp_path, doc, "with-data"), "--client-key", key))
        assert set(srv.client_cert_log) == {True}
    finally:
        srv.stop()


def test_a_client_certificate_needs_its_key(sim, tmp_path, other_pair):
    kc = write(tmp_path, base(sim))
    cert, _key = other_pair
    one_line_error(
        watch(kc, "--client-certificate", cert), 1, "client-key-data or client-key must be specified for sim"
    )
    one_line_error(watch(kc, "--client-certificate", cert, "--client-key", cert), 1)  # not a key: read, refused


def test_server_and_token_without_any_kubeconfig(sim, tmp_path):
    env = {"HOME": str(tmp_path)}
    ok(watch(None, "--server", sim.url, "--insecure-skip-tls-verify", "--token", sim.token, env=env))
    one_line_error(watch(None, "--token", sim.token, env=env), 1, "no configuration has been provided")


def test_bad_values_are_usage_errors(sim, tmp_path):
    kc = write(tmp_path, base(sim))
    one_line_error(watch(kc, "--as", "eve\r\nX-Injected: 1"), 2, "--as holds a control character")
    one_line_error(watch(kc, "--as", "a", "--as-group", "g\n"), 2, "--as-group holds a control character")
    one_line_error(watch(kc, "--user", "a\x1b[2J"), 2, "--user holds a control character")
    one_line_error(watch(kc, "-s", "https://127.0.0.1:99999"), 2, "--server")


def test_attach_flags_apply_to_the_url_or_to_the_api_server(sim, tmp_path):
    """A URL TARGET is read directly: the API-server-only flags have nothing
    to apply to. Through the API server (pod/), --token is the API server's."""
    r = run_in_process("attach", "https://127.0.0.1:1/metrics", "--as", "alice", "-o", "text", "--count", "1")
    one_line_error(r, 2, "--as applies to the API server")
    doc = base(sim, token="wrong-token")
    kc = write(tmp_path, doc)
    sim.impersonation_log.clear()
    r = run_in_process(
        "attach", "pod/nosuch", "--kubeconfig", kc, "--token", sim.token, "--as", "alice", "-o", "text", "--count", "1"
    )
    # Authenticated with the flag's token (the kubeconfig's is wrong): the pod is looked up and not found.
    one_line_error(r, 1, "nosuch")
    assert "Unauthorized" not in r.stderr
    assert any(h == (("Impersonate-User", "alice"),) for _m, _p, h in sim.impersonation_log)
