"""The simulator's JSON for every served kind matches the schema of that kind
in the simulator's own OpenAPI v3 document (fetched over HTTP, as kubectl
does): no field the schema does not know, every value of its type."""

from __future__ import annotations

import base64
import re

import pytest

from kubectl_informer.clock.testing import wait_for
from kubectl_informer.sim.controllers.manager import ControllerManager
from kubectl_informer.sim.demo import seed
from kubectl_informer.sim.events import EventRecorder
from kubectl_informer.sim.scenarios import rollout_complete, web_deployment
from kubectl_informer.sim.server import SimServer
from tests.sim._http import RawClient

_RFC3339 = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$")
_TYPES = {"string": str, "integer": int, "boolean": bool, "number": (int, float), "array": list, "object": dict}


def violations(value, schema: dict, schemas: dict, path: str = "") -> list[str]:
    """Where ``value`` breaks ``schema`` (a small OpenAPI v3 checker: types,
    formats, unknown fields of structural schemas, items, maps). null is
    absent, as Kubernetes treats it."""
    if "$ref" in schema:
        schema = schemas[schema["$ref"].rsplit("/", 1)[-1]]
    if value is None or not schema:
        return []
    t = schema.get("type")
    if t and (not isinstance(value, _TYPES[t]) or (t in ("integer", "number") and isinstance(value, bool))):
        return [f"{path or '.'}: {type(value).__name__} where the schema has {t}"]
    fmt = schema.get("format")
    if fmt == "date-time" and not _RFC3339.match(value):
        return [f"{path}: {value!r} is not a date-time"]
    if fmt == "byte":
        try:
            base64.b64decode(value, validate=True)
        except ValueError:
            return [f"{path}: {value!r} is not base64"]
    if t == "array":
        return [
            v
            for i, item in enumerate(value)
            for v in violations(item, schema.get("items", {}), schemas, f"{path}[{i}]")
        ]
    if t != "object":
        return []
    out = []
    props, extra = schema.get("properties") or {}, schema.get("additionalProperties")
    closed = extra is False or (props and extra is None and not schema.get("x-kubernetes-preserve-unknown-fields"))
    for k, v in value.items():
        if k in props:
            out += violations(v, props[k], schemas, f"{path}.{k}")
        elif isinstance(extra, dict):
            out += violations(v, extra, schemas, f"{path}.{k}")
        elif closed:
            out.append(f"{path}.{k}: not in the schema")
    return out


@pytest.fixture(scope="module")
def served():
    """A seeded simulator with an object of every kind, terminating and
    applied ones too, and the OpenAPI documents it serves."""
    sim = SimServer().start()
    try:
        seed(sim.store)
        c = RawClient(sim.url, token=sim.token)
        sim.store.pod_stop_seconds = None
        p = sim.store.list("pods", "shop")[0]["metadata"]["name"]
        c.request("DELETE", f"/api/v1/namespaces/shop/pods/{p}")  # graceful: deletionTimestamp set
        EventRecorder(sim.store).record(sim.store.get("pods", "shop", p), "Warning", "BackOff", "x", "kubelet")
        c.request(
            "PATCH",
            "/apis/apps/v1/namespaces/default/deployments/applied?fieldManager=t",
            {
                "apiVersion": "apps/v1",
                "kind": "Deployment",
                "metadata": {"name": "applied"},
                "spec": {
                    "replicas": 1,
                    "selector": {"matchLabels": {"a": "b"}},
                    "template": {"metadata": {"labels": {"a": "b"}}, "spec": {"containers": [{"name": "c"}]}},
                },
            },
            ctype="application/apply-patch+yaml",
        )
        # What the simulated controllers write: a Deployment rolled out twice, its ReplicaSets and pods.
        manager = ControllerManager(sim.store, pod_start_seconds=0.0).start()
        try:
            sim.store.create("deployments", web_deployment("default", "ctl", 2))
            assert wait_for(lambda: rollout_complete(sim.store.get("deployments", "default", "ctl")), 10)
            d = sim.store.get("deployments", "default", "ctl")
            d["spec"]["template"]["metadata"]["annotations"] = {"kubectl.kubernetes.io/restartedAt": "now"}
            sim.store.update("deployments", d)
            assert wait_for(lambda: rollout_complete(sim.store.get("deployments", "default", "ctl")), 10)
        finally:
            manager.stop()
        docs = {}
        for path, ref in c.get("/openapi/v3")[1]["paths"].items():
            docs[path] = c.get(ref["serverRelativeURL"])[1]
        yield sim, c, docs
    finally:
        sim.stop()


def _schema_for(docs: dict, group: str, version: str, kind: str) -> tuple[dict, dict]:
    path = f"apis/{group}/{version}" if group else f"api/{version}"
    schemas = docs[path]["components"]["schemas"]
    for s in schemas.values():
        if {"group": group, "version": version, "kind": kind} in s.get("x-kubernetes-group-version-kind", []):
            return s, schemas
    raise AssertionError(f"no schema for {kind} in {path}")


STORED = [
    "namespaces",
    "pods",
    "configmaps",
    "secrets",
    "events",
    "deployments.apps",
    "replicasets.apps",
    "customresourcedefinitions.apiextensions.k8s.io",
    "widgets.example.com",
]


@pytest.mark.parametrize("resource", STORED)
def test_every_object_the_sim_serves_matches_its_openapi_schema(served, resource):
    sim, c, docs = served
    rdef = sim.store.resource(resource)
    base = f"/apis/{rdef.group}/{rdef.version}" if rdef.group else f"/api/{rdef.version}"
    status, lst = c.get(f"{base}/{rdef.resource}")
    assert status == 200 and lst["items"], resource
    schema, schemas = _schema_for(docs, rdef.group, rdef.version, rdef.kind)
    for obj in lst["items"]:
        assert violations(obj, schema, schemas) == [], obj["metadata"]["name"]


def test_answers_that_are_not_stored_match_their_schemas(served):
    sim, c, docs = served
    _, ssar, _ = c.request(
        "POST",
        "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
        {
            "apiVersion": "authorization.k8s.io/v1",
            "kind": "SelfSubjectAccessReview",
            "spec": {"resourceAttributes": {"verb": "get", "resource": "pods"}},
        },
    )
    schema, schemas = _schema_for(docs, "authorization.k8s.io", "v1", "SelfSubjectAccessReview")
    assert violations(ssar, schema, schemas) == []
    _, scale = c.get("/apis/apps/v1/namespaces/default/deployments/web/scale")
    schemas = docs["apis/apps/v1"]["components"]["schemas"]
    assert violations(scale, schemas["io.k8s.api.autoscaling.v1.Scale"], schemas) == []


def test_the_checker_finds_unknown_fields_and_wrong_types(served):
    sim, _, docs = served
    schema, schemas = _schema_for(docs, "", "v1", "Pod")
    bad = sim.store.list("pods", "default")[0]
    bad["spec"]["bogus"] = 1
    bad["spec"]["containers"][0]["ports"][0]["containerPort"] = "8080"
    bad["metadata"]["creationTimestamp"] = "yesterday"
    assert violations(bad, schema, schemas) == [
        ".metadata.creationTimestamp: 'yesterday' is not a date-time",
        ".spec.containers[0].ports[0].containerPort: str where the schema has integer",
        ".spec.bogus: not in the schema",
    ]
    schema, schemas = _schema_for(docs, "example.com", "v1", "Widget")
    assert violations({"spec": {"size": "big", "shape": "round"}}, schema, schemas) == [
        ".spec.size: str where the schema has integer",
        ".spec.shape: not in the schema",
    ]
