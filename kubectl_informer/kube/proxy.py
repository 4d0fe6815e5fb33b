"""Which proxy a request to the API server goes through, as client-go picks it.

client-go's transport (``transport/cache.go``) uses the cluster's
``proxy-url`` when the kubeconfig sets one (``clientcmd``'s
``parseProxyURL``: http, https or socks5, for every request, NO_PROXY not
consulted), else Go's ``http.ProxyFromEnvironment``, whose rules are
``golang.org/x/net/http/httpproxy``'s (``FromEnvironment``, ``ProxyFunc``,
``useProxy``):

- ``HTTPS_PROXY`` for https URLs, ``HTTP_PROXY`` for http ones (the
  upper-case name first, then the lower-case; an empty value is unset); no
  ``ALL_PROXY``. A value without a scheme (``proxy:3128``) is ``http://``.
- ``localhost`` and loopback addresses (127.0.0.0/8, ::1) are never proxied.
- ``NO_PROXY`` (or ``no_proxy``): comma-separated; ``*`` matches everything;
  an IP or a CIDR matches IP hosts; ``name`` matches the name and its
  subdomains, ``.name`` (or ``*.name``) its subdomains only; any entry may
  carry ``:port``, and then matches that port only.
- In a CGI environment (``REQUEST_METHOD`` set) ``HTTP_PROXY`` is refused.

client-go's ``NewProxierWithNoProxyCIDR`` adds CIDRs to NO_PROXY; Go's
``httpproxy`` has since matched them itself, so the two agree.
"""

from __future__ import annotations

import ipaddress
import os
from collections.abc import Mapping
from urllib.parse import unquote, urlsplit

from kubectl_informer.core.redact import remember
from kubectl_informer.kube.errors import KubeConfigError

_DEFAULT_PORTS = {"http": "80", "https": "443", "socks5": "1080"}


class ProxyError(KubeConfigError):
    """A proxy setting that cannot be used: one line."""


def _env(environ: Mapping[str, str], *names: str) -> str:
    """``getEnvAny``: the first of ``names`` set to a non-empty value."""
    return next((environ[n] for n in names if environ.get(n)), "")


def _parse_proxy(value: str) -> str | None:
    """``parseProxy``: the value as a URL, ``http://`` put in front when it
    has no scheme or no host."""
    if not value:
        return None
    for candidate in (value, "http://" + value):
        try:
            parts = urlsplit(candidate)
            parts.port  # noqa: B018 - raises ValueError for a bad port
        except ValueError:
            continue  # Go ignores a proxy it cannot parse: no proxy
        if candidate is not value or (parts.scheme and parts.netloc):
            return candidate
    return None


def _split_host_port(addr: str) -> tuple[str, str] | None:
    """Go's ``net.SplitHostPort`` for the forms NO_PROXY entries take."""
    if addr.startswith("["):
        end = addr.find("]")
        if end < 0 or not addr[end + 1 :].startswith(":"):
            return None
        return addr[1:end], addr[end + 2 :]
    if addr.count(":") != 1:
        return None
    host, port = addr.split(":")
    return host, port


