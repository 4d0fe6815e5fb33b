"""The Deployment controller's arithmetic, as pkg/controller/deployment/util
computes it: maxSurge/maxUnavailable from ints or percents, the new
ReplicaSet's next size in a rolling update, how far old ReplicaSets may be
scaled down, proportional scaling, and the pod-template-hash.

Pure functions on plain numbers and dicts, so the rules are tested alone
(tests/sim/test_rollout_math.py).
"""

from __future__ import annotations

import json
import math
import struct

from kubectl_informer.core.apierrors import ApiError

DEFAULT_SURGE = DEFAULT_UNAVAILABLE = "25%"
# Annotations the controller keeps on each ReplicaSet (deployment_util.go's names).
REVISION = "deployment.kubernetes.io/revision"
DESIRED_REPLICAS = "deployment.kubernetes.io/desired-replicas"
MAX_REPLICAS = "deployment.kubernetes.io/max-replicas"
HASH_LABEL = "pod-template-hash"

# apimachinery's util/rand.SafeEncodeString alphabet: no vowels, no 0/1/3 (no words, no look-alikes).
_SAFE = "bcdfghjklmnpqrstvwxz2456789"


def scaled_value(value: int | str | None, total: int, round_up: bool) -> int:
    """intstr.GetScaledValueFromIntOrPercent: an int as is, "N%" of ``total``
    rounded up or down; anything else is a 422, as validation rejects it."""
    if isinstance(value, bool):
        raise _bad(value)
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.endswith("%") and value[:-1].isdigit():
        pct = int(value[:-1])
        return math.ceil(pct * total / 100) if round_up else math.floor(pct * total / 100)
    raise _bad(value)


def _bad(value: object) -> ApiError:
    return ApiError(
        422,
        "Invalid",
        f"invalid value for IntOrString: invalid value {value!r}: must be an integer or percentage (e.g '5%')",
    )


def resolve_fenceposts(max_surge: int | str | None, max_unavailable: int | str | None, desired: int) -> tuple[int, int]:
    """(surge, unavailable): surge rounds up, unavailable down; both 0 would
    deadlock a rollout, so unavailable becomes 1 (ResolveFenceposts)."""
    surge = scaled_value(DEFAULT_SURGE if max_surge is None else max_surge, desired, True)
    unavailable = scaled_value(DEFAULT_UNAVAILABLE if max_unavailable is None else max_unavailable, desired, False)
    if surge == 0 and unavailable == 0:
        unavailable = 1
    return surge, unavailable


def rolling_params(deployment: dict) -> tuple[int, int]:
    """(maxSurge, maxUnavailable) of a Deployment: 0 surge and its replicas'
    worth of unavailability for Recreate; MaxUnavailable never above replicas."""
    spec = deployment.get("spec") or {}
    replicas = desired_replicas(deployment)
    strategy = spec.get("strategy") or {}
    if strategy.get("type", "RollingUpdate") != "RollingUpdate":
        return 0, 0
    ru = strategy.get("rollingUpdate") or {}
    surge, unavailable = resolve_fenceposts(ru.get("maxSurge"), ru.get("maxUnavailable"), replicas)
    return surge, min(unavailable, replicas)


def desired_replicas(obj: dict) -> int:
    """spec.replicas, defaulted to 1 as the API server defaults it."""
    n = (obj.get("spec") or {}).get("replicas")
    return 1 if n is None else int(n)


def new_rs_new_replicas(deployment_replicas: int, max_surge: int, all_rs_replicas: int, new_rs_replicas: int) -> int:
    """NewRSNewReplicas for RollingUpdate: grow the new ReplicaSet as far as
    replicas + maxSurge pods in all allow, never past the Deployment's size."""
    max_total = deployment_replicas + max_surge
    if all_rs_replicas >= max_total:
        return new_rs_replicas
    scale_up = max_total - all_rs_replicas
    return new_rs_replicas + min(scale_up, deployment_replicas - new_rs_replicas)


