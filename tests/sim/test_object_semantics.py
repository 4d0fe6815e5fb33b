"""Real objects' behaviour through the simulator's HTTP API: deletion
(graceful, finalizers, preconditions), generation, stringData, condition
transition times, dry-run, scale, SelfSubjectAccessReview, Table responses,
protobuf bodies and Status-only errors."""

from __future__ import annotations

import base64
import json

import pytest

from kubectl_informer.clock.testing import wait_for
from kubectl_informer.sim.events import EventRecorder
from tests.sim.conftest import pod

PODS = "/api/v1/namespaces/default/pods"
CMS = "/api/v1/namespaces/default/configmaps"
DEPLOYS = "/apis/apps/v1/namespaces/default/deployments"
TABLE = (
    "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json"
)


def deployment(name="d", replicas=2):
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "labels": {"app": name}},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {"containers": [{"name": "c", "image": "nginx"}]},
            },
        },
    }


def raw(client, method, path, body: bytes, ctype, accept="application/json"):
    conn = client._conn()
    conn.request(method, path, body=body, headers={"Content-Type": ctype, "Accept": accept, **client.auth})
    resp = conn.getresponse()
    data = resp.read()
    conn.close()
    return resp.status, json.loads(data)


# ---------------------------------------------------------------- deletion


def test_graceful_pod_deletion_marks_then_deletes(client, sim):
    sim.store.pod_stop_seconds = 0.2
    client.request("POST", PODS, {**pod("g"), "spec": {"nodeName": "node-1", "containers": [{"name": "c"}]}})
    status, obj, _ = client.request("DELETE", PODS + "/g", {"gracePeriodSeconds": 5})
    assert status == 200 and obj["metadata"]["deletionGracePeriodSeconds"] == 5
    assert obj["metadata"]["deletionTimestamp"]
    assert client.get(PODS + "/g")[0] == 200  # still there, terminating
    assert wait_for(lambda: client.get(PODS + "/g")[0] == 404, timeout=5)


def test_pod_grace_defaults_to_its_spec_and_zero_is_immediate(client, sim):
    sim.store.pod_stop_seconds = 30
    spec = {"nodeName": "node-1", "terminationGracePeriodSeconds": 12, "containers": [{"name": "c"}]}
    client.request("POST", PODS, {**pod("h"), "spec": spec})
    _, obj, _ = client.request("DELETE", PODS + "/h")
    assert obj["metadata"]["deletionGracePeriodSeconds"] == 12
    _, again, _ = client.request("DELETE", PODS + "/h", {"gracePeriodSeconds": 20})
    assert again["metadata"]["resourceVersion"] == obj["metadata"]["resourceVersion"]  # no later than asked
    client.request("DELETE", PODS + "/h", {"gracePeriodSeconds": 0})
    assert client.get(PODS + "/h")[0] == 404
    client.request("POST", PODS, pod("unscheduled"))  # no node runs it: deleted at once
    client.request("DELETE", PODS + "/unscheduled")
    assert client.get(PODS + "/unscheduled")[0] == 404


def test_finalizers_keep_the_object_until_the_last_is_removed(client, sim):
    client.request("POST", CMS, {"metadata": {"name": "f", "finalizers": ["a/x", "b/y"]}})
    status, obj, _ = client.request("DELETE", CMS + "/f")
    assert status == 200 and obj["metadata"]["deletionTimestamp"]
    obj["metadata"]["finalizers"] = ["b/y"]
    assert client.request("PUT", CMS + "/f", obj)[0] == 200
    assert client.get(CMS + "/f")[1]["metadata"]["finalizers"] == ["b/y"]  # one left: still there
    obj = client.get(CMS + "/f")[1]
    obj["metadata"]["finalizers"] = []
    client.request("PUT", CMS + "/f", obj)
    assert client.get(CMS + "/f")[0] == 404


def test_finalizer_removal_events(client, sim):
    _, cm, _ = client.request("POST", CMS, {"metadata": {"name": "f2", "finalizers": ["a/x"]}})
    w = sim.store.start_watch("configmaps", "default", resource_version=cm["metadata"]["resourceVersion"])[0]
    client.request("DELETE", CMS + "/f2")
    client.request("PATCH", CMS + "/f2", {"metadata": {"finalizers": None}}, ctype="application/merge-patch+json")
    types = [json.loads(w.next(1).line())["type"] for _ in range(2)]
    sim.store.stop_watch(w)
    assert types == ["MODIFIED", "DELETED"]


