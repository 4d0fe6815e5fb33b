"""ownerReferences as the controllers and the garbage collector read them
(apimachinery's metav1.GetControllerOf / NewControllerRef), and adoption
(pkg/controller's ControllerRefManager.ClaimObject)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING

import orjson

from kubectl_informer.core.apierrors import ApiError
from kubectl_informer.core.label_selector_object import Selector, selects
from kubectl_informer.core.label_selector_object import as_selector as as_selector_uncached
from kubectl_informer.sim.resources import ResourceDef

if TYPE_CHECKING:
    from kubectl_informer.sim.store import Store


def controller_ref(obj: dict) -> dict | None:
    """The ownerReference with controller=true, if any."""
    for ref in (obj.get("metadata") or {}).get("ownerReferences") or []:
        if isinstance(ref, dict) and ref.get("controller") is True:
            return ref
    return None


def new_controller_ref(owner: dict) -> dict:
    """What a controller puts on what it creates: controller and blockOwnerDeletion true."""
    meta = owner["metadata"]
    return {
        "apiVersion": owner["apiVersion"],
        "kind": owner["kind"],
        "name": meta["name"],
        "uid": meta["uid"],
        "controller": True,
        "blockOwnerDeletion": True,
    }


def owned_by(store: Store, resource: str, owner: dict) -> list[dict]:
    """The objects of ``resource`` in the owner's namespace whose controller is ``owner`` (by UID)."""
    meta = owner["metadata"]
    uid = meta["uid"]
    out = []
    for obj in store.list(resource, meta.get("namespace")):
        ref = controller_ref(obj)
        if ref is not None and ref.get("uid") == uid:
            out.append(obj)
    return out


def get_or_none(store: Store, resource: str | ResourceDef, namespace: str | None, name: str) -> dict | None:
    try:
        return store.get(resource, namespace, name)
    except ApiError as e:
        if e.status == 404:
            return None
        raise


def is_deleting(obj: dict) -> bool:
    return bool((obj.get("metadata") or {}).get("deletionTimestamp"))


class SyncError(Exception):
    """A sync that returns an error (the controller's ``handleErr`` would
    requeue the key rate-limited; the simulated manager counts and logs it)."""


def selector_matches(selector: dict | None, labels: dict | None) -> bool:
    """The listers' ``GetPodReplicaSets`` / ``getDeploymentsForReplicaSet``
    test: ``LabelSelectorAsSelector(selector)`` matches ``labels``, where an
    invalid selector and a nil or empty one (Nothing, Everything) match nothing."""
    return selects(selector, labels, as_selector)


def as_selector(selector: dict | None) -> Selector:
    """``LabelSelectorAsSelector`` (raises SelectorError), remembered for the
    selectors seen last (every sync and every orphan's handler asks again)."""
    if not isinstance(selector, dict):
        return as_selector_uncached(None)
    return _cached(orjson.dumps(selector, option=orjson.OPT_SORT_KEYS))


@functools.lru_cache(maxsize=256)
def _cached(raw: bytes) -> Selector:
    return as_selector_uncached(orjson.loads(raw))


def claim(
    store: Store,
    resource: str,
    owner: dict,
    selector: Selector,
    keep: Callable[[dict], bool] | None = None,
    objs: list[dict] | None = None,
) -> list[dict]:
    """ControllerRefManager.ClaimObject over ``resource`` in the owner's
    namespace: the objects it controls (by UID), and the orphans (no
    controller reference) ``selector`` matches (the owner's, converted by the
    caller: Everything adopts every orphan, as upstream's would), adopted by adding its
    controller reference (AdoptReplicaSet / AdoptPod) unless it is being
    deleted or is gone (the fresh read of ``RecheckDeletionTimestamp``).
    ``keep``: which objects to consider (claimPods: only active pods);
    ``objs``: the namespace's objects, if already listed.
    Releasing an owned object whose labels no longer match is not modelled."""
    meta = owner["metadata"]
    out, can_adopt = [], None
    for obj in store.list(resource, meta.get("namespace")) if objs is None else objs:
        if keep is not None and not keep(obj):
            continue
        ref = controller_ref(obj)
        if ref is not None:
            if ref.get("uid") == meta["uid"]:
                out.append(obj)
            continue
        if is_deleting(owner) or is_deleting(obj) or not selector.matches(obj["metadata"].get("labels")):
            continue
        if can_adopt is None:
            fresh = get_or_none(store, owner_resource(owner), meta.get("namespace"), meta["name"])
            can_adopt = fresh is not None and fresh["metadata"]["uid"] == meta["uid"] and not is_deleting(fresh)
        if can_adopt:
            adopted = _adopt(store, resource, obj, owner)
            if adopted is not None:
                out.append(adopted)
    return out


def owner_resource(owner: dict) -> str:
    return {"Deployment": "deployments", "ReplicaSet": "replicasets"}[owner["kind"]]


def _adopt(store: Store, resource: str, obj: dict, owner: dict) -> dict | None:
    obj = dict(obj, metadata=dict(obj["metadata"]))
    obj["metadata"]["ownerReferences"] = list(obj["metadata"].get("ownerReferences") or []) + [
        new_controller_ref(owner)
    ]
    try:
        return store.update(resource, obj, subresource="", manager="kube-controller-manager")
    except ApiError as e:
        if e.status == 404:
            return None  # gone meanwhile
        raise
