"""Discovery and the write verbs, through real HTTP."""

from tests.sim.conftest import pod

PODS = "/api/v1/namespaces/default/pods"


def test_version_and_core_discovery(client):
    status, v = client.get("/version")
    assert status == 200 and v["major"] == "1" and v["gitVersion"].startswith("v1.32")
    status, api = client.get("/api")
    assert status == 200 and api["versions"] == ["v1"]
    status, rl = client.get("/api/v1")
    pods = next(r for r in rl["resources"] if r["name"] == "pods")
    assert pods["shortNames"] == ["po"] and pods["singularName"] == "pod" and pods["kind"] == "Pod"
    assert pods["namespaced"] is True and "watch" in pods["verbs"]
    ns = next(r for r in rl["resources"] if r["name"] == "namespaces")
    assert ns["namespaced"] is False and ns["shortNames"] == ["ns"]
    assert any(r["name"] == "pods/status" for r in rl["resources"])


def test_group_discovery_has_apps_crd_and_widgets(client):
    status, groups = client.get("/apis")
    names = {g["name"] for g in groups["groups"]}
    assert {"apps", "example.com", "apiextensions.k8s.io"} <= names
    status, g = client.get("/apis/example.com")
    assert status == 200 and g["preferredVersion"]["groupVersion"] == "example.com/v1"
    status, rl = client.get("/apis/example.com/v1")
    wd = rl["resources"][0]
    assert (wd["name"], wd["shortNames"], wd["kind"]) == ("widgets", ["wd"], "Widget")
    status, rl = client.get("/apis/apps/v1")
    assert rl["resources"][0]["shortNames"] == ["deploy"]
    assert client.get("/apis/nope.io")[0] == 404
    assert client.get("/apis/nope.io/v1")[0] == 404


def test_openapi_v3_tells_kubectl_the_server_validates(client):
    status, root = client.get("/openapi/v3")
    url = root["paths"]["api/v1"]["serverRelativeURL"]
    status, doc = client.get(url)
    patch = doc["paths"]["/api/v1/namespaces/{namespace}/pods/{name}"]["patch"]
    assert patch["x-kubernetes-group-version-kind"] == {"group": "", "version": "v1", "kind": "Pod"}
    assert any(p["name"] == "fieldValidation" for p in patch["parameters"])
    status, v2 = client.get("/openapi/v2")
    assert status == 200 and v2["swagger"] == "2.0" and v2["definitions"] == {}


def test_create_get_and_defaults(client):
    status, obj, _ = client.request("POST", PODS, pod("a"))
    assert status == 201
    meta = obj["metadata"]
    assert meta["uid"] and meta["creationTimestamp"] and int(meta["resourceVersion"]) > 0
    assert obj["status"]["phase"] == "Pending"
    status, got = client.get(PODS + "/a")
    assert status == 200 and got == obj


def test_create_errors(client):
    client.request("POST", PODS, pod("a"))
    status, st, _ = client.request("POST", PODS, pod("a"))
    assert status == 409 and st["reason"] == "AlreadyExists" and st["message"] == 'pods "a" already exists'
    status, st, _ = client.request("POST", "/api/v1/namespaces/missing/pods", pod("b", ns="missing"))
    assert status == 404 and st["message"] == 'namespaces "missing" not found'
    status, st, _ = client.request("POST", PODS, {"metadata": {}})
    assert status == 422
    status, st, _ = client.request("POST", PODS, {"metadata": {"generateName": "gen-"}})
    assert status == 201 and st["metadata"]["name"].startswith("gen-") and len(st["metadata"]["name"]) == 9
    assert client.get(PODS + "/nope")[1]["message"] == 'pods "nope" not found'


def test_rv_is_one_counter_across_resources(client):
    rvs = []
    for i in range(3):
        rvs.append(int(client.request("POST", PODS, pod(f"p{i}"))[1]["metadata"]["resourceVersion"]))
        cm = {"metadata": {"name": f"c{i}"}, "data": {"k": "v"}}
        rvs.append(
            int(client.request("POST", "/api/v1/namespaces/default/configmaps", cm)[1]["metadata"]["resourceVersion"])
        )
    assert rvs == sorted(rvs) and len(set(rvs)) == len(rvs)
    assert rvs[-1] - rvs[0] == len(rvs) - 1


def test_update_with_stale_rv_conflicts(client):
    _, obj, _ = client.request("POST", PODS, pod("a"))
    obj["metadata"]["labels"] = {"x": "1"}
    status, new, _ = client.request("PUT", PODS + "/a", obj)
    assert status == 200 and int(new["metadata"]["resourceVersion"]) > int(obj["metadata"]["resourceVersion"])
    status, st, _ = client.request("PUT", PODS + "/a", obj)  # obj carries the old RV
    assert status == 409 and st["reason"] == "Conflict" and "the object has been modified" in st["message"]


def test_noop_update_keeps_rv(client):
    _, obj, _ = client.request("POST", PODS, pod("a"))
    status, same, _ = client.request("PUT", PODS + "/a", obj)
    assert status == 200 and same["metadata"]["resourceVersion"] == obj["metadata"]["resourceVersion"]


def test_put_keeps_status_and_status_subresource_changes_only_status(client):
    _, obj, _ = client.request("POST", PODS, pod("a"))
    obj["status"] = {"phase": "Running"}
    _, new, _ = client.request("PUT", PODS + "/a", obj)
    assert new["status"]["phase"] == "Pending"
    new["status"] = {"phase": "Running"}
    new["metadata"]["labels"] = {"ignored": "yes"}
    _, st, _ = client.request("PUT", PODS + "/a/status", new)
    assert st["status"]["phase"] == "Running" and "labels" not in st["metadata"]


