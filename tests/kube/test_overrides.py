"""kube.overrides: clientcmd's getCluster/getAuthInfo merge rules, as properties
over any kubeconfig entry (the CLI runs against the simulator are in
tests/cli/test_connection_flags.py)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from kubectl_informer.kube.overrides import (
    ConfigOverrides,
    header_key_escape,
    impersonation,
    merged_cluster,
    merged_user,
)

maybe_text = st.one_of(st.none(), st.text("abc/", min_size=1, max_size=4))
clusters = st.fixed_dictionaries(
    {},
    optional={
        "server": st.just("https://k:6443"),
        "certificate-authority": st.just("ca.pem"),
        "certificate-authority-data": st.just("Q0E="),
        "insecure-skip-tls-verify": st.booleans(),
        "tls-server-name": st.just("k.internal"),
    },
)
cluster_flags = st.builds(
    ConfigOverrides,
    server=st.one_of(st.none(), st.just("https://s:1")),
    insecure=st.booleans(),
    certificate_authority=st.one_of(st.none(), st.just("/f/ca.pem")),
    tls_server_name=st.one_of(st.none(), st.just("n")),
)


@given(clusters, cluster_flags)
def test_a_trust_flag_replaces_all_of_the_entrys_trust(cluster, o):
    out = merged_cluster(cluster, o)
    if o.insecure or o.certificate_authority:
        assert out.get("insecure-skip-tls-verify", False) is o.insecure
        assert out.get("certificate-authority") == o.certificate_authority
        assert "certificate-authority-data" not in out
    else:
        for key in ("certificate-authority", "certificate-authority-data", "insecure-skip-tls-verify"):
            assert out.get(key) == cluster.get(key)  # --server alone keeps the CA
    if o.server or o.tls_server_name:
        assert out.get("tls-server-name") == o.tls_server_name
    else:
        assert out.get("tls-server-name") == cluster.get("tls-server-name")
    assert out.get("server") == (o.server or cluster.get("server"))


@given(
    st.fixed_dictionaries(
        {},
        optional={
            "client-certificate-data": st.just("Qw=="),
            "client-key-data": st.just("Sw=="),
            "token": st.just("t1"),
        },
    ),
    maybe_text,
    maybe_text,
)
def test_a_certificate_or_key_flag_replaces_the_file_and_the_data(user, cert, key):
    out = merged_user(user, ConfigOverrides(client_certificate=cert and "/c" + cert, client_key=key and "/k" + key))
    for flag, name in ((cert, "client-certificate"), (key, "client-key")):
        if flag:
            assert f"{name}-data" not in out and out[name].endswith(flag)
        else:
            assert out.get(f"{name}-data") == user.get(f"{name}-data") and name not in out
    assert out.get("token") == user.get("token")


def test_impersonation_headers_in_client_gos_order():
    user = merged_user(
        {"as": "kube-user", "as-user-extra": {"b": ["2"], "a/x": ["1", "3"]}},
        ConfigOverrides(as_groups=("g1", "g2"), as_uid="u"),
    )
    assert impersonation(user, "me") == (
        ("Impersonate-User", b"kube-user"),
        ("Impersonate-Uid", b"u"),
        ("Impersonate-Group", b"g1"),
        ("Impersonate-Group", b"g2"),
        ("Impersonate-Extra-a%2Fx", b"1"),
        ("Impersonate-Extra-a%2Fx", b"3"),
        ("Impersonate-Extra-b", b"2"),
    )


@given(st.text(max_size=8))
def test_an_escaped_key_is_a_header_token_and_unescapes_to_itself(key):
    from urllib.parse import unquote_to_bytes

    escaped = header_key_escape(key)
    assert all(c.isascii() and (c.isalnum() or c in "!#$%&'*+-.^_`|~") for c in escaped)
    assert unquote_to_bytes(escaped) == key.encode()
