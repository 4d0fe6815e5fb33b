"""Which cluster to talk to, found the way kubectl finds it.

Order, as kubectl: ``--kubeconfig`` (one file), else ``$KUBECONFIG`` (a
``:``-separated list merged first-wins), else ``~/.kube/config``, else the
in-cluster service account when running in a pod. The kubernetes client does
the loading (exec plugins, tokens, client certs, basic auth, TLS); we add
kubectl's error messages and the context's namespace.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

import urllib3
import yaml
from kubernetes import client as k8s_client
from kubernetes.config import incluster_config, kube_config
from kubernetes.config.config_exception import ConfigException

from .errors import KubeConfigError, one_line

USER_AGENT = "kubectl-informer/0.1.0"

# Overridable so tests can stand in for a pod's mounted service account.
SERVICE_ACCOUNT_DIR = "/var/run/secrets/kubernetes.io/serviceaccount"


@dataclass
class KubeTarget:
    api_client: Any  # kubernetes.client.ApiClient
    context: str  # context name, "in-cluster" for a pod's service account
    namespace: str  # the context's namespace, else "default"
    server: str  # the API server's URL


def load_kube(kubeconfig: str | None = None, context: str | None = None) -> KubeTarget:
    """Load a kubeconfig (or in-cluster config) into a fresh ApiClient.

    Raises KubeConfigError with one line for a missing or invalid file, an
    unknown context, or nothing to load at all.
    """
    paths = _kubeconfig_paths(kubeconfig)
    if not paths:
        if context is None and _in_cluster():
            return _load_in_cluster()
        if kubeconfig is None and os.environ.get("KUBECONFIG"):
            raise KubeConfigError(f"no kubeconfig file found in KUBECONFIG={os.environ['KUBECONFIG']}")
        raise KubeConfigError("no configuration has been provided: pass --kubeconfig, set KUBECONFIG, "
                              "or create ~/.kube/config")
    merged = _merge(paths)
    contexts = {c.get("name"): c for c in _entries(merged, "contexts")}
    name = context or merged.value.get("current-context")
    if not name:
        raise KubeConfigError("current-context is not set in the kubeconfig; pass --context")
    if name not in contexts:
        raise KubeConfigError(f'context "{name}" does not exist')
    ctx = contexts[name].get("context") or {}
    cluster_names = {c.get("name") for c in _entries(merged, "clusters")}
    if ctx.get("cluster") not in cluster_names:
        raise KubeConfigError(f'context "{name}": cluster "{ctx.get("cluster")}" does not exist')
    user = ctx.get("user")
    if user and user not in {u.get("name") for u in _entries(merged, "users")}:
        raise KubeConfigError(f'context "{name}": user "{user}" does not exist')
    cfg = type.__call__(k8s_client.Configuration)
    try:
        loader = kube_config.KubeConfigLoader(config_dict=merged, active_context=name, config_base_path=None,
                                              config_persister=None)
        loader.load_and_set(cfg)
    except ConfigException as e:
        raise KubeConfigError(f"invalid kubeconfig: {one_line(e)}") from None
    except (OSError, ValueError, TypeError, KeyError) as e:
        raise KubeConfigError(f"invalid kubeconfig for context \"{name}\": {one_line(e)}") from None
    if not cfg.host or cfg.host == "http://localhost":
        raise KubeConfigError(f'context "{name}": cluster has no server')
    namespace = ctx.get("namespace") or "default"
    return KubeTarget(new_api_client(cfg), name, namespace, cfg.host)


def _entries(merged: Any, key: str) -> list[dict]:
    """The merged list under ``key`` as plain dicts (the merger wraps them)."""
    return [getattr(e, "value", e) for e in (merged.value.get(key) or [])]


def _kubeconfig_paths(kubeconfig: str | None) -> list[str]:
    if kubeconfig is not None:
        path = os.path.expanduser(kubeconfig)
        if not os.path.exists(path):
            # kubectl's wording for --kubeconfig pointing nowhere
            raise KubeConfigError(f"stat {kubeconfig}: no such file or directory")
        return [path]
    env = os.environ.get("KUBECONFIG")
    if env:
        # Missing entries are skipped, as kubectl does.
        return [p for p in (os.path.expanduser(x) for x in env.split(os.pathsep) if x) if os.path.exists(p)]
    default = os.path.expanduser(kube_config.KUBE_CONFIG_DEFAULT_LOCATION)
    return [default] if os.path.exists(default) else []


def _merge(paths: list[str]) -> Any:
    """Merge files first-wins (kubectl's rule) through the client's merger,
    checking each file first so a bad one is named in the error."""
    current = None
    for path in paths:
        try:
            with open(path) as f:
                doc = yaml.safe_load(f)
        except OSError as e:
            raise KubeConfigError(f'error loading config file "{path}": {e.strerror or e}') from None
        except yaml.YAMLError as e:
            raise KubeConfigError(f'error loading config file "{path}": invalid YAML: {one_line(e, 160)}') from None
        if doc is None:
            raise KubeConfigError(f'error loading config file "{path}": file is empty')
        if not isinstance(doc, dict):
            raise KubeConfigError(f'error loading config file "{path}": not a kubeconfig (expected a mapping)')
        for key in ("clusters", "contexts", "users"):
            items = doc.get(key) or []
            if not isinstance(items, list) or not all(isinstance(i, dict) and "name" in i for i in items):
                raise KubeConfigError(f'error loading config file "{path}": "{key}" must be a list of named entries')
        current = current or doc.get("current-context")
    try:
        merger = kube_config.KubeConfigMerger(os.pathsep.join(paths))
    except (ConfigException, yaml.YAMLError, OSError) as e:
        raise KubeConfigError(f"invalid kubeconfig: {one_line(e)}") from None
    if merger.config is None:
        raise KubeConfigError("invalid kubeconfig: no configuration found")
    # kubectl takes current-context from the first file that sets it; the
    # client's merger lets the last one win.
    merger.config.value["current-context"] = current
    return merger.config


def _in_cluster() -> bool:
    return bool(os.environ.get(incluster_config.SERVICE_HOST_ENV_NAME)) and os.path.exists(
        os.path.join(SERVICE_ACCOUNT_DIR, "token"))


def _load_in_cluster() -> KubeTarget:
    cfg = type.__call__(k8s_client.Configuration)
    try:
        incluster_config.InClusterConfigLoader(
            token_filename=os.path.join(SERVICE_ACCOUNT_DIR, "token"),
            cert_filename=os.path.join(SERVICE_ACCOUNT_DIR, "ca.crt")).load_and_set(cfg)
    except ConfigException as e:
        raise KubeConfigError(f"in-cluster configuration: {one_line(e)}") from None
    namespace = "default"
    try:
        with open(os.path.join(SERVICE_ACCOUNT_DIR, "namespace")) as f:
            namespace = f.read().strip() or "default"
    except OSError:
        pass
    return KubeTarget(new_api_client(cfg), "in-cluster", namespace, cfg.host)


def new_api_client(cfg: Any) -> Any:
    """An ApiClient for ``cfg`` that hands every HTTP status to the caller.

    urllib3 (under the kubernetes client) would otherwise sleep out a 429's
    Retry-After and retry, hiding throttling from the Reflector, whose own
    back-off is what this tool shows. Connection failures still get urllib3's
    three quick retries.
    """
    if cfg.retries is None:
        # redirect=False: a 3xx comes back to rest.get, which refuses it
        # (credentials must never follow a redirect to another host).
        cfg.retries = urllib3.util.Retry(total=3, status=0, status_forcelist=(), redirect=False,
                                         respect_retry_after_header=False, raise_on_status=False)
    api = k8s_client.ApiClient(cfg)
    api.user_agent = USER_AGENT
    return api
