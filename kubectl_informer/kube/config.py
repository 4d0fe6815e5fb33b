"""Which cluster to talk to, found the way kubectl finds it.

Order, as kubectl: ``--kubeconfig`` (one file), else ``$KUBECONFIG`` (a
``:``-separated list merged first-wins), else ``~/.kube/config``, else the
in-cluster service account when running in a pod. We read and merge the
files (kubectl's error messages, the context's namespace); a context that
only needs a server, a CA and a token or client certificate gets a
``light.LightClient`` (no kubernetes client import, see light.py), anything
else -- exec plugins, auth providers, proxies, in-cluster -- the kubernetes
client's loader and ``ApiClient``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

import yaml

from kubectl_informer.kube import light, light_http
from kubectl_informer.kube.errors import KubeConfigError, one_line

USER_AGENT = "kubectl-informer/0.1.0"

# Overridable so tests can stand in for a pod's mounted service account.
SERVICE_ACCOUNT_DIR = "/var/run/secrets/kubernetes.io/serviceaccount"


@dataclass
class KubeTarget:
    api_client: Any  # a light.LightClient, or a kubernetes.client.ApiClient (new_api_client)
    context: str  # context name, "in-cluster" for a pod's service account
    namespace: str  # the context's namespace, else "default"
    server: str  # the API server's URL


def load_kube(kubeconfig: str | None = None, context: str | None = None) -> KubeTarget:
    """Load a kubeconfig (or in-cluster config) into a fresh client for ``rest``.

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
    files = [(path, _read_file(path)) for path in paths]
    contexts, clusters, users = (_named(files, key) for key in ("contexts", "clusters", "users"))
    name = context or next((doc["current-context"] for _, doc in files if doc.get("current-context")), None)
    if not name:
        raise KubeConfigError("current-context is not set in the kubeconfig; pass --context")
    if name not in contexts:
        raise KubeConfigError(f'context "{name}" does not exist')
    ctx = contexts[name][0].get("context") or {}
    if ctx.get("cluster") not in clusters:
        raise KubeConfigError(f'context "{name}": cluster "{ctx.get("cluster")}" does not exist')
    user = ctx.get("user")
    if user and user not in users:
        raise KubeConfigError(f'context "{name}": user "{user}" does not exist')
    namespace = ctx.get("namespace") or "default"
    cluster, cluster_path = clusters[ctx["cluster"]]
    user_entry, user_path = users[user] if user else ({}, cluster_path)
    try:
        cfg = light.light_config(cluster.get("cluster") or {}, os.path.dirname(os.path.abspath(cluster_path)),
                                 user_entry.get("user"), os.path.dirname(os.path.abspath(user_path)))
    except light.Unsupported:
        return _load_with_client(paths, name, namespace)
    except (OSError, ValueError, TypeError, KeyError, AttributeError) as e:
        raise KubeConfigError(f"invalid kubeconfig for context \"{name}\": {one_line(e)}") from None
    return KubeTarget(light.LightClient(cfg, USER_AGENT), name, namespace, cfg.host)


def _named(files: list[tuple[str, dict]], key: str) -> dict[str, tuple[dict, str]]:
    """Entries under ``key`` by name, with the file each came from: the
    first file that defines a name wins (kubectl's merge)."""
    out: dict[str, tuple[dict, str]] = {}
    for path, doc in files:
        for entry in doc.get(key) or []:
            out.setdefault(entry["name"], (entry, path))
    return out


def _load_with_client(paths: list[str], name: str, namespace: str) -> KubeTarget:
    """The context through the kubernetes client's loader (exec plugins,
    auth providers, proxies and whatever else the light path leaves alone)."""
    from kubernetes import client as k8s_client
    from kubernetes.config import kube_config
    from kubernetes.config.config_exception import ConfigException

    merged = _merge(paths)
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
    return KubeTarget(new_api_client(cfg), name, namespace, cfg.host)


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
    default = os.path.expanduser("~/.kube/config")
    return [default] if os.path.exists(default) else []


