"""Writing a kubeconfig that points kubectl and the kubernetes client at the simulator.

It is written as JSON (indented, as ``kubectl config view -o json`` shows
one): kubectl and client-go read JSON kubeconfigs as they read YAML ones, and
the plugin reads it without loading the YAML parser (kube/config.py), which
every ``--demo`` start and every command against ``sim`` would otherwise pay."""

from __future__ import annotations

import base64
import os

import orjson

# The cluster extension naming the simulator (kube/config.py reads it: SIMULATOR_EXTENSION there).
SIMULATOR_EXTENSION = "kubectl-informer.dev/simulator"
WATCHCACHE_PATH = "/debug/informer/watchcache"

# The simulator accepts any credentials; a token makes clients send one as they would to a cluster.
SIM_TOKEN = "kubectl-informer-sim"


def kubeconfig_dict(url: str, context: str = "sim", namespace: str = "default", ca_pem: bytes | None = None) -> dict:
    cluster: dict = {"server": url}
    if ca_pem:
        cluster["certificate-authority-data"] = base64.b64encode(ca_pem).decode()
    # Says the server is this simulator: the plugin's Server pane then reads its
    # watch cache (GET /debug/informer/watchcache) rather than /metrics.
    cluster["extensions"] = [{"name": SIMULATOR_EXTENSION, "extension": {"watchCache": WATCHCACHE_PATH}}]
    ctx: dict = {"cluster": context, "user": context}
    if namespace:
        ctx["namespace"] = namespace
    return {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": context, "cluster": cluster}],
        "users": [{"name": context, "user": {"token": SIM_TOKEN}}],
        "contexts": [{"name": context, "context": ctx}],
        "current-context": context,
        "preferences": {},
    }


def write_kubeconfig(path: str, url: str, context: str = "sim", namespace: str = "default",
                     ca_pem: bytes | None = None) -> str:
    """Write the kubeconfig to ``path`` (mode 0600, parents created); returns the path."""
    path = os.path.abspath(os.path.expanduser(path))
    parent = os.path.dirname(path)
    if parent:
        os.makedirs(parent, exist_ok=True)
    data = orjson.dumps(kubeconfig_dict(url, context, namespace, ca_pem), option=orjson.OPT_INDENT_2) + b"\n"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(data)
    return path
