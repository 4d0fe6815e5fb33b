"""Metadata-only informers (client-go's metadatainformer) through real HTTP:
the simulated API server answers the PartialObjectMetadata Accept headers,
and the cache holds only metadata, converging to what kubectl lists."""

from __future__ import annotations

import http.client
from urllib.parse import urlsplit

import orjson
import pytest

from kubectl_informer.kube.listwatch import ACCEPT_METADATA, ACCEPT_METADATA_LIST

from .test_convergence import Churn, assert_converges, force_relist, running

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(60)]


def raw_get(srv, path: str, accept: str) -> tuple[int, bytes]:
    u = urlsplit(srv.url)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=10)
    conn.request("GET", path, headers={"Accept": accept, "Authorization": f"Bearer {srv.token}"})
    resp = conn.getresponse()
    body = resp.read() if "watch=true" not in path else resp.readline()
    conn.close()
    return resp.status, body


def test_the_sim_answers_partial_object_metadata(sim):
    churn = Churn(sim)
    churn.create(3)
    status, body = raw_get(sim, "/api/v1/namespaces/default/pods?limit=1", ACCEPT_METADATA_LIST)
    doc = orjson.loads(body)
    assert status == 200 and doc["kind"] == "PartialObjectMetadataList" and doc["apiVersion"] == "meta.k8s.io/v1"
    assert doc["metadata"]["continue"]  # paging works the same
    (item,) = doc["items"]
    assert set(item) == {"kind", "apiVersion", "metadata"} and item["kind"] == "PartialObjectMetadata"
    full = sim.store.get("pods", "default", item["metadata"]["name"])
    assert item["metadata"] == full["metadata"]
    # A plain JSON Accept still gets full objects.
    _, body = raw_get(sim, "/api/v1/namespaces/default/pods", "application/json")
    assert orjson.loads(body)["items"][0]["kind"] == "Pod"
    rv = doc["metadata"]["resourceVersion"]
    churn.step(1)
    sim.store.patch("pods", "default", "pod-0", {"metadata": {"labels": {"x": "y"}}})
    status, line = raw_get(
        sim, f"/api/v1/namespaces/default/pods?watch=true&resourceVersion={rv}&timeoutSeconds=2", ACCEPT_METADATA
    )
    ev = orjson.loads(line)
    assert status == 200 and ev["object"]["kind"] == "PartialObjectMetadata"
    assert set(ev["object"]) == {"kind", "apiVersion", "metadata"}


@pytest.mark.parametrize("profile, page_size", [("1.32", None), ("1.32", 3), ("1.36", None)])
def test_metadata_informer_holds_only_metadata_and_converges(sim, profile, page_size):
    churn = Churn(sim)
    churn.create(10)
    with running(sim, profile, page_size=page_size, metadata_only=True) as informer:
        churn.step(30)
        force_relist(sim)
        churn.step(10)
        assert_converges(sim, informer)
        objs = informer.get_indexer().list()
        assert objs and all(set(o) == {"kind", "apiVersion", "metadata"} for o in objs)
        assert {o["kind"] for o in objs} == {"PartialObjectMetadata"}
        assert all(o["metadata"].get("labels") for o in objs)  # labels survive: selectors and indexers still work
