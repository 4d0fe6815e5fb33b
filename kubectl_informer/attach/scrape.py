"""One GET of a metrics page, straight (a URL) or through the API server's
``pods/proxy`` subresource, and every way it fails as one line.

Both scrapers ask for the classic text format (``version=0.0.4``), which
every Go and Python client serves; a bearer token and a CA file serve an
endpoint behind kube-rbac-proxy.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import Any
from urllib.parse import quote, urlsplit

import urllib3

from kubectl_informer.attach.page import NotPrometheusText, Page, parse_page
from kubectl_informer.attach.server_rv import ServerRV
from kubectl_informer.attach.target import (
    ResolveError,
    Target,
    is_ready,
    pick_port,
    proxy_path,
    selector_of,
)
from kubectl_informer.core.redact import redact_url, remember
from kubectl_informer.kube.errors import ApiError, one_line
from kubectl_informer.kube.limits import MAX_FRAME, TooLargeError

# A metrics page is read whole to be parsed: capped as one document is.
MAX_PAGE = MAX_FRAME

ACCEPT = "text/plain;version=0.0.4;q=1,*/*;q=0.1"
RBAC_PROXY_RULE = 'RBAC rule: apiGroups [""], resources ["pods/proxy"], verbs ["get"]'


class ScrapeError(Exception):
    """A failed scrape, one line; ``status`` is the HTTP code if any."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(one_line(message))
        self.status = status


def _not_text(where: str, err: NotPrometheusText, ctype: str) -> ScrapeError:
    kind = f" (Content-Type {ctype})" if ctype and not ctype.startswith("text/plain") else ""
    return ScrapeError(f"{where} did not answer Prometheus text{kind}: {err}")


class UrlScraper:
    """GET a URL: the user port-forwarded the metrics port themselves."""

    def __init__(
        self,
        url: str,
        token: str | None = None,
        ca_file: str | None = None,
        insecure: bool = False,
        timeout: float = 5.0,
    ) -> None:
        self.url = url
        self.server_rv: ServerRV | None = None  # the API server's RVs, with --kubeconfig or --context
        # Every line and -o json object names the URL without its userinfo
        # (a user and password in it are credentials: core.redact).
        self.describe = redact_url(url)
        password = urlsplit(url).password
        if password:
            remember(password)
        self.headers = {"Accept": ACCEPT}
        if token:
            self.headers["Authorization"] = f"Bearer {token}"
        kw: dict[str, Any] = {"retries": False, "timeout": urllib3.Timeout(total=timeout)}
        if url.startswith("https://"):
            if insecure:
                kw["cert_reqs"] = "CERT_NONE"
                urllib3.disable_warnings(urllib3.exceptions.InsecureRequestWarning)
            elif ca_file:
                kw["ca_certs"] = ca_file
        self.http = urllib3.PoolManager(**kw)

    def fetch(self) -> str:
        from kubectl_informer.kube.rest import read_capped

        try:
            resp = self.http.request("GET", self.url, headers=self.headers, preload_content=False)
            try:
                raw = read_capped(resp, MAX_PAGE, "the metrics page", self.describe)
            finally:
                resp.release_conn()
        except TooLargeError as e:
            raise ScrapeError(str(e)) from None
        except urllib3.exceptions.SSLError as e:
            raise ScrapeError(
                f"TLS error talking to {self.describe}: {_reason(e)} (pass --certificate-authority FILE, "
                f"or --insecure-skip-tls-verify for a self-signed certificate)"
            ) from None
        except urllib3.exceptions.HTTPError as e:
            reason = _reason(e)
            hint = " (is your kubectl port-forward running?)" if reason == "connection refused" else ""
            raise ScrapeError(f"cannot reach {self.describe}: {reason}{hint}") from None
        body = raw.decode("utf-8", "replace")
        if resp.status == 401:
            raise ScrapeError(
                f"unauthorized (HTTP 401) at {self.describe}: the endpoint wants a bearer token "
                f"(behind kube-rbac-proxy?): pass --token or --token-file",
                401,
            )
        if resp.status == 403:
            raise ScrapeError(
                f"forbidden (HTTP 403) at {self.describe}: the token's identity may not read it; "
                f"kube-rbac-proxy needs a ClusterRole allowing get on nonResourceURLs "
                f'["/metrics"] bound to it',
                403,
            )
        if resp.status == 404:
            raise ScrapeError(
                f"not found (HTTP 404) at {self.describe}: no metrics at this path "
                f"(controller-runtime serves /metrics)",
                404,
            )
        if not 200 <= resp.status <= 299:
            raise ScrapeError(f"{self.describe} answered HTTP {resp.status}: {one_line(body, 160)}", resp.status)
        self.content_type = resp.headers.get("Content-Type", "")
        return body


def _reason(e: BaseException) -> str:
    text = str(getattr(e, "reason", None) or e)
    for marker in ("Connection refused", "timed out", "Name or service not known", "certificate verify failed"):
        if marker.lower() in text.lower():
            return marker.lower()
    return one_line(text, 160)