def test_uid_and_rv_preconditions(client):
    _, cm, _ = client.request("POST", CMS, {"metadata": {"name": "p"}})
    status, st, _ = client.request("DELETE", CMS + "/p", {"preconditions": {"uid": "not-it"}})
    assert status == 409 and st["reason"] == "Conflict"
    assert (
        f"Precondition failed: UID in precondition: not-it, UID in object meta: {cm['metadata']['uid']}"
        in st["message"]
    )
    status, st, _ = client.request("DELETE", CMS + "/p", {"preconditions": {"resourceVersion": "1"}})
    assert status == 409 and "ResourceVersion in precondition: 1" in st["message"]
    assert client.request("DELETE", CMS + "/p", {"preconditions": {"uid": cm["metadata"]["uid"]}})[0] == 200


# ---------------------------------------------------------------- writes


def test_generation_moves_only_with_the_spec(client):
    _, d, _ = client.request("POST", DEPLOYS, deployment())
    assert d["metadata"]["generation"] == 1
    d["metadata"]["labels"]["x"] = "y"
    _, d, _ = client.request("PUT", DEPLOYS + "/d", d)
    assert d["metadata"]["generation"] == 1
    d["status"] = {"replicas": 2}
    _, d, _ = client.request("PUT", DEPLOYS + "/d/status", d)
    assert d["metadata"]["generation"] == 1 and d["status"] == {"replicas": 2}
    d["spec"]["replicas"] = 3
    _, d, _ = client.request("PUT", DEPLOYS + "/d", d)
    assert d["metadata"]["generation"] == 2


def test_string_data_is_merged_into_data(client):
    secrets = "/api/v1/namespaces/default/secrets"
    _, s, _ = client.request(
        "POST", secrets, {"metadata": {"name": "s"}, "data": {"a": "eA=="}, "stringData": {"b": "hello"}}
    )
    assert s["data"] == {"a": "eA==", "b": base64.b64encode(b"hello").decode()} and "stringData" not in s
    assert s["type"] == "Opaque"
    s["stringData"] = {"a": "new"}
    _, s, _ = client.request("PUT", secrets + "/s", s)
    assert s["data"]["a"] == base64.b64encode(b"new").decode() and "stringData" not in s


def test_last_transition_time_moves_only_when_the_status_does(client):
    old = "2020-01-01T00:00:00Z"
    p = pod("c")
    p["status"] = {"phase": "Running", "conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": old}]}
    _, obj, _ = client.request("POST", PODS, p)
    obj["status"]["conditions"][0]["lastTransitionTime"] = "2024-06-01T00:00:00Z"
    _, obj, _ = client.request("PUT", PODS + "/c/status", obj)
    assert obj["status"]["conditions"][0]["lastTransitionTime"] == old  # same status: time kept
    obj["status"]["conditions"][0]["status"] = "False"
    _, obj, _ = client.request("PUT", PODS + "/c/status", obj)
    assert obj["status"]["conditions"][0]["lastTransitionTime"] > "2025"  # moved: now


def test_dry_run_on_every_write_changes_nothing(client, sim):
    client.request("POST", CMS, {"metadata": {"name": "keep"}, "data": {"a": "1"}})
    rv = sim.store.current_rv()
    status, obj, _ = client.request("POST", CMS + "?dryRun=All", {"metadata": {"name": "dry"}})
    assert status == 201 and obj["metadata"]["uid"] and "resourceVersion" not in obj["metadata"]
    status, obj, _ = client.request(
        "PATCH", CMS + "/keep?dryRun=All", {"data": {"a": "2"}}, ctype="application/merge-patch+json"
    )
    assert status == 200 and obj["data"] == {"a": "2"}
    assert client.request("DELETE", CMS + "/keep", {"dryRun": ["All"]})[0] == 200
    assert sim.store.current_rv() == rv and client.get(CMS + "/keep")[1]["data"] == {"a": "1"}
    status, st, _ = client.request("POST", CMS + "?dryRun=Maybe", {"metadata": {"name": "dry"}})
    assert status == 400 and st["message"] == 'Invalid dryRun value: "Maybe": supported values: "All"'


