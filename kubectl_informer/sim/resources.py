"""The resource types the simulated API server serves, and their discovery.

Each ``ResourceDef`` carries what discovery publishes (kind, short names,
verbs, scope) and which field selectors the type supports, so the server,
the store and discovery documents all read one table.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

VERBS = ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"]

# Field selectors every type supports (kube-apiserver's DefaultClusterScopedAttr /
# DefaultNamespaceScopedAttr).
_META_FIELDS = ("metadata.name", "metadata.namespace")


@dataclass(frozen=True)
class ResourceDef:
    """A resource the simulated API server serves, as its discovery lists it."""

    group: str
    version: str
    resource: str  # plural
    kind: str
    namespaced: bool
    singular: str
    short_names: tuple[str, ...] = ()
    categories: tuple[str, ...] = ()
    # Extra field selectors beyond metadata.name / metadata.namespace: name -> dotted path.
    fields: tuple[tuple[str, tuple[str, ...]], ...] = ()
    verbs: tuple[str, ...] = tuple(VERBS)
    subresources: tuple[str, ...] = ()
    has_generation: bool = False

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    @property
    def list_kind(self) -> str:
        return self.kind + "List"

    @property
    def qualified(self) -> str:
        """``pods`` or ``deployments.apps``: the store's name for the type."""
        return f"{self.resource}.{self.group}" if self.group else self.resource

    @property
    def field_names(self) -> tuple[str, ...]:
        return _META_FIELDS + tuple(name for name, _ in self.fields)

    def field_values(self, obj: dict) -> dict[str, str]:
        """Values of the supported field selectors for ``obj`` (missing -> "")."""
        meta = obj.get("metadata") or {}
        out = {"metadata.name": meta.get("name") or "", "metadata.namespace": meta.get("namespace") or ""}
        for name, path in self.fields:
            cur: Any = obj
            for part in path:
                cur = cur.get(part) if isinstance(cur, dict) else None
                if cur is None:
                    break
            if cur is not None and cur != "":
                out[name] = str(cur)  # absent means "" to selectors: saves memory on 50k objects
        return out

    def api_resource(self) -> dict:
        """The APIResource entry of a discovery document."""
        d = {
            "name": self.resource,
            "singularName": self.singular,
            "namespaced": self.namespaced,
            "kind": self.kind,
            "verbs": list(self.verbs),
        }
        if self.short_names:
            d["shortNames"] = list(self.short_names)
        if self.categories:
            d["categories"] = list(self.categories)
        return d


_POD_FIELDS = (
    ("status.phase", ("status", "phase")),
    ("spec.nodeName", ("spec", "nodeName")),
    ("spec.restartPolicy", ("spec", "restartPolicy")),
    ("spec.schedulerName", ("spec", "schedulerName")),
    ("spec.serviceAccountName", ("spec", "serviceAccountName")),
    ("status.podIP", ("status", "podIP")),
    ("status.nominatedNodeName", ("status", "nominatedNodeName")),
)

