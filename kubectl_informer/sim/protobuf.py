"""Decoding Kubernetes protobuf request bodies into the JSON form of the object.

kubectl's typed generators (``create configmap|secret|namespace|deployment``,
``auth can-i``) send ``application/vnd.kubernetes.protobuf``, and client-go
never falls back to JSON for it (its 415 fallback is for CBOR only). The
wire format is the ``k8s\\0`` magic, then a ``runtime.Unknown`` envelope
(typeMeta, raw) whose ``raw`` is the typed object.

The schemas below are the field numbers of Kubernetes' ``generated.proto``
files for the messages those commands produce (objects of the kinds this
server serves). Go writes every non-pointer field, zero or not, and JSON
omits zero ones (``omitempty``), so a zero value is dropped unless the field
is a pointer (marked ``?``), where an explicit 0 or false means something
(``replicas: 0``). A field number the schema does not know is a 415, never
silently dropped: the client gets an error rather than a different object.
"""

from __future__ import annotations

import base64
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import orjson

from kubectl_informer.core.apierrors import ApiError

MAGIC = b"k8s\x00"

# Field spec: "name:type". Types: s string, i int, b bool, y bytes (base64 in
# JSON), B bytes kept as bytes, t Time, q Quantity, ios IntOrString, raw FieldsV1/RawExtension (JSON
# bytes), M<Message>, map:<valuetype>. A leading * is repeated, a trailing ?
# a pointer (kept when zero).
SCHEMAS: dict[str, dict[int, str]] = {
    "Unknown": {1: "typeMeta:MTypeMeta", 2: "raw:B", 3: "contentEncoding:s", 4: "contentType:s"},
    "TypeMeta": {1: "apiVersion:s", 2: "kind:s"},
    "ObjectMeta": {
        1: "name:s",
        2: "generateName:s",
        3: "namespace:s",
        4: "selfLink:s",
        5: "uid:s",
        6: "resourceVersion:s",
        7: "generation:i",
        8: "creationTimestamp:t",
        9: "deletionTimestamp:t?",
        10: "deletionGracePeriodSeconds:i?",
        11: "labels:map:s",
        12: "annotations:map:s",
        13: "ownerReferences:*MOwnerReference",
        14: "finalizers:*s",
        17: "managedFields:*MManagedFieldsEntry",
    },
    "OwnerReference": {
        1: "kind:s",
        3: "name:s",
        4: "uid:s",
        5: "apiVersion:s",
        6: "controller:b?",
        7: "blockOwnerDeletion:b?",
    },
    "ManagedFieldsEntry": {
        1: "manager:s",
        2: "operation:s",
        3: "apiVersion:s",
        4: "time:t?",
        6: "fieldsType:s",
        7: "fieldsV1:raw?",
        8: "subresource:s",
    },
    "LabelSelector": {1: "matchLabels:map:s", 2: "matchExpressions:*MLabelSelectorRequirement"},
    "LabelSelectorRequirement": {1: "key:s", 2: "operator:s", 3: "values:*s"},
    "ConfigMap": {1: "metadata:MObjectMeta", 2: "data:map:s", 3: "binaryData:map:y", 4: "immutable:b?"},
    "Secret": {1: "metadata:MObjectMeta", 2: "data:map:y", 3: "type:s", 4: "stringData:map:s", 5: "immutable:b?"},
    "Namespace": {1: "metadata:MObjectMeta", 2: "spec:MNamespaceSpec", 3: "status:MNamespaceStatus"},
    "NamespaceSpec": {1: "finalizers:*s"},
    "NamespaceStatus": {1: "phase:s"},
    "Pod": {1: "metadata:MObjectMeta", 2: "spec:MPodSpec", 3: "status:MPodStatus"},
    "PodStatus": {1: "phase:s"},
    "PodTemplateSpec": {1: "metadata:MObjectMeta", 2: "spec:MPodSpec"},
    "PodSpec": {
        2: "containers:*MContainer",
        3: "restartPolicy:s",
        4: "terminationGracePeriodSeconds:i?",
        5: "activeDeadlineSeconds:i?",
        6: "dnsPolicy:s",
        7: "nodeSelector:map:s",
        8: "serviceAccountName:s",
        9: "serviceAccount:s",
        10: "nodeName:s",
        11: "hostNetwork:b",
        12: "hostPID:b",
        13: "hostIPC:b",
        16: "hostname:s",
        17: "subdomain:s",
        19: "schedulerName:s",
        15: "imagePullSecrets:*MLocalObjectReference",
        20: "initContainers:*MContainer",
        21: "automountServiceAccountToken:b?",
        22: "tolerations:*MToleration",
        24: "priorityClassName:s",
        25: "priority:i?",
        27: "shareProcessNamespace:b?",
        29: "runtimeClassName:s?",
        30: "enableServiceLinks:b?",
        31: "preemptionPolicy:s?",
        35: "setHostnameAsFQDN:b?",
        37: "hostUsers:b?",
    },
    "Container": {
        1: "name:s",
        2: "image:s",
        3: "command:*s",
        4: "args:*s",
        5: "workingDir:s",
        6: "ports:*MContainerPort",
        7: "env:*MEnvVar",
        8: "resources:MResourceRequirements",
        9: "volumeMounts:*MVolumeMount",
        15: "securityContext:MSecurityContext?",
        13: "terminationMessagePath:s",
        14: "imagePullPolicy:s",
        16: "stdin:b",
        17: "stdinOnce:b",
        18: "tty:b",
        20: "terminationMessagePolicy:s",
        24: "restartPolicy:s?",
    },
    "SecurityContext": {
        1: "capabilities:MCapabilities?",
        2: "privileged:b?",
        4: "runAsUser:i?",
        5: "runAsNonRoot:b?",
        6: "readOnlyRootFilesystem:b?",
        7: "allowPrivilegeEscalation:b?",
        8: "runAsGroup:i?",
        9: "procMount:s?",
        11: "seccompProfile:MSeccompProfile?",
    },
    "Capabilities": {1: "add:*s", 2: "drop:*s"},
    "SeccompProfile": {1: "type:s", 2: "localhostProfile:s?"},
    "Toleration": {1: "key:s", 2: "operator:s", 3: "value:s", 4: "effect:s", 5: "tolerationSeconds:i?"},
    "LocalObjectReference": {1: "name:s"},
    "VolumeMount": {1: "name:s", 2: "readOnly:b", 3: "mountPath:s", 4: "subPath:s", 6: "subPathExpr:s"},
    "ContainerPort": {1: "name:s", 2: "hostPort:i", 3: "containerPort:i", 4: "protocol:s", 5: "hostIP:s"},
    "EnvVar": {1: "name:s", 2: "value:s"},
    "ResourceRequirements": {1: "limits:map:q", 2: "requests:map:q"},
    "Deployment": {1: "metadata:MObjectMeta", 2: "spec:MDeploymentSpec", 3: "status:MDeploymentStatus"},
    "DeploymentSpec": {
        1: "replicas:i?",
        2: "selector:MLabelSelector?",
        3: "template:MPodTemplateSpec",
        4: "strategy:MDeploymentStrategy",
        5: "minReadySeconds:i",
        6: "revisionHistoryLimit:i?",
        7: "paused:b",
        9: "progressDeadlineSeconds:i?",
    },
    "DeploymentStrategy": {1: "type:s", 2: "rollingUpdate:MRollingUpdateDeployment?"},
    "RollingUpdateDeployment": {1: "maxUnavailable:ios?", 2: "maxSurge:ios?"},
    "DeploymentStatus": {
        1: "observedGeneration:i",
        2: "replicas:i",
        3: "updatedReplicas:i",
        4: "unavailableReplicas:i",
        5: "availableReplicas:i",
        7: "readyReplicas:i",
        8: "collisionCount:i?",
    },
    "SelfSubjectAccessReview": {
        1: "metadata:MObjectMeta",
        2: "spec:MSelfSubjectAccessReviewSpec",
        3: "status:MSubjectAccessReviewStatus",
    },
    "SelfSubjectAccessReviewSpec": {
        1: "resourceAttributes:MResourceAttributes?",
        2: "nonResourceAttributes:MNonResourceAttributes?",
    },
    "ResourceAttributes": {
        1: "namespace:s",
        2: "verb:s",
        3: "group:s",
        4: "version:s",
        5: "resource:s",
        6: "subresource:s",
        7: "name:s",
    },
    "NonResourceAttributes": {1: "path:s", 2: "verb:s"},
    "SubjectAccessReviewStatus": {1: "allowed:b", 2: "reason:s", 3: "evaluationError:s", 4: "denied:b"},
    "DeleteOptions": {
        1: "gracePeriodSeconds:i?",
        2: "preconditions:MPreconditions?",
        3: "orphanDependents:b?",
        4: "propagationPolicy:s?",
        5: "dryRun:*s",
    },
    "Preconditions": {1: "uid:s?", 2: "resourceVersion:s?"},
}

