"""The real kubectl binary and the kubernetes Python client against the
simulated API server, through real HTTP (and TLS)."""

from __future__ import annotations

import json
import os
import select
import shutil
import subprocess
import time

import pytest

from kubectl_informer.clock.testing import wait_for
from kubectl_informer.sim.demo import seed
from kubectl_informer.sim.server import SimServer

pytestmark = pytest.mark.e2e

KUBECTL = shutil.which("kubectl") or "/usr/bin/kubectl"

POD_YAML = """\
apiVersion: v1
kind: Pod
metadata:
  name: made-by-kubectl
  labels:
    app: e2e
spec:
  containers:
  - name: c
    image: busybox
"""


class Kubectl:
    def __init__(self, kubeconfig: str, cache_dir: str):
        self.base = [KUBECTL, "--kubeconfig", kubeconfig, "--cache-dir", cache_dir]

    def __call__(self, *args: str, ok: bool = True) -> subprocess.CompletedProcess:
        r = subprocess.run(self.base + list(args), capture_output=True, text=True, timeout=60)
        if ok:
            assert r.returncode == 0, f"kubectl {' '.join(args)} failed: {r.stderr}"
        return r

    def json(self, *args: str):
        return json.loads(self(*args, "-o", "json").stdout)


def _cluster(tmp_path, tls: bool):
    if not os.path.exists(KUBECTL):
        pytest.fail("kubectl is not installed (.ci/run installs it)")
    sim = SimServer(
        tls=tls, anonymous=not tls
    ).start()  # kubectl sends no credentials to an http:// server (clientcmd): over http it is served as anonymous
    seed(sim.store)
    kc = sim.write_kubeconfig(str(tmp_path / "kubeconfig"))
    return sim, kc, Kubectl(kc, str(tmp_path / "cache"))


@pytest.fixture
def cluster(tmp_path):
    sim, kc, k = _cluster(tmp_path, tls=False)
    yield sim, kc, k
    sim.stop()


@pytest.fixture
def tls_cluster(tmp_path):
    sim, kc, k = _cluster(tmp_path, tls=True)
    yield sim, kc, k
    sim.stop()


def names(items):
    return sorted(i["metadata"]["name"] for i in items)


def test_kubectl_get_pods_json_matches_the_server(cluster):
    sim, _, kubectl = cluster
    lst = kubectl.json("get", "pods")  # namespace "default" from the kubeconfig's context
    want = sim.store.list("pods", "default")
    assert names(lst["items"]) == names(want) and len(want) >= 5
    rvs = {i["metadata"]["name"]: i["metadata"]["resourceVersion"] for i in lst["items"]}
    assert rvs == {p["metadata"]["name"]: p["metadata"]["resourceVersion"] for p in want}


def test_kubectl_get_short_names_and_all_namespaces(cluster):
    sim, _, kubectl = cluster
    out = kubectl("get", "po").stdout
    assert out.splitlines()[0].split()[0] == "NAME"
    for p in sim.store.list("pods", "default"):
        assert p["metadata"]["name"] in out
    out = kubectl("get", "pods", "-A").stdout
    assert out.splitlines()[0].split()[:2] == ["NAMESPACE", "NAME"]
    assert len(out.splitlines()) == 1 + sim.store.count("pods")
    assert "shop-widget" in kubectl("get", "wd", "-n", "shop").stdout
    assert kubectl("get", "widgets.example.com", "-A", "-o", "name").stdout.split() == [
        "widget.example.com/batch-widget",
        "widget.example.com/default-widget",
        "widget.example.com/shop-widget",
    ]
    assert "widgets.example.com" in kubectl("get", "crd").stdout
    assert set(kubectl("get", "deploy", "-n", "shop", "-o", "name").stdout.split()) == {
        "deployment.apps/frontend",
        "deployment.apps/cart",
        "deployment.apps/payments",
    }
    assert "ConfigMap" in kubectl("api-resources").stdout


def test_kubectl_selectors(cluster):
    sim, _, kubectl = cluster
    got = kubectl.json("get", "pods", "-A", "-l", "app=worker", "--field-selector", "status.phase=Running")
    want = [
        p
        for p in sim.store.list("pods")
        if p["metadata"]["labels"]["app"] == "worker" and p["status"]["phase"] == "Running"
    ]
    assert names(got["items"]) == names(want) and want


