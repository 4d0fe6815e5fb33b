"""OpenAPI v3 documents: each kind's schema, and what kubectl asks of paths.

kubectl (1.27+) validates manifests before ``create`` / ``apply``: it fetches
``/openapi/v3`` and, per group-version, looks for the PATCH operation of the
object's kind and whether it accepts the ``fieldValidation`` query parameter.
When it does, kubectl leaves validation to the server. ``kubectl explain``
reads the kinds' schemas from ``components.schemas``.

Where the schemas come from: the simulator has no copy of Kubernetes'
OpenAPI document. The built-in kinds' schemas are derived from the model
classes of the kubernetes Python client (a dependency), which the Kubernetes
project generates from kube-apiserver's own OpenAPI document: property names
and types are the real ones; ``required``, descriptions and the
``x-kubernetes-*`` list/patch extensions are not carried over. The example
CRD's schema is its own ``openAPIV3Schema`` plus ``apiVersion``, ``kind`` and
``metadata``, as kube-apiserver publishes CRD schemas.
"""

from __future__ import annotations

import functools
import hashlib
import re

import orjson

from kubectl_informer.sim.resources import Registry, widget_crd

# kind -> (schema name as kube-apiserver publishes it, kubernetes client model class)
MODELS = {
    "Namespace": ("io.k8s.api.core.v1.Namespace", "V1Namespace"),
    "Pod": ("io.k8s.api.core.v1.Pod", "V1Pod"),
    "ConfigMap": ("io.k8s.api.core.v1.ConfigMap", "V1ConfigMap"),
    "Secret": ("io.k8s.api.core.v1.Secret", "V1Secret"),
    "Event": ("io.k8s.api.core.v1.Event", "CoreV1Event"),
    "Deployment": ("io.k8s.api.apps.v1.Deployment", "V1Deployment"),
    "ReplicaSet": ("io.k8s.api.apps.v1.ReplicaSet", "V1ReplicaSet"),
    "CustomResourceDefinition": (
        "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition",
        "V1CustomResourceDefinition",
    ),
    "SelfSubjectAccessReview": ("io.k8s.api.authorization.v1.SelfSubjectAccessReview", "V1SelfSubjectAccessReview"),
    "Scale": ("io.k8s.api.autoscaling.v1.Scale", "V1Scale"),
}

_SCALARS = {
    "str": {"type": "string"},
    "bytes": {"type": "string", "format": "byte"},
    "int": {"type": "integer"},
    "bool": {"type": "boolean"},
    "float": {"type": "number"},
    "datetime": {"type": "string", "format": "date-time"},
    "date": {"type": "string", "format": "date"},
    "object": {},
}


def _type_schema(t: str, defs: dict) -> dict:
    t = t.strip()
    if t in _SCALARS:
        return dict(_SCALARS[t])
    m = re.fullmatch(r"(?:List|list)\[(.+)\]", t)
    if m:
        return {"type": "array", "items": _type_schema(m.group(1), defs)}
    m = re.fullmatch(r"(?:Dict|dict)[\[(]str, *(.+)[\])]", t)
    if m:
        return {"type": "object", "additionalProperties": _type_schema(m.group(1), defs)}
    return _model_ref(t, defs)


def _model_ref(cls_name: str, defs: dict, name: str | None = None) -> dict:
    from kubernetes.client import models

    name = name or cls_name
    if name not in defs:
        cls = getattr(models, cls_name)
        defs[name] = {}  # placed first: models refer to themselves (JSONSchemaProps)
        props = {cls.attribute_map[a]: _type_schema(t, defs) for a, t in cls.openapi_types.items()}
        defs[name] = {"type": "object", "properties": props, "additionalProperties": False}
    return {"$ref": f"#/components/schemas/{name}"}


def _crd_schema(crd: dict, defs: dict) -> dict:
    version = crd["spec"]["versions"][0]
    schema = orjson.loads(orjson.dumps(version["schema"]["openAPIV3Schema"]))
    props = schema.setdefault("properties", {})
    props.update(
        {"apiVersion": {"type": "string"}, "kind": {"type": "string"}, "metadata": _model_ref("V1ObjectMeta", defs)}
    )
    return schema


@functools.lru_cache(maxsize=1)
def _all_schemas() -> tuple[dict, dict]:
    """(every schema by name, kind -> top-level schema name), built once."""
    defs: dict = {}
    names = {}
    for kind, (name, cls) in MODELS.items():
        _model_ref(cls, defs, name)
        names[kind] = name
    crd = widget_crd()
    wname = "com.example.v1.Widget"
    defs[wname] = _crd_schema(crd, defs)
    names["Widget"] = wname
    return defs, names


def component_schemas() -> dict:
    """``components.schemas`` of every served kind and what they refer to."""
    return _all_schemas()[0]


def schema_name(kind: str) -> str | None:
    return _all_schemas()[1].get(kind)


def _gv_path(group: str, version: str) -> str:
    return f"api/{version}" if not group else f"apis/{group}/{version}"


def root_document(registry: Registry) -> dict:
    paths = {}
    for group, versions in registry.groups().items():
        for v in versions:
            p = _gv_path(group, v)
            digest = hashlib.sha256(orjson.dumps(gv_document(registry, group, v))).hexdigest()[:32].upper()
            paths[p] = {"serverRelativeURL": f"/openapi/v3/{p}?hash={digest}"}
    return {"paths": paths}


def gv_document(registry: Registry, group: str, version: str) -> dict | None:
    defs = [d for d in registry.defs if d.group == group and d.version == version]
    if not defs:
        return None
    base = "/" + _gv_path(group, version)
    params = [
        {"name": n, "in": "query", "schema": {"type": "string", "uniqueItems": True}}
        for n in ("dryRun", "fieldManager", "fieldValidation")
    ]
    paths = {}
    for d in defs:
        gvk = {"group": d.group, "version": d.version, "kind": d.kind}
        op = {"x-kubernetes-group-version-kind": gvk, "parameters": params, "responses": {"200": {"description": "OK"}}}
        item = (
            f"{base}/namespaces/{{namespace}}/{d.resource}/{{name}}"
            if d.namespaced
            else f"{base}/{d.resource}/{{name}}"
        )
        coll = f"{base}/namespaces/{{namespace}}/{d.resource}" if d.namespaced else f"{base}/{d.resource}"
        paths[item] = {
            "get": {"x-kubernetes-group-version-kind": gvk, "responses": {"200": {"description": "OK"}}},
            "put": op,
            "patch": op,
            "delete": op,
        }
        paths[coll] = {"post": op}
    schemas = dict(component_schemas())
    for d in defs:
        name = schema_name(d.kind)
        if name:
            schemas[name] = {
                **schemas[name],
                "x-kubernetes-group-version-kind": [{"group": d.group, "version": d.version, "kind": d.kind}],
            }
    return {
        "openapi": "3.0.0",
        "info": {"title": "Kubernetes (kubectl-informer simulator)", "version": "v1.32.0"},
        "paths": paths,
        "components": {"schemas": schemas},
    }


def v2_document() -> dict:
    return {
        "swagger": "2.0",
        "info": {"title": "Kubernetes (kubectl-informer simulator)", "version": "v1.32.0"},
        "paths": {},
        "definitions": {},
    }
