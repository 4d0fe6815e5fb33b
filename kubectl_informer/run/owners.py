"""Owner mapping: several informers feeding one workqueue of the queue
resource's keys, as the Deployment controller feeds its queue of Deployments
from Deployment, ReplicaSet and Pod informers (controller-runtime's
``For(&Deployment{}).Owns(&ReplicaSet{})``).

An event on an owned object enqueues the key its controller ownerReference
leads to, following the chain through the resources the run also watches
(a Pod to its ReplicaSet to its Deployment). The rules are client-go's and
controller-runtime's:

- only the controller reference counts (``metav1.GetControllerOf``: the first
  ownerReference with ``controller: true``; controller-runtime's
  ``OnlyControllerOwner``); an object without one is an orphan and enqueues
  nothing (the Deployment controller would look for a Deployment to adopt it;
  we do not adopt);
- the reference names its owner's group and kind; the version does not count
  (controller-runtime compares group and kind); an ``apiVersion`` that does
  not parse matches nothing;
- the owner is looked up in its own informer's cache by namespace (the
  object's, for a namespaced owner) and name, and its UID must be the
  reference's (the Deployment controller's ``resolveControllerRef``): a UID
  mismatch, a name not cached, or a kind the run does not watch, drop the
  event, traced as ``owner.drop``;
- a deletion's ``DeletedFinalStateUnknown`` tombstone is mapped through the
  last known object it carries;
- an update whose controller reference changed enqueues the old owner too
  (``updateReplicaSet``/``updatePod``).

Each add carries its ``cause`` (trace only): the links from the key's
nearest owner back to the object whose event it was, each
``"<Kind> <namespace/name> <Event>"``; an owner found on the way is written
``Updated`` (its dependents changed).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kubectl_informer.cache.keys import DeletedFinalStateUnknown, deletion_handling_meta_namespace_key_func
from kubectl_informer.core.trace import NULL_TRACER, Tracer
from kubectl_informer.core.trace_kinds import OWNER_DROP

# A chain longer than this is a loop of references (or absurd): it reaches no key.
MAX_CHAIN = 8


@dataclass(frozen=True)
class Followed:
    """One informer of the run as the mapping sees it: its resource id
    ("replicasets.apps"), the kind and group its objects have, whether they
    are namespaced, and its cache (``get_by_key``)."""

    resource: str
    kind: str
    group: str
    namespaced: bool
    indexer: Any


class Dropped(Exception):
    """An event that leads to no key: ``reason`` as ``owner.drop`` says it."""

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


def group_of(api_version: Any) -> str | None:
    """The group of an ownerReference's apiVersion ("apps/v1" -> "apps",
    "v1" -> ""), None when it does not parse (schema.ParseGroupVersion)."""
    if not isinstance(api_version, str) or not api_version or api_version.count("/") > 1:
        return None
    group, _, version = api_version.rpartition("/")
    return group if version else None


def last_known(obj: Any) -> Any:
    """A tombstone's last known object; any other object itself."""
    return obj.obj if isinstance(obj, DeletedFinalStateUnknown) else obj


def _meta(obj: Any) -> dict:
    try:
        meta = obj["metadata"]
    except (KeyError, TypeError):
        return {}
    return meta if isinstance(meta, dict) else {}


def _link(kind: str, key: str, event: str) -> str:
    return f"{kind} {key} {event}"


