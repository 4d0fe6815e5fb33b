"""The garbage collector (pkg/controller/garbagecollector), simulated, for
the three propagation policies of a delete:

- Background: the owner is gone at once; each dependent whose owners are
  all gone is deleted in turn (one with another live owner only loses the
  dangling reference);
- Foreground: the owner stays with the ``foregroundDeletion`` finalizer while
  its dependents are deleted (in the foreground themselves when their
  reference has blockOwnerDeletion); once no blocking dependent is left the
  finalizer goes, and with it the owner;
- Orphan: the owner stays with the ``orphan`` finalizer until its dependents'
  references to it are removed, then goes; the dependents stay.

Dependents are looked for in the owner's namespace, in every namespaced
resource but events. A deleted Pod or Event is never looked up as an owner
(the simulated controllers make neither own anything), which keeps pod churn cheap.
"""

from __future__ import annotations

from kubectl_informer.core.apierrors import ApiError
from kubectl_informer.sim.controllers.owners import get_or_none, is_deleting

ORPHAN, FOREGROUND = "orphan", "foregroundDeletion"
NOT_OWNERS = ("pods", "events")


def dependents(store, namespace: str, uid: str) -> list[tuple[str, dict]]:
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


def _owner_exists(store, namespace: str, ref: dict) -> bool:
    try:
        rdef = store.registry.lookup(ref.get("kind", ""))
    except KeyError:
        return False
    obj = get_or_none(store, rdef, namespace if rdef.namespaced else None, ref.get("name", ""))
    return obj is not None and obj["metadata"].get("uid") == ref.get("uid")


def _delete(store, resource: str, obj: dict, policy: str) -> None:
    meta = obj["metadata"]
    try:
        store.delete(resource, meta.get("namespace"), meta["name"], precondition_uid=meta["uid"],
                     grace_period=None, propagation=policy)
    except ApiError as e:
        if e.status not in (404, 409):  # gone, or replaced by a namesake: not ours to delete
            raise


def _drop_refs(store, resource: str, obj: dict, uids: set[str]) -> None:
    """Remove the ownerReferences to ``uids`` (the collector's patch)."""
    meta = obj["metadata"]
    refs = [ref for ref in meta.get("ownerReferences") or [] if ref.get("uid") not in uids]
    obj = get_or_none(store, resource, meta.get("namespace"), meta["name"])
    if obj is None or obj["metadata"].get("uid") != meta["uid"]:
        return
    if refs:
        obj["metadata"]["ownerReferences"] = refs
    else:
        obj["metadata"].pop("ownerReferences", None)
    store.update(resource, obj)


def owner_gone(store, namespace: str, uid: str) -> None:
    """An owner was deleted (Background, or the end of the others): collect its dependents."""
    for resource, obj in dependents(store, namespace, uid):
        refs = obj["metadata"].get("ownerReferences") or []
        others = [ref for ref in refs if ref.get("uid") != uid]
        solid = [ref for ref in others if _owner_exists(store, namespace, ref)]
        if solid:
            _drop_refs(store, resource, obj, {ref.get("uid") for ref in refs if ref not in solid})
        elif not is_deleting(obj):
            _delete(store, resource, obj, "Background")


def owner_deleting(store, resource: str, namespace: str | None, name: str) -> bool:
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
    blocking = 0
    for dep_resource, dep in deps:
        ref = next(x for x in dep["metadata"]["ownerReferences"] if x.get("uid") == meta["uid"])
        if ref.get("blockOwnerDeletion") is True:
            blocking += 1
        if not is_deleting(dep):
            _delete(store, dep_resource, dep, "Foreground" if ref.get("blockOwnerDeletion") else "Background")
    if blocking:
        return True  # dependents' deletions bring us back
    return _remove_finalizer(store, resource, obj, FOREGROUND)


def _remove_finalizer(store, resource: str, obj: dict, finalizer: str) -> bool:
    obj["metadata"]["finalizers"] = [f for f in obj["metadata"].get("finalizers") or [] if f != finalizer]
    try:
        store.update(resource, obj)
    except ApiError as e:
        if e.status == 409:
            return True  # changed meanwhile: look again
        if e.status != 404:
            raise
    return False