def test_scale_subresource(client):
    client.request("POST", DEPLOYS, deployment("s", replicas=2))
    status, sc = client.get(DEPLOYS + "/s/scale")
    assert status == 200 and (sc["kind"], sc["apiVersion"]) == ("Scale", "autoscaling/v1")
    assert sc["spec"] == {"replicas": 2} and sc["status"]["selector"] == "app=s"
    sc["spec"]["replicas"] = 4
    assert client.request("PUT", DEPLOYS + "/s/scale", sc)[1]["spec"]["replicas"] == 4
    _, sc, _ = client.request(
        "PATCH",
        DEPLOYS + "/s/scale",
        [{"op": "replace", "path": "/spec/replicas", "value": 1}],
        ctype="application/json-patch+json",
    )
    assert sc["spec"]["replicas"] == 1 and client.get(DEPLOYS + "/s")[1]["spec"]["replicas"] == 1
    status, st, _ = client.request("PUT", DEPLOYS + "/s/scale", {"spec": {"replicas": -1}})
    assert status == 422 and st["reason"] == "Invalid"


def test_self_subject_access_review_allows_everything(client):
    status, obj, _ = client.request(
        "POST",
        "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
        {
            "apiVersion": "authorization.k8s.io/v1",
            "kind": "SelfSubjectAccessReview",
            "spec": {"resourceAttributes": {"verb": "delete", "resource": "nodes"}},
        },
    )
    assert status == 201 and obj["status"]["allowed"] is True
    assert obj["spec"]["resourceAttributes"] == {"verb": "delete", "resource": "nodes"}


def test_event_recorder_keeps_a_bounded_history(sim):
    rec = EventRecorder(sim.store, limit=3)
    p = sim.store.create("pods", pod("e"))
    made = [rec.record(p, "Normal", "Pinged", f"ping {i}", "test")["metadata"]["name"] for i in range(5)]
    assert [
        e["metadata"]["name"]
        for e in sorted(sim.store.list("events", "default"), key=lambda e: int(e["metadata"]["resourceVersion"]))
    ] == made[2:]


# ---------------------------------------------------------------- negotiation


def test_table_list_get_and_watch(client, sim):
    client.request("POST", PODS, pod("t", phase="Running"))
    status, table = raw(client, "GET", PODS, b"", "application/json", accept=TABLE)
    assert status == 200 and (table["kind"], table["apiVersion"]) == ("Table", "meta.k8s.io/v1")
    assert [c["name"] for c in table["columnDefinitions"] if c["priority"] == 0] == [
        "Name",
        "Ready",
        "Status",
        "Restarts",
        "Age",
    ]
    row = table["rows"][0]
    assert row["cells"][:4] == ["t", "0/1", "Running", "0"]
    assert row["object"]["kind"] == "PartialObjectMetadata" and row["object"]["metadata"]["name"] == "t"
    status, table = raw(client, "GET", PODS + "/t?includeObject=None", b"", "application/json", accept=TABLE)
    assert len(table["rows"]) == 1 and "object" not in table["rows"][0]
    _, table = raw(
        client,
        "GET",
        PODS + "?includeObject=Object",
        b"",
        "application/json",
        accept="application/json;as=Table;v=v1beta1;g=meta.k8s.io",
    )
    assert table["apiVersion"] == "meta.k8s.io/v1beta1" and table["rows"][0]["object"]["kind"] == "Pod"
    conn = client._conn()
    conn.request("GET", PODS + "?watch=true&timeoutSeconds=1", headers={"Accept": TABLE, **client.auth})
    resp = conn.getresponse()
    ev = json.loads(resp.readline())
    conn.close()
    assert ev["type"] == "ADDED" and ev["object"]["kind"] == "Table" and ev["object"]["rows"][0]["cells"][0] == "t"


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _field(num: int, payload: bytes) -> bytes:
    return _varint(num << 3 | 2) + _varint(len(payload)) + payload


def _envelope(kind: str, raw_obj: bytes, api_version: str = "v1") -> bytes:
    tm = _field(1, api_version.encode()) + _field(2, kind.encode())
    return b"k8s\x00" + _field(1, tm) + _field(2, raw_obj)


