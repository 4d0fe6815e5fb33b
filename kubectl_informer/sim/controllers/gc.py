"""The garbage collector (pkg/controller/garbagecollector), simulated, for
the three propagation policies of a delete and for dangling owners:

- Background: the owner is gone at once; then each dependent is looked at
  (``attemptToDeleteItem``, its references sorted by ``classifyReferences``):
  one with another live owner only loses the references to owners that are
  gone or deleting their dependents; the others are deleted (in the
  foreground when their own finalizer asks for it);
- Foreground: the owner stays with the ``foregroundDeletion`` finalizer
  while its dependents are deleted; a dependent is itself deleted in the
  foreground only when it has dependents of its own (a leaf pod goes in the
  background); the finalizer goes once no dependent whose reference has
  ``blockOwnerDeletion`` is left (``processDeletingDependentsItem``);
- Orphan: the owner stays with the ``orphan`` finalizer until its dependents'
  references to it are removed, then goes; the dependents stay.
- Dangling owners: an object whose owner reference names an object that is
  not there (looked up by name, then UID, as ``isDangling`` does) is
  collected like the dependent of a deleted owner, at start and when it is
  written (the graph builder's virtual owner nodes).

Dependents are looked for in the owner's namespace, in every namespaced
resource but events. Pods and Events are never owners here (the simulated
controllers make neither own anything), and a pod's dangling owner is not
collected: the scenarios and the demo's seed make pods whose ReplicaSet
does not exist, which a real cluster's collector would delete.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kubectl_informer.core.apierrors import ApiError
from kubectl_informer.sim.controllers.owners import get_or_none, is_deleting

if TYPE_CHECKING:
    from kubectl_informer.sim.store import Store

ORPHAN, FOREGROUND = "orphan", "foregroundDeletion"
NOT_OWNERS = ("pods", "events")


def dependents(store: Store, namespace: str, uid: str) -> list[tuple[str, dict]]:
    """(resource, object) for every object in ``namespace`` with an ownerReference to ``uid``."""
    needle = uid.encode()
    out = []
    for rdef in store.registry.defs:
        if not rdef.namespaced or rdef.qualified == "events":
            continue
        for key in store.keys(rdef, namespace):
            try:
                e = store.get_entry(rdef, namespace, key.partition("/")[2])
            except ApiError:
                continue  # deleted meanwhile
            if needle not in e.raw:  # cheap test first: most objects do not mention the UID at all
                continue
            obj = e.obj()
            if any(ref.get("uid") == uid for ref in obj["metadata"].get("ownerReferences") or []):
                out.append((rdef.qualified, obj))
    return out


def owned_kinds(store: Store) -> list:
    """The resources whose objects' owners are checked (all namespaced ones but pods and events)."""
    return [rdef for rdef in store.registry.defs if rdef.namespaced and rdef.qualified not in NOT_OWNERS]


def owner_exists(store: Store, namespace: str, ref: dict) -> bool:
    """Not dangling: an object of the reference's kind and name, with its UID."""
    return _owner(store, namespace, ref) is not None


def _owner(store: Store, namespace: str, ref: dict) -> dict | None:
    try:
        rdef = store.registry.lookup(ref.get("kind", ""))
    except KeyError:
        return None
    obj = get_or_none(store, rdef, namespace if rdef.namespaced else None, ref.get("name", ""))
    return obj if obj is not None and obj["metadata"].get("uid") == ref.get("uid") else None


def _delete(store: Store, resource: str, obj: dict, policy: str) -> None:
    meta = obj["metadata"]
    try:
        store.delete(
            resource,
            meta.get("namespace"),
            meta["name"],
            precondition_uid=meta["uid"],
            grace_period=None,
            propagation=policy,
        )
    except ApiError as e:
        if e.status not in (404, 409):  # gone, or replaced by a namesake: not ours to delete
            raise


