"""Several informers, one workqueue, against the simulated API server over
real HTTP: Deployments, ReplicaSets and Pods created through the API with
explicit ownerReferences, in kube-controller-manager's Deployment controller
shape: a ReplicaSet's update queues its Deployment (updateReplicaSet), a pod
deletion queues only a Recreate Deployment whose last pod it was
(deletePod), orphans and stale owners are dropped, every cause is one event
the run saw, and each informer's events say which informer emitted them.
controller-runtime's shape (--owns) drops every pod event: a pod's
controller is a ReplicaSet. Then the CLI: ``queue --controller deployment
--record``, replayed."""

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
from kubectl_informer.sim.server import SimServer
from kubectl_informer.sim.store import Store
from tests.sim._http import RawClient

pytestmark = pytest.mark.e2e

DEPLOY, RS, PODS = "deployments.apps", "replicasets.apps", "pods"


def controller_ref(owner: dict, uid: str | None = None) -> dict:
    return {
        "apiVersion": owner["apiVersion"],
        "kind": owner["kind"],
        "name": owner["metadata"]["name"],
        "uid": uid or owner["metadata"]["uid"],
        "controller": True,
        "blockOwnerDeletion": True,
    }


def replica_set(name: str, owner: dict) -> dict:
    return {
        "apiVersion": "apps/v1",
        "kind": "ReplicaSet",
        "metadata": {"name": name, "namespace": "default", "ownerReferences": [controller_ref(owner)]},
        "spec": {
            "replicas": 2,
            "selector": {"matchLabels": {"app": "web"}},
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [{"name": "web", "image": "nginx"}]},
            },
        },
    }


def pod(name: str, owners: list[dict]) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "default", "labels": {"app": "web"}, "ownerReferences": owners},
        "spec": {"containers": [{"name": "web", "image": "nginx"}]},
    }


class Cluster:
    def __init__(self, sim: SimServer, kubeconfig: str) -> None:
        self.sim, self.kubeconfig = sim, kubeconfig
        self.http = RawClient(sim.url, token=sim.token)

    def post(self, path: str, obj: dict) -> dict:
        status, body, _ = self.http.request("POST", path, obj)
        assert status == 201, body
        return body

    def delete_pod(self, name: str) -> None:
        status, body, _ = self.http.request("DELETE", f"/api/v1/namespaces/default/pods/{name}", gracePeriodSeconds=0)
        assert status == 200, body


@pytest.fixture
def cluster(tmp_path):
    sim = SimServer(store=Store()).start()
    sim.store.create("namespaces", {"metadata": {"name": "default"}})
    c = Cluster(sim, sim.write_kubeconfig(str(tmp_path / "kubeconfig")))
    web = c.post("/apis/apps/v1/namespaces/default/deployments", make_deployment("default", "web", replicas=2))
    rs = c.post("/apis/apps/v1/namespaces/default/replicasets", replica_set("web-5887", web))
    for name in ("web-5887-a", "web-5887-b"):
        c.post("/api/v1/namespaces/default/pods", pod(name, [controller_ref(rs)]))
    c.post("/api/v1/namespaces/default/pods", pod("lone", []))
    c.post("/api/v1/namespaces/default/pods", pod("stale", [controller_ref(rs, uid="not-the-rs")]))
    rec = make_deployment("default", "rec", replicas=1)
    rec["spec"]["strategy"] = {"type": "Recreate"}
    rec["spec"]["selector"] = {"matchLabels": {"app": "rec"}}
    rec["spec"]["template"]["metadata"]["labels"] = {"app": "rec"}
    rec = c.post("/apis/apps/v1/namespaces/default/deployments", rec)
    rec_rs = replica_set("rec-1", rec)
    rec_rs["spec"]["selector"] = {"matchLabels": {"app": "rec"}}
    rec_rs["spec"]["template"]["metadata"]["labels"] = {"app": "rec"}  # kube-apiserver refuses a mismatch
    rec_rs["metadata"]["labels"] = {"app": "rec"}
    rec_rs = c.post("/apis/apps/v1/namespaces/default/replicasets", rec_rs)
    c.post("/api/v1/namespaces/default/pods", pod("rec-1-a", [controller_ref(rec_rs)]))
    yield c
    sim.stop()


def _events(buf, seen, kind=None):
    seen += buf.drain()
    return [e for e in seen if kind is None or e.kind == kind]


def _run(cluster, **flags):
    tracer, buf = Tracer(), TraceBuffer()
    tracer.subscribe(buf)
    run = Run(
        RunConfig.from_flags(mode="queue", kubeconfig=cluster.kubeconfig, namespace="default", work_time=0.0, **flags),
        tracer,
    )
    return run, buf


