"""The ``rollout`` scenario: Deployment ``web`` rolled out and scaled by the
simulated controllers, with the stray objects a controller's owner mapping
drops, and the Deployment and the completion test (``kubectl rollout status``'s)
that tests of the controllers share.
"""

from __future__ import annotations

import contextlib

from kubectl_informer.core.apierrors import ApiError
from kubectl_informer.sim.scenario_steps import Context, ScenarioLogic
from kubectl_informer.sim.strategy import now_rfc3339


class Rollout(ScenarioLogic):
    """Deployment ``web`` (5 replicas; created if absent) is rolled out and
    scaled over and over by the simulated controllers: each tick, once the
    last change has completed (as ``kubectl rollout status`` judges it), the
    next one of: a restart (the pod-template annotation ``kubectl rollout
    restart`` sets, so a new ReplicaSet), a scale to 8, another restart, a
    scale back to 5. Every change sets off a storm of ReplicaSet and pod events.

    The first step also leaves three strays an owner mapping must drop (see
    ``stray_objects``): a bare pod, a ReplicaSet whose controller reference
    names web with another UID, and one owned by a Deployment that is not there
    (the garbage collector deletes both ReplicaSets soon after, their owners
    being dangling, as a real one does)."""

    NAME, REPLICAS = "web", 5
    STEPS = ("restart", "scale-up", "restart", "scale-down")

    def step(self, ctx: Context) -> None:
        ns = "default" if "default" in ctx.namespaces else ctx.namespaces[0]
        if not ctx.state.get("strays"):
            ctx.state["strays"] = True
            for resource, obj in stray_objects(ns):
                # An ApiError: already there (a scenario run again on the same store).
                with contextlib.suppress(ApiError):
                    ctx.store.create(resource, obj)
        try:
            d = ctx.store.get("deployments", ns, self.NAME)
        except ApiError:
            ctx.store.create("deployments", web_deployment(ns, self.NAME, self.REPLICAS))
            return
        waited = ctx.state.get("waited", 0)
        if not rollout_complete(d) and waited < 30:  # a stuck rollout does not stop the show
            ctx.state["waited"] = waited + 1
            return
        ctx.state["waited"] = 0
        n = ctx.state.get("changes", 0)
        ctx.state["changes"] = n + 1
        action = self.STEPS[n % len(self.STEPS)]
        if action == "restart":
            tmpl = d["spec"]["template"].setdefault("metadata", {})
            tmpl.setdefault("annotations", {})["kubectl.kubernetes.io/restartedAt"] = now_rfc3339_nano(ctx.tick)
        else:
            d["spec"]["replicas"] = 8 if action == "scale-up" else self.REPLICAS
        ctx.store.update("deployments", d)


def stray_objects(namespace: str) -> list[tuple[str, dict]]:
    """What a controller's owner mapping drops, one of each: pod ``debug``
    with no ownerReference (an orphan, as ``kubectl run`` makes it),
    ReplicaSet ``web-stale`` whose controller reference names Deployment web
    with a UID that is not web's (an earlier web's, deleted and created
    again), and ReplicaSet ``gone-legacy`` owned by a Deployment ``gone``
    that does not exist. Neither ReplicaSet asks for a pod; with the
    simulated controllers on, the garbage collector deletes both (their
    owner references are dangling)."""
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "debug", "namespace": namespace, "labels": {"run": "debug"}},
        "spec": {"containers": [{"name": "debug", "image": "busybox"}]},
    }

    def replicaset(name: str, owner: str, uid: str) -> dict:
        labels = {"app": name}
        return {
            "apiVersion": "apps/v1",
            "kind": "ReplicaSet",
            "metadata": {
                "name": name,
                "namespace": namespace,
                "labels": labels,
                "ownerReferences": [
                    {
                        "apiVersion": "apps/v1",
                        "kind": "Deployment",
                        "name": owner,
                        "uid": uid,
                        "controller": True,
                        "blockOwnerDeletion": True,
                    }
                ],
            },
            "spec": {
                "replicas": 0,
                "selector": {"matchLabels": labels},
                "template": {
                    "metadata": {"labels": labels},
                    "spec": {"containers": [{"name": "nginx", "image": "nginx"}]},
                },
            },
        }

    return [
        ("pods", pod),
        ("replicasets", replicaset("web-stale", "web", "00000000-0000-4000-8000-00000000dead")),
        ("replicasets", replicaset("gone-legacy", "gone", "00000000-0000-4000-8000-00000000beef")),
    ]


def web_deployment(namespace: str, name: str, replicas: int) -> dict:
    """A Deployment as ``kubectl create deployment NAME --image=nginx --replicas=N`` makes it."""
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": namespace, "labels": {"app": name}},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {"containers": [{"name": "nginx", "image": "nginx"}]},
            },
        },
    }


def rollout_complete(d: dict) -> bool:
    """kubectl rollout status's test: the spec observed, every replica updated, none old, all available."""
    spec, st = d.get("spec") or {}, d.get("status") or {}
    want = spec.get("replicas", 1)
    return (
        d["metadata"].get("generation", 1) <= st.get("observedGeneration", 0)
        and st.get("updatedReplicas", 0) >= want
        and st.get("replicas", 0) <= st.get("updatedReplicas", 0)
        and st.get("availableReplicas", 0) >= st.get("updatedReplicas", 0)
    )


def now_rfc3339_nano(tick: int) -> str:
    # kubectl writes time.Now() in RFC 3339; the tick keeps two restarts in one second distinct.
    return f"{now_rfc3339()[:-1]}.{tick:09d}Z"