def _drop_refs(store: Store, resource: str, obj: dict, uids: set[str | None]) -> None:
    """Remove the ownerReferences to ``uids`` (the collector's patch)."""
    meta = obj["metadata"]
    refs = [ref for ref in meta.get("ownerReferences") or [] if ref.get("uid") not in uids]
    current = get_or_none(store, resource, meta.get("namespace"), meta["name"])
    if current is None or current["metadata"].get("uid") != meta["uid"]:
        return
    if refs:
        current["metadata"]["ownerReferences"] = refs
    else:
        current["metadata"].pop("ownerReferences", None)
    store.update(resource, current)


def classify(store: Store, namespace: str, obj: dict) -> tuple[list[dict], list[dict], list[dict]]:
    """classifyReferences: (solid, dangling, waiting for dependents' deletion)."""
    solid, dangling, waiting = [], [], []
    for ref in obj["metadata"].get("ownerReferences") or []:
        owner = _owner(store, namespace, ref)
        if owner is None:
            dangling.append(ref)
        elif is_deleting(owner) and FOREGROUND in (owner["metadata"].get("finalizers") or []):
            waiting.append(ref)
        else:
            solid.append(ref)
    return solid, dangling, waiting


def _has_dependents(store: Store, resource: str, obj: dict) -> bool:
    if resource in NOT_OWNERS:
        return False
    return bool(dependents(store, obj["metadata"].get("namespace") or "", obj["metadata"]["uid"]))


def attempt_to_delete(store: Store, resource: str, obj: dict) -> None:
    """attemptToDeleteItem on a dependent: keep it when an owner is solid
    (dropping the references to the others), else delete it."""
    meta = obj["metadata"]
    if is_deleting(obj) or not meta.get("ownerReferences"):
        return  # being deleted already (its own finalizers handled elsewhere), or owns-free
    solid, dangling, waiting = classify(store, meta.get("namespace") or "", obj)
    if solid:
        if dangling or waiting:
            _drop_refs(store, resource, obj, {ref.get("uid") for ref in dangling + waiting})
        return
    if waiting and _has_dependents(store, resource, obj):
        _delete(store, resource, obj, "Foreground")
        return
    finalizers = meta.get("finalizers") or []
    _delete(
        store,
        resource,
        obj,
        "Orphan" if ORPHAN in finalizers else "Foreground" if FOREGROUND in finalizers else "Background",
    )


def owner_gone(store: Store, namespace: str, uid: str) -> None:
    """An owner was deleted or found missing: look at each of its dependents."""
    for resource, obj in dependents(store, namespace, uid):
        attempt_to_delete(store, resource, obj)


def owner_deleting(store: Store, resource: str, namespace: str | None, name: str) -> bool:
    """An owner carries a GC finalizer: act on it. True while it must be looked at again."""
    obj = get_or_none(store, resource, namespace, name)
    if obj is None or not is_deleting(obj):
        return False
    meta = obj["metadata"]
    finalizers = meta.get("finalizers") or []
    deps = dependents(store, meta.get("namespace") or "", meta["uid"]) if namespace else []
    if ORPHAN in finalizers:
        for dep_resource, dep in deps:
            _drop_refs(store, dep_resource, dep, {meta["uid"]})
        return _remove_finalizer(store, resource, obj, ORPHAN)
    if FOREGROUND not in finalizers:
        return False
    for dep_resource, dep in deps:
        attempt_to_delete(store, dep_resource, dep)
    # blockingDependents, after the references dropped just now.
    left = dependents(store, namespace, meta["uid"]) if namespace else []
    if any(
        ref.get("uid") == meta["uid"] and ref.get("blockOwnerDeletion") is True
        for _, dep in left
        for ref in dep["metadata"].get("ownerReferences") or []
    ):
        return True  # dependents' deletions bring us back
    return _remove_finalizer(store, resource, obj, FOREGROUND)


def _remove_finalizer(store: Store, resource: str, obj: dict, finalizer: str) -> bool:
    obj["metadata"]["finalizers"] = [f for f in obj["metadata"].get("finalizers") or [] if f != finalizer]
    try:
        store.update(resource, obj)
    except ApiError as e:
        if e.status == 409:
            return True  # changed meanwhile: look again
        if e.status != 404:
            raise
    return False