def _read_file(path: str) -> dict:
    """One kubeconfig file, checked so that a bad one is named in the error."""
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
    return doc


def _merge(paths: list[str]) -> Any:
    """The files merged first-wins (kubectl's rule) by the client's merger,
    which remembers each entry's file for relative paths."""
    from kubernetes.config import kube_config
    from kubernetes.config.config_exception import ConfigException

    current = next((doc.get("current-context") for doc in map(_read_file, paths) if doc.get("current-context")),
                   None)
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
    return bool(os.environ.get("KUBERNETES_SERVICE_HOST")) and os.path.exists(
        os.path.join(SERVICE_ACCOUNT_DIR, "token"))


def _load_in_cluster() -> KubeTarget:
    from kubernetes import client as k8s_client
    from kubernetes.config import incluster_config
    from kubernetes.config.config_exception import ConfigException

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


def _retries() -> Any:
    """urllib3 (under the kubernetes client) would otherwise sleep out a
    429's Retry-After and retry, hiding throttling from the Reflector, whose
    own back-off is what this tool shows. Connection failures still get
    three quick retries (``light.RETRIES``, the light client's). redirect=False:
    a 3xx comes back to rest.get, which refuses it (credentials must never
    follow a redirect to another host)."""
    import urllib3  # loaded with the kubernetes client, which is what uses it

    class Retry(urllib3.util.Retry):
        """... and a request whose answer did not come in its time is not sent
        again (the light client's rule, and client-go's: its deadline covers
        the whole request), so a watch never answered ends at its timeout."""

        def increment(self, *args: Any, **kwargs: Any) -> Any:
            error = kwargs.get("error")
            if isinstance(error, urllib3.exceptions.ReadTimeoutError):
                raise urllib3.exceptions.MaxRetryError(kwargs.get("_pool"), kwargs.get("url") or "", error)
            return super().increment(*args, **kwargs)

    return Retry(total=light.RETRIES, status=0, status_forcelist=(), redirect=False,
                 respect_retry_after_header=False, raise_on_status=False)


def new_api_client(cfg: Any) -> Any:
    """A kubernetes ``ApiClient`` for ``cfg`` that hands every HTTP status to
    the caller (``_retries``)."""
    from kubernetes import client as k8s_client

    if cfg.retries is None:
        cfg.retries = _retries()
    api = k8s_client.ApiClient(cfg)
    api.user_agent = USER_AGENT
    api.in_flight = _track_in_flight(api.rest_client.pool_manager)
    return api


def _track_in_flight(pool_manager: Any) -> light_http.InFlight:
    """The connections urllib3 has lent to this client's requests, as the
    light client keeps them (light_http.InFlight): stopping a run cuts a
    request still waiting for its headers, which urllib3 offers no way to."""
    import urllib3

    in_flight = light_http.InFlight()

    def tracked(base: type) -> type:
        class Tracked(base):  # type: ignore[misc, valid-type]
            def _get_conn(self, timeout: float | None = None) -> Any:
                conn = super()._get_conn(timeout)
                try:
                    in_flight.started(conn)
                except ConnectionAbortedError:
                    super()._put_conn(conn)
                    raise
                return conn

            def _put_conn(self, conn: Any) -> None:
                if conn is not None:
                    in_flight.finished(conn)
                super()._put_conn(conn)
        Tracked.__name__ = Tracked.__qualname__ = base.__name__  # urllib3's messages name the pool's class
        return Tracked

    # Pools are made at the first request to a host: none exists yet.
    pool_manager.pool_classes_by_scheme = {"http": tracked(urllib3.HTTPConnectionPool),
                                           "https": tracked(urllib3.HTTPSConnectionPool)}
    return in_flight


def fresh_client(api_client: Any) -> Any:
    """A new client for the same server and credentials as ``api_client`` (a
    restarted run's: stopping a run aborts its client's requests for good)."""
    if isinstance(api_client, light.LightClient):
        return light.LightClient(api_client.configuration, api_client.user_agent, api_client.retries)
    return new_api_client(api_client.configuration)
