"""controller-runtime's shape of a controller with several informers:
``For(&Deployment{}).Owns(&ReplicaSet{})`` (``queue deployments --owns
replicasets``). The queue resource's own events enqueue their key
(``handler.EnqueueRequestForObject``); every event of an owned resource
enqueues the key its controller ownerReference names
(``handler.EnqueueRequestForOwner(scheme, mapper, owner,
OnlyControllerOwner())``, as ``Owns()`` builds it), by the rules of
controller-runtime's ``pkg/handler/enqueue_owner.go``:

- only the controller reference counts (``metav1.GetControllerOf``: the first
  ownerReference with ``controller: true``); an object without one enqueues
  nothing, and neither does one whose controller is of another kind, even if
  another, non-controller reference names the queue's kind;
- the reference's group (parsed from its ``apiVersion`` as
  ``schema.ParseGroupVersion`` does) and kind must be the queue resource's;
  the version does not count; an ``apiVersion`` that does not parse
  enqueues nothing;
- the key is the reference's name in the *object's* namespace, or the bare
  name when the owner's resource is cluster-scoped (the RESTMapper's scope);
  nothing is looked up in any cache and no UID is compared: the owner need
  not exist;
- on update, the owners of the old and of the new object are both enqueued,
  each once (``getOwnerReconcileRequest`` on both into one set), so a changed
  controller reference wakes both;
- one reference is followed, never two: a Pod's controller is a ReplicaSet,
  so ``Owns(&Pod{})`` on a Deployment reconciler enqueues nothing for it.

Each add carries its ``cause`` (trace only): the one event the run saw,
``"<Kind> <namespace/name> <Event>"``, and ``via``, the upstream handler.
An event that enqueues nothing is traced as ``owner.drop``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kubectl_informer.cache.keys import deletion_handling_meta_namespace_key_func
from kubectl_informer.core.objects import DeletedFinalStateUnknown
from kubectl_informer.core.trace import NULL_TRACER, Tracer
from kubectl_informer.core.trace_kinds import OWNER_DROP

FOR_OBJECT = "EnqueueRequestForObject"
FOR_OWNER = "EnqueueRequestForOwner"


@dataclass(frozen=True)
class Followed:
    """One informer of the run as a handler sees it: its resource id
    ("replicasets.apps"), the kind and group its objects have, whether they
    are namespaced, and its cache (``get_by_key``, ``list``)."""

    resource: str
    kind: str
    group: str
    namespaced: bool
    indexer: Any


class Dropped(Exception):
    """An event that enqueues nothing: ``reason`` as ``owner.drop`` says it,
    ``owner`` the reference or object that failed ("<Kind> <namespace/name>")."""

    def __init__(self, reason: str, owner: str = "") -> None:
        super().__init__(reason)
        self.reason, self.owner = reason, owner


def controller_of(obj: Any) -> dict | None:
    """metav1.GetControllerOf: the first ownerReference with controller true."""
    try:
        refs = obj["metadata"].get("ownerReferences") or ()
    except (KeyError, TypeError, AttributeError):
        return None
    for ref in refs:
        if isinstance(ref, dict) and ref.get("controller") is True:
            return ref
    return None


def parse_group_version(api_version: Any) -> tuple[str, str] | None:
    """schema.ParseGroupVersion: ``(group, version)``; "" and "/" are the
    empty group and version, "v1" the core group, "apps/v1" group apps;
    None for what does not parse (more than one "/", not a string)."""
    if api_version is None:
        api_version = ""
    if not isinstance(api_version, str) or api_version.count("/") > 1:
        return None
    if api_version in ("", "/"):
        return "", ""
    group, _, version = api_version.rpartition("/")
    return group, version


def group_of(api_version: Any) -> str | None:
    """The group of an ownerReference's apiVersion, None when it does not parse."""
    gv = parse_group_version(api_version)
    return None if gv is None else gv[0]


def last_known(obj: Any) -> Any:
    """A tombstone's last known object; any other object itself."""
    return obj.obj if isinstance(obj, DeletedFinalStateUnknown) else obj


def meta_of(obj: Any) -> dict:
    try:
        meta = obj["metadata"]
    except (KeyError, TypeError):
        return {}
    return meta if isinstance(meta, dict) else {}


def link(kind: str, key: str, event: str) -> str:
    """One link of a cause: ``"ReplicaSet default/web-5887 Updated"``."""
    return f"{kind} {key} {event}"