def test_merge_strategic_and_json_patch(client):
    client.request("POST", PODS, pod("a", labels={"app": "x", "drop": "me"}))
    status, obj, _ = client.request(
        "PATCH",
        PODS + "/a",
        {"metadata": {"labels": {"tier": "1", "drop": None}}},
        ctype="application/merge-patch+json",
    )
    assert status == 200 and obj["metadata"]["labels"] == {"app": "x", "tier": "1"}
    status, obj, _ = client.request(
        "PATCH", PODS + "/a", {"metadata": {"annotations": {"a": "b"}}}, ctype="application/strategic-merge-patch+json"
    )
    assert status == 200 and obj["metadata"]["annotations"] == {"a": "b"}
    status, obj, _ = client.request(
        "PATCH",
        PODS + "/a",
        [{"op": "replace", "path": "/metadata/labels/app", "value": "y"}],
        ctype="application/json-patch+json",
    )
    assert status == 200 and obj["metadata"]["labels"]["app"] == "y"
    status, st, _ = client.request("PATCH", PODS + "/a", {"x": 1}, ctype="application/apply-patch+yaml")
    assert status == 422 and "fieldManager: Required value" in st["message"]  # apply needs a manager
    status, st, _ = client.request("PATCH", PODS + "/a", {"x": 1}, ctype="application/cbor")
    assert status == 415 and st["reason"] == "UnsupportedMediaType"


def test_delete_returns_last_state_and_namespace_delete_cascades(client, sim):
    _, obj, _ = client.request("POST", PODS, pod("a"))
    status, gone, _ = client.request("DELETE", PODS + "/a")
    assert status == 200 and gone["metadata"]["name"] == "a"
    assert int(gone["metadata"]["resourceVersion"]) > int(obj["metadata"]["resourceVersion"])
    assert client.request("DELETE", PODS + "/a")[0] == 404
    client.request("POST", "/api/v1/namespaces/other/pods", pod("b", ns="other"))
    assert client.request("DELETE", "/api/v1/namespaces/other")[0] == 200
    assert sim.store.list("pods", "other") == []


def test_delete_precondition(client):
    client.request("POST", PODS, pod("a"))
    status, st, _ = client.request("DELETE", PODS + "/a", {"preconditions": {"resourceVersion": "1"}})
    assert status == 409


def test_deletecollection_with_selector(client, sim):
    for i, app in enumerate(["x", "x", "y"]):
        client.request("POST", PODS, pod(f"p{i}", labels={"app": app}))
    status, st, _ = client.request("DELETE", PODS + "?labelSelector=app%3Dx")
    assert status == 200 and st["status"] == "Success"
    assert [p["metadata"]["name"] for p in sim.store.list("pods")] == ["p2"]


def test_unknown_paths_are_404_and_cluster_scoped_in_namespace_is_404(client):
    assert client.get("/api/v1/nothings")[0] == 404
    assert client.get("/api/v1/namespaces/default/namespaces")[0] == 404
    assert client.get("/bogus")[0] == 404


def test_crd_object_and_widgets(client, sim):
    from kubectl_informer.sim.resources import widget_crd

    sim.store.create("crd", widget_crd())
    status, crd = client.get("/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.com")
    assert status == 200 and crd["spec"]["names"]["shortNames"] == ["wd"]
    w = {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}, "spec": {"size": 1}}
    status, obj, _ = client.request("POST", "/apis/example.com/v1/namespaces/default/widgets", w)
    assert status == 201 and obj["metadata"]["generation"] == 1
    obj["spec"]["size"] = 2
    _, obj2, _ = client.request("PUT", "/apis/example.com/v1/namespaces/default/widgets/w", obj)
    assert obj2["metadata"]["generation"] == 2


def test_yaml_body_accepted(client):
    import http.client

    conn = http.client.HTTPConnection(client.host, client.port)
    body = b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: y\ndata:\n  k: v\n"
    conn.request(
        "POST",
        "/api/v1/namespaces/default/configmaps",
        body=body,
        headers={"Content-Type": "application/yaml", **client.auth},
    )
    assert conn.getresponse().status == 201


def test_error_answers_leave_the_keep_alive_connection_usable(sim):
    import http.client
    import json

    conn = http.client.HTTPConnection("127.0.0.1", sim.port)
    body = json.dumps({"metadata": {"name": "x"}}).encode()
    conn.request(
        "POST",
        "/api/v1/namespaces/default/nothings",
        body=body,
        headers={"Content-Type": "application/json", "Authorization": f"Bearer {sim.token}"},
    )
    r = conn.getresponse()
    assert r.status == 404
    r.read()
    conn.request("GET", "/api/v1/namespaces/default/pods", headers={"Authorization": f"Bearer {sim.token}"})
    r = conn.getresponse()
    assert r.status == 200 and json.loads(r.read())["kind"] == "PodList"
    conn.close()


def test_noop_detection_ignores_key_order_and_status_updates_still_count(client, sim):
    _, obj, _ = client.request("POST", PODS, pod("a", labels={"x": "1", "y": "2"}))
    reordered = {k: obj[k] for k in reversed(list(obj))}
    reordered["metadata"] = {k: obj["metadata"][k] for k in reversed(list(obj["metadata"]))}
    status, same, _ = client.request("PUT", PODS + "/a", reordered)
    assert same["metadata"]["resourceVersion"] == obj["metadata"]["resourceVersion"]
    stored = sim.store.get("pods", "default", "a")
    stored["status"] = {"phase": "Running"}
    new = sim.store.update("pods", stored, subresource="status")
    assert new["status"] == {"phase": "Running"}
    assert int(new["metadata"]["resourceVersion"]) > int(obj["metadata"]["resourceVersion"])
