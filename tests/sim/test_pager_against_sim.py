"""client-go's ListPager against the simulated API server over real HTTP: a
continue request carries neither resourceVersion nor resourceVersionMatch
(the server refuses either with a token, as kube-apiserver does), and the
full list after an expired continue token asks again for the resource
version and match the caller asked for."""

from __future__ import annotations

import pytest

from kubectl_informer.cache.listwatch import ListOptions
from kubectl_informer.cache.pager import ListPager
from kubectl_informer.kube.config import load_kube
from kubectl_informer.kube.discovery import Resource
from kubectl_informer.kube.listwatch import KubeListerWatcher
from kubectl_informer.sim.objects import make_pod
from tests.sim.conftest import pod

pytestmark = pytest.mark.e2e

PODS = Resource("", "v1", "pods", "Pod", True)


@pytest.fixture
def pods_lw(sim, tmp_path):
    sim.store.bulk_load("pods", (make_pod("default", f"p-{i:02d}", index=i) for i in range(7)))
    target = load_kube(kubeconfig=sim.write_kubeconfig(str(tmp_path / "kubeconfig")))
    return KubeListerWatcher(target.api_client, PODS, "default")


def test_the_server_refuses_resource_version_match_with_continue(client):
    client.request("POST", "/api/v1/namespaces/default/pods", pod("a"))
    client.request("POST", "/api/v1/namespaces/default/pods", pod("b"))
    status, page, _ = client.request("GET", "/api/v1/namespaces/default/pods", limit=1)
    token = page["metadata"]["continue"]
    status, body, _ = client.request(
        "GET", "/api/v1/namespaces/default/pods", limit=1, **{"continue": token, "resourceVersionMatch": "NotOlderThan"}
    )
    assert status == 422 and body["reason"] == "Invalid"
    assert "resourceVersionMatch is forbidden when continue is provided" in body["message"]
    assert "resourceVersionMatch is forbidden unless resourceVersion is provided" in body["message"]
    status, body, _ = client.request("GET", "/api/v1/namespaces/default/pods", limit=1, **{"continue": token})
    assert status == 200 and [i["metadata"]["name"] for i in body["items"]] == ["b"]


def test_paged_list_with_a_match_clears_it_on_continue_requests(sim, pods_lw):
    asked: list[ListOptions] = []

    def page_fn(options):
        asked.append(options)
        return pods_lw.list(options)

    rv = pods_lw.list(ListOptions(limit=1))["metadata"]["resourceVersion"]
    got, paginated = ListPager(page_fn, page_size=3).list(
        ListOptions(resource_version=rv, resource_version_match="NotOlderThan")
    )
    assert paginated and len(got["items"]) == 7 and len(asked) == 3
    assert (asked[0].resource_version, asked[0].resource_version_match) == (rv, "NotOlderThan")
    assert all(not o.resource_version and not o.resource_version_match and o.continue_ for o in asked[1:])


def test_the_full_list_after_an_expired_continue_asks_for_the_requested_version_and_match(sim, pods_lw):
    asked: list[ListOptions] = []

    def page_fn(options):
        asked.append(options)
        got = pods_lw.list(options)
        if len(asked) == 1:  # the token's version is compacted away before the next page
            sim.store.create("pods", make_pod("default", "p-late"), namespace="default")
            sim.store.compact()
        return got

    first_rv = pods_lw.list(ListOptions(limit=1))["metadata"]["resourceVersion"]
    got, paginated = ListPager(page_fn, page_size=3).list(
        ListOptions(resource_version=first_rv, resource_version_match="NotOlderThan")
    )
    assert len(asked) == 3 and asked[1].continue_
    full = asked[2]
    assert (full.resource_version, full.resource_version_match, full.continue_, full.limit) == (
        first_rv,
        "NotOlderThan",
        None,
        None,
    )
    assert len(got["items"]) == 8  # the fallback lists all of it, the late pod too
