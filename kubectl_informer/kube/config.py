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
from typing import TYPE_CHECKING, Any

import orjson

from kubectl_informer.core.names import InvalidName, check_namespace
from kubectl_informer.core.redact import remember
from kubectl_informer.kube import light, light_http
from kubectl_informer.kube.errors import KubeConfigError, one_line
from kubectl_informer.kube.kubeconfig_checks import (
    check_insecure_with_ca,
    check_server,
    check_token_file,
    context_namespace,
    remember_credentials,
)
from kubectl_informer.kube.kubeconfig_types import KubeconfigTypeError, check_config
from kubectl_informer.kube.overrides import (
    FLAGS,
    IMPERSONATION_KEYS,
    ConfigOverrides,
    check_auth_methods,
    default_server_url,
    flags_only_config,
    impersonation,
    lay_over,
    merged_cluster,
    merged_user,
)
from kubectl_informer.kube.proxy import check_proxy_url, proxy_from_environment, proxy_headers, usable

if TYPE_CHECKING:
    from kubectl_informer.kube.exec_plugin import ExecAuthenticator

USER_AGENT = "kubectl-informer/0.1.0"

# Overridable so tests can stand in for a pod's mounted service account.
SERVICE_ACCOUNT_DIR = "/var/run/secrets/kubernetes.io/serviceaccount"


@dataclass
class KubeTarget:
    """The cluster a kubeconfig (or a pod's service account) names, with its client."""

    api_client: Any  # a light.LightClient, or a kubernetes.client.ApiClient (new_api_client)
    context: str  # context name, "in-cluster" for a pod's service account
    namespace: str  # the context's namespace, else "default"
    server: str  # the API server's URL
    # The cluster entry names the built-in simulator (SIMULATOR_EXTENSION): the
    # Server pane reads its watch cache instead of /metrics.
    simulator: bool = False


# The extension the simulator's kubeconfig carries on its cluster (sim/kubeconfig.py).
SIMULATOR_EXTENSION = "kubectl-informer.dev/simulator"


def is_simulator(cluster: dict) -> bool:
    """Does a kubeconfig cluster entry (its ``cluster`` map) name the simulator?"""
    exts = cluster.get("extensions") if isinstance(cluster, dict) else None
    return any(isinstance(e, dict) and e.get("name") == SIMULATOR_EXTENSION for e in (exts or ()))


def load_kube(
    kubeconfig: str | None = None, context: str | None = None, overrides: ConfigOverrides | None = None
) -> KubeTarget:
    """Load a kubeconfig (or in-cluster config) into a fresh client for ``rest``,
    with kubectl's connection flags (``overrides``) laid over it as clientcmd does.

    Raises KubeConfigError with one line for a missing or invalid file, an
    unknown context, cluster or user, or nothing to load at all.
    """
    paths = _kubeconfig_paths(kubeconfig)
    flags_only = not paths and overrides is not None and bool(overrides.server) and context is None
    if not paths and not flags_only:
        if context is None and _in_cluster():
            if overrides is not None and overrides.any():
                raise KubeConfigError(
                    "the connection flags (--token, --as, ...) need a kubeconfig here: the "
                    "in-cluster configuration does not take them"
                )
            return _load_in_cluster()
        if kubeconfig is None and os.environ.get("KUBECONFIG"):
            raise KubeConfigError(f"no kubeconfig file found in KUBECONFIG={os.environ['KUBECONFIG']}")
        raise KubeConfigError(
            "no configuration has been provided: pass --kubeconfig, set KUBECONFIG, "
            "or create ~/.kube/config (no cluster at hand? add --demo for the simulated one)"
        )
    files = [(path, _read_file(path)) for path in paths]
    return _load_selected(paths, _select(files, context, overrides))