def event_of_update(old: Any, new: Any) -> str:
    """Sync when both sides have one resourceVersion (a resync), else Updated."""
    rv_old, rv_new = meta_of(old).get("resourceVersion"), meta_of(new).get("resourceVersion")
    return "Sync" if rv_old is not None and rv_old == rv_new else "Updated"


def ref_described(ref: dict, namespace: str) -> str:
    """``"Deployment default/web"``: what a reference names, for owner.drop."""
    kind = ref.get("kind") if isinstance(ref.get("kind"), str) else ""
    name = ref.get("name") if isinstance(ref.get("name"), str) else ""
    return f"{kind} {namespace}/{name}" if namespace else f"{kind} {name}"


def owner_request(obj: Any, owner: Followed) -> str:
    """enqueueRequestForOwner.getOwnerReconcileRequest with OnlyControllerOwner:
    the key ``obj``'s controller reference names when it is of ``owner``'s
    group and kind; Dropped otherwise."""
    ref = controller_of(obj)
    if ref is None:
        raise Dropped("no_controller")
    namespace = meta_of(obj).get("namespace") or ""
    gv = parse_group_version(ref.get("apiVersion"))
    if gv is None:
        raise Dropped("bad_api_version", ref_described(ref, namespace))
    if ref.get("kind") != owner.kind or gv[0] != owner.group:
        raise Dropped("not_queue_kind", ref_described(ref, namespace))
    name = ref.get("name")
    if not isinstance(name, str):
        name = ""
    return f"{namespace}/{name}" if owner.namespaced and namespace else name


class TracedEnqueue:
    """What both shapes' handlers share: the queue, the tracer, the informer."""

    def __init__(self, source: Followed, queue: Any, tracer: Tracer | None) -> None:
        self.source, self.queue, self.tracer = source, queue, tracer or NULL_TRACER

    def drop(self, obj: Any, event: str, d: Dropped) -> None:
        if self.tracer.enabled:
            self.tracer.emit(
                OWNER_DROP,
                deletion_handling_meta_namespace_key_func(obj),
                informer=self.source.resource,
                event=event,
                reason=d.reason,
                owner=d.owner,
            )

    def enqueue(self, key: str, obj: Any, event: str, via: str) -> None:
        self.queue.add(
            key, cause=[link(self.source.kind, deletion_handling_meta_namespace_key_func(obj), event)], via=via
        )


class ForObjectHandler(TracedEnqueue):
    """handler.EnqueueRequestForObject on the queue resource's informer
    (``For()``): each event enqueues the object's own key (an update, the new
    object's; a deletion's tombstone, its key)."""

    def _enqueue(self, obj: Any, event: str) -> None:
        try:
            key = deletion_handling_meta_namespace_key_func(obj)
        except (KeyError, TypeError):  # client-go's handlers skip what they cannot key
            return
        self.enqueue(key, obj, event, FOR_OBJECT)

    def on_add(self, obj: Any, is_in_initial_list: bool = False) -> None:
        self._enqueue(obj, "Added")

    def on_update(self, old: Any, new: Any) -> None:
        self._enqueue(new, event_of_update(old, new))

    def on_delete(self, obj: Any) -> None:
        self._enqueue(obj, "Deleted")


class ForOwnerHandler(TracedEnqueue):
    """handler.EnqueueRequestForOwner(..., OnlyControllerOwner()) on an owned
    resource's informer (``Owns()``): ``owner`` is the queue resource."""

    def __init__(self, owner: Followed, source: Followed, queue: Any, tracer: Tracer | None = None) -> None:
        super().__init__(source, queue, tracer)
        self.owner = owner

    def _enqueue(self, event_obj: Any, objs: tuple, event: str) -> None:
        try:
            deletion_handling_meta_namespace_key_func(event_obj)
        except (KeyError, TypeError):
            return
        keys: dict[str, None] = {}
        dropped = None
        for obj in objs:
            try:
                keys[owner_request(last_known(obj), self.owner)] = None
            except Dropped as d:
                dropped = d
        if not keys and dropped is not None:
            self.drop(event_obj, event, dropped)
        for key in keys:
            self.enqueue(key, event_obj, event, FOR_OWNER)

    def on_add(self, obj: Any, is_in_initial_list: bool = False) -> None:
        self._enqueue(obj, (obj,), "Added")

    def on_update(self, old: Any, new: Any) -> None:
        self._enqueue(new, (old, new), event_of_update(old, new))

    def on_delete(self, obj: Any) -> None:
        self._enqueue(obj, (obj,), "Deleted")
