"""The simulator's watch cache against the lab's kube-apiserver v1.36: the
same requests, through the plugin's own client, get the same answers.

- a LIST for an RV the server has not reached waits about 3 s, then 504
  "Too large resource version" with the ResourceVersionTooLarge cause and
  Retry-After: 1, which the REST client sends again (client-go's checkWait);
- a plain watch from such an RV is accepted and sends only the events newer
  than it; a WatchList from it is a 200 stream with one ERROR event (504);
- the reflector resuming from a compacted RV: its paged (Exact) list gets
  410 Expired and it lists again at "" (a consistent read); resuming from an
  RV the server has not reached: 504, retried, then the list at "".

Each writes configmaps in a namespace of its own (``cacher-lab-*``, deleted
after), on the lab through kubectl, on the simulator through kubectl too.
"""

from __future__ import annotations

import os
import re
import subprocess
import threading
import time
import uuid

import pytest

from kubectl_informer.cache.listwatch import ListOptions
from kubectl_informer.cache.reflector import Reflector
from kubectl_informer.cache.store import Indexer
from kubectl_informer.clock.testing import wait_for
from kubectl_informer.core.apierrors import ApiError, is_expired, is_too_large_resource_version
from kubectl_informer.core.trace import Tracer
from kubectl_informer.kube import request_limits
from kubectl_informer.kube.config import load_kube
from kubectl_informer.kube.discovery import Resource
from kubectl_informer.kube.listwatch import KubeListerWatcher
from kubectl_informer.sim.server import SimServer

from .conftest import KUBECTL

pytestmark = [pytest.mark.lab, pytest.mark.long_wait]

CONFIGMAPS = Resource("", "v1", "configmaps", "ConfigMap", True)
TOO_LARGE = re.compile(r"Timeout: Too large resource version: (\d+), current: (\d+)")


class Cluster:
    """One server (the lab or a simulator) reached through a kubeconfig: kubectl
    for writes, the plugin's REST client for lists and watches."""

    def __init__(self, kubeconfig: str, namespace: str) -> None:
        self.kubeconfig, self.ns = kubeconfig, namespace
        self.api = load_kube(kubeconfig=kubeconfig).api_client
        self.tracer, self.events = Tracer(), []
        self.tracer.subscribe(self.events.append)
        request_limits.set_retries(self.api, tracer=self.tracer)
        self.lw = KubeListerWatcher(self.api, CONFIGMAPS, namespace=namespace)

    def kubectl(self, *args: str) -> str:
        return subprocess.run(
            [KUBECTL, "--kubeconfig", self.kubeconfig, *args], check=True, capture_output=True, text=True, timeout=30
        ).stdout

    def create(self, name: str) -> int:
        out = self.kubectl(
            "-n",
            self.ns,
            "create",
            "configmap",
            name,
            "--from-literal=x=1",
            "-o",
            "jsonpath={.metadata.resourceVersion}",
        )
        return int(out)

    def consistent_rv(self) -> int:
        return int(self.lw.list(ListOptions(resource_version=""))["metadata"]["resourceVersion"])


@pytest.fixture(params=["lab", "sim"])
def cluster(request, lab_kubeconfig, tmp_path):
    ns = f"cacher-lab-{uuid.uuid4().hex[:6]}"
    sim = None
    kc = lab_kubeconfig
    if request.param == "sim":
        sim = SimServer(tls=True).start()  # kube-apiserver's 3 s wait; TLS: kubectl sends the token only so
        kc = sim.write_kubeconfig(str(tmp_path / "kubeconfig"))
    c = Cluster(kc, ns)
    c.kubectl("create", "namespace", ns)
    c.where, c.sim = request.param, sim
    yield c
    try:
        c.kubectl("delete", "namespace", ns, "--wait=false")
    finally:
        c.api.close()
        if sim is not None:
            sim.stop()


def test_a_list_ahead_waits_3s_then_504_and_the_rest_client_retries_it(cluster):
    request_limits.set_retries(cluster.api, tracer=cluster.tracer, max_retries=1)  # two tries, not eleven (44 s)
    rv = cluster.consistent_rv()
    want = rv + 100_000
    started = time.monotonic()
    with pytest.raises(ApiError) as e:
        cluster.lw.list(ListOptions(resource_version=str(want)))
    took = time.monotonic() - started
    err = e.value
    assert is_too_large_resource_version(err) and (err.status, err.reason, err.retry_after) == (504, "Timeout", 1)
    assert err.details == [{"reason": "ResourceVersionTooLarge", "message": "Too large resource version"}]
    m = TOO_LARGE.fullmatch(err.message)
    assert m and int(m.group(1)) == want and int(m.group(2)) >= rv, err.message
    retries = [ev.fields for ev in cluster.events if ev.kind == "request.retry"]
    assert [(r["status"], r["attempt"], r["delay"], r["verb"]) for r in retries] == [(504, 1, 1.0, "list")]
    assert 7.0 <= took < 12.0, took  # two 3-s waits and the 1-s Retry-After between them