def _ip(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """The address, an IPv4-mapped IPv6 one as its IPv4 (Go's ``net.IP``
    compares, matches and finds loopback that way)."""
    try:
        ip = ipaddress.ip_address(text)
    except ValueError:
        return None
    mapped = getattr(ip, "ipv4_mapped", None)
    return mapped if mapped is not None else ip


def _idna(host: str) -> str:
    """``idnaASCII``: a non-ASCII name in its ASCII (punycode) form."""
    if host.isascii():
        return host
    try:
        return ".".join(label if label.isascii() else label.encode("idna").decode("ascii") for label in host.split("."))
    except UnicodeError:
        return host


def _matches(entry: str, host: str, port: str, ip: ipaddress.IPv4Address | ipaddress.IPv6Address | None) -> bool:
    """Does one NO_PROXY entry (trimmed, lower-case, not ``*``) match?"""
    if "/" in entry:
        try:
            return ip is not None and ip in ipaddress.ip_network(entry, strict=False)
        except ValueError:
            pass
    split = _split_host_port(entry)
    ehost, eport = split if split is not None else (entry, "")
    if not ehost:
        return False
    eip = _ip(ehost)
    if eip is not None:
        return ip is not None and eip == ip and eport in ("", port)
    if ip is not None:
        return False  # a name never matches an IP host
    if ehost.startswith("*."):
        ehost = ehost[1:]
    exact = not ehost.startswith(".")
    suffix = _idna("." + ehost if exact else ehost)
    return (host.endswith(suffix) or (exact and host == suffix[1:])) and eport in ("", port)


def use_proxy(host: str, port: str, no_proxy: str) -> bool:
    """``useProxy``: should a request to ``host:port`` go through the proxy?"""
    if host == "localhost":
        return False
    ip = _ip(host)
    if ip is not None and ip.is_loopback:
        return False
    host = _idna(host).lower().strip()
    for entry in no_proxy.split(","):
        entry = entry.strip().lower()
        if entry == "*":
            return False
        if entry and _matches(entry, host, port, ip):
            return False
    return True


def _host_and_port(url: str) -> tuple[str, str, str]:
    """(scheme, host, port) of ``url``; the host as written (Go's
    ``URL.Hostname`` keeps its case: only ``localhost`` in lower case is
    refused by name), the port the scheme's when none is given."""
    parts = urlsplit(url)
    netloc = parts.netloc.rpartition("@")[2]
    if netloc.startswith("["):
        host, _, rest = netloc[1:].partition("]")
        port = rest[1:] if rest.startswith(":") else ""
    else:
        host, _, port = netloc.partition(":")
    scheme = parts.scheme.lower()
    return scheme, host, port or _DEFAULT_PORTS.get(scheme, "")


def proxy_from_environment(url: str, environ: Mapping[str, str] | None = None) -> str | None:
    """``http.ProxyFromEnvironment`` for a request to ``url``: the proxy's
    URL, or None for a direct connection. ProxyError in a CGI environment
    with HTTP_PROXY set, as Go refuses it."""
    env = os.environ if environ is None else environ
    scheme, host, port = _host_and_port(url)
    if scheme == "https":
        proxy = _parse_proxy(_env(env, "HTTPS_PROXY", "https_proxy"))
    elif scheme == "http":
        proxy = _parse_proxy(_env(env, "HTTP_PROXY", "http_proxy"))
        if proxy and env.get("REQUEST_METHOD"):
            raise ProxyError("refusing to use HTTP_PROXY value in CGI environment; see golang.org/s/cgihttpproxy")
    else:
        return None
    if proxy is None or not use_proxy(host, port, _env(env, "NO_PROXY", "no_proxy")):
        return None
    return proxy


def check_proxy_url(proxy: str, where: str) -> str:
    """A kubeconfig ``proxy-url`` (``parseProxyURL``): http or https (and
    socks5, which this plugin cannot use: said in one line)."""
    try:
        parts = urlsplit(proxy)
        parts.port  # noqa: B018 - raises ValueError for a port out of range
    except ValueError:
        raise ProxyError(f"{where}: proxy-url: could not parse it") from None
    if parts.password:
        remember(parts.password)
    if parts.scheme not in ("http", "https", "socks5"):
        raise ProxyError(
            f'{where}: proxy-url: unsupported scheme "{parts.scheme[:20]}", must be http, https, or socks5'
        )
    return proxy


def usable(proxy: str, where: str) -> str:
    """The proxy, if urllib3's ProxyManager can use it (http or https)."""
    try:
        parts = urlsplit(proxy)
        parts.port  # noqa: B018 - raises ValueError for a bad port
    except ValueError:
        raise ProxyError(f"{where}: the proxy URL could not be parsed") from None
    scheme = parts.scheme.lower()
    if scheme == "socks5":
        raise ProxyError(
            f"{where}: a socks5 proxy is not supported by kubectl informer (client-go supports it); "
            "use an http or https proxy"
        )
    if scheme not in ("http", "https"):
        raise ProxyError(f'{where}: proxy scheme "{scheme[:20]}" is not supported (http or https)')
    if not parts.hostname:
        raise ProxyError(f"{where}: the proxy URL has no host")
    return proxy


def proxy_headers(proxy: str) -> dict[str, str]:
    """Proxy-Authorization for a proxy URL with a user (Go's transport sends
    it as Basic; urllib3 leaves it to the caller)."""
    parts = urlsplit(proxy)
    if parts.username is None:
        return {}
    import base64

    user, password = unquote(parts.username), unquote(parts.password or "")
    remember(password)
    token = base64.b64encode(f"{user}:{password}".encode()).decode()
    remember(token)
    return {"Proxy-Authorization": f"Basic {token}"}
