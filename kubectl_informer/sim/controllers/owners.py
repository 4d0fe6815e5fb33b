"""ownerReferences as the controllers and the garbage collector read them
(apimachinery's metav1.GetControllerOf / NewControllerRef)."""

from __future__ import annotations

from kubectl_informer.core.apierrors import ApiError


def controller_ref(obj: dict) -> dict | None:
    """The ownerReference with controller=true, if any."""
    for ref in (obj.get("metadata") or {}).get("ownerReferences") or []:
        if isinstance(ref, dict) and ref.get("controller") is True:
            return ref
    return None


def new_controller_ref(owner: dict) -> dict:
    """What a controller puts on what it creates: controller and blockOwnerDeletion true."""
    meta = owner["metadata"]
    return {"apiVersion": owner["apiVersion"], "kind": owner["kind"], "name": meta["name"], "uid": meta["uid"],
            "controller": True, "blockOwnerDeletion": True}


def owned_by(store, resource: str, owner: dict) -> list[dict]:
    """The objects of ``resource`` in the owner's namespace whose controller is ``owner`` (by UID)."""
    meta = owner["metadata"]
    uid = meta["uid"]
    out = []
    for obj in store.list(resource, meta.get("namespace")):
        ref = controller_ref(obj)
        if ref is not None and ref.get("uid") == uid:
            out.append(obj)
    return out


def get_or_none(store, resource: str, namespace: str, name: str) -> dict | None:
    try:
        return store.get(resource, namespace, name)
    except ApiError as e:
        if e.status == 404:
            return None
        raise


def is_deleting(obj: dict) -> bool:
    return bool((obj.get("metadata") or {}).get("deletionTimestamp"))
