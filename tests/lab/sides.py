"""The two clusters the lab tests drive with kubectl: the lab's (a namespace
of its own, a fake kubelet for it) and an in-process simulator with its
controllers. The fixtures ``lab_side`` and ``sim_side`` (conftest.py) make them."""

from __future__ import annotations

import json
import os
import subprocess

from tests.lab.conftest import KUBECTL

REVISION = "deployment.kubernetes.io/revision"
# The simulated controllers' time per reconcile (ControllerManager's sync_seconds; the
# environment variable SIM_SYNC_SECONDS overrides it). The lab's controllers react
# milliseconds apart (a watch delivery, a sync, an etcd write); at 0 the simulated ones write
# a cascade within a millisecond, and a workqueue fed by them collapses far more events
# (test_deployment_queue_adds.py: 43 to 47 adds where the real controller made 105 to 121).
SYNC_SECONDS = float(os.environ.get("SIM_SYNC_SECONDS", "0.005"))


class Side:
    """kubectl against one cluster, in one namespace."""

    def __init__(self, name: str, kubeconfig: str, namespace: str, cache: str):
        self.name, self.namespace = name, namespace
        self.base = [KUBECTL, "--kubeconfig", kubeconfig, "--cache-dir", cache, "-n", namespace]

    def run(self, *args: str) -> str:
        r = subprocess.run(self.base + list(args), capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, f"{self.name}: kubectl {' '.join(args)}: {r.stderr}"
        return r.stdout

    def raw_watch(self, path: str) -> subprocess.Popen:
        """A raw watch of ``path`` (a collection) from the RV of a list of it made now, so it
        sees every later event however late it connects (kubectl get -o json of a list
        prints no resourceVersion, hence the raw list)."""
        rv = json.loads(self.run("get", "--raw", path))["metadata"]["resourceVersion"]
        return subprocess.Popen(
            self.base + ["get", "--raw", f"{path}?watch=1&resourceVersion={rv}"],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )

    def path(self, resource: str) -> str:
        group = "/api/v1" if resource == "pods" else "/apis/apps/v1"
        return f"{group}/namespaces/{self.namespace}/{resource}"

    def items(self, resource: str) -> list[dict]:
        return json.loads(self.run("get", resource, "-o", "json"))["items"]

    def snapshot(self) -> dict:
        """What is compared: the Deployment's status, its ReplicaSets by revision, the pods."""
        deploys = self.items("deployments")
        out: dict = {"deployment": None}
        if deploys:
            [d] = deploys
            st = d.get("status") or {}
            out["deployment"] = {
                "revision": (d["metadata"].get("annotations") or {}).get(REVISION),
                "spec_replicas": d["spec"].get("replicas"),
                "generation_observed": st.get("observedGeneration") == d["metadata"].get("generation"),
                "counts": {
                    k: st.get(k, 0)
                    for k in (
                        "replicas",
                        "updatedReplicas",
                        "readyReplicas",
                        "availableReplicas",
                        "unavailableReplicas",
                        "terminatingReplicas",
                    )
                },
                "conditions": [(c["type"], c["status"], c["reason"]) for c in st.get("conditions") or []],
            }
        rss = []
        for rs in self.items("replicasets"):
            ann = rs["metadata"].get("annotations") or {}
            rss.append(
                {
                    "revision": ann.get(REVISION),
                    "history": ann.get("deployment.kubernetes.io/revision-history"),
                    "desired": ann.get("deployment.kubernetes.io/desired-replicas"),
                    "max": ann.get("deployment.kubernetes.io/max-replicas"),
                    "replicas": rs["spec"].get("replicas"),
                    "status_replicas": rs["status"].get("replicas", 0),
                    "ready": rs["status"].get("readyReplicas", 0),
                    "owned": bool(rs["metadata"].get("ownerReferences")),
                }
            )
        out["replicasets"] = sorted(rss, key=lambda x: int(x["revision"] or 0))
        pods = self.items("pods")
        out["pods"] = len(pods)
        out["terminating"] = sum(1 for p in pods if p["metadata"].get("deletionTimestamp"))
        return out
