"""What ``attach TARGET`` names, and for pods and deployments which pod and
port the API server's ``pods/proxy`` subresource should reach.

TARGET is a URL (``http://127.0.0.1:8080/metrics``, after the user's own
``kubectl port-forward``), ``pod/NAME[:PORT]`` or ``deploy/NAME[:PORT]``
(a ready pod of the deployment). PORT is a number or a container port's
name; without it the pod's port named ``metrics`` (then ``https``,
``http-metrics``, ``https-metrics``) is taken, or its only port.
Only GETs are sent: the pod, the deployment, its pods, the proxied page.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import quote

from kubectl_informer.core.label_selector import SelectorError
from kubectl_informer.core.label_selector_object import as_selector
from kubectl_informer.core.names import InvalidName, check_name
from kubectl_informer.core.redact import REDACTED, redact_url

POD_KINDS = ("pod", "pods", "po")
DEPLOY_KINDS = ("deploy", "deployment", "deployments", "deploy.apps", "deployment.apps", "deployments.apps")
PREFERRED_PORT_NAMES = ("metrics", "https", "http-metrics", "https-metrics")


class TargetError(Exception):
    """A TARGET the user must fix (usage: exit 2)."""


class InvalidTargetName(TargetError):
    """The NAME of pod/NAME or deploy/NAME cannot be a path segment
    (``core.names``): kubectl's words, exit 2."""


class ResolveError(Exception):
    """The cluster says no: not found, no ready pod, no such port (exit 1)."""


@dataclass(frozen=True)
class Target:
    kind: str  # "url" | "pod" | "deploy"
    url: str = ""
    name: str = ""
    port: str | None = None  # as typed: a number or a port name

    def __str__(self) -> str:
        if self.kind == "url":
            return self.url
        return f"{self.kind}/{self.name}" + (f":{self.port}" if self.port else "")


def _shown(text: str) -> str:
    """A TARGET as a usage error quotes it: a URL typed without its scheme
    (``admin:pw@host``) still has its userinfo redacted."""
    head, at, tail = text.rpartition("@")
    return f"{REDACTED}@{tail}" if at and "/" not in head else redact_url(text)


def parse_target(text: str) -> Target:
    t = text.strip()
    if t.startswith(("http://", "https://")):
        return Target("url", url=t)
    kind, sep, rest = t.partition("/")
    if not sep or not rest:
        raise TargetError(
            f'TARGET "{_shown(text)}" is not a URL (http://HOST:PORT/metrics), pod/NAME[:PORT] or deploy/NAME[:PORT]'
        )
    name, _, port = rest.partition(":")
    if kind.lower() in POD_KINDS:
        kind = "pod"
    elif kind.lower() in DEPLOY_KINDS:
        kind = "deploy"
    else:
        raise TargetError(
            f'TARGET kind "{_shown(kind)}" is not pod or deploy (or give a URL after kubectl port-forward)'
        )
    if not name or "/" in name or (port == "" and rest.endswith(":")):
        raise TargetError(f'TARGET "{_shown(text)}": expected {kind}/NAME[:PORT]')
    try:
        check_name(name)  # it becomes a path segment of pods/NAME or deployments/NAME
    except InvalidName as e:
        raise InvalidTargetName(str(e)) from None
    return Target(kind, name=name, port=port or None)


def is_ready(pod: dict) -> bool:
    """Ready as ``kubectl get pods`` shows it: the Ready condition, and every
    container counted in READY (``0/1`` is not ready, whatever a condition says)."""
    if (pod.get("metadata") or {}).get("deletionTimestamp"):
        return False
    status = pod.get("status") or {}
    containers = status.get("containerStatuses") or ()
    if containers and not all(isinstance(c, dict) and c.get("ready") is True for c in containers):
        return False
    for c in status.get("conditions") or ():
        if c.get("type") == "Ready":
            return c.get("status") == "True"
    return False


def declared_ports(pod: dict) -> list[tuple[int, str]]:
    out = []
    for c in (pod.get("spec") or {}).get("containers") or ():
        for p in c.get("ports") or ():
            if isinstance(p.get("containerPort"), int):
                out.append((p["containerPort"], p.get("name") or ""))
    return out


def _ports_text(ports: list[tuple[int, str]]) -> str:
    return ", ".join(f"{n}/{name}" if name else str(n) for n, name in ports) or "none"


def pick_port(pod_name: str, pod: dict, asked: str | None) -> tuple[int, str]:
    """(port number, its name or "") for ``asked`` (None: the usual one)."""
    ports = declared_ports(pod)
    if asked is not None:
        if asked.isdigit():
            n = int(asked)
            if not 0 < n < 65536:
                raise TargetError(f"port {asked} is out of range")
            return n, next((name for p, name in ports if p == n), "")
        for n, name in ports:
            if name == asked:
                return n, name
        raise ResolveError(
            f'no such port: pod/{pod_name} declares no port named "{asked}" (ports: {_ports_text(ports)})'
        )
    for wanted in PREFERRED_PORT_NAMES:
        for n, name in ports:
            if name == wanted:
                return n, name
    if len(ports) == 1:
        return ports[0]
    if not ports:
        raise ResolveError(f"pod/{pod_name} declares no ports: name the metrics port, e.g. pod/{pod_name}:8080")
    raise ResolveError(
        f"pod/{pod_name} declares several ports ({_ports_text(ports)}) and none is named "
        f"metrics: name one, e.g. pod/{pod_name}:{ports[0][0]}"
    )


def proxy_path(namespace: str, pod: str, port: int, scheme: str, path: str) -> str:
    """The pods/proxy URL path (``https:`` prefix for a TLS endpoint)."""
    prefix = "https:" if scheme == "https" else ""
    if not path.startswith("/"):
        path = "/" + path
    return f"/api/v1/namespaces/{quote(namespace, safe='')}/pods/{prefix}{quote(pod, safe='')}:{port}/proxy{path}"


def selector_of(deploy: dict) -> str:
    """The deployment's ``spec.selector`` as the label selector string kubectl
    lists its pods with (``LabelSelectorAsSelector(...).String()``, as
    ``AttachablePodForObject`` does): requirements sorted by key; ResolveError
    for a selector it refuses."""
    try:
        return str(as_selector((deploy.get("spec") or {}).get("selector")))
    except SelectorError as e:
        name = (deploy.get("metadata") or {}).get("name")
        raise ResolveError(f"deploy/{name}: invalid label selector: {e}") from None  # kubectl's words
