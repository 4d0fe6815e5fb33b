"""attach against the lab's kube-controller-manager v1.36.2 (its /metrics on
127.0.0.1:10257, readable without a token): ``-o json --count 2`` carries one
row per informer the page exports, with estimated processing percentiles, and
the ReplicaSet controller's stale-sync skips; the store RVs, where the page
serves them, lie close behind the API server's watch-cache RVs. And the API
server's RVs attach reads for the lag are at most the cluster's current RV
(a quorum LIST's), and close to it."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest
import urllib3

from kubectl_informer.attach.server_rv import ServerRV

pytestmark = pytest.mark.lab
KCM = os.environ.get("LAB_KCM_METRICS", "https://127.0.0.1:10257/metrics")
QUEUED = re.compile(
    r'^informer_queued_items\{group="([^"]*)",name="[^"]*",resource="([^"]*)",version="([^"]*)"\}', re.M
)
CLOSE = 5000  # RVs: the lab's other users write meanwhile; a store that lost its watch falls far behind


def _kcm_page() -> str:
    http = urllib3.PoolManager(cert_reqs="CERT_NONE")
    urllib3.disable_warnings(urllib3.exceptions.InsecureRequestWarning)
    return http.request("GET", KCM, timeout=10).data.decode()


def test_attach_shows_every_informer_of_the_lab_kcm(lab_kubeconfig):
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "kubectl_informer",
            "attach",
            KCM,
            "--insecure-skip-tls-verify",
            "--kubeconfig",
            lab_kubeconfig,
            "-o",
            "json",
            "--count",
            "2",
            "--interval",
            "1s",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 0, r.stderr
    scrapes = [json.loads(ln) for ln in r.stdout.splitlines()]
    page = _kcm_page()
    assert len(scrapes) == 2 and "error" not in scrapes[-1]
    last = scrapes[-1]
    on_page = {(g, v, res) for g, res, v in QUEUED.findall(page)}
    rows = {(i["group"], i["version"], i["resource"]): i for i in last["informers"]}
    assert len(on_page) >= 50 and set(rows) == on_page  # 55 on v1.36.2
    assert {i["name"] for i in rows.values()} == {"kube-controller-manager"}
    for row in rows.values():
        if row["processed_total"]:
            lo, hi = row["latency_p99_bucket"]
            assert lo <= row["latency_p99"] <= hi and row["latency_p50"] <= row["latency_p99"]
    skips = {(s["controller"], s["group"], s["resource"]) for s in last["stale_sync_skips"]}
    assert ("replicaset_controller", "apps", "replicasets") in skips
    if "informer_store_resource_version{" in page:
        with_rv = [i for i in rows.values() if i["store_rv"] is not None]
        assert with_rv and all(i["lag_rv"] is None or -CLOSE < i["lag_rv"] < CLOSE for i in with_rv)
    else:  # v1.36.2: the factory gives its informers no metrics provider, so the store gauge is never made
        assert all(i["store_rv"] is None and i["lag_rv"] is None for i in rows.values())
        assert "no informer_store_resource_version on this page" in last["informer_notes"][0]


def test_the_servers_watch_cache_rvs_are_close_behind_its_current_rv(lab_kubeconfig):
    from kubectl_informer.kube.config import load_kube
    from kubectl_informer.kube.rest import get_json

    kube = load_kube(kubeconfig=lab_kubeconfig)
    rvs, note = ServerRV(kube.api_client).read()
    current = int(get_json(kube.api_client, "/api/v1/namespaces", [("limit", "1")])["metadata"]["resourceVersion"])
    assert note is None and len(rvs) >= 50
    assert ("", "pods") in rvs and ("apps", "replicasets") in rvs and ("coordination.k8s.io", "leases") in rvs
    # The watch caches follow etcd's revision (events and progress notifications): none is ahead.
    assert max(rvs.values()) <= current and current - max(rvs.values()) < CLOSE