def reconcile_new_size(deployment_replicas: int, max_surge: int, all_rs_replicas: int, new_rs_replicas: int) -> int:
    """reconcileNewReplicaSet: the new ReplicaSet's next size (shrunk to the
    Deployment's size if above it, else grown within the surge)."""
    if new_rs_replicas >= deployment_replicas:
        return deployment_replicas
    return new_rs_new_replicas(deployment_replicas, max_surge, all_rs_replicas, new_rs_replicas)


def old_scale_down_steps(
    deployment_replicas: int, max_unavailable: int, new_rs: tuple[int, int], old_rss: list[tuple[int, int]]
) -> tuple[list[tuple[int, int]], bool]:
    """reconcileOldReplicaSets on (spec.replicas, availableReplicas) pairs of
    the active old ReplicaSets, oldest first, as the updates it makes, in
    order: (index, new size). First cleanupUnhealthyReplicas (unavailable
    pods, within the budget), then scaleDownOldReplicaSetsForRollingUpdate
    (available pods beyond replicas - maxUnavailable): one ReplicaSet may be
    scaled by both, in two updates. The flag: whether it reports a scale-down
    (a cleanup that meets more available than desired pods stops there and
    reports none, as upstream's error does)."""
    sizes = [size for size, _ in old_rss]
    if not sum(sizes):
        return [], False
    budget = max_scaled_down(deployment_replicas, max_unavailable, new_rs[0] + sum(sizes), new_rs[0], new_rs[1])
    if budget <= 0:
        return [], False
    steps: list[tuple[int, int]] = []
    cleaned = 0
    for i, (size, avail) in enumerate(old_rss):
        if cleaned >= budget:
            break
        if size == 0 or size == avail:
            continue
        if avail > size:  # status not caught up with a scale-down: upstream errors out here
            return steps, False
        cut = min(budget - cleaned, size - avail)
        sizes[i] = size - cut
        steps.append((i, sizes[i]))
        cleaned += cut
    # Scaling down does not change a ReplicaSet's available count until its pods go.
    available = new_rs[1] + sum(avail for _, avail in old_rss)
    left, done = scale_down_budget(deployment_replicas, max_unavailable, available), 0
    for i, size in enumerate(sizes):
        if done >= left:
            break
        if size == 0:
            continue
        cut = min(size, left - done)
        sizes[i] = size - cut
        steps.append((i, sizes[i]))
        done += cut
    return steps, cleaned + done > 0


def old_sizes_after_scale_down(
    deployment_replicas: int, max_unavailable: int, new_rs: tuple[int, int], old_rss: list[tuple[int, int]]
) -> list[int]:
    """The old ReplicaSets' sizes once ``old_scale_down_steps`` are done."""
    sizes = [size for size, _ in old_rss]
    for i, size in old_scale_down_steps(deployment_replicas, max_unavailable, new_rs, old_rss)[0]:
        sizes[i] = size
    return sizes


def max_scaled_down(
    deployment_replicas: int, max_unavailable: int, all_rs_replicas: int, new_rs_replicas: int, new_rs_available: int
) -> int:
    """reconcileOldReplicaSets' bound: how many old pods may go now, counting
    the new ReplicaSet's unavailable pods against the budget."""
    min_available = deployment_replicas - max_unavailable
    new_unavailable = new_rs_replicas - new_rs_available
    return all_rs_replicas - min_available - new_unavailable


def scale_down_budget(deployment_replicas: int, max_unavailable: int, available_in_all: int) -> int:
    """scaleDownOldReplicaSetsForRollingUpdate: available pods beyond
    replicas - maxUnavailable (0 when there are none to spare)."""
    return max(0, available_in_all - (deployment_replicas - max_unavailable))