NAMESPACES = ResourceDef(
    "",
    "v1",
    "namespaces",
    "Namespace",
    False,
    "namespace",
    ("ns",),
    fields=(("status.phase", ("status", "phase")),),
    verbs=("create", "delete", "get", "list", "patch", "update", "watch"),
    subresources=("status",),
)
PODS = ResourceDef(
    "", "v1", "pods", "Pod", True, "pod", ("po",), ("all",), fields=_POD_FIELDS, subresources=("status",)
)
CONFIGMAPS = ResourceDef("", "v1", "configmaps", "ConfigMap", True, "configmap", ("cm",))
SECRETS = ResourceDef("", "v1", "secrets", "Secret", True, "secret", (), fields=(("type", ("type",)),))
DEPLOYMENTS = ResourceDef(
    "apps",
    "v1",
    "deployments",
    "Deployment",
    True,
    "deployment",
    ("deploy",),
    ("all",),
    subresources=("status", "scale"),
    has_generation=True,
)
REPLICASETS = ResourceDef(
    "apps",
    "v1",
    "replicasets",
    "ReplicaSet",
    True,
    "replicaset",
    ("rs",),
    ("all",),
    subresources=("status", "scale"),
    has_generation=True,
)
EVENTS = ResourceDef(
    "",
    "v1",
    "events",
    "Event",
    True,
    "event",
    ("ev",),
    fields=tuple(
        (f, tuple(f.split(".")))
        for f in (
            "involvedObject.kind",
            "involvedObject.namespace",
            "involvedObject.name",
            "involvedObject.uid",
            "involvedObject.apiVersion",
            "involvedObject.resourceVersion",
            "involvedObject.fieldPath",
            "reason",
            "reportingComponent",
            "type",
        )
    )
    + (("source", ("source", "component")),),
)
# Answered, never stored: every access is allowed (``kubectl auth can-i``).
SELF_SUBJECT_ACCESS_REVIEWS = ResourceDef(
    "authorization.k8s.io",
    "v1",
    "selfsubjectaccessreviews",
    "SelfSubjectAccessReview",
    False,
    "selfsubjectaccessreview",
    verbs=("create",),
)
CRDS = ResourceDef(
    "apiextensions.k8s.io",
    "v1",
    "customresourcedefinitions",
    "CustomResourceDefinition",
    False,
    "customresourcedefinition",
    ("crd", "crds"),
    ("api-extensions",),
    subresources=("status",),
    has_generation=True,
)
WIDGETS = ResourceDef(
    "example.com",
    "v1",
    "widgets",
    "Widget",
    True,
    "widget",
    ("wd",),
    ("all",),
    subresources=("status",),
    has_generation=True,
)

BUILTIN: tuple[ResourceDef, ...] = (
    NAMESPACES,
    PODS,
    CONFIGMAPS,
    SECRETS,
    EVENTS,
    DEPLOYMENTS,
    REPLICASETS,
    CRDS,
    WIDGETS,
    SELF_SUBJECT_ACCESS_REVIEWS,
)

# Discovery's kind/group/version of a subresource that is not the parent kind.
_SUBRESOURCE_KINDS = {"scale": ("autoscaling", "v1", "Scale")}
# The verbs of each subresource (discovery publishes them; the server refuses others with 405).
SUBRESOURCE_VERBS: dict[str, tuple[str, ...]] = {
    "status": ("get", "patch", "update"),
    "scale": ("get", "patch", "update"),
}


def widget_crd() -> dict:
    """The CustomResourceDefinition object that declares ``widgets.example.com``."""
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {
            "group": "example.com",
            "names": {
                "plural": "widgets",
                "singular": "widget",
                "kind": "Widget",
                "listKind": "WidgetList",
                "shortNames": ["wd"],
                "categories": ["all"],
            },
            "scope": "Namespaced",
            "versions": [
                {
                    "name": "v1",
                    "served": True,
                    "storage": True,
                    "subresources": {"status": {}},
                    "additionalPrinterColumns": [
                        {"name": "Size", "type": "integer", "jsonPath": ".spec.size", "description": "How big it is"},
                        {"name": "Color", "type": "string", "jsonPath": ".spec.color"},
                        {"name": "Ready", "type": "boolean", "jsonPath": ".status.ready", "priority": 1},
                        {"name": "Age", "type": "date", "jsonPath": ".metadata.creationTimestamp"},
                    ],
                    "schema": {
                        "openAPIV3Schema": {
                            "type": "object",
                            "properties": {
                                "spec": {
                                    "type": "object",
                                    "properties": {"size": {"type": "integer"}, "color": {"type": "string"}},
                                },
                                "status": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
                            },
                        }
                    },
                }
            ],
        },
        "status": {
            "conditions": [{"type": "Established", "status": "True", "reason": "InitialNamesAccepted"}],
            "acceptedNames": {
                "plural": "widgets",
                "singular": "widget",
                "kind": "Widget",
                "listKind": "WidgetList",
                "shortNames": ["wd"],
                "categories": ["all"],
            },
            "storedVersions": ["v1"],
        },
    }