class OwnerMapper:
    """The mapping from any watched object to the queue resource's key.
    ``followed`` lists every informer of the run; ``queue_resource`` names the
    one whose keys the queue holds."""

    def __init__(self, followed: list[Followed], queue_resource: str) -> None:
        self.by_resource = {f.resource: f for f in followed}
        if queue_resource not in self.by_resource:
            raise ValueError(f"the queue's resource {queue_resource!r} is not among the informers")
        self.queue = self.by_resource[queue_resource]
        self._by_group_kind = {(f.group, f.kind): f for f in followed}

    def key_for(self, obj: Any, source: Followed, event: str) -> tuple[str, list[str]]:
        """``(queue key, cause)`` for ``event`` on ``obj`` (a tombstone is
        read through), from ``source``'s informer; Dropped if it leads to none."""
        key = deletion_handling_meta_namespace_key_func(obj)
        obj = last_known(obj)
        cause = [_link(source.kind, key, event)]
        if source is self.queue:
            return key, cause
        current, seen = obj, {_meta(obj).get("uid")}
        for _ in range(MAX_CHAIN):
            owner_key, owner, followed = self._resolve(current)
            if followed is self.queue:
                return owner_key, cause
            uid = _meta(owner).get("uid")
            if uid in seen:  # a loop of controller references never reaches the queue's kind
                raise Dropped("not_queue_kind", f"{followed.kind} {owner_key}")
            seen.add(uid)
            cause.insert(0, _link(followed.kind, owner_key, "Updated"))
            current = owner
        raise Dropped("not_queue_kind", cause[0].rsplit(" ", 1)[0])

    def _resolve(self, obj: Any) -> tuple[str, Any, Followed]:
        """The Deployment controller's resolveControllerRef, for any kind the
        run watches: ``(owner key, owner object, its informer)``."""
        ref = controller_of(obj)
        if ref is None:
            raise Dropped("no_controller")
        name = ref.get("name") if isinstance(ref.get("name"), str) else ""
        kind = ref.get("kind") if isinstance(ref.get("kind"), str) else ""
        followed = self._by_group_kind.get((group_of(ref.get("apiVersion")), kind))
        namespace = _meta(obj).get("namespace") or ""
        if followed is None:
            raise Dropped("not_queue_kind", f"{kind} {namespace}/{name}" if namespace else f"{kind} {name}")
        owner_key = f"{namespace}/{name}" if followed.namespaced and namespace else name
        described = f"{followed.kind} {owner_key}"
        owner, exists = followed.indexer.get_by_key(owner_key)
        if not exists:
            raise Dropped("owner_not_cached", described)
        if _meta(owner).get("uid") != ref.get("uid"):
            raise Dropped("uid_mismatch", described)
        return owner_key, owner, followed


def _event_of_update(old: Any, new: Any) -> str:
    """Sync when both sides have one resourceVersion (a resync), else Updated."""
    rv_old, rv_new = _meta(old).get("resourceVersion"), _meta(new).get("resourceVersion")
    return "Sync" if rv_old is not None and rv_old == rv_new else "Updated"


class OwnerEnqueueHandler:
    """The controller's event handler on one informer of a run with several:
    each event enqueues the key the mapping finds, with its cause, or is
    traced as ``owner.drop``."""

    def __init__(self, mapper: OwnerMapper, source: str, queue: Any, tracer: Tracer | None = None) -> None:
        self.mapper = mapper
        self.source = mapper.by_resource[source]
        self.queue = queue
        self.tracer = tracer or NULL_TRACER

    def _enqueue(self, obj: Any, event: str, traced: bool = True) -> None:
        try:
            key, cause = self.mapper.key_for(obj, self.source, event)
        except Dropped as d:
            if traced and self.tracer.enabled:
                self.tracer.emit(OWNER_DROP, deletion_handling_meta_namespace_key_func(obj),
                                 informer=self.source.resource, event=event, reason=d.reason, owner=d.owner)
            return
        except (KeyError, TypeError):  # an object without metadata: client-go's handlers skip what they cannot key
            return
        self.queue.add(key, cause=cause)

    def on_add(self, obj: Any, is_in_initial_list: bool = False) -> None:
        self._enqueue(obj, "Added")

    def on_update(self, old: Any, new: Any) -> None:
        event = _event_of_update(old, new)
        old_ref, new_ref = controller_of(old), controller_of(new)
        if self.source is not self.mapper.queue and old_ref is not None and old_ref != new_ref:
            # The controller changed: the old owner hears of it too (quietly
            # when it is gone, as the Deployment controller's resolve is).
            self._enqueue(old, event, traced=False)
        self._enqueue(new, event)

    def on_delete(self, obj: Any) -> None:
        self._enqueue(obj, "Deleted")
