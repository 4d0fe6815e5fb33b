"""Several informers, one workqueue, against the simulated API server over
real HTTP: Deployments, ReplicaSets and Pods created through the API with
explicit ownerReferences; a Pod's events reach its Deployment's key through
its ReplicaSet, orphans and stale owners are dropped, and each informer's
events say which informer emitted them. Then the same through the CLI:
``queue deployments --owns rs --owns pods --record``, replayed."""

from __future__ import annotations

import json
import signal
import subprocess
import sys

import pytest

from kubectl_informer.clock.testing import wait_for
from kubectl_informer.core.trace import TraceBuffer, Tracer, informer_of
from kubectl_informer.replay.recording import info_from_recording, read_recording
from kubectl_informer.run.config import RunConfig
from kubectl_informer.run.runner import Run
from kubectl_informer.sim.objects import make_deployment
from kubectl_informer.sim.resources import Registry, ResourceDef
from kubectl_informer.sim.server import SimServer
from kubectl_informer.sim.store import Store
from tests.sim._http import RawClient

pytestmark = pytest.mark.e2e

# Until the simulator serves ReplicaSets itself, the test's server does.
REPLICASETS = ResourceDef("apps", "v1", "replicasets", "ReplicaSet", True, "replicaset", ("rs",), ("all",),
                          subresources=("status",), has_generation=True)
DEPLOY, RS, PODS = "deployments.apps", "replicasets.apps", "pods"


def _registry() -> Registry:
    reg = Registry()
    try:
        reg.lookup("replicasets.apps")
    except KeyError:
        reg.defs.append(REPLICASETS)
    return reg


def controller_ref(owner: dict, uid: str | None = None) -> dict:
    return {"apiVersion": owner["apiVersion"], "kind": owner["kind"], "name": owner["metadata"]["name"],
            "uid": uid or owner["metadata"]["uid"], "controller": True, "blockOwnerDeletion": True}


def replica_set(name: str, owner: dict) -> dict:
    return {"apiVersion": "apps/v1", "kind": "ReplicaSet",
            "metadata": {"name": name, "namespace": "default", "ownerReferences": [controller_ref(owner)]},
            "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}},
                     "template": {"metadata": {"labels": {"app": "web"}},
                                  "spec": {"containers": [{"name": "web", "image": "nginx"}]}}}}


def pod(name: str, owners: list[dict]) -> dict:
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "default", "labels": {"app": "web"}, "ownerReferences": owners},
            "spec": {"containers": [{"name": "web", "image": "nginx"}]}}


class Cluster:
    def __init__(self, sim: SimServer, kubeconfig: str) -> None:
        self.sim, self.kubeconfig = sim, kubeconfig
        self.http = RawClient(sim.url, token=sim.token)

    def post(self, path: str, obj: dict) -> dict:
        status, body, _ = self.http.request("POST", path, obj)
        assert status == 201, body
        return body

    def delete_pod(self, name: str) -> None:
        status, body, _ = self.http.request("DELETE", f"/api/v1/namespaces/default/pods/{name}",
                                            gracePeriodSeconds=0)
        assert status == 200, body


@pytest.fixture
def cluster(tmp_path):
    sim = SimServer(store=Store(registry=_registry())).start()
    sim.store.create("namespaces", {"metadata": {"name": "default"}})
    c = Cluster(sim, sim.write_kubeconfig(str(tmp_path / "kubeconfig")))
    web = c.post("/apis/apps/v1/namespaces/default/deployments", make_deployment("default", "web", replicas=2))
    rs = c.post("/apis/apps/v1/namespaces/default/replicasets", replica_set("web-5887", web))
    for name in ("web-5887-a", "web-5887-b"):
        c.post("/api/v1/namespaces/default/pods", pod(name, [controller_ref(rs)]))
    c.post("/api/v1/namespaces/default/pods", pod("lone", []))
    c.post("/api/v1/namespaces/default/pods", pod("stale", [controller_ref(rs, uid="not-the-rs")]))
    yield c
    sim.stop()


def _events(buf, seen, kind=None):
    seen += buf.drain()
    return [e for e in seen if kind is None or e.kind == kind]


