"""kubectl's connection flags (``--server``, ``--token``, ``--as``...) laid
over the kubeconfig as client-go's ``clientcmd`` lays its ``ConfigOverrides``.

The rules are ``DirectClientConfig``'s (tools/clientcmd/client_config.go):
``--user`` and ``--cluster`` name the kubeconfig entries to use in place of
the context's (``getAuthInfoName``/``getClusterName``; a name that is not
there is an error, as it is required once given); the user's fields the
flags set replace the entry's, and a client certificate or key flag replaces
both the entry's file and its ``-data`` (``getAuthInfo``); the cluster's
likewise, except that ``--insecure-skip-tls-verify`` or
``--certificate-authority`` replaces all three TLS trust fields (so
``--insecure-skip-tls-verify`` drops the kubeconfig's CA, and a CA flag drops
its insecure setting), and ``--server`` clears the entry's
``tls-server-name`` unless ``--tls-server-name`` is given too
(``getCluster``). A kubeconfig CA stays when only ``--server`` is given.

Impersonation (``--as``, ``--as-group``, ``--as-uid``, or the user entry's
``as``, ``as-groups``, ``as-uid``, ``as-user-extra``) becomes the
``Impersonate-User``, ``Impersonate-Uid``, ``Impersonate-Group`` (one header
per group) and ``Impersonate-Extra-KEY`` headers of every request, as
client-go's ``ImpersonatingRoundTripper`` sends them; groups, a uid or extras
without a user are refused (``validateAuthInfo``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kubectl_informer.kube.kubeconfig_types import has_control_characters


@dataclass(frozen=True)
class ConfigOverrides:
    """The flags given (None or empty: not given). Paths are absolute: a flag's
    file is the working directory's, not the kubeconfig's."""

    server: str | None = None
    cluster: str | None = None  # --cluster: the kubeconfig cluster entry to use
    user: str | None = None  # --user: the kubeconfig user entry to use
    token: str | None = field(default=None, repr=False)  # never in a repr (a crash log, --debug)
    as_user: str | None = None
    as_groups: tuple[str, ...] = ()
    as_uid: str | None = None
    insecure: bool = False  # --insecure-skip-tls-verify
    certificate_authority: str | None = None
    client_certificate: str | None = None
    client_key: str | None = None
    tls_server_name: str | None = None

    def any(self) -> bool:
        return self != ConfigOverrides()


def merged_cluster(cluster: dict, o: ConfigOverrides | None) -> dict:
    """The cluster entry (its ``cluster`` map) with the flags laid over it
    (``getCluster``)."""
    out = dict(cluster)
    if o is None:
        return out
    if o.server:
        out["server"] = o.server
    if o.insecure or o.certificate_authority:
        for key in ("insecure-skip-tls-verify", "certificate-authority", "certificate-authority-data"):
            out.pop(key, None)
        if o.insecure:
            out["insecure-skip-tls-verify"] = True
        if o.certificate_authority:
            out["certificate-authority"] = o.certificate_authority
    if o.tls_server_name or o.server:
        out.pop("tls-server-name", None)
        if o.tls_server_name:
            out["tls-server-name"] = o.tls_server_name
    return out


def merged_user(user: dict, o: ConfigOverrides | None) -> dict:
    """The user entry (its ``user`` map) with the flags laid over it
    (``getAuthInfo``); impersonation stays in it under the kubeconfig's keys
    (``as``, ``as-groups``, ``as-uid``) for ``impersonation``."""
    out = dict(user)
    if o is None:
        return out
    if o.token:
        out["token"] = o.token
    if o.client_certificate:
        out.pop("client-certificate-data", None)
        out["client-certificate"] = o.client_certificate
    if o.client_key:
        out.pop("client-key-data", None)
        out["client-key"] = o.client_key
    if o.as_user:
        out["as"] = o.as_user
    if o.as_groups:
        out["as-groups"] = list(o.as_groups)
    if o.as_uid:
        out["as-uid"] = o.as_uid
    return out


IMPERSONATION_KEYS = ("as", "as-groups", "as-uid", "as-user-extra")

# RFC 7230's token characters: what a header name may hold (client-go's legalHeaderKeyBytes).
_TOKEN_CHARS = frozenset(b"!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")


def header_key_escape(key: str) -> str:
    """An extra's key in a header name, as client-go's ``headerKeyEscape``:
    every byte that is not a token character, and ``%``, percent-encoded."""
    return "".join(chr(b) if b in _TOKEN_CHARS and b != ord("%") else f"%{b:02X}" for b in key.encode())


# Where a cluster or user that only the flags describe "comes from" (messages, relative paths: none).
FLAGS = "the command line"


def impersonation(user: dict, name: str | None) -> tuple[tuple[str, bytes], ...]:
    """The Impersonate-* headers the merged user entry asks for, in
    ``ImpersonatingRoundTripper``'s order; ValueError (client-go's wording)
    for groups or a uid without a user."""
    who, groups, uid = user.get("as") or "", user.get("as-groups") or [], user.get("as-uid") or ""
    if not who:
        if groups or uid or user.get("as-user-extra"):
            raise ValueError(f"requesting uid, groups or user-extra for {name or ''} without impersonating a user")
        return ()
    headers = [("Impersonate-User", str(who))]
    if uid:
        headers.append(("Impersonate-Uid", str(uid)))
    headers += [("Impersonate-Group", str(g)) for g in groups]
    extra = user.get("as-user-extra") or {}
    headers += [("Impersonate-Extra-" + header_key_escape(str(k)), str(v)) for k in sorted(extra) for v in extra[k]]
    for header, value in headers:
        if has_control_characters(value):
            raise ValueError(
                f'the {header} value for "{name or ""}" holds a control character '
                f"(a line break?): it cannot be an HTTP header"
            )
    # As Go sends a header: its UTF-8 bytes (http.client would encode a str as Latin-1, and fail).
    return tuple((header, value.encode()) for header, value in headers)


def check_auth_methods(user: dict, name: str | None) -> None:
    """``validateAuthInfo``'s rule: a token and basic auth together are two
    methods, and only one is allowed (``--token`` on a basic-auth user)."""
    methods = [
        m for m, on in (("token", user.get("token")), ("basicAuth", user.get("username") or user.get("password"))) if on
    ]
    if len(methods) > 1:
        raise ValueError(
            f"more than one authentication method found for {name or ''}; "
            f"found [{' '.join(methods)}], only one is allowed"
        )
    if (user.get("client-certificate") or user.get("client-certificate-data")) and not (
        user.get("client-key") or user.get("client-key-data")
    ):
        raise ValueError(
            f"client-key-data or client-key must be specified for {name or ''} to use the "
            f"clientCert authentication method."
        )


def default_server_url(cluster: dict, user: dict) -> None:
    """A server given as host:port gets ``http://``, as kubectl gives it:
    clientcmd's ``ClientConfig`` asks ``IsConfigTransportTLS`` (whose
    ``DefaultServerURL`` picks https only for a config with a CA, a client
    certificate or insecure set) before it has merged any of those, so a bare
    host:port is plain HTTP whatever the kubeconfig or the flags say."""
    server = cluster.get("server")
    if not isinstance(server, str) or not server or "://" in server:
        return  # a URL, checked as it is (kube.kubeconfig_checks.check_server)
    cluster["server"] = "http://" + server


def flags_only_config() -> Any:
    """An empty merged kubeconfig, for ``--server`` without any file (kubectl
    runs so: the flags make the whole config)."""
    from kubernetes.config import kube_config

    return kube_config.ConfigNode(FLAGS, {"clusters": [], "contexts": [], "users": []}, None)


def lay_over(doc: dict, name: str, cluster: dict, user_entry: dict) -> None:
    """The loader's copy of the context, its cluster and user made the ones
    ``_select`` chose and merged with the flags (in place: each entry keeps
    the file its relative paths are read against)."""
    user_name = user_entry.get("name") or f"{FLAGS} user"
    for key, entry_name, part, value in (
        ("clusters", cluster.get("name") or "", "cluster", cluster["cluster"]),
        ("users", user_name, "user", user_entry.get("user") or {}),
    ):
        entry = entry_named(doc, key, entry_name)
        entry[part] = {k: v for k, v in value.items() if k not in IMPERSONATION_KEYS}
    ctx = entry_named(doc, "contexts", name)
    ctx["context"] = {**(ctx.get("context") or {}), "cluster": cluster.get("name") or "", "user": user_name}


def entry_named(doc: dict, key: str, name: str) -> dict:
    """The raw entry named ``name`` under ``key`` (the merger wraps some in
    ConfigNodes), added when missing."""
    for item in doc.setdefault(key, []):
        value = getattr(item, "value", item)
        if isinstance(value, dict) and value.get("name") == name:
            return value
    doc[key].append({"name": name})
    return doc[key][-1]