def take_in_order(sizes: list[int], budget: int) -> list[int]:
    """Scale ReplicaSets (oldest first) down by ``budget`` in all: each gives
    up to its size. Returns the new sizes."""
    out = []
    for size in sizes:
        cut = min(size, max(0, budget))
        budget -= cut
        out.append(size - cut)
    return out


def proportions(
    sizes: list[int], max_replicas: list[int | None], deployment_replicas: int, max_surge: int, status_replicas: int
) -> list[int]:
    """Proportional scaling (sync.go scale) of several active ReplicaSets,
    given largest first (newer first among equals when growing, older first
    when shrinking): each gets its share of the change by the ratio of the
    Deployment's new size to the size it last saw (the max-replicas
    annotation); the rounding leftover goes to the first. Returns new sizes."""
    allowed = deployment_replicas + max_surge if deployment_replicas > 0 else 0
    to_add = allowed - sum(sizes)
    added, deltas = 0, []
    for size, annotated in zip(sizes, max_replicas, strict=True):
        deltas.append(
            _proportion(
                size, annotated, deployment_replicas + max_surge, deployment_replicas, status_replicas, to_add, added
            )
        )
        added += deltas[-1]
    if deltas and to_add - added:
        deltas[0] += to_add - added
    return [max(0, s + d) for s, d in zip(sizes, deltas, strict=True)]


def _proportion(
    size: int,
    annotated: int | None,
    new_total: int,
    deployment_replicas: int,
    status_replicas: int,
    to_add: int,
    added: int,
) -> int:
    """GetProportion: this ReplicaSet's share, bounded by what is left to add."""
    if size == 0 or to_add == 0 or to_add == added:
        return 0
    if deployment_replicas == 0:
        fraction = -size
    else:
        annotated = annotated if annotated else status_replicas
        if not annotated:
            return 0
        fraction = math.floor(size * new_total / annotated + 0.5) - size  # Go's RoundToInt32
    allowed = to_add - added
    return min(fraction, allowed) if allowed > 0 else max(fraction, allowed)


def fnv32a(data: bytes) -> int:
    h = 0x811C9DC5
    for b in data:
        h = ((h ^ b) * 0x01000193) & 0xFFFFFFFF
    return h


def safe_encode(s: str) -> str:
    """apimachinery's rand.SafeEncodeString: each byte to a letter of an alphabet with no vowels."""
    return "".join(_SAFE[b % len(_SAFE)] for b in s.encode())


def template_hash(template: dict, collision_count: int | None = None) -> str:
    """The pod-template-hash: FNV-32a of the template, the collision count
    added when set, printed in decimal, then safe-encoded (controller.ComputeHash).
    Go hashes its struct's printed form; the simulator hashes the template's
    canonical JSON (sorted keys, no pod-template-hash label), so values differ
    from a real cluster's but follow the same rules: same template, same hash;
    a collision count (when set, even 0) moves it."""
    t = json.loads(json.dumps(template or {}))
    labels = (t.get("metadata") or {}).get("labels") or {}
    labels.pop(HASH_LABEL, None)
    data = json.dumps(t, sort_keys=True, separators=(",", ":")).encode()
    if collision_count is not None:
        data += struct.pack("<Q", collision_count & 0xFFFFFFFF)  # 8 bytes, the uint32 little-endian first
    return safe_encode(str(fnv32a(data)))


def templates_equal(a: dict | None, b: dict | None) -> bool:
    """EqualIgnoreHash: two pod templates, the pod-template-hash label set aside."""
    return template_key(a) == template_key(b)


def template_key(t: dict | None) -> dict:
    """A template without its pod-template-hash label (an empty labels map and
    metadata dropped too), for comparing templates: compute once, compare many."""
    t = json.loads(json.dumps(t or {}))
    labels = (t.get("metadata") or {}).get("labels")
    if labels is not None:
        labels.pop(HASH_LABEL, None)
        if not labels:
            t["metadata"].pop("labels")
    if t.get("metadata") == {}:
        t.pop("metadata")
    return t
