"""Writing a kubeconfig that points kubectl and the kubernetes client at the simulator.

It is written as JSON (indented, as ``kubectl config view -o json`` shows
one): kubectl and client-go read JSON kubeconfigs as they read YAML ones, and
the plugin reads it without loading the YAML parser (kube/config.py), which
every ``--demo`` start and every command against ``sim`` would otherwise pay."""

from __future__ import annotations

import base64

import orjson

from kubectl_informer.core.private_files import write_private

# The cluster extension naming the simulator (kube/config.py reads it: SIMULATOR_EXTENSION there).
SIMULATOR_EXTENSION = "kubectl-informer.dev/simulator"
WATCHCACHE_PATH = "/debug/informer/watchcache"


class KubeconfigWriteError(ValueError):
    """The kubeconfig could not be written: one line (the CLI's ``error:``)."""


def kubeconfig_dict(
    url: str, context: str = "sim", namespace: str = "default", ca_pem: bytes | None = None, token: str | None = None
) -> dict:
    """The kubeconfig of a simulator at ``url``; ``token`` is its per-run
    bearer token (SimServer.token), the only credential it accepts."""
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
        "users": [{"name": context, "user": {"token": token} if token else {}}],
        "contexts": [{"name": context, "context": ctx}],
        "current-context": context,
        "preferences": {},
    }


def write_kubeconfig(
    path: str,
    url: str,
    context: str = "sim",
    namespace: str = "default",
    ca_pem: bytes | None = None,
    token: str | None = None,
) -> str:
    """Write the kubeconfig to ``path`` (core.private_files: mode 0600, never
    through a symbolic link nor into another user's file; a file of ours is
    replaced whole; parents created 0700); returns the absolute path.
    KubeconfigWriteError (one line) when it cannot be written."""
    data = orjson.dumps(kubeconfig_dict(url, context, namespace, ca_pem, token), option=orjson.OPT_INDENT_2) + b"\n"
    try:
        return write_private(path, data, make_parents=True)
    except OSError as e:
        raise KubeconfigWriteError(f"cannot write the kubeconfig to {path}: {e.strerror or e}") from None