def _discovery_entry(d: ResourceDef) -> dict:
    """One APIResourceDiscovery: the resource, its kind, scope and verbs, and
    its subresources with their own kind and verbs."""
    entry: dict = {
        "resource": d.resource,
        "responseKind": {"group": d.group, "version": d.version, "kind": d.kind},
        "scope": "Namespaced" if d.namespaced else "Cluster",
        "singularResource": d.singular,
        "verbs": list(d.verbs),
    }
    if d.short_names:
        entry["shortNames"] = list(d.short_names)
    if d.categories:
        entry["categories"] = list(d.categories)
    subs = []
    for sub in sorted(d.subresources):
        g, v, kind = _SUBRESOURCE_KINDS.get(sub, (d.group, d.version, d.kind))
        subs.append(
            {
                "subresource": sub,
                "responseKind": {"group": g, "version": v, "kind": kind},
                "verbs": list(SUBRESOURCE_VERBS[sub]),
            }
        )
    if subs:
        entry["subresources"] = subs
    return entry


@dataclass
class Registry:
    """The served types, looked up by any name kubectl might use."""

    defs: list[ResourceDef] = field(default_factory=lambda: list(BUILTIN))

    def by_path(self, group: str, version: str, resource: str) -> ResourceDef | None:
        for d in self.defs:
            if d.group == group and d.version == version and d.resource == resource:
                return d
        return None

    def lookup(self, name: str | ResourceDef) -> ResourceDef:
        """``pods``, ``pod``, ``po``, ``Pod``, ``deployments.apps``: KeyError if unknown."""
        if isinstance(name, ResourceDef):
            return name
        low = name.lower()
        for d in self.defs:
            if low in (d.qualified, d.resource, d.singular, d.kind.lower()) or low in d.short_names:
                return d
            if "." in low and low.split(".", 1) == [d.resource, d.group]:
                return d
        raise KeyError(f"unknown resource {name!r}")

    def groups(self) -> dict[str, list[str]]:
        """group -> versions, in registration order (core group "" included)."""
        out: dict[str, list[str]] = {}
        for d in self.defs:
            vs = out.setdefault(d.group, [])
            if d.version not in vs:
                vs.append(d.version)
        return out

    def resource_list(self, group: str, version: str) -> dict | None:
        """The APIResourceList for /api/v1 or /apis/<group>/<version>."""
        defs = [d for d in self.defs if d.group == group and d.version == version]
        if not defs:
            return None
        resources = []
        for d in defs:
            resources.append(d.api_resource())
            for sub in d.subresources:
                entry = {
                    "name": f"{d.resource}/{sub}",
                    "singularName": "",
                    "namespaced": d.namespaced,
                    "kind": d.kind,
                    "verbs": list(SUBRESOURCE_VERBS[sub]),
                }
                if sub in _SUBRESOURCE_KINDS:
                    entry["group"], entry["version"], entry["kind"] = _SUBRESOURCE_KINDS[sub]
                resources.append(entry)
        return {
            "kind": "APIResourceList",
            "apiVersion": "v1",
            "groupVersion": f"{group}/{version}" if group else version,
            "resources": resources,
        }

    def group_list(self) -> dict:
        groups = []
        for g, versions in self.groups().items():
            if not g:
                continue
            vs = [{"groupVersion": f"{g}/{v}", "version": v} for v in versions]
            groups.append({"name": g, "versions": vs, "preferredVersion": vs[0]})
        return {"kind": "APIGroupList", "apiVersion": "v1", "groups": groups}

    def aggregated(self, core: bool) -> dict:
        """The APIGroupDiscoveryList of /api (``core``) or /apis, as the API
        server serves it (apidiscovery.k8s.io/v2): every group's versions,
        preferred first, and their resources with subresources folded in."""
        items = []
        for g, versions in self.groups().items():
            if bool(g) == core:
                continue
            meta = {"name": g, "creationTimestamp": None} if g else {"creationTimestamp": None}
            vs = [
                {
                    "version": v,
                    "resources": [_discovery_entry(d) for d in self.defs if d.group == g and d.version == v],
                    "freshness": "Current",
                }
                for v in versions
            ]
            items.append({"metadata": meta, "versions": vs})
        return {"kind": "APIGroupDiscoveryList", "apiVersion": "apidiscovery.k8s.io/v2", "metadata": {}, "items": items}

    def group(self, name: str) -> dict | None:
        versions = self.groups().get(name)
        if not name or not versions:
            return None
        vs = [{"groupVersion": f"{name}/{v}", "version": v} for v in versions]
        return {"kind": "APIGroup", "apiVersion": "v1", "name": name, "versions": vs, "preferredVersion": vs[0]}