def _load_selected(paths: list[str], selected: tuple) -> KubeTarget:
    """The client for the context ``_select`` chose: the light one when it
    can serve it, else the kubernetes client's."""
    name, namespace, (cluster, cluster_path), (user, user_entry, user_path) = selected
    cluster_dir, user_dir = (os.path.dirname(os.path.abspath(p)) for p in (cluster_path, user_path))
    cluster_map = cluster.get("cluster") or {}
    where = f'cluster "{cluster.get("name")}" in {cluster_path}'
    check_insecure_with_ca(cluster_map, where)
    proxy = _proxy_for(cluster_map, where)
    user_map = user_entry.get("user") or {}
    try:
        check_auth_methods(user_map, user)
        headers = impersonation(user_map, user)
    except ValueError as e:
        raise KubeConfigError(str(e)) from None
    auth = _exec_authenticator(user_map, user, user_dir, cluster_map)
    simulator = is_simulator(cluster_map)
    try:
        if proxy is not None:
            raise light.Unsupported()  # urllib3's ProxyManager, under the kubernetes client
        light_user = {k: v for k, v in user_map.items() if k not in IMPERSONATION_KEYS}
        cfg = light.light_config(cluster_map, cluster_dir, light_user, user_dir, exec_auth=auth)
    except light.Unsupported:
        merged = _merge(paths) if paths else flags_only_config()
        lay_over(merged.value, name, cluster, user_entry)
        target = _load_with_client(merged, name, namespace, user, auth, proxy, headers)
        target.simulator = simulator
        return target
    except (OSError, ValueError, TypeError, KeyError, AttributeError) as e:
        raise KubeConfigError(f'invalid kubeconfig for context "{name}": {one_line(e)}') from None
    cfg.impersonate = headers
    return KubeTarget(light.LightClient(cfg, USER_AGENT), name, namespace, cfg.host, simulator)


def _select(files: list[tuple[str, dict]], context: str | None, o: ConfigOverrides | None = None) -> tuple:
    """The context to use, checked, with the flags laid over its cluster and
    user (kube.overrides): (name, namespace, (cluster entry, its file),
    (user name, user entry, its file))."""
    contexts, clusters, users = (_named(files, key) for key in ("contexts", "clusters", "users"))
    o = o or ConfigOverrides()
    name = context or next((doc["current-context"] for _, doc in files if doc.get("current-context")), None)
    if name and name not in contexts:
        raise KubeConfigError(f'context "{name}" does not exist')
    if not name and not o.server:
        raise KubeConfigError("current-context is not set in the kubeconfig; pass --context")
    ctx, ctx_path = (contexts[name][0].get("context") or {}, contexts[name][1]) if name else ({}, FLAGS)
    cluster_name, user = o.cluster or ctx.get("cluster"), o.user or ctx.get("user")
    if o.cluster and o.cluster not in clusters:
        # kubectl's words: ConfirmUsable finds the named cluster empty before getCluster says it is missing.
        raise KubeConfigError(f'no server found for cluster "{o.cluster}"')
    if o.user and o.user not in users:
        raise KubeConfigError(f'auth info "{o.user}" does not exist')  # clientcmd's getAuthInfo
    if cluster_name not in clusters and not o.server:
        raise KubeConfigError(f'context "{name}": cluster "{cluster_name}" does not exist')
    if user and user not in users:
        raise KubeConfigError(f'context "{name}": user "{user}" does not exist')
    namespace = context_namespace(ctx, name or "", ctx_path)
    found = clusters.get(cluster_name) if isinstance(cluster_name, str) else None
    cluster, cluster_path = found or ({"name": cluster_name or ""}, FLAGS)
    cluster = {**cluster, "cluster": merged_cluster(cluster.get("cluster") or {}, o)}
    user_entry, user_path = users[user] if user else ({}, cluster_path)
    user_entry = {**user_entry, "user": merged_user(user_entry.get("user") or {}, o)}
    default_server_url(cluster["cluster"], user_entry["user"])
    check_server(cluster["cluster"], cluster_name or "", cluster_path)
    remember_credentials(user_entry["user"])
    check_token_file(user_entry["user"], user, user_path)
    return name or "", namespace, (cluster, cluster_path), (user, user_entry, user_path)


def _proxy_for(cluster: dict, where: str) -> str | None:
    """The proxy requests to the cluster go through, as client-go picks it:
    its ``proxy-url``, else the environment's (kube/proxy.py); None: direct."""
    server = str(cluster.get("server") or "")
    if cluster.get("proxy-url"):
        proxy = check_proxy_url(str(cluster["proxy-url"]), where)
        return usable(proxy, where)
    found = proxy_from_environment(server)
    return None if found is None else usable(found, "the proxy of the environment (HTTPS_PROXY/HTTP_PROXY)")


def _exec_authenticator(user: dict, name: str | None, user_dir: str, cluster: dict) -> ExecAuthenticator | None:
    """The user's exec plugin, run once now so that a failing one is this
    run's error before any request (client-go fails the first request the
    same way). None without one, or when the kubeconfig also gives a token or
    client certificate: those win over the plugin, as in client-go."""
    if not user.get("exec"):
        return None
    if any(user.get(k) for k in ("token", "tokenFile", "username", "client-certificate", "client-certificate-data")):
        return None
    from kubectl_informer.kube.exec_plugin import ExecAuthenticator  # subprocess: only for a plugin

    auth = ExecAuthenticator(user["exec"], name or "", user_dir, cluster)
    auth.credentials()
    return auth


