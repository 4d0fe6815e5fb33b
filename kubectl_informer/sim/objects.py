"""Realistic objects for the simulated cluster: pods as a Deployment's
ReplicaSet makes them (labels, ownerReferences, managedFields, status with
conditions), configmaps, secrets, deployments and widgets.

A pod from ``make_pod`` is about 2.5 KB of JSON, like a small real pod, so
benchmarks move realistic byte counts.
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime

POD_PHASES = ("Pending", "Running", "Succeeded", "Failed")


def _ts(t: datetime | None = None) -> str:
    return (t or datetime.now(UTC)).strftime("%Y-%m-%dT%H:%M:%SZ")


def _hash(s: str, n: int = 10) -> str:
    return hashlib.sha1(s.encode()).hexdigest()[:n]


def _uid(seed: str) -> str:
    return str(uuid.UUID(hashlib.md5(seed.encode()).hexdigest()))


def replicaset_name(namespace: str, app: str) -> str:
    return f"{app}-{_hash(namespace + '/' + app, 10)}"


def make_pod(
    namespace: str,
    name: str | None = None,
    app: str = "web",
    index: int = 0,
    phase: str = "Running",
    node: str | None = None,
    image: str = "nginx:1.27",
) -> dict:
    """A pod of Deployment ``app``'s ReplicaSet (``name`` defaults to the
    ReplicaSet's naming: ``<rs>-<5 chars>``)."""
    rs = replicaset_name(namespace, app)
    name = name or f"{rs}-{_hash(f'{rs}-{index}', 5)}"
    ts = _ts()
    ip = f"10.244.{index // 250 % 250}.{index % 250 + 2}"
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": _pod_metadata(namespace, name, app, rs, ts),
        "spec": _pod_spec(app, image, node or f"node-{index % 3 + 1}"),
        "status": pod_status(phase, ip, ts, app, image),
    }


def _pod_metadata(namespace: str, name: str, app: str, rs: str, ts: str) -> dict:
    """A ReplicaSet's pod's metadata: its labels, its controller reference, who wrote which fields."""
    rs_uid = _uid(namespace + rs)
    return {
        "name": name,
        "namespace": namespace,
        "labels": {
            "app": app,
            "pod-template-hash": rs.rsplit("-", 1)[-1],
            "tier": "frontend" if app in ("web", "frontend") else "backend",
        },
        "annotations": {"kubectl.kubernetes.io/restartedAt": ts},
        "ownerReferences": [
            {
                "apiVersion": "apps/v1",
                "kind": "ReplicaSet",
                "name": rs,
                "uid": rs_uid,
                "controller": True,
                "blockOwnerDeletion": True,
            }
        ],
        "managedFields": [_controller_fields(app, rs_uid, ts), _kubelet_fields(ts)],
        "generateName": rs + "-",
    }


def _controller_fields(app: str, rs_uid: str, ts: str) -> dict:
    """The managedFields entry of kube-controller-manager, which created the pod."""
    container: dict[str, dict] = {
        ".": {},
        "f:image": {},
        "f:imagePullPolicy": {},
        "f:name": {},
        "f:ports": {},
        "f:resources": {},
    }
    return {
        "manager": "kube-controller-manager",
        "operation": "Update",
        "apiVersion": "v1",
        "time": ts,
        "fieldsType": "FieldsV1",
        "fieldsV1": {
            "f:metadata": {
                "f:generateName": {},
                "f:labels": {".": {}, "f:app": {}, "f:pod-template-hash": {}},
                "f:ownerReferences": {".": {}, f'k:{{"uid":"{rs_uid}"}}': {}},
            },
            "f:spec": {
                "f:containers": {f'k:{{"name":"{app}"}}': container},
                "f:dnsPolicy": {},
                "f:restartPolicy": {},
            },
        },
    }


def _kubelet_fields(ts: str) -> dict:
    """The managedFields entry of the kubelet, which writes the status."""
    status = ("f:conditions", "f:containerStatuses", "f:hostIP", "f:phase", "f:podIP", "f:startTime")
    return {
        "manager": "kubelet",
        "operation": "Update",
        "apiVersion": "v1",
        "time": ts,
        "fieldsType": "FieldsV1",
        "subresource": "status",
        "fieldsV1": {"f:status": {f: {} for f in status}},
    }


