"""Name resolution as kubectl's discovery RESTMapper and shortcut expander do."""

import socket

import pytest

from kubectl_informer.kube.discovery import Discovery, get_discovery, resolve_resource
from kubectl_informer.kube.errors import DiscoveryError, UnknownResourceError

from .fake_apiserver import Reply, status


@pytest.mark.parametrize("name", ["pods", "pod", "po", "Pod", "PODS"])
def test_core_spellings(api, disco, name):
    r = resolve_resource(api, name)
    assert (r.group, r.version, r.resource, r.kind, r.namespaced) == ("", "v1", "pods", "Pod", True)
    assert r.short_names == ("po",) and "watch" in r.verbs
    assert r.path("team-a") == "/api/v1/namespaces/team-a/pods"
    assert r.path(None) == "/api/v1/pods"


@pytest.mark.parametrize(
    "name", ["deploy", "deployment", "Deployment", "deployments.apps", "deploy.apps", "deployments.v1.apps"]
)
def test_group_spellings(api, disco, name):
    r = resolve_resource(api, name)
    assert (r.group, r.version, r.resource) == ("apps", "v1", "deployments")
    assert r.path("ns") == "/apis/apps/v1/namespaces/ns/deployments"
    assert r.qualified_name == "deployments.apps"


def test_core_group_wins_an_ambiguous_name(api, disco):
    # `kubectl get events` means core events, not events.k8s.io.
    assert resolve_resource(api, "events").group == ""
    assert resolve_resource(api, "ev").group == ""
    assert resolve_resource(api, "events.events.k8s.io").group == "events.k8s.io"


def test_preferred_version_first_and_explicit_version(api, disco):
    assert resolve_resource(api, "cronjobs").version == "v1"
    assert resolve_resource(api, "cj").version == "v1"
    assert resolve_resource(api, "cronjobs.v1beta1.batch").version == "v1beta1"


def test_crds_and_cluster_scoped(api, disco):
    w = resolve_resource(api, "widgets")
    assert (w.group, w.version, w.kind) == ("example.com", "v1", "Widget")
    # empty singularName in discovery: the lowercased kind stands in, as kubectl
    assert resolve_resource(api, "widget") == w
    assert resolve_resource(api, "wd") == w
    assert resolve_resource(api, "widgets.example.com") == w
    assert resolve_resource(api, "widgets.v1alpha1.example.com").version == "v1alpha1"
    # only served in the non-preferred version
    assert resolve_resource(api, "gadgets").version == "v1alpha1"
    cw = resolve_resource(api, "clusterwidgets")
    assert not cw.namespaced
    assert cw.path("ignored") == "/apis/example.com/v1/clusterwidgets"
    assert resolve_resource(api, "ns").path("x") == "/api/v1/namespaces"


def test_unknown_names_suggest_the_closest(api, disco):
    with pytest.raises(UnknownResourceError) as e:
        resolve_resource(api, "podz")
    assert str(e.value) == 'the server doesn\'t have a resource type "podz" (did you mean pods?)'
    with pytest.raises(UnknownResourceError) as e:
        resolve_resource(api, "deploymnets")
    assert "did you mean deployments" in str(e.value)
    with pytest.raises(UnknownResourceError) as e:
        resolve_resource(api, "zzzzqqq")
    assert str(e.value) == 'the server doesn\'t have a resource type "zzzzqqq"'
    # subresources are not listable resources; a group limits the search
    for name in ("pods/log", "deployments.batch", "pods.v2.apps"):
        with pytest.raises(UnknownResourceError):
            resolve_resource(api, name)


def test_discovery_is_fetched_once_per_client(api, disco):
    resolve_resource(api, "pods")
    n = len(disco.requests)
    for name in ("deploy", "widgets", "cronjobs"):
        resolve_resource(api, name)
    with pytest.raises(UnknownResourceError):
        resolve_resource(api, "nope")
    assert len(disco.requests) == n
    assert get_discovery(api) is get_discovery(api)
    # every group version once: /api, /apis, 7 group versions + core v1 + metrics
    assert sorted({r.path for r in disco.requests}) == sorted(r.path for r in disco.requests)


def test_a_group_that_is_down_hides_only_itself(api, disco):
    d = Discovery(api)
    assert d.resolve("pods").resource == "pods"
    assert d.failed == {"metrics.k8s.io/v1beta1": "503 the server is currently unable to handle the request"}


def test_forbidden_discovery_is_one_clear_line(api, disco):
    msg = 'apis is forbidden: User "system:serviceaccount:default:viewer" cannot get path "/apis"'
    disco.routes["/apis"] = Reply(403, status(403, "Forbidden", msg))
    with pytest.raises(DiscoveryError) as e:
        Discovery(api).resolve("pods")
    assert str(e.value) == f"forbidden: cannot discover the server's resources: {msg}"
    disco.routes["/apis"] = Reply(401, status(401, "Unauthorized", "Unauthorized"))
    with pytest.raises(DiscoveryError, match="must be logged in"):
        Discovery(api).resolve("pods")


def test_connection_refused_names_the_server(disco):
    from kubernetes import client as k8s_client  # a quarter second: not in every worker's collection

    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()  # nothing listens on it now
    cfg = k8s_client.Configuration()
    cfg.host = f"http://127.0.0.1:{port}"
    with pytest.raises(DiscoveryError) as e:
        resolve_resource(k8s_client.ApiClient(cfg), "pods")
    assert str(e.value) == (
        f"the connection to the server 127.0.0.1:{port} was refused - did you specify the right host or port?"
    )
