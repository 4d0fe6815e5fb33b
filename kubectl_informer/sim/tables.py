"""Table responses (``Accept: application/json;as=Table;g=meta.k8s.io;v=v1``).

kubectl's ``get`` prints what the server's Table says, so the columns and
cells here are those of kube-apiserver's printers for the kinds we serve
(pods, deployments, replicasets, configmaps, secrets, namespaces, events), the default
"Name / Created At" of CustomResourceDefinitions, and for custom resources
their CRD's ``additionalPrinterColumns``. Columns of priority 1 are the
extra ones ``-o wide`` shows.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from kubectl_informer.core.apierrors import ApiError
from kubectl_informer.core.label_selector_object import format_selector
from kubectl_informer.sim import negotiation

if TYPE_CHECKING:
    from kubectl_informer.sim.resources import ResourceDef
    from kubectl_informer.sim.store import Store

# A kind's printer: its column definitions, and an object's cells.
_Printer = tuple[list[dict], Callable[[dict], list]]

_NAME_DESC = "Name must be unique within a namespace."
_AGE_DESC = "CreationTimestamp is a timestamp representing the server time when this object was created."


def human_duration(seconds: float) -> str:
    """Age as kubectl prints it (apimachinery's ``duration.HumanDuration``)."""
    s = int(seconds)
    if s < -1:
        return "<invalid>"
    if s < 0:
        return "0s"
    if s < 120:
        return f"{s}s"
    m = s // 60
    if m < 10:
        return f"{m}m{s % 60}s" if s % 60 else f"{m}m"
    if m < 180:
        return f"{m}m"
    h = m // 60
    if h < 8:
        return f"{h}h{m % 60}m" if m % 60 else f"{h}h"
    if h < 48:
        return f"{h}h"
    if h < 24 * 8:
        return f"{h // 24}d{h % 24}h" if h % 24 else f"{h // 24}d"
    if h < 24 * 365 * 2:
        return f"{h // 24}d"
    if h < 24 * 365 * 8:
        dy = h // 24 % 365
        return f"{h // 24 // 365}y{dy}d" if dy else f"{h // 24 // 365}y"
    return f"{h // 24 // 365}y"


def _parse_ts(ts: str | None) -> datetime | None:
    if not ts:
        return None
    try:
        return datetime.strptime(ts[:19], "%Y-%m-%dT%H:%M:%S").replace(tzinfo=UTC)
    except ValueError:
        return None


def since(ts: str | None) -> str:
    """``translateTimestampSince``: "<unknown>" for no time."""
    t = _parse_ts(ts)
    if t is None:
        return "<unknown>"
    return human_duration((datetime.now(UTC) - t).total_seconds())


def _col(name: str, typ: str = "string", priority: int = 0, fmt: str = "", desc: str = "") -> dict:
    return {"name": name, "type": typ, "format": fmt, "description": desc or name, "priority": priority}


NAME = _col("Name", fmt="name", desc=_NAME_DESC)
AGE = _col("Age", desc=_AGE_DESC)


def _meta(obj: dict) -> dict:
    return obj.get("metadata") or {}


def _age(obj: dict) -> str:
    return since(_meta(obj).get("creationTimestamp"))


def _none(v: str | None) -> str:
    return v if v else "<none>"


# ---------------------------------------------------------------- printers


def _pod_reason(pod: dict) -> tuple[str, int, int, int]:
    """(status, ready containers, containers, restarts) as kubectl's printPod."""
    status = pod.get("status") or {}
    spec_containers = (pod.get("spec") or {}).get("containers") or []
    reason = status.get("reason") or status.get("phase") or "Unknown"
    ready = restarts = 0
    for cs in status.get("containerStatuses") or []:
        restarts += int(cs.get("restartCount") or 0)
        state = cs.get("state") or {}
        if (state.get("waiting") or {}).get("reason"):
            reason = state["waiting"]["reason"]
        elif (state.get("terminated") or {}).get("reason"):
            reason = state["terminated"]["reason"]
        elif state.get("running") and cs.get("ready"):
            ready += 1
    if _meta(pod).get("deletionTimestamp"):
        reason = "Terminating"
    return reason, ready, len(spec_containers), restarts


def _pod_row(pod: dict) -> list:
    reason, ready, total, restarts = _pod_reason(pod)
    status = pod.get("status") or {}
    spec = pod.get("spec") or {}
    gates = spec.get("readinessGates") or []
    return [
        _meta(pod).get("name"),
        f"{ready}/{total}",
        reason,
        str(restarts),
        _age(pod),
        _none(status.get("podIP")),
        _none(spec.get("nodeName")),
        _none(status.get("nominatedNodeName")),
        f"0/{len(gates)}" if gates else "<none>",
    ]


def _deployment_row(d: dict) -> list:
    spec, st = d.get("spec") or {}, d.get("status") or {}
    containers = ((spec.get("template") or {}).get("spec") or {}).get("containers") or []
    desired = spec.get("replicas", 1)
    return [
        _meta(d).get("name"),
        f"{st.get('readyReplicas', 0)}/{desired}",
        st.get("updatedReplicas", 0),
        st.get("availableReplicas", 0),
        _age(d),
        ",".join(c.get("name", "") for c in containers),
        ",".join(c.get("image", "") for c in containers),
        format_selector(spec.get("selector")),
    ]


def _replicaset_row(rs: dict) -> list:
    spec, st = rs.get("spec") or {}, rs.get("status") or {}
    containers = ((spec.get("template") or {}).get("spec") or {}).get("containers") or []
    return [
        _meta(rs).get("name"),
        spec.get("replicas", 1),
        st.get("replicas", 0),
        st.get("readyReplicas", 0),
        _age(rs),
        ",".join(c.get("name", "") for c in containers),
        ",".join(c.get("image", "") for c in containers),
        format_selector(spec.get("selector")),
    ]


def _event_row(ev: dict) -> list:
    inv = ev.get("involvedObject") or {}
    src = ev.get("source") or {}
    source = ", ".join(x for x in (src.get("component"), src.get("host")) if x)
    last = ev.get("lastTimestamp") or ev.get("eventTime") or _meta(ev).get("creationTimestamp")
    first = ev.get("firstTimestamp") or ev.get("eventTime") or _meta(ev).get("creationTimestamp")
    return [
        since(last),
        ev.get("type", ""),
        ev.get("reason", ""),
        f"{(inv.get('kind') or '').lower()}/{inv.get('name', '')}",
        inv.get("fieldPath", ""),
        source,
        (ev.get("message") or "").strip(),
        since(first),
        int(ev.get("count") or 1),
        _meta(ev).get("name"),
    ]


_BUILTIN: dict[str, _Printer] = {
    "pods": (
        [
            NAME,
            _col("Ready"),
            _col("Status"),
            _col("Restarts"),
            AGE,
            _col("IP", priority=1),
            _col("Node", priority=1),
            _col("Nominated Node", priority=1),
            _col("Readiness Gates", priority=1),
        ],
        _pod_row,
    ),
    "deployments.apps": (
        [
            NAME,
            _col("Ready"),
            _col("Up-to-date", "integer"),
            _col("Available", "integer"),
            AGE,
            _col("Containers", priority=1),
            _col("Images", priority=1),
            _col("Selector", priority=1),
        ],
        _deployment_row,
    ),
    "replicasets.apps": (
        [
            NAME,
            _col("Desired", "integer"),
            _col("Current", "integer"),
            _col("Ready", "integer"),
            AGE,
            _col("Containers", priority=1),
            _col("Images", priority=1),
            _col("Selector", priority=1),
        ],
        _replicaset_row,
    ),
    "configmaps": (
        [NAME, _col("Data", "integer"), AGE],
        lambda o: [_meta(o).get("name"), len(o.get("data") or {}) + len(o.get("binaryData") or {}), _age(o)],
    ),
    "secrets": (
        [NAME, _col("Type"), _col("Data", "integer"), AGE],
        lambda o: [_meta(o).get("name"), o.get("type", ""), len(o.get("data") or {}), _age(o)],
    ),
    "namespaces": (
        [NAME, _col("Status"), AGE],
        lambda o: [_meta(o).get("name"), (o.get("status") or {}).get("phase", ""), _age(o)],
    ),
    "events": (
        [
            _col("Last Seen"),
            _col("Type"),
            _col("Reason"),
            _col("Object"),
            _col("Subobject", priority=1),
            _col("Source", priority=1),
            _col("Message"),
            _col("First Seen", priority=1),
            _col("Count", priority=1),
            _col("Name", priority=1, fmt="name", desc=_NAME_DESC),
        ],
        _event_row,
    ),
}

# kube-apiserver's default table (CustomResourceDefinitions use it).
_DEFAULT = (
    [NAME, _col("Created At", "date", desc=_AGE_DESC)],
    lambda o: [_meta(o).get("name"), _meta(o).get("creationTimestamp")],
)


# ---------------------------------------------------------------- custom resources


def _jsonpath(obj: dict, path: str) -> Any:
    """The simple ``.a.b.c`` JSONPaths printer columns use (None when absent)."""
    cur: Any = obj
    for part in path.strip().lstrip(".").split("."):
        if not part:
            continue
        cur = cur.get(part) if isinstance(cur, dict) else None
        if cur is None:
            return None
    return cur


def _cr_cell(col: dict, obj: dict) -> Any:
    v = _jsonpath(obj, col.get("jsonPath", ""))
    if v is None:
        return None
    if col.get("type") == "date":
        return since(v) if isinstance(v, str) else None
    return v


def printer_columns(crd: dict | None, version: str) -> list[dict] | None:
    """The CRD's additionalPrinterColumns for ``version`` (None: not declared)."""
    for v in ((crd or {}).get("spec") or {}).get("versions") or []:
        if v.get("name") == version and v.get("additionalPrinterColumns"):
            return v["additionalPrinterColumns"]
    return None


def _custom(columns: list[dict] | None) -> _Printer:
    if not columns:
        return [NAME, AGE], lambda o: [_meta(o).get("name"), _age(o)]
    defs = [NAME] + [
        _col(
            c["name"],
            c.get("type", "string"),
            int(c.get("priority") or 0),
            c.get("format", ""),
            c.get("description", ""),
        )
        for c in columns
    ]
    return defs, lambda o: [_meta(o).get("name")] + [_cr_cell(c, o) for c in columns]


# ---------------------------------------------------------------- the transform


class TableTransform:
    """Objects as a ``meta.k8s.io`` Table, with each row's object as
    ``includeObject`` asks (default: its metadata, which kubectl reads for
    ``-A``'s NAMESPACE column and ``--show-labels``)."""

    def __init__(self, version: str):
        self.version = version

    @staticmethod
    def _printer(rdef: ResourceDef, store: Store) -> _Printer:
        if rdef.qualified in _BUILTIN:
            return _BUILTIN[rdef.qualified]
        if rdef.group == "" or rdef.group.endswith(".k8s.io"):
            return _DEFAULT
        try:
            crd = store.get("customresourcedefinitions", None, f"{rdef.resource}.{rdef.group}")
        except ApiError:
            crd = None
        return _custom(printer_columns(crd, rdef.version))

    def _row(self, row_fn: Callable[[dict], list], obj: dict, include: str) -> dict:
        row: dict = {"cells": row_fn(obj)}
        if include == "Object":
            row["object"] = obj
        elif include != "None":
            row["object"] = {
                "kind": "PartialObjectMetadata",
                "apiVersion": f"meta.k8s.io/{self.version}",
                "metadata": _meta(obj),
            }
        return row

    def _table(self, rdef: ResourceDef, objs: list[dict], meta: dict, query: dict, store: Store) -> dict:
        cols, row_fn = self._printer(rdef, store)
        include = query.get("includeObject", "Metadata")
        return {
            "kind": "Table",
            "apiVersion": f"meta.k8s.io/{self.version}",
            "metadata": meta,
            "columnDefinitions": cols,
            "rows": [self._row(row_fn, o, include) for o in objs],
        }

    def list(self, rdef: ResourceDef, objs: list[dict], list_meta: dict, query: dict, store: Store) -> dict:
        return self._table(rdef, objs, list_meta, query, store)

    def object(self, rdef: ResourceDef, obj: dict, query: dict, store: Store) -> dict:
        return self._table(rdef, [obj], {"resourceVersion": _meta(obj).get("resourceVersion", "")}, query, store)


TABLE_V1 = TableTransform("v1")
TABLE_V1BETA1 = TableTransform("v1beta1")
negotiation.register("Table", "meta.k8s.io", "v1", TABLE_V1)
negotiation.register("Table", "meta.k8s.io", "v1beta1", TABLE_V1BETA1)