# The top-level message of each kind a client may send as protobuf.
KINDS = {"ConfigMap", "Secret", "Namespace", "Pod", "Deployment", "SelfSubjectAccessReview", "DeleteOptions"}


class _Field:
    __slots__ = ("name", "type", "repeated", "pointer")

    def __init__(self, spec: str):
        name, _, typ = spec.partition(":")
        self.pointer = typ.endswith("?")
        typ = typ.rstrip("?")
        self.repeated = typ.startswith("*")
        self.name, self.type = name, typ.lstrip("*")


_FIELDS = {m: {n: _Field(s) for n, s in fields.items()} for m, fields in SCHEMAS.items()}


def _bad(detail: str) -> ApiError:
    return ApiError(415, "UnsupportedMediaType", f"the body of the request was in an unknown format: {detail}")


def _varint(buf: bytes, i: int) -> tuple[int, int]:
    shift = result = 0
    while True:
        if i >= len(buf):
            raise _bad("truncated protobuf varint")
        b = buf[i]
        i += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return result, i
        shift += 7
        if shift > 63:
            raise _bad("protobuf varint too long")


def wire_fields(buf: bytes) -> Iterator[tuple[int, int, int | bytes]]:
    """Yield ``(field_number, wire_type, value)``: an int for varints and
    fixed fields, bytes for length-delimited ones."""
    i = 0
    while i < len(buf):
        key, i = _varint(buf, i)
        num, wt = key >> 3, key & 7
        val: int | bytes
        if wt == 0:
            val, i = _varint(buf, i)
        elif wt == 2:
            n, i = _varint(buf, i)
            if i + n > len(buf):
                raise _bad("truncated protobuf field")
            val, i = buf[i : i + n], i + n
        elif wt in (1, 5):
            size = 8 if wt == 1 else 4
            val, i = int.from_bytes(buf[i : i + size], "little"), i + size
        else:
            raise _bad(f"unsupported protobuf wire type {wt}")
        yield num, wt, val