def test_protobuf_configmap_with_binary_data(client):
    meta = _field(1, b"pb") + _field(11, _field(1, b"k") + _field(2, b"v"))
    body = (
        _field(1, meta)
        + _field(2, _field(1, b"a") + _field(2, b"b"))
        + _field(3, _field(1, b"bin") + _field(2, b"\x00\xff"))
    )
    status, obj = raw(client, "POST", CMS, _envelope("ConfigMap", body), "application/vnd.kubernetes.protobuf")
    assert status == 201
    assert (obj["metadata"]["labels"], obj["data"], obj["binaryData"]) == ({"k": "v"}, {"a": "b"}, {"bin": "AP8="})


@pytest.mark.parametrize(
    "body,detail",
    [
        (b"not protobuf", "protobuf body without the k8s magic prefix"),
        (_envelope("ConfigMap", _field(1, _field(99, b"x"))), "field 99 of ObjectMeta is not supported"),
        (_envelope("Service", b""), "Service is not accepted as protobuf by the simulated API server"),
        (b"k8s\x00\x0a\xff", "truncated protobuf"),
        (_envelope("ConfigMap", _field(1, _field(1, b"\xff\xfe"))), "a protobuf string is not valid UTF-8"),
    ],
)
def test_bad_protobuf_is_a_415_status(client, body, detail):
    status, st = raw(client, "POST", CMS, body, "application/vnd.kubernetes.protobuf")
    assert status == 415 and st["kind"] == "Status" and st["reason"] == "UnsupportedMediaType"
    assert detail in st["message"]


@pytest.mark.parametrize("body", [b"", b'{"metadata":{"labels":{"a":"b"}}}'])
def test_a_patch_in_no_patch_media_type_is_a_415_even_when_empty(client, body):
    # The PATCH route refuses a Content-Type that is no patch type before the body is read
    # (kube-apiserver v1.36 answers an empty PATCH sent as application/json 415 too, in
    # go-restful's words, where a POST or PUT names the media types it takes); the object
    # is left as it was.
    client.request("POST", PODS, pod("p"))
    status, st = raw(client, "PATCH", PODS + "/p", body, "application/json")
    assert status == 415 and st["reason"] == "UnsupportedMediaType"
    assert st["message"] == "415: Unsupported Media Type"
    assert "labels" not in client.get(PODS + "/p")[1]["metadata"]


@pytest.mark.parametrize(
    "obj,field",
    [
        ({"metadata": {"name": "x", "labels": {"a": 1}}}, "metadata.labels"),
        ({"metadata": {"name": 5}}, "metadata.name"),
        ({"metadata": {"name": "x", "finalizers": "a"}}, "metadata.finalizers"),
    ],
)
def test_ill_typed_objects_are_422_not_500(client, obj, field):
    status, st, _ = client.request("POST", CMS, obj)
    assert status == 422 and st["reason"] == "Invalid" and f"{field}: Invalid value" in st["message"]


def test_garbage_json_is_a_plain_400(client):
    status, st = raw(client, "POST", CMS, b'{"metadata": \xff', "application/json")
    assert status == 400 and st["message"] == "the body of the request was in an unknown format: it is not valid JSON"


@pytest.mark.parametrize(
    "method,path,accept",
    [
        ("GET", PODS + "/x/log", "application/json"),
        ("GET", PODS + "/x/exec", "application/json"),
        ("GET", "/api/v1/namespaces/default/services", "application/json"),
        ("GET", "/api/v1/nodes", "application/json"),
        ("POST", "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews", "application/json"),
        ("GET", "/apis/apps/v1/namespaces/default/statefulsets", "application/json"),
    ],
)
def test_what_docs_say_is_not_served_is_a_404_status(client, method, path, accept):
    status, st = raw(client, method, path, b"{}" if method == "POST" else b"", "application/json", accept)
    assert status == 404 and st["kind"] == "Status" and st["reason"] == "NotFound"


@pytest.mark.parametrize("accept", ["application/yaml", "application/cbor", "application/vnd.kubernetes.protobuf"])
def test_only_json_responses(client, accept):
    status, st = raw(client, "GET", PODS, b"", "application/json", accept)
    assert status == 406 and st["reason"] == "NotAcceptable"


