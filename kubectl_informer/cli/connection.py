"""kubectl's connection flags (``--server``, ``--token``, ``--as``...) as click
options, each value checked where it is read, and read into one
``kube.overrides.ConfigOverrides`` (which lays them over the kubeconfig as
client-go's clientcmd does).

``watch`` and ``queue`` take them all (``connection_flags``). ``attach``
takes the API-server ones (``api_server_flags``) and has its own ``--token``,
``--certificate-authority`` and ``--insecure-skip-tls-verify`` (with
``--token-file``): they are a URL TARGET's, and the API server's when the
TARGET is read through it (pod/, deploy/).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

import click

from kubectl_informer.cli.params import InvalidValue

if TYPE_CHECKING:  # pop_overrides imports it: --help and version stay fast
    from kubectl_informer.kube.overrides import ConfigOverrides

# Flag name -> the ConfigOverrides field it fills (watch/queue read them by these names).
FIELDS = {
    "server": "server",
    "cluster": "cluster",
    "user": "user",
    "token": "token",
    "as_user": "as_user",
    "as_groups": "as_groups",
    "as_uid": "as_uid",
    "insecure": "insecure",
    "certificate_authority": "certificate_authority",
    "client_certificate": "client_certificate",
    "client_key": "client_key",
    "tls_server_name": "tls_server_name",
}


def _no_control(flag: str, value: str, shown: bool = True) -> str:
    from kubectl_informer.kube.kubeconfig_types import has_control_characters

    if has_control_characters(value):
        what = "it is not shown" if not shown else "it cannot be sent in an HTTP header"
        raise InvalidValue(f"{flag} holds a control character (a line break?); {what}")
    return value


def _text(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """A name or header value: given as typed, minus what no header may hold."""
    if value is None or value == "":
        return None
    return _no_control(param.opts[-1] if param.opts[-1].startswith("--") else param.opts[0], value)


def _groups(ctx: click.Context, param: click.Parameter, values: tuple[str, ...] | None) -> tuple[str, ...]:
    return tuple(_no_control("--as-group", v) for v in values or ())


def check_token(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """A bearer token: hidden from every message from now on (core.redact),
    refused unshown if it could not be an HTTP header."""
    if not value:
        return None
    from kubectl_informer.core.redact import remember

    remember(value)
    return _no_control("--token", value, shown=False)


def _server(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """``--server``: an http or https URL, or host:port (then http, as
    kubectl makes it: kube.overrides.default_server_url)."""
    if not value:
        return None
    _no_control("--server", value)
    from kubectl_informer.kube.kubeconfig_checks import server_url_problem

    problem = server_url_problem(value if "://" in value else "http://" + value)
    if problem:
        raise InvalidValue(f"--server: {problem} (an https:// or http:// URL, or host:port)")
    return value


def _file(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """A file flag: read against the working directory (not the kubeconfig's)."""
    return os.path.abspath(value) if value else None


FILE = click.Path(exists=True, dir_okay=False)


def api_server_flags() -> list:
    """The flags that only the API server's connection reads."""
    return _server_flags() + _impersonation_flags() + _client_tls_flags()


def _server_flags() -> list:
    """Which server, cluster and user, in place of the kubeconfig's."""
    return [
        click.option(
            "-s",
            "--server",
            metavar="URL",
            callback=_server,
            help="The address and port of the API server, in place of the kubeconfig cluster's (kubectl's "
            "flag; the cluster's CA is kept unless --certificate-authority or "
            "--insecure-skip-tls-verify is given).",
        ),
        click.option(
            "--cluster",
            metavar="NAME",
            callback=_text,
            help="The kubeconfig cluster to use, in place of the context's.",
        ),
        click.option(
            "--user", metavar="NAME", callback=_text, help="The kubeconfig user to use, in place of the context's."
        ),
    ]


def _impersonation_flags() -> list:
    """kubectl's --as, --as-group, --as-uid: the Impersonate-* headers."""
    return [
        click.option(
            "--as",
            "as_user",
            metavar="USER",
            callback=_text,
            help="Username to impersonate (the Impersonate-User header on every request).",
        ),
        click.option(
            "--as-group",
            "as_groups",
            metavar="GROUP",
            multiple=True,
            callback=_groups,
            help="Group to impersonate, repeatable (one Impersonate-Group header each); needs --as.",
        ),
        click.option(
            "--as-uid",
            "as_uid",
            metavar="UID",
            callback=_text,
            help="UID to impersonate (the Impersonate-Uid header); needs --as.",
        ),
    ]


def _client_tls_flags() -> list:
    """The client's certificate and key, and the server name its certificate is checked against."""
    return [
        click.option(
            "--client-certificate",
            "client_certificate",
            metavar="FILE",
            type=FILE,
            callback=_file,
            help="Client certificate file for TLS, in place of the kubeconfig user's.",
        ),
        click.option(
            "--client-key",
            "client_key",
            metavar="FILE",
            type=FILE,
            callback=_file,
            help="Client key file for TLS, in place of the kubeconfig user's.",
        ),
        click.option(
            "--tls-server-name",
            "tls_server_name",
            metavar="NAME",
            callback=_text,
            help="Server name to check the API server's certificate against (and send as SNI), in place "
            "of the server URL's host.",
        ),
    ]


def shared_tls_flags() -> list:
    """--token, --certificate-authority, --insecure-skip-tls-verify as watch and queue read them."""
    return [
        click.option(
            "--token",
            metavar="TOKEN",
            callback=check_token,
            help="Bearer token for the API server, in place of the kubeconfig user's (never shown).",
        ),
        click.option(
            "--certificate-authority",
            "certificate_authority",
            metavar="FILE",
            type=FILE,
            callback=_file,
            help="CA bundle to verify the API server's certificate with.",
        ),
        click.option(
            "--insecure-skip-tls-verify",
            "insecure",
            is_flag=True,
            help="Do not verify the API server's certificate (drops the kubeconfig cluster's CA).",
        ),
    ]


def attach_endpoint_flags() -> list:
    """attach's own: a URL TARGET's credentials and trust; the API server's
    when TARGET is read through it (pod/, deploy/)."""
    return [
        click.option(
            "--token",
            metavar="TOKEN",
            default=None,
            help="Bearer token: a URL TARGET's (kube-rbac-proxy); with pod/ or deploy/, the API "
            "server's (kubectl's flag). Never shown.",
        ),
        click.option(
            "--token-file", metavar="FILE", default=None, help="Read the bearer token from FILE (as --token)."
        ),
        click.option(
            "--certificate-authority",
            "ca_file",
            metavar="FILE",
            default=None,
            help="CA bundle: an HTTPS URL TARGET's; with pod/ or deploy/, the API server's.",
        ),
        click.option(
            "--insecure-skip-tls-verify",
            "insecure",
            is_flag=True,
            help="Do not verify the certificate: an HTTPS URL TARGET's; with pod/ or deploy/, the API server's.",
        ),
    ]


def connection_flags() -> list:
    return api_server_flags() + shared_tls_flags()


def pop_overrides(flags: dict[str, Any]) -> ConfigOverrides:
    """The connection flags taken out of ``flags`` into one ConfigOverrides."""
    from kubectl_informer.kube.overrides import ConfigOverrides

    given = {field: flags.pop(name) for name, field in FIELDS.items() if name in flags}
    check_combination(given)
    return ConfigOverrides(**{k: v for k, v in given.items() if v not in (None, ())})


def check_combination(given: dict[str, Any]) -> None:
    """What the flags alone make unusable (client-go's ``TLSConfigFor`` rule), a usage error."""
    if given.get("insecure") and given.get("certificate_authority"):
        raise click.UsageError(
            "specifying a root certificates file with the insecure flag is not allowed "
            "(--certificate-authority and --insecure-skip-tls-verify)"
        )