def _varint_value(v: int | bytes) -> int:
    """A nested field read as a varint (or fixed) value; a length-delimited one is refused,
    as the generated Unmarshal refuses it ("proto: wrong wireType")."""
    if isinstance(v, bytes):
        raise _bad("a protobuf field has the wrong wire type")
    return v


def _bytes_value(v: int | bytes) -> bytes:
    """A nested field read as a length-delimited value; a varint one is refused."""
    if not isinstance(v, bytes):
        raise _bad("a protobuf field has the wrong wire type")
    return v


def _signed(v: int) -> int:
    return v - (1 << 64) if v >= 1 << 63 else v


def _text(b: bytes) -> str:
    try:
        return b.decode("utf-8")
    except UnicodeDecodeError:
        raise _bad("a protobuf string is not valid UTF-8") from None


def _time(b: bytes) -> str | None:
    secs = nanos = 0
    for num, _, v in wire_fields(b):
        if num == 1:
            secs = _signed(_varint_value(v))
        elif num == 2:
            nanos = _varint_value(v)
    if not secs and not nanos:
        return None
    return datetime.fromtimestamp(secs, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _int_or_string(b: bytes) -> int | str:
    typ, ival, sval = 0, 0, ""
    for num, _, v in wire_fields(b):
        if num == 1:
            typ = _varint_value(v)
        elif num == 2:
            ival = _signed(_varint_value(v))
        elif num == 3:
            sval = _text(_bytes_value(v))
    return sval if typ == 1 else ival


def _scalar(typ: str, wt: int, v: int | bytes) -> Any:
    """One value of a non-map field."""
    if typ in ("i", "b"):
        return _signed(_varint_value(v)) if typ == "i" else bool(_varint_value(v))
    v = _bytes_value(v)
    if typ == "s":
        return _text(v)
    if typ == "y":
        return base64.b64encode(v).decode()
    if typ == "B":
        return bytes(v)
    if typ == "t":
        return _time(v)
    if typ == "q":
        return next((_text(_bytes_value(x)) for n, _, x in wire_fields(v) if n == 1), "")
    if typ == "ios":
        return _int_or_string(v)
    if typ == "raw":
        return next((orjson.loads(_bytes_value(x)) for n, _, x in wire_fields(v) if n == 1), {})
    if typ.startswith("M"):
        return decode_message(typ[1:], v)
    raise _bad(f"unknown schema type {typ}")


def _map_entry(typ: str, v: bytes) -> tuple[str, object]:
    key, val = "", None
    for num, wt, x in wire_fields(v):
        if num == 1:
            key = _text(_bytes_value(x))
        elif num == 2:
            val = _scalar(typ, wt, x)
    if val is None:
        val = {"s": "", "y": "", "q": "0"}.get(typ, "")
    return key, val


def _is_zero(v: object) -> bool:
    return v is None or v == "" or v is False or v == 0 or v == [] or (isinstance(v, dict) and not v)


def decode_message(message: str, buf: bytes) -> dict:
    """Decode ``buf`` as ``message`` into its JSON form (see the module doc)."""
    fields = _FIELDS[message]
    out: dict = {}
    for num, wt, v in wire_fields(buf):
        f = fields.get(num)
        if f is None:
            if wt == 2 and not v:
                continue  # an empty field we do not model means nothing
            raise _bad(f"field {num} of {message} is not supported by the simulated API server")
        if wt != (0 if f.type in ("i", "b") else 2):
            raise _bad(f"field {num} of {message} has the wrong wire type")
        if f.type.startswith("map:"):
            k, val = _map_entry(f.type[4:], _bytes_value(v))
            out.setdefault(f.name, {})[k] = val
        elif f.repeated:
            out.setdefault(f.name, []).append(_scalar(f.type, wt, v))
        else:
            out[f.name] = _scalar(f.type, wt, v)
    for f in fields.values():
        val = out.get(f.name)
        if f.name not in out:
            continue
        if f.type == "t" and not f.pointer:
            continue  # a zero metav1.Time is JSON null, as Go writes it
        if f.type.startswith("M") and not f.repeated:
            continue  # Go's encoder never omits a struct, even an empty one
        if _is_zero(val) and not f.pointer:
            del out[f.name]
    return out


def decode(body: bytes) -> dict:
    """A protobuf request body (magic + Unknown envelope) as a JSON object;
    ApiError 415 for anything else."""
    try:
        return _decode(body)
    except (ValueError, OverflowError, OSError, TypeError, AttributeError):
        # A time out of range, FieldsV1 that is not JSON, a nested field of the wrong wire type.
        raise _bad("malformed protobuf body") from None


def _decode(body: bytes) -> dict:
    if not body.startswith(MAGIC):
        raise _bad("protobuf body without the k8s magic prefix")
    env = decode_message("Unknown", body[len(MAGIC) :])
    tm = env.get("typeMeta") or {}
    kind = tm.get("kind", "")
    if kind not in KINDS:
        raise _bad(f"{kind or 'this kind'} is not accepted as protobuf by the simulated API server; send JSON")
    obj = decode_message(kind, env.get("raw", b""))
    head = {"kind": kind, "apiVersion": tm.get("apiVersion", "")}
    return {**head, **obj}