def _named(files: list[tuple[str, dict]], key: str) -> dict[str, tuple[dict, str]]:
    """Entries under ``key`` by name, with the file each came from: the
    first file that defines a name wins (kubectl's merge)."""
    out: dict[str, tuple[dict, str]] = {}
    for path, doc in files:
        for entry in doc.get(key) or []:
            out.setdefault(entry["name"], (entry, path))
    return out


def _load_with_client(
    merged: Any,
    name: str,
    namespace: str,
    user: str | None = None,
    auth: ExecAuthenticator | None = None,
    proxy: str | None = None,
    headers: tuple[tuple[str, bytes], ...] = (),
) -> KubeTarget:
    """The context through the kubernetes client's loader (auth providers,
    proxies and whatever else the light path leaves alone). An exec plugin is
    ours (``auth``), not the loader's: the loader would send requests without
    credentials when the plugin fails, and wait for ever on one that hangs.
    ``headers``: the Impersonate-* ones, sent by ``rest`` (the loader ignores
    a user's ``as``)."""
    from kubernetes import client as k8s_client
    from kubernetes.config import kube_config
    from kubernetes.config.config_exception import ConfigException

    _drop_exec(merged, user)  # run by ``auth`` when client-go would run it, else not at all
    cfg = type.__call__(k8s_client.Configuration)
    try:
        loader = kube_config.KubeConfigLoader(
            config_dict=merged, active_context=name, config_base_path=None, config_persister=None
        )
        loader.load_and_set(cfg)
    except ConfigException as e:
        raise KubeConfigError(f"invalid kubeconfig: {one_line(e)}") from None
    except (OSError, ValueError, TypeError, KeyError) as e:
        raise KubeConfigError(f'invalid kubeconfig for context "{name}": {one_line(e)}') from None
    if not cfg.host or cfg.host == "http://localhost":
        raise KubeConfigError(f'context "{name}": cluster has no server')
    if auth is not None:
        _use_exec(cfg, auth)
    use_proxy(cfg, proxy)
    cfg.impersonate = headers
    return KubeTarget(new_api_client(cfg), name, namespace, cfg.host)


def use_proxy(cfg: Any, proxy: str | None) -> None:
    """``cfg`` goes through ``proxy`` (None: direct), decided by client-go's
    rules (``_proxy_for``) and not by the kubernetes client's own reading of
    the environment (Python's: ALL_PROXY, loopback proxied, proxy-url
    bypassed by NO_PROXY)."""
    cfg.proxy = proxy
    cfg.no_proxy = None
    cfg.proxy_headers = proxy_headers(proxy) if proxy else None


def _drop_exec(merged: Any, user: str | None) -> None:
    for item in merged.value.get("users") or ():
        entry = getattr(item, "value", item)
        if isinstance(entry, dict) and entry.get("name") == user and isinstance(entry.get("user"), dict):
            entry["user"].pop("exec", None)


def _use_exec(cfg: Any, auth: ExecAuthenticator) -> None:
    """The kubernetes client's configuration authenticated by ``auth``: its
    token asked before every request (run again once expired), its client
    certificate for the TLS connection."""
    creds = auth.credentials()
    if creds.cert_pem and creds.key_pem and cfg.host.startswith("https"):  # both or neither (exec_plugin)
        cfg.cert_file = light.temp_file(creds.cert_pem.encode())
        cfg.key_file = light.temp_file(creds.key_pem.encode())

    def refresh(c: Any) -> None:
        header = auth.authorization()
        if header:
            c.api_key["authorization"] = header

    cfg.refresh_api_key_hook = refresh
    refresh(cfg)


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
            text = f.read()
    except OSError as e:
        raise KubeConfigError(f'error loading config file "{path}": {e.strerror or e}') from None
    doc = _parse(path, text)
    if doc is None:
        raise KubeConfigError(f'error loading config file "{path}": file is empty')
    if not isinstance(doc, dict):
        raise KubeConfigError(f'error loading config file "{path}": not a kubeconfig (expected a mapping)')
    try:
        check_config(doc)  # client-go's types: a quoted "false" is no bool
    except KubeconfigTypeError as e:
        raise KubeConfigError(f'error loading config file "{path}": {e}') from None
    for key in ("clusters", "contexts", "users"):
        items = doc.get(key) or []
        if not all(isinstance(i, dict) and "name" in i for i in items):
            raise KubeConfigError(f'error loading config file "{path}": "{key}" must be a list of named entries')
    return doc