class ProxyScraper:
    """GET through ``/api/v1/namespaces/NS/pods/[https:]NAME:PORT/proxy/PATH``."""

    def __init__(
        self,
        api_client: Any,
        namespace: str,
        target: Target,
        pod: str,
        port: int,
        port_name: str,
        scheme: str,
        path: str,
        declared: str,
        timeout: float = 5.0,
    ) -> None:
        self.api_client = api_client
        self.namespace = namespace
        self.pod = pod
        self.port = port
        self.path = proxy_path(namespace, pod, port, scheme, path)
        self.timeout = timeout
        self.declared = declared
        via = f" of {target.kind}/{target.name}" if target.kind == "deploy" else ""
        self.describe = f"pod/{pod}{via} :{port}{'/' + port_name if port_name else ''} via pods/proxy, ns {namespace}"
        self.where = f"pod/{pod}:{port}"
        self.content_type = ""
        self.server_rv: ServerRV | None = None  # the API server it is read through

    def fetch(self) -> str:
        from kubectl_informer.kube.rest import get

        try:
            resp = get(self.api_client, self.path, timeout=self.timeout, accept=ACCEPT)
        except ApiError as e:
            raise self._api_error(e) from None
        except ConnectionRefusedError:
            raise ScrapeError("cannot reach the API server: connection refused") from None
        except OSError as e:
            raise ScrapeError(f"cannot reach the API server: {one_line(e, 160)}") from None
        from kubectl_informer.kube.rest import read_capped

        try:
            self.content_type = resp.headers.get("Content-Type", "")
            return read_capped(resp, MAX_PAGE, "the metrics page", self.where).decode("utf-8", "replace")
        except TooLargeError as e:
            raise ScrapeError(str(e)) from None
        except OSError as e:  # reset mid-page (both clients' broken-body errors are OSErrors or urllib3's)
            raise ScrapeError(f"reading {self.where}: {one_line(e, 160)}") from None
        finally:
            resp.release_conn()

    def _api_error(self, e: ApiError) -> ScrapeError:
        msg = e.message or e.reason or ""
        if e.status == 403:
            who = "" if "pods/proxy" in msg else f" (the answer: {one_line(msg, 120)})"
            return ScrapeError(
                f"forbidden (HTTP 403) proxying to {self.where}: you need get on pods/proxy in "
                f"namespace {self.namespace} ({RBAC_PROXY_RULE}){who}",
                403,
            )
        if e.status == 401:
            return ScrapeError(
                f"unauthorized (HTTP 401) proxying to {self.where}: the API server rejected your "
                f"credentials, or the pod's endpoint wants a token (kube-rbac-proxy), which the "
                f"proxy does not forward: port-forward and pass --token instead",
                401,
            )
        if e.status in (502, 503) and ("refused" in msg or "dial" in msg or "reach" in msg):
            return ScrapeError(
                f"no such port: nothing answers on {self.where} ({one_line(msg, 120)}; "
                f"declared ports: {self.declared})",
                e.status,
            )
        if e.status == 404:
            return ScrapeError(
                f"not found (HTTP 404) at {self.where}{self.path.split('/proxy', 1)[1]}: {one_line(msg, 120)}", 404
            )
        return ScrapeError(
            f"proxying to {self.where}: the server answered {e.status} {e.reason}: {one_line(msg, 160)}", e.status
        )


def scrape(scraper: UrlScraper | ProxyScraper, now: float | None = None) -> Page:
    """Fetch and parse one page; ScrapeError for every failure."""
    body = scraper.fetch()
    try:
        return parse_page(body, time.monotonic() if now is None else now)
    except NotPrometheusText as e:
        raise _not_text(getattr(scraper, "where", scraper.describe), e, getattr(scraper, "content_type", "")) from None


def resolve_proxy(
    api_client: Any, namespace: str, target: Target, scheme: str, path: str, timeout: float = 5.0
) -> ProxyScraper:
    """Find the pod (a ready one of a deployment) and its port: GETs only."""
    from kubectl_informer.attach.target import _ports_text, declared_ports
    from kubectl_informer.kube.rest import get_json

    def fetch(p: str, what: str, query: Iterable[tuple[str, Any]] = ()) -> Any:
        try:
            return get_json(api_client, p, query, timeout=timeout)
        except ApiError as e:
            if e.status == 404:
                raise ResolveError(f'{what} not found in namespace "{namespace}"') from None
            if e.status == 403:
                raise ResolveError(f"forbidden (HTTP 403): {one_line(e.message, 200)}") from None
            raise ResolveError(f"the server answered {e.status} {e.reason}: {one_line(e.message, 160)}") from None

    # Both were checked where they were read (core.names); quoted all the same,
    # as client-go escapes every path segment it builds.
    ns, quoted = quote(namespace, safe=""), quote(target.name, safe="")
    if target.kind == "deploy":
        dep = fetch(f"/apis/apps/v1/namespaces/{ns}/deployments/{quoted}", f'deployments.apps "{target.name}"')
        sel = selector_of(dep)
        pods = fetch(f"/api/v1/namespaces/{ns}/pods", "pods", [("labelSelector", sel)]).get("items") or []
        ready = sorted((p for p in pods if is_ready(p)), key=lambda p: p["metadata"]["name"])
        if not ready:
            raise ResolveError(
                f"deploy/{target.name} has no ready pod ({len(pods)} pods match {sel or 'its selector'})"
            )
        pod = ready[0]
    else:
        pod = fetch(f"/api/v1/namespaces/{ns}/pods/{quoted}", f'pods "{target.name}"')
    name = pod["metadata"]["name"]
    port, port_name = pick_port(name, pod, target.port)
    if scheme == "auto":
        scheme = "https" if "https" in port_name or port in (443, 8443) else "http"
    return ProxyScraper(
        api_client, ns, target, name, port, port_name, scheme, path, _ports_text(declared_ports(pod)), timeout
    )