def test_a_pods_deletion_queues_its_deployment_through_its_replica_set(cluster):
    tracer, buf = Tracer(), TraceBuffer()
    tracer.subscribe(buf)
    run = Run(RunConfig.from_flags(mode="queue", resource="deployments", owns=("rs", "pods", "deploy"),
                                   kubeconfig=cluster.kubeconfig, namespace="default", work_time=0.0), tracer)
    info = run.prepare()
    assert info.informers == (DEPLOY, RS, PODS) and info.queue_resource == DEPLOY  # deploy named twice: one
    run.start()
    seen: list = []
    try:
        assert wait_for(lambda: len(_events(buf, seen, "informer.synced")) == 3, timeout=20)
        assert sorted(run.factory.informers) == sorted([DEPLOY, RS, PODS])
        synced = {informer_of(e): e.fields["items"] for e in _events(buf, seen, "informer.synced")}
        assert synced == {DEPLOY: 1, RS: 1, PODS: 4}
        cluster.delete_pod("web-5887-a")
        caused = ["ReplicaSet default/web-5887 Updated", "Pod default/web-5887-a Deleted"]
        assert wait_for(lambda: any(e.fields.get("cause") == caused
                                    for e in _events(buf, seen, "queue.add")), timeout=20)
        cluster.delete_pod("lone")
        cluster.delete_pod("stale")
        assert wait_for(lambda: {(e.key, e.fields["event"]) for e in _events(buf, seen, "owner.drop")} >= {
            ("default/lone", "Deleted"), ("default/stale", "Deleted")}, timeout=20)
    finally:
        run.stop()
    drops = {(e.key, e.fields["event"]): e.fields for e in _events(buf, seen, "owner.drop")}
    assert drops[("default/lone", "Deleted")]["reason"] == "no_controller"
    assert drops[("default/stale", "Deleted")]["reason"] == "uid_mismatch"
    assert drops[("default/stale", "Deleted")]["owner"] == "ReplicaSet default/web-5887"
    adds = _events(buf, seen, "queue.add")
    assert {e.key for e in adds} == {"default/web"} and all(e.fields["cause"] for e in adds)
    # Every informer's pipeline said which it is; the queue's events belong to none.
    by_informer = {informer_of(e) for e in seen if e.kind in ("watch.start", "store.add", "informer.start")}
    assert by_informer == {DEPLOY, RS, PODS}
    assert all(informer_of(e) is None for e in seen if e.kind.startswith("queue."))
    assert not run.alive_threads()


def test_the_cli_records_several_informers_and_replay_shows_the_same_events(cluster, tmp_path):
    rec = tmp_path / "rec.ndjson"
    # Stopped with Ctrl-C once the queue said what it came to show (the
    # --duration only bounds a run that never does).
    cmd = [sys.executable, "-m", "kubectl_informer", "queue", "deployments", "--owns", "replicasets", "--owns",
           "po", "--kubeconfig", cluster.kubeconfig, "--work-time", "0", "-o", "json", "--duration", "60s",
           "--record", str(rec)]
    want = ["ReplicaSet default/web-5887 Updated", "Pod default/web-5887-b Deleted"]
    errors = tmp_path / "stderr"
    with open(errors, "w") as err_file:
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=err_file, text=True)
        lines: list[str] = []
        try:
            while line := proc.stdout.readline():
                lines.append(line)
                if '"informer.synced"' in line and sum('"informer.synced"' in x for x in lines) == 3:
                    cluster.delete_pod("web-5887-b")
                elif '"queue.add"' in line and json.loads(line)["fields"].get("cause") == want:
                    proc.send_signal(signal.SIGINT)
                    break
            lines += proc.stdout.read().splitlines(keepends=True)  # the same buffered reader: nothing lost
            assert proc.wait(timeout=30) == 130  # kubectl's code for an interrupted command
        finally:
            if proc.poll() is None:
                proc.kill()
    assert errors.read_text() == ""
    streamed = [json.loads(x) for x in lines if x.strip()]
    header = streamed[0]["fields"]
    assert header["informers"] == [DEPLOY, RS, PODS] and header["queue_resource"] == DEPLOY
    caused = [e for e in streamed if e["kind"] == "queue.add" and e["fields"].get("cause") == want]
    assert caused and caused[0]["key"] == "default/web"
    recording = read_recording(str(rec))
    info = info_from_recording(recording)
    assert info.informers == (DEPLOY, RS, PODS) and info.queue_resource == DEPLOY
    recorded = [e.to_dict() for e in recording.events]
    # The stream ends at Ctrl-C; the recording also holds the run's shutdown.
    assert [(e["kind"], e["key"], e["fields"]) for e in recorded[:len(streamed)]] == \
           [(e["kind"], e["key"], e["fields"]) for e in streamed]
    replayed = subprocess.run([sys.executable, "-m", "kubectl_informer", "replay", str(rec), "-o", "json"],
                              capture_output=True, text=True, timeout=60)
    assert replayed.returncode == 0, replayed.stderr
    again = [json.loads(x) for x in replayed.stdout.splitlines() if x.strip()]
    assert [(e["kind"], e["key"], e["fields"]) for e in again] == \
           [(e["kind"], e["key"], e["fields"]) for e in recorded]
    text = subprocess.run([sys.executable, "-m", "kubectl_informer", "replay", str(rec), "-o", "text"],
                          capture_output=True, text=True, timeout=60)
    assert "Queued default/web ← ReplicaSet default/web-5887 Updated ← Pod default/web-5887-b Deleted" in text.stdout
    assert "Replaced replicasets.apps default/web-5887" in text.stdout
    assert "Dropped pods default/lone Added: no_controller" in text.stdout
