"""A controller's trace written by hand in the shapes the engine emits
(trace_kinds: ``informer`` on every informer event, ``cause`` on queue.add,
``owner.drop``): a Deployment controller's three informers and its one
workqueue of Deployment keys (kube-controller-manager's shape), through a
rollout's storm of ReplicaSet updates."""

from __future__ import annotations

from kubectl_informer.core.run_info import RunInfo
from kubectl_informer.core.trace import TraceEvent

DEPLOY, RS, PODS = "deployments.apps", "replicasets.apps", "pods"
INFO = RunInfo(resource=DEPLOY, mode="queue", informers=(DEPLOY, RS, PODS), queue_resource=DEPLOY)

RS_LINK = "ReplicaSet default/web-5887 Updated"


class Trace:
    """Events appended with increasing seq and time."""

    def __init__(self) -> None:
        self.events: list[TraceEvent] = []

    def ev(self, kind: str, key: str | None = None, **fields) -> TraceEvent:
        n = len(self.events) + 1
        e = TraceEvent.build(n, 100.0 + n * 0.01, kind, key, **fields)
        self.events.append(e)
        return e

    def informer_synced(self, informer: str, keys: list[str], rv: str) -> None:
        self.ev("list.done", informer=informer, resource_version=rv, items=len(keys))
        self.ev("rv.advance", informer=informer, old="", new=rv, source="list")
        for k in keys:
            self.ev("fifo.queue", k, informer=informer, type="Replaced", depth=1, pending=1)
            self.ev("fifo.pop", k, informer=informer, types=["Replaced"], is_in_initial_list=True, depth=0)
            self.ev("store.add", k, informer=informer, delta="Replaced", resource_version=rv, is_in_initial_list=True)
        self.ev("informer.synced", informer=informer, items=len(keys), resource_version=rv)


def rollout(rs_updates: int = 5) -> Trace:
    """Three informers sync; the Deployment is queued for its own add; then
    its ReplicaSet's status is updated ``rs_updates`` times while the key
    waits (kube-controller-manager's updateReplicaSet enqueues web each time;
    they collapse into one reconcile); a pod deletion of this RollingUpdate
    Deployment, an orphan pod's deletion and a ReplicaSet of another
    Deployment UID are dropped."""
    t = Trace()
    t.informer_synced(DEPLOY, ["default/web"], "100")
    t.informer_synced(RS, ["default/web-5887"], "101")
    t.informer_synced(PODS, [f"default/web-5887-{i}" for i in range(5)] + ["default/bare"], "102")
    t.ev(
        "queue.add",
        "default/web",
        outcome="queued",
        depth=1,
        cause=["Deployment default/web Added"],
        via="addDeployment",
    )
    t.ev("queue.get", "default/web", depth=0, worker=0, waited=0.01)
    t.ev("queue.done", "default/web", worked=0.02, requeued=False, worker=0, outcome="ok")
    rs = "default/web-5887"
    for i in range(rs_updates):
        t.ev("watch.event", rs, informer=RS, type="MODIFIED", resource_version=str(110 + i))
        t.ev("store.update", rs, informer=RS, delta="Updated", resource_version=str(110 + i))
        t.ev("handler.update", rs, informer=RS, listener="controller")
        t.ev(
            "queue.add",
            "default/web",
            outcome="queued" if i == 0 else "already_dirty",
            depth=1,
            cause=[RS_LINK],
            via="updateReplicaSet",
        )
    t.ev("watch.event", "default/web-5887-0", informer=PODS, type="DELETED", resource_version="120")
    t.ev("store.delete", "default/web-5887-0", informer=PODS, delta="Deleted", resource_version="120")
    t.ev("handler.delete", "default/web-5887-0", informer=PODS, listener="controller")
    t.ev(
        "owner.drop",
        "default/web-5887-0",
        informer=PODS,
        event="Deleted",
        reason="not_recreate",
        owner="Deployment default/web",
    )
    t.ev("owner.drop", "default/bare", informer=PODS, event="Deleted", reason="no_controller", owner="")
    t.ev(
        "owner.drop",
        "default/old-1",
        informer=RS,
        event="Updated",
        reason="uid_mismatch",
        owner="Deployment default/old",
    )
    t.ev("handler.lane", informer=PODS, listener="controller", pending=3, handled=9, call=0.001, slow=False)
    t.ev("queue.get", "default/web", depth=0, worker=0, waited=0.05)
    return t