def test_strategic_merge_patch_merges_keyed_lists(client):
    p = pod("sm")
    p["spec"] = {
        "containers": [{"name": "a", "image": "x:1", "ports": [{"containerPort": 80}]}, {"name": "b", "image": "y:1"}]
    }
    p["metadata"]["finalizers"] = ["f/one"]
    client.request("POST", PODS, p)
    smp = "application/strategic-merge-patch+json"
    _, obj, _ = client.request(
        "PATCH",
        PODS + "/sm",
        {
            "spec": {
                "$setElementOrder/containers": [{"name": "a"}, {"name": "b"}],
                "containers": [{"name": "a", "image": "x:2"}, {"name": "c", "image": "z:1"}],
            },
            "metadata": {"finalizers": ["f/two"]},
        },
        ctype=smp,
    )
    assert obj["spec"]["containers"] == [
        {"name": "a", "image": "x:2", "ports": [{"containerPort": 80}]},
        {"name": "b", "image": "y:1"},
        {"name": "c", "image": "z:1"},
    ]
    assert obj["metadata"]["finalizers"] == ["f/one", "f/two"]
    _, obj, _ = client.request(
        "PATCH",
        PODS + "/sm",
        {"spec": {"containers": [{"name": "b", "$patch": "delete"}]}, "metadata": {"finalizers": None}},
        ctype=smp,
    )
    assert [c["name"] for c in obj["spec"]["containers"]] == ["a", "c"] and "finalizers" not in obj["metadata"]
    _, obj, _ = client.request(
        "PATCH", PODS + "/sm", {"metadata": {"labels": {"$patch": "replace", "only": "me"}}}, ctype=smp
    )
    assert obj["metadata"]["labels"] == {"only": "me"}
    _, obj, _ = client.request(
        "PATCH", PODS + "/sm", {"metadata": {"labels": {"x": "y"}}}, ctype="application/merge-patch+json"
    )
    assert obj["metadata"]["labels"] == {"only": "me", "x": "y"}


@pytest.mark.parametrize(
    "method,path",
    [
        ("GET", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews"),
        ("DELETE", "/api/v1/namespaces"),
        ("DELETE", PODS + "/x/status"),
        ("POST", DEPLOYS + "/x/scale"),
    ],
)
def test_verbs_a_resource_does_not_have_are_405(client, method, path):
    status, st = raw(client, method, path, b"", "application/json")
    assert status == 405 and st["reason"] == "MethodNotAllowed"


def test_writes_record_their_managers_fields(client):
    conn_path = CMS + "?fieldManager=maker"
    client.request("POST", conn_path, {"metadata": {"name": "mf", "labels": {"a": "1"}}, "data": {"k": "v"}})
    _, obj, _ = client.request(
        "PATCH", CMS + "/mf?fieldManager=editor", {"data": {"k": "w"}}, ctype="application/merge-patch+json"
    )
    owners = {m["manager"]: (m["operation"], m["fieldsV1"]) for m in obj["metadata"]["managedFields"]}
    assert owners == {
        "maker": ("Update", {"f:metadata": {"f:labels": {"f:a": {}}}}),
        "editor": ("Update", {"f:data": {"f:k": {}}}),
    }
    _, same, _ = client.request(
        "PATCH", CMS + "/mf?fieldManager=editor", {"data": {"k": "w"}}, ctype="application/merge-patch+json"
    )
    assert same["metadata"]["resourceVersion"] == obj["metadata"]["resourceVersion"]  # no change, no write


def test_protobuf_delete_options(client, sim):
    sim.store.pod_stop_seconds = 30
    _, p, _ = client.request("POST", PODS, {**pod("pbdel"), "spec": {"nodeName": "n", "containers": [{"name": "c"}]}})
    wrong = _field(2, _field(1, b"not-the-uid"))
    status, st = raw(
        client, "DELETE", PODS + "/pbdel", _envelope("DeleteOptions", wrong), "application/vnd.kubernetes.protobuf"
    )
    assert status == 409 and "UID in precondition: not-the-uid" in st["message"]
    grace = _varint(1 << 3 | 0) + _varint(7)  # gracePeriodSeconds = 7
    status, obj = raw(
        client, "DELETE", PODS + "/pbdel", _envelope("DeleteOptions", grace), "application/vnd.kubernetes.protobuf"
    )
    assert status == 200 and obj["metadata"]["deletionGracePeriodSeconds"] == 7