def test_kubectl_create_get_label_delete(cluster, tmp_path):
    sim, _, kubectl = cluster
    f = tmp_path / "pod.yaml"
    f.write_text(POD_YAML)
    assert "pod/made-by-kubectl created" in kubectl("create", "-f", str(f)).stdout
    obj = kubectl.json("get", "pod", "made-by-kubectl")
    assert obj["status"]["phase"] == "Pending" and obj["metadata"]["namespace"] == "default"
    assert sim.store.get("pods", "default", "made-by-kubectl")["metadata"]["uid"] == obj["metadata"]["uid"]
    r = kubectl("create", "-f", str(f), ok=False)
    assert r.returncode != 0 and "AlreadyExists" in r.stderr
    kubectl("label", "pod", "made-by-kubectl", "tier=x")
    assert sim.store.get("pods", "default", "made-by-kubectl")["metadata"]["labels"] == {"app": "e2e", "tier": "x"}
    assert 'pod "made-by-kubectl" deleted' in kubectl("delete", "pod", "made-by-kubectl").stdout
    assert "made-by-kubectl" not in {p["metadata"]["name"] for p in sim.store.list("pods", "default")}
    r = kubectl("get", "pod", "made-by-kubectl", ok=False)
    assert r.returncode != 0 and 'pods "made-by-kubectl" not found' in r.stderr


def test_kubectl_apply_twice(cluster, tmp_path):
    sim, _, kubectl = cluster
    f = tmp_path / "pod.yaml"
    f.write_text(POD_YAML)
    assert "created" in kubectl("apply", "-f", str(f)).stdout
    rv = sim.store.get("pods", "default", "made-by-kubectl")["metadata"]["resourceVersion"]
    assert "unchanged" in kubectl("apply", "-f", str(f)).stdout
    assert sim.store.get("pods", "default", "made-by-kubectl")["metadata"]["resourceVersion"] == rv


def test_kubectl_watch_streams_events(cluster):
    sim, _, kubectl = cluster
    p = subprocess.Popen(
        kubectl.base + ["get", "pods", "--watch-only", "-o", "name"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert wait_for(lambda: sim.store.watchers("pods"), timeout=20)
        victim = sim.store.list("pods", "default")[0]["metadata"]["name"]
        sim.store.delete("pods", "default", victim)
        deadline = time.monotonic() + 20
        line = ""
        while time.monotonic() < deadline and not line:
            r, _, _ = select.select([p.stdout], [], [], 0.5)
            if r:
                line = p.stdout.readline().strip()
        assert line == f"pod/{victim}"
    finally:
        p.kill()
        p.wait()


def test_kubectl_over_tls(tls_cluster):
    sim, _, kubectl = tls_cluster
    assert sim.url.startswith("https://")
    lst = kubectl.json("get", "pods", "-n", "shop")
    assert names(lst["items"]) == names(sim.store.list("pods", "shop"))


def _core(kubeconfig):
    from kubernetes import client, config

    return client.CoreV1Api(config.new_client_from_config(config_file=kubeconfig))


@pytest.mark.parametrize("tls", [False, True])
def test_python_client_list_create_delete(tmp_path, tls):
    from kubernetes import client
    from kubernetes.client.rest import ApiException

    sim, kc, _ = _cluster(tmp_path, tls)
    try:
        core = _core(kc)
        pods = core.list_namespaced_pod("shop")
        assert sorted(p.metadata.name for p in pods.items) == names(sim.store.list("pods", "shop"))
        assert pods.items[0].status.phase and pods.items[0].metadata.owner_references[0].kind == "ReplicaSet"
        body = client.V1Pod(
            metadata=client.V1ObjectMeta(name="py-pod", labels={"by": "python"}),
            spec=client.V1PodSpec(containers=[client.V1Container(name="c", image="busybox")]),
        )
        made = core.create_namespaced_pod("default", body)
        assert made.metadata.uid and made.status.phase == "Pending"
        assert core.read_namespaced_pod("py-pod", "default").metadata.labels == {"by": "python"}
        core.delete_namespaced_pod("py-pod", "default")
        with pytest.raises(ApiException) as e:
            core.read_namespaced_pod("py-pod", "default")
        assert e.value.status == 404
        assert [n.metadata.name for n in core.list_namespace().items] == ["batch", "default", "shop"]
    finally:
        sim.stop()


def test_python_client_watch(cluster):
    from kubernetes import watch

    sim, kc, _ = cluster
    core = _core(kc)
    rv = core.list_namespaced_pod("default").metadata.resource_version
    w = watch.Watch()
    sim.store.delete("pods", "default", sim.store.list("pods", "default")[0]["metadata"]["name"])
    got = []
    for ev in w.stream(core.list_namespaced_pod, "default", resource_version=rv, timeout_seconds=2):
        got.append(ev["type"])
        w.stop()
    assert got == ["DELETED"]


def test_kubectl_pages_with_continue_tokens(cluster):
    sim, _, kubectl = cluster
    out = kubectl("get", "pods", "-A", "--chunk-size=3", "-o", "name", "-v=6")
    assert sorted(out.stdout.split()) == sorted(f"pod/{p['metadata']['name']}" for p in sim.store.list("pods"))
    assert out.stderr.count("continue=") >= sim.store.count("pods") // 3 - 1  # it really paged
