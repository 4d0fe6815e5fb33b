"""The Server pane against a real kube-apiserver (the lab): the figures the
plugin scraped while it watched configmaps in its own namespace lie between
two reads of the API server's /metrics made before and after the run, in
the label shape of its version, and the pane draws them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid

import pytest

from kubectl_informer.core.trace import TraceEvent
from kubectl_informer.kube.apiserver_metrics import figures_for, kept_lines
from kubectl_informer.panes.server import ServerState
from kubectl_informer.tui.server import render_server

from .conftest import KUBECTL

pytestmark = [pytest.mark.lab, pytest.mark.long_wait]
NAMESPACE = "server-pane-ns"


def _kubectl(kc: str, *args: str, check: bool = True) -> str:
    r = subprocess.run([KUBECTL, "--kubeconfig", kc, *args], capture_output=True, text=True, timeout=60)
    if check and r.returncode != 0:
        raise AssertionError(f"kubectl {' '.join(args)}: {r.stderr.strip()}")
    return r.stdout


def _page(kc: str):
    return figures_for(kept_lines([_kubectl(kc, "get", "--raw", "/metrics").encode()]), "", "configmaps")


def test_the_server_pane_shows_what_the_api_servers_metrics_say(lab_kubeconfig):
    kc = lab_kubeconfig
    if _kubectl(kc, "get", "namespace", NAMESPACE, check=False) == "":
        _kubectl(kc, "create", "namespace", NAMESPACE)
    before = _page(kc)
    names = [f"sp-{uuid.uuid4().hex[:8]}-{i}" for i in range(3)]
    run = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "kubectl_informer",
            "watch",
            "configmaps",
            "-n",
            NAMESPACE,
            "-o",
            "json",
            "--duration",
            "8s",
            "--server-scrape",
            "1s",
        ],
        env={**os.environ, "KUBECONFIG": kc},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    lines: list[str] = []
    try:
        for line in run.stdout:  # the creates once the first scrape is in: the next one's rate sees them
            lines.append(line)
            if '"server.metrics"' in line and sum('"server.metrics"' in ln for ln in lines) == 1:
                for name in names:
                    _kubectl(kc, "create", "configmap", name, "-n", NAMESPACE, "--from-literal=k=v")
        err = run.stderr.read()
        run.wait(timeout=60)
    finally:
        run.kill()
        _kubectl(kc, "delete", "configmap", "-n", NAMESPACE, *names, "--ignore-not-found", check=False)
    after = _page(kc)
    assert run.returncode == 0, err
    events = [json.loads(line) for line in lines]
    scrapes = [e["fields"] for e in events if e["kind"] == "server.metrics"]
    assert len(scrapes) >= 3, err
    f = scrapes[-1]
    assert (f["resource"], f["series"]) == ("configmaps", "group")  # v1.36: {group="",resource="configmaps"}
    assert int(before.cache_rv) <= int(f["cache_rv"]) <= int(after.cache_rv)
    assert f["rv_behind"] == int(f["cache_rv"]) - int(f["ours_rv"])
    for name in (
        "consistent_reads_cache",
        "consistent_reads_fallback",
        "consistent_reads_failed",
        "terminated_watchers",
        "initialisations",
    ):
        assert getattr(before, name) <= f[name] <= getattr(after, name), name
    # Three creates reached the cache during the run, and a rate between two scrapes saw them.
    assert after.events_received - before.events_received >= len(names)
    assert any((s["events_received_per_s"] or 0) > 0 for s in scrapes)
    assert f["capacity"] in (before.capacity, after.capacity)
    assert f["open_watches"] >= 1  # ours, at least
    st = ServerState()
    st.feed_all([TraceEvent(e["seq"], e["time"], e["kind"], e.get("key"), e["fields"]) for e in events])
    text = " ".join(render_server(st, None, 200, 30).plain.split())
    assert "series {group, resource}: kube-apiserver 1.34+" in text
    assert f"watch cache RV {f['cache_rv']} · ours {f['ours_rv']} · RV Δ {f['rv_behind']:,} revisions" in text
    assert f"capacity {f['capacity']} events" in text and f"slow watchers terminated {f['terminated_watchers']}" in text