def test_a_plain_watch_ahead_is_accepted_and_skips_events_up_to_its_rv(cluster):
    rv = cluster.consistent_rv()
    ahead = rv + 3
    w = cluster.lw.watch(ListOptions(resource_version=str(ahead), allow_watch_bookmarks=True, timeout_seconds=60))
    got: list = []
    reader = threading.Thread(target=lambda: got.extend(w), daemon=True)
    reader.start()
    made = {}
    for i in range(8):
        name = f"c{i}"
        made[name] = cluster.create(name)
        if made[name] > ahead + 1:
            break
    newer = sorted(n for n, r in made.items() if r > ahead)
    assert newer and wait_for(
        lambda: {e.object["metadata"]["name"] for e in list(got) if e.type == "ADDED"} >= set(newer), 15
    )
    w.stop()
    reader.join(10)
    names = [e.object["metadata"]["name"] for e in got if e.type == "ADDED"]
    assert sorted(names) == newer, (made, ahead)  # nothing at or below the RV asked for
    assert all(e.type in ("ADDED", "BOOKMARK") for e in got)


def test_a_watchlist_ahead_is_one_error_event_504(cluster):
    rv = cluster.consistent_rv()
    started = time.monotonic()
    w = cluster.lw.watch(
        ListOptions(
            resource_version=str(rv + 100_000),
            resource_version_match="NotOlderThan",
            send_initial_events=True,
            allow_watch_bookmarks=True,
            timeout_seconds=30,
        )
    )
    evs = list(w)
    assert time.monotonic() - started >= 2.9
    assert [e.type for e in evs] == ["ERROR"]
    st = evs[0].object
    assert (st["code"], st["reason"], st["details"]) == (
        504,
        "Timeout",
        {
            "causes": [{"reason": "ResourceVersionTooLarge", "message": "Too large resource version"}],
            "retryAfterSeconds": 1,
        },
    )


def _relist(cluster, resume_from: str, page_size: int | None) -> list[tuple]:
    """A reflector that resumes from ``resume_from`` (as after a long absence) lists once."""
    r = Reflector(cluster.lw, Indexer(), page_size=page_size, tracer=cluster.tracer)
    r._last_sync_rv = resume_from
    r._list(threading.Event())
    return [
        (ev.kind, ev.fields.get("resource_version", ev.fields.get("reason")))
        for ev in cluster.events
        if ev.kind in ("list.start", "relist")
    ]


def test_resuming_from_a_compacted_rv_relists_after_410_from_empty(cluster):
    # RV 1: older than anything the watch cache holds (v1.36 serves an Exact list within its window
    # from the cache's snapshots, ListFromCacheSnapshot), so the list goes to etcd, compacted past it.
    cluster.create("new")
    _compact(cluster, cluster.consistent_rv())
    with pytest.raises(ApiError) as e:  # the answer the reflector meets
        cluster.lw.list(ListOptions(resource_version="1", resource_version_match="Exact"))
    assert is_expired(e.value) and e.value.message == "The resourceVersion for the provided list is too old."
    cluster.events.clear()
    assert _relist(cluster, "1", page_size=500) == [("list.start", "1"), ("relist", "expired"), ("list.start", "")]


def test_resuming_from_an_rv_not_reached_relists_after_504_from_empty(cluster):
    request_limits.set_retries(cluster.api, tracer=cluster.tracer, max_retries=1)
    ahead = str(cluster.consistent_rv() + 100_000)
    cluster.events.clear()
    assert _relist(cluster, ahead, page_size=None) == [
        ("list.start", ahead),
        ("relist", "too_large"),
        ("list.start", ""),
    ]
    assert [ev.fields["status"] for ev in cluster.events if ev.kind == "request.retry"] == [504]


def _compact(cluster, rv: int) -> None:
    """etcd compaction up to ``rv``: the lab's etcd through its HTTP gateway
    (kube-apiserver asks for the same every 5 minutes), the simulator's store."""
    if cluster.sim is not None:
        cluster.sim.store.compact(rv)
        return
    import json
    import urllib.request

    req = urllib.request.Request(
        os.environ.get("LAB_ETCD", "http://127.0.0.1:2379") + "/v3/kv/compaction",
        data=json.dumps({"revision": str(rv), "physical": True}).encode(),
        method="POST",
    )
    with urllib.request.urlopen(req, timeout=10) as resp:
        assert resp.status == 200
