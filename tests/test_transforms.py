"""Transforms (SetTransform) and the sampled object sizes they trace."""

import orjson
import pytest

from kubectl_informer.core.trace import TraceBuffer, Tracer
from kubectl_informer.run.transforms import (
    MeasuredTransform,
    build_steps,
    drop_path,
    object_bytes,
    parse_transform,
    redact_secret,
    strip_managed_fields,
)
from kubectl_informer.sim.objects import make_pod


def apply(steps, obj):
    return MeasuredTransform(steps)(obj)


def test_strip_managed_fields_and_drop_paths():
    obj = {"metadata": {"name": "a", "managedFields": [{"manager": "kubectl"}]}, "spec": {}, "status": {"c": [1]}}
    assert strip_managed_fields(obj) is True and obj == {"metadata": {"name": "a"}, "spec": {}, "status": {"c": [1]}}
    assert strip_managed_fields(obj) is False and strip_managed_fields("ns/a") is False  # tombstone keys pass
    assert drop_path("status.c")(obj) is True and obj["status"] == {}
    assert drop_path("status.c")(obj) is False
    assert drop_path("spec.x.y")(obj) is False and drop_path("missing.deep")(obj) is False


@pytest.mark.parametrize(
    "spec, paths",
    [
        ("drop=status", ["status"]),
        ("drop=status.conditions, metadata.annotations", ["status.conditions", "metadata.annotations"]),
    ],
)
def test_parse_transform(spec, paths):
    assert parse_transform(spec) == paths


@pytest.mark.parametrize("spec", ["status", "keep=status", "drop=", "drop=a..b", "drop=metadata", "drop=metadata.name"])
def test_parse_transform_refuses(spec):
    with pytest.raises(ValueError, match="invalid --transform"):
        parse_transform(spec)


def test_secret_values_are_redacted_keys_kept():
    secret = {
        "metadata": {
            "name": "s",
            "managedFields": [{}],
            "annotations": {
                "kubectl.kubernetes.io/last-applied-configuration": '{"data":{"p":"aHVudGVyMg=="}}',
                "team": "a",
            },
        },
        "data": {"password": "aHVudGVyMg=="},
        "stringData": {"user": "admin"},
    }
    out = apply(build_steps(strip_managed=True, is_secret=True), secret)
    assert out["data"] == {"password": "<redacted 7 bytes>"}  # "hunter2"
    assert out["stringData"] == {"user": "<redacted 5 bytes>"}
    assert out["metadata"]["annotations"] == {
        "kubectl.kubernetes.io/last-applied-configuration": "<redacted>",
        "team": "a",
    }
    assert "managedFields" not in out["metadata"]
    shown = apply(
        build_steps(is_secret=True, show_secret_data=True),
        {"metadata": {"name": "s"}, "data": {"password": "aHVudGVyMg=="}},
    )
    assert shown["data"] == {"password": "aHVudGVyMg=="}
    # Other resources are never redacted, whatever their fields are called.
    cm = apply(build_steps(is_secret=False), {"metadata": {}, "data": {"k": "v"}})
    assert cm["data"] == {"k": "v"}
    assert redact_secret(None) is False


def test_object_bytes_counts_own_values_not_shared_strings():
    pod = orjson.loads(orjson.dumps(make_pod("default", "web-1")))
    full = object_bytes(pod)
    twin = orjson.loads(orjson.dumps(pod))
    shared = pod["spec"]["containers"][0]["image"]
    twin["spec"]["containers"][0]["image"] = shared  # now held by two objects
    assert object_bytes(twin) < full
    strip_managed_fields(pod)
    assert object_bytes(pod) < full - 1000  # managedFields is a large part of a pod


def test_measured_transform_traces_a_sample_with_sizes():
    tracer = Tracer()
    buf = TraceBuffer()
    tracer.subscribe(buf)
    t = MeasuredTransform(build_steps(strip_managed=True, drop_paths=["status"]), tracer, sample_every=4)
    pods = [orjson.loads(orjson.dumps(make_pod("default", f"web-{i}", index=i))) for i in range(10)]
    before = [orjson.loads(orjson.dumps(p)) for p in pods]  # deepcopy would share the strings
    out = [t(p) for p in pods]
    assert all("managedFields" not in p["metadata"] and "status" not in p for p in out)
    evs = [e for e in buf.drain() if e.kind == "transform"]
    assert [e.key for e in evs] == ["default/web-0", "default/web-4", "default/web-8"]
    f = evs[1].fields
    assert f["transforms"] == ["strip-managed-fields", "drop=status"]
    assert f["applied"] == ["strip-managed-fields", "drop=status"]
    assert f["objects"] == 5 and f["every"] == 4
    assert f["bytes_before"] == object_bytes(before[4]) and f["bytes"] == object_bytes(out[4])
    assert f["bytes"] < f["bytes_before"]


def test_without_steps_only_sizes_are_traced():
    tracer = Tracer()
    buf = TraceBuffer()
    tracer.subscribe(buf)
    obj = {"metadata": {"name": "a", "namespace": "n"}}
    MeasuredTransform([], tracer)(obj)
    (ev,) = buf.drain()
    assert ev.kind == "object.size" and ev.key == "n/a" and ev.fields["bytes"] == object_bytes(obj)


def test_a_value_one_other_holder_keeps_is_still_the_objects_own():
    # The Reflector keeps the newest resourceVersion it saw: on a watch, the
    # object's own string. It must count as on a LIST, where nobody else holds it.
    pod = orjson.loads(
        orjson.dumps(
            {
                **make_pod("default", "web-1"),
                "metadata": {**make_pod("default", "web-1")["metadata"], "resourceVersion": "1048577"},
            }
        )
    )
    alone = object_bytes(pod)
    last_rv = pod["metadata"]["resourceVersion"]  # noqa: F841 (the Reflector's reference)
    assert object_bytes(pod) == alone
    table = {pod["metadata"]["namespace"]: pod["metadata"]["namespace"]}  # an interner's: two holders more
    assert object_bytes(pod) < alone and table