def test_the_deployment_controller_shape_queues_by_its_handlers_rules(cluster):
    run, buf = _run(cluster, controller="deployment")
    info = run.prepare()
    assert info.informers == (DEPLOY, RS, PODS) and info.queue_resource == DEPLOY
    run.start()
    seen: list = []
    try:
        assert wait_for(lambda: len(_events(buf, seen, "informer.synced")) == 3, timeout=20)
        synced = {informer_of(e): e.fields["items"] for e in _events(buf, seen, "informer.synced")}
        assert synced == {DEPLOY: 2, RS: 2, PODS: 5}
        assert "podController" in run.factory.informers[PODS].get_indexer().get_indexers()
        # NewDeploymentController's workqueue name, which its workqueue_* series carry.
        assert run.controller.queue.metrics().name == "deployment"
        before = len(_events(buf, seen, "queue.add"))
        for name in ("web-5887-a", "lone", "stale", "rec-1-a"):
            cluster.delete_pod(name)
        assert wait_for(
            lambda: (
                {(e.key, e.fields["reason"]) for e in _events(buf, seen, "owner.drop")}
                >= {
                    ("default/web-5887-a", "not_recreate"),
                    ("default/lone", "no_controller"),
                    ("default/stale", "uid_mismatch"),
                }
            ),
            timeout=20,
        )
        recreate = ["Pod default/rec-1-a Deleted"]
        assert wait_for(
            lambda: any(
                e.fields.get("cause") == recreate and e.fields.get("via") == "deletePod"
                for e in _events(buf, seen, "queue.add")
            ),
            timeout=20,
        )
    finally:
        run.stop()
    adds = _events(buf, seen, "queue.add")
    # Of the four pod deletions only the Recreate Deployment's last pod queued anything.
    assert [(e.key, e.fields["cause"]) for e in adds[before:] if e.fields["cause"][0].startswith("Pod ")] == [
        ("default/rec", recreate)
    ]
    # Every cause is one event the run saw; the handler is kube-controller-manager's.
    assert all(len(e.fields["cause"]) == 1 for e in adds)
    assert {e.fields["via"] for e in adds} <= {
        "addDeployment",
        "updateDeployment",
        "addReplicaSet",
        "updateReplicaSet",
        "deletePod",
    }
    drops = {(e.key, e.fields["event"]): e.fields for e in _events(buf, seen, "owner.drop")}
    assert drops[("default/stale", "Deleted")]["owner"] == "ReplicaSet default/web-5887"
    by_informer = {informer_of(e) for e in seen if e.kind in ("watch.start", "store.add", "informer.start")}
    assert by_informer == {DEPLOY, RS, PODS}
    assert all(informer_of(e) is None for e in seen if e.kind.startswith("queue."))
    assert not run.alive_threads()


def test_controller_runtime_owns_drops_every_pod_event_and_follows_one_reference(cluster):
    run, buf = _run(cluster, resource="deployments", owns=("rs", "pods", "deploy"))
    info = run.prepare()
    assert info.informers == (DEPLOY, RS, PODS)  # deploy named twice: one
    run.start()
    seen: list = []
    try:
        assert wait_for(lambda: len(_events(buf, seen, "informer.synced")) == 3, timeout=20)
        cluster.delete_pod("web-5887-a")
        assert wait_for(
            lambda: (
                ("default/web-5887-a", "Deleted")
                in {(e.key, e.fields["event"]) for e in _events(buf, seen, "owner.drop")}
            ),
            timeout=20,
        )
        assert wait_for(
            lambda: any(
                e.fields.get("cause") == ["ReplicaSet default/web-5887 Added"] for e in _events(buf, seen, "queue.add")
            ),
            timeout=20,
        )
    finally:
        run.stop()
    drops = {(e.key, e.fields["event"]): e.fields for e in _events(buf, seen, "owner.drop")}
    assert drops[("default/web-5887-a", "Deleted")]["reason"] == "not_queue_kind"
    assert drops[("default/web-5887-a", "Deleted")]["owner"] == "ReplicaSet default/web-5887"
    assert drops[("default/lone", "Added")]["reason"] == "no_controller"
    adds = _events(buf, seen, "queue.add")
    assert not any(e.fields["cause"][0].startswith("Pod ") for e in adds)
    assert {e.fields["via"] for e in adds} == {"EnqueueRequestForObject", "EnqueueRequestForOwner"}


def test_the_cli_records_several_informers_and_replay_shows_the_same_events(cluster, tmp_path):
    rec = tmp_path / "rec.ndjson"
    # Stopped with Ctrl-C once the queue said what it came to show (the
    # --duration only bounds a run that never does).
    cmd = [
        sys.executable,
        "-m",
        "kubectl_informer",
        "queue",
        "--controller",
        "deployment",
        "--kubeconfig",
        cluster.kubeconfig,
        "--work-time",
        "0",
        "-o",
        "json",
        "--duration",
        "60s",
        "--record",
        str(rec),
    ]
    want = ["Pod default/rec-1-a Deleted"]
    errors = tmp_path / "stderr"
    with open(errors, "w") as err_file:
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=err_file, text=True)
        lines: list[str] = []
        try:
            while line := proc.stdout.readline():
                lines.append(line)
                if '"informer.synced"' in line and sum('"informer.synced"' in x for x in lines) == 3:
                    cluster.delete_pod("lone")
                    cluster.delete_pod("rec-1-a")
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
    assert caused and caused[0]["key"] == "default/rec" and caused[0]["fields"]["via"] == "deletePod"
    recording = read_recording(str(rec))
    info = info_from_recording(recording)
    assert info.informers == (DEPLOY, RS, PODS) and info.queue_resource == DEPLOY
    recorded = [e.to_dict() for e in recording.events]
    # The stream ends at Ctrl-C; the recording also holds the run's shutdown.
    assert [(e["kind"], e["key"], e["fields"]) for e in recorded[: len(streamed)]] == [
        (e["kind"], e["key"], e["fields"]) for e in streamed
    ]
    replayed = subprocess.run(
        [sys.executable, "-m", "kubectl_informer", "replay", str(rec), "-o", "json"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert replayed.returncode == 0, replayed.stderr
    again = [json.loads(x) for x in replayed.stdout.splitlines() if x.strip()]
    assert [(e["kind"], e["key"], e["fields"]) for e in again] == [(e["kind"], e["key"], e["fields"]) for e in recorded]
    text = subprocess.run(
        [sys.executable, "-m", "kubectl_informer", "replay", str(rec), "-o", "text"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert "Queued default/rec ← Pod default/rec-1-a Deleted by deletePod" in text.stdout
    assert "Replaced replicasets.apps default/web-5887" in text.stdout
    assert "Dropped pods default/lone Deleted: no_controller" in text.stdout
