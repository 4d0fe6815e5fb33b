"""The ``stale`` scenario: a ReplicaSet scaled up and down while pod watch
events arrive late, so a controller's Pod cache trails its own writes.

The pods' watch streams hold every event ``POD_WATCH_LAG`` seconds after it
was committed (``Faults.lag_watches``); the ReplicaSet's stream is on time.
The controller (``queue replicasets --owns pods --demo stale``) creates the
pods the ReplicaSet asks for and writes its status; the status event comes
back at once and asks for another sync while the new pods are not yet in the
Pod cache. Without kube-controller-manager v1.36's read-your-own-writes check
that sync creates the pods again; with it the sync is skipped until the cache
has read the RV of the controller's last write.
"""

from __future__ import annotations

from kubectl_informer.core.apierrors import ApiError
from kubectl_informer.sim.scenario_steps import Context, ScenarioLogic

POD_WATCH_LAG = 2.0
NAME = "web"
REPLICAS = (3, 5)  # scaled between these, one step per tick


def replicaset(namespace: str, name: str, replicas: int) -> dict:
    labels = {"app": name}
    return {
        "apiVersion": "apps/v1",
        "kind": "ReplicaSet",
        "metadata": {"name": name, "namespace": namespace, "labels": labels},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": labels},
            "template": {
                "metadata": {"labels": labels},
                "spec": {"containers": [{"name": name, "image": "nginx:1.27"}]},
            },
        },
    }


class Stale(ScenarioLogic):
    """First tick: the lag on, the ReplicaSet created; then a scale each tick."""

    def step(self, ctx: Context) -> None:
        ns = ctx.namespaces[0]
        if ctx.faults is not None:
            ctx.faults.lag_watches(POD_WATCH_LAG, "pods")
        try:
            rs = ctx.store.get("replicasets", ns, NAME)
        except ApiError:
            ctx.store.create("replicasets", replicaset(ns, NAME, REPLICAS[0]))
            return
        rs["spec"]["replicas"] = REPLICAS[1] if rs["spec"].get("replicas") == REPLICAS[0] else REPLICAS[0]
        ctx.store.update("replicasets", rs)
