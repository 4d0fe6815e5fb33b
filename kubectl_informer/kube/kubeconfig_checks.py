"""The values of the context kube.config chose, checked before any client is
built: each failure one line that names the entry and its file, and never
shows a credential (each is remembered by core.redact first)."""

from __future__ import annotations

import base64
import contextlib
import os
from urllib.parse import urlsplit

from kubectl_informer.core.names import InvalidName, check_namespace
from kubectl_informer.core.redact import remember
from kubectl_informer.kube.errors import KubeConfigError, one_line
from kubectl_informer.kube.kubeconfig_types import has_control_characters


def check_insecure_with_ca(cluster: dict, where: str) -> None:
    """client-go's ``TLSConfigFor`` refuses a CA together with
    ``insecure-skip-tls-verify: true`` (one would silently win)."""
    ca = cluster.get("certificate-authority") or cluster.get("certificate-authority-data")
    if cluster.get("insecure-skip-tls-verify") is True and ca:
        raise KubeConfigError(
            f"specifying a root certificates file with the insecure flag is not allowed "
            f"({where} sets insecure-skip-tls-verify and a certificate-authority)"
        )


def context_namespace(ctx: dict, name: str, path: str) -> str:
    """The context's namespace, checked as ``-n`` is (core.names): it
    becomes part of every URL."""
    namespace = ctx.get("namespace") or "default"
    try:
        return check_namespace(namespace)
    except InvalidName as e:
        raise KubeConfigError(f'{e} (the namespace of context "{name}" in {path})') from None


def server_url_problem(server: str) -> str | None:
    """What is wrong with a server URL, in words (None: nothing): only http
    and https, with a host and a valid port. A password in it is remembered
    (never printed) and the URL itself never echoed."""
    try:
        parts = urlsplit(server)
        parts.port  # noqa: B018 - raises ValueError for a port out of range
    except ValueError as e:
        return f"the server URL is invalid ({e})"
    if parts.password:
        remember(parts.password)
    if parts.scheme.lower() not in ("http", "https"):
        return (
            f"the server URL must start with https:// or http:// "
            f'(scheme "{one_line(parts.scheme, 20)}" is not supported)'
        )
    if not parts.hostname:
        return "the server URL has no host"
    return None


def check_server(cluster: dict, name: str, path: str) -> None:
    """A kubeconfig cluster's server, as ``server_url_problem`` checks it."""
    server = cluster.get("server")
    if server and (problem := server_url_problem(server)):
        raise KubeConfigError(f'cluster "{name}" in {path}: {problem}')


def remember_credentials(user: dict) -> None:
    """Every credential of the user, hidden from whatever is printed later
    (core.redact): the last guard behind never putting one in a message."""
    for key in ("token", "password", "client-key-data"):
        if isinstance(user.get(key), str):
            remember(user[key])
    key_data = user.get("client-key-data")
    if isinstance(key_data, str):
        with contextlib.suppress(ValueError):
            remember(base64.b64decode(key_data))


def check_token_file(user: dict, name: str | None, path: str) -> None:
    """A ``tokenFile`` whose content could not be an HTTP header: refused
    without showing it (both loaders would otherwise fail sending it, with the
    token in the error)."""
    if user.get("token") or not user.get("tokenFile"):
        return
    token_path = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(path)), user["tokenFile"]))
    try:
        with open(token_path, encoding="utf-8", errors="replace") as f:
            token = f.read().strip()
    except OSError as e:
        raise KubeConfigError(
            f'user "{name}" in {path}: cannot read tokenFile {token_path}: {e.strerror or e}'
        ) from None
    remember(token)
    if has_control_characters(token):
        raise KubeConfigError(
            f'user "{name}" in {path}: tokenFile {token_path} holds a control character '
            f"(a line break inside the token?); its content is not shown"
        )