def _parse(path: str, text: str) -> Any:
    """A kubeconfig file's document. JSON is YAML too (``kubectl config view
    -o json`` writes it, and so does the simulator): read as JSON, it does not
    load the YAML parser, which cost a demo's start more than any other
    import of its own. Anything else, or JSON orjson refuses, is read as YAML,
    whose parser names what is wrong."""
    if text.lstrip().startswith("{"):
        try:
            return orjson.loads(text)
        except orjson.JSONDecodeError:
            pass
    import yaml

    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as e:
        raise KubeConfigError(f'error loading config file "{path}": invalid YAML: {one_line(e, 160)}') from None


def _merge(paths: list[str]) -> Any:
    """The files merged first-wins (kubectl's rule) by the client's merger,
    which remembers each entry's file for relative paths."""
    import yaml
    from kubernetes.config import kube_config
    from kubernetes.config.config_exception import ConfigException

    current = next((doc.get("current-context") for doc in map(_read_file, paths) if doc.get("current-context")), None)
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
        os.path.join(SERVICE_ACCOUNT_DIR, "token")
    )


def _load_in_cluster() -> KubeTarget:
    from kubernetes import client as k8s_client
    from kubernetes.config import incluster_config
    from kubernetes.config.config_exception import ConfigException

    cfg = type.__call__(k8s_client.Configuration)
    try:
        with open(os.path.join(SERVICE_ACCOUNT_DIR, "token"), errors="replace") as f:
            remember(f.read())  # hidden from whatever is printed (core.redact)
    except OSError:
        pass
    try:
        incluster_config.InClusterConfigLoader(
            token_filename=os.path.join(SERVICE_ACCOUNT_DIR, "token"),
            cert_filename=os.path.join(SERVICE_ACCOUNT_DIR, "ca.crt"),
        ).load_and_set(cfg)
    except ConfigException as e:
        raise KubeConfigError(f"in-cluster configuration: {one_line(e)}") from None
    found = proxy_from_environment(cfg.host)
    use_proxy(cfg, None if found is None else usable(found, "the proxy of the environment (HTTPS_PROXY/HTTP_PROXY)"))
    namespace = "default"
    try:
        with open(os.path.join(SERVICE_ACCOUNT_DIR, "namespace")) as f:
            namespace = f.read().strip() or "default"
    except OSError:
        pass
    try:
        check_namespace(namespace)
    except InvalidName as e:
        raise KubeConfigError(f"{e} (the pod's service account namespace)") from None
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
                pool: Any = kwargs.get("_pool")  # the pool, or None as urllib3's own increment passes it
                raise urllib3.exceptions.MaxRetryError(pool, kwargs.get("url") or "", error)
            return super().increment(*args, **kwargs)

    return Retry(
        total=light.RETRIES,
        status=0,
        status_forcelist=(),
        redirect=False,
        respect_retry_after_header=False,
        raise_on_status=False,
    )


def new_api_client(cfg: Any) -> Any:
    """A kubernetes ``ApiClient`` for ``cfg`` that hands every HTTP status to
    the caller (``_retries``)."""
    from kubernetes import client as k8s_client

    if cfg.retries is None:
        cfg.retries = _retries()
    api: Any = k8s_client.ApiClient(cfg)  # given our in_flight below, as a LightClient has one
    api.user_agent = USER_AGENT
    api.in_flight = _track_in_flight(api.rest_client.pool_manager)
    return api


def _track_in_flight(pool_manager: Any) -> light_http.InFlight:
    """The connections urllib3 has lent to this client's requests, as the
    light client keeps them (light_http.InFlight): stopping a run cuts a
    request still waiting for its headers, which urllib3 offers no way to."""
    in_flight = light_http.InFlight()

    def tracked(base: type) -> type:
        class Tracked(base):
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

    # Pools are made at the first request to a host: none exists yet. The
    # manager's own classes are kept under ours (a SOCKS proxy's are its own).
    pool_manager.pool_classes_by_scheme = {
        scheme: tracked(cls) for scheme, cls in pool_manager.pool_classes_by_scheme.items()
    }
    return in_flight


def fresh_client(api_client: Any) -> Any:
    """A new client for the same server and credentials as ``api_client`` (a
    restarted run's: stopping a run aborts its client's requests for good)."""
    if isinstance(api_client, light.LightClient):
        return light.LightClient(api_client.configuration, api_client.user_agent, api_client.retries)
    return new_api_client(api_client.configuration)
