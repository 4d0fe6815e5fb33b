"""Minimal OpenAPI v3 documents, just enough for kubectl.

kubectl (1.27+) validates manifests before ``create`` / ``apply``: it fetches
``/openapi/v3`` and, per group-version, looks for the PATCH operation of the
object's kind and whether it accepts the ``fieldValidation`` query parameter.
When it does, kubectl leaves validation to the server (which here accepts
any fields). These documents publish exactly that, and no schemas.
"""

from __future__ import annotations

import hashlib

import orjson

from kubectl_informer.sim.resources import Registry


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
    params = [{"name": n, "in": "query", "schema": {"type": "string", "uniqueItems": True}}
              for n in ("dryRun", "fieldManager", "fieldValidation")]
    paths = {}
    for d in defs:
        gvk = {"group": d.group, "version": d.version, "kind": d.kind}
        op = {"x-kubernetes-group-version-kind": gvk, "parameters": params,
              "responses": {"200": {"description": "OK"}}}
        item = (f"{base}/namespaces/{{namespace}}/{d.resource}/{{name}}" if d.namespaced
                else f"{base}/{d.resource}/{{name}}")
        coll = f"{base}/namespaces/{{namespace}}/{d.resource}" if d.namespaced else f"{base}/{d.resource}"
        paths[item] = {"get": {"x-kubernetes-group-version-kind": gvk, "responses": {"200": {"description": "OK"}}},
                       "put": op, "patch": op, "delete": op}
        paths[coll] = {"post": op}
    return {"openapi": "3.0.0",
            "info": {"title": "Kubernetes (kubectl-informer simulator)", "version": "v1.32.0"},
            "paths": paths, "components": {"schemas": {}}}


def v2_document() -> dict:
    return {"swagger": "2.0", "info": {"title": "Kubernetes (kubectl-informer simulator)", "version": "v1.32.0"},
            "paths": {}, "definitions": {}}