def _pod_spec(app: str, image: str, node: str) -> dict:
    """One container, scheduled to ``node``, with the defaults the API server fills in."""
    return {
        "containers": [
            {
                "name": app,
                "image": image,
                "imagePullPolicy": "IfNotPresent",
                "ports": [{"containerPort": 8080, "protocol": "TCP"}],
                "resources": {"requests": {"cpu": "100m", "memory": "64Mi"}, "limits": {"memory": "128Mi"}},
                "terminationMessagePath": "/dev/termination-log",
                "terminationMessagePolicy": "File",
            }
        ],
        "dnsPolicy": "ClusterFirst",
        "restartPolicy": "Always",
        "schedulerName": "default-scheduler",
        "serviceAccountName": "default",
        "nodeName": node,
        "terminationGracePeriodSeconds": 30,
        "tolerations": [_toleration("node.kubernetes.io/not-ready"), _toleration("node.kubernetes.io/unreachable")],
    }


def _toleration(key: str) -> dict:
    """DefaultTolerationSeconds' toleration of a node taint: 300 s."""
    return {"key": key, "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300}


def pod_status(
    phase: str,
    ip: str = "10.244.0.2",
    ts: str | None = None,
    app: str = "web",
    image: str = "nginx:1.27",
    restarts: int = 0,
) -> dict:
    ts = ts or _ts()
    ready = "True" if phase == "Running" else "False"
    st: dict = {
        "phase": phase,
        "conditions": [
            {
                "type": t,
                "status": ready if t in ("Ready", "ContainersReady") else "True",
                "lastProbeTime": None,
                "lastTransitionTime": ts,
            }
            for t in ("PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady", "PodScheduled")
        ],
        "hostIP": "172.18.0.2",
        "podIP": ip,
        "podIPs": [{"ip": ip}],
        "startTime": ts,
        "qosClass": "Burstable",
    }
    state = (
        {"running": {"startedAt": ts}}
        if phase == "Running"
        else (
            {"waiting": {"reason": "ContainerCreating"}}
            if phase == "Pending"
            else {
                "terminated": {
                    "exitCode": 0 if phase == "Succeeded" else 1,
                    "reason": "Completed" if phase == "Succeeded" else "Error",
                    "startedAt": ts,
                    "finishedAt": ts,
                }
            }
        )
    )
    st["containerStatuses"] = [
        {
            "name": app,
            "image": image,
            "imageID": "",
            "ready": phase == "Running",
            "restartCount": restarts,
            "started": phase == "Running",
            "state": state,
        }
    ]
    return st


def make_configmap(namespace: str, name: str, data: dict | None = None) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": name, "namespace": namespace, "labels": {"app": name.split("-")[0]}},
        "data": data or {"config.yaml": f"name: {name}\nreplicas: 3\n", "LOG_LEVEL": "info"},
    }


def make_secret(namespace: str, name: str) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Secret",
        "type": "Opaque",
        "metadata": {"name": name, "namespace": namespace},
        "data": {"password": "c2ltLXBhc3N3b3Jk"},
    }


def make_deployment(namespace: str, app: str, replicas: int = 3, ready: int | None = None) -> dict:
    ready = replicas if ready is None else ready
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {
            "name": app,
            "namespace": namespace,
            "labels": {"app": app},
            "annotations": {"deployment.kubernetes.io/revision": "1"},
        },
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": app}},
            "template": {
                "metadata": {"labels": {"app": app}},
                "spec": {"containers": [{"name": app, "image": "nginx:1.27"}]},
            },
        },
        "status": {
            "observedGeneration": 1,
            "replicas": replicas,
            "readyReplicas": ready,
            "availableReplicas": ready,
            "updatedReplicas": replicas,
            "conditions": [
                {"type": "Available", "status": "True" if ready else "False", "reason": "MinimumReplicasAvailable"}
            ],
        },
    }


def make_widget(namespace: str, name: str, size: int = 1, color: str = "blue") -> dict:
    return {
        "apiVersion": "example.com/v1",
        "kind": "Widget",
        "metadata": {"name": name, "namespace": namespace, "labels": {"color": color}},
        "spec": {"size": size, "color": color},
        "status": {"ready": True},
    }


def many_pods(n: int, namespace: str = "default", apps: tuple[str, ...] = ("web", "api", "worker")) -> Iterator[dict]:
    """``n`` distinct pods in ``namespace`` (a generator, for ``Store.bulk_load``)."""
    for i in range(n):
        app = apps[i % len(apps)]
        yield make_pod(namespace, f"{app}-{i:06d}", app=app, index=i)
