"""Everyday kubectl commands against the simulated API server, with the real
kubectl: typed creates (protobuf bodies), get's tables, scale, events,
server-side dry-run, server-side apply and diff, auth can-i, deletion.
One simulated cluster serves the whole module."""

from __future__ import annotations

import contextlib
import json
import os
import re
import subprocess

import pytest

from kubectl_informer.clock.testing import wait_for
from kubectl_informer.sim.demo import seed
from kubectl_informer.sim.events import EventRecorder
from kubectl_informer.sim.server import SimServer
from tests.e2e.test_cli_demo import finish, read_until, start
from tests.e2e.test_kubectl_sim import Kubectl

pytestmark = pytest.mark.e2e

SERVER_META = ("uid", "resourceVersion", "creationTimestamp", "generation", "namespace", "managedFields")


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("kubectl-commands")
    sim = SimServer(
        anonymous=True
    ).start()  # kubectl sends no credentials to an http:// server (clientcmd): it is served as anonymous
    seed(sim.store)
    kc = sim.write_kubeconfig(str(tmp / "kubeconfig"))
    yield sim, Kubectl(kc, str(tmp / "cache")), tmp
    sim.stop()


def header(out: str) -> list[str]:
    return re.split(r"\s{2,}", out.splitlines()[0].strip())


def rows(out: str) -> list[list[str]]:
    return [re.split(r"\s{2,}", line.strip()) for line in out.splitlines()[1:]]


def comparable(obj: dict) -> dict:
    obj = json.loads(json.dumps(obj))
    for k in SERVER_META:
        obj["metadata"].pop(k, None)
    obj.pop("status", None)
    return obj


TYPED_CREATES = [
    (["create", "configmap", "pb-cm", "--from-literal=a=b", "--from-literal=c=d"], "configmaps", "configmap/pb-cm"),
    (
        ["create", "secret", "generic", "pb-secret", "--from-literal=user=admin", "--type=Opaque"],
        "secrets",
        "secret/pb-secret",
    ),
    (
        [
            "create",
            "secret",
            "docker-registry",
            "pb-reg",
            "--docker-server=r.example",
            "--docker-username=u",
            "--docker-password=p",
        ],
        "secrets",
        "secret/pb-reg",
    ),
    (["create", "namespace", "pb-ns"], "namespaces", "namespace/pb-ns"),
    (
        ["create", "deployment", "pb-deploy", "--image=nginx:1.27", "--replicas=0", "--port=8080", "--", "sleep", "60"],
        "deployments",
        "deployment.apps/pb-deploy",
    ),
]


@pytest.mark.parametrize(
    "args,resource,made", TYPED_CREATES, ids=[a[1] + (a[2] if a[1] == "secret" else "") for a, _, _ in TYPED_CREATES]
)
def test_typed_creates_send_protobuf_and_store_what_kubectl_built(env, args, resource, made):
    sim, kubectl, _ = env
    r = kubectl("-v=8", *args)
    assert r.stdout.strip() == f"{made} created"
    assert "Content-Type: application/vnd.kubernetes.protobuf" in r.stderr  # it really sent protobuf
    want = json.loads(kubectl("--dry-run=client", "-o", "json", *args).stdout)
    name = made.split("/")[1]
    got = sim.store.get(resource, None if resource == "namespaces" else "default", name)
    assert [(m["manager"], m["operation"]) for m in got["metadata"]["managedFields"]] == [("kubectl-create", "Update")]
    got, want = comparable(got), comparable(want)
    if resource == "namespaces":  # the server's own defaults
        assert got["metadata"].pop("labels") == {"kubernetes.io/metadata.name": "pb-ns"}
        assert got.pop("spec") == {"finalizers": ["kubernetes"]} and want.pop("spec") == {}
    assert got == want


def test_debug_copy_sends_a_whole_pod_as_protobuf(env):
    sim, kubectl, _ = env
    src = sim.store.list("pods", "default")[0]
    r = kubectl(
        "debug",
        f"pod/{src['metadata']['name']}",
        "--copy-to=dbg",
        "--image=busybox",
        "--container=dbg",
        "--attach=false",
        "--profile=restricted",
        "--",
        "sleep",
        "1",
    )
    assert r.returncode == 0
    copy = sim.store.get("pods", "default", "dbg")["spec"]
    assert copy["containers"][0] == src["spec"]["containers"][0]  # ports, resources, ... all decoded
    assert copy["tolerations"] == src["spec"]["tolerations"]
    assert copy["containers"][1]["securityContext"] == {
        "allowPrivilegeEscalation": False,
        "capabilities": {"drop": ["ALL"]},
        "runAsNonRoot": True,
        "seccompProfile": {"type": "RuntimeDefault"},
    }


def test_deployment_from_protobuf_keeps_an_explicit_zero(env):
    sim, _, _ = env
    assert sim.store.get("deployments", "default", "pb-deploy")["spec"]["replicas"] == 0


def test_get_prints_the_columns_of_kube_apiservers_tables(env):
    _, kubectl, _ = env
    out = kubectl("get", "pods", "-n", "shop").stdout
    assert header(out) == ["NAME", "READY", "STATUS", "RESTARTS", "AGE"]
    assert {tuple(r[1:4]) for r in rows(out)} == {("1/1", "Running", "0")}
    out = kubectl("get", "pods", "-n", "shop", "-o", "wide").stdout
    assert header(out) == [
        "NAME",
        "READY",
        "STATUS",
        "RESTARTS",
        "AGE",
        "IP",
        "NODE",
        "NOMINATED NODE",
        "READINESS GATES",
    ]
    assert all(
        r[5].startswith("10.244.") and r[6].startswith("node-") and r[7:] == ["<none>", "<none>"] for r in rows(out)
    )
    out = kubectl("get", "pods", "-n", "batch").stdout
    assert {r[2] for r in rows(out)} == {"Running", "Completed", "ContainerCreating", "Error"}
    out = kubectl("get", "pods", "-A").stdout
    assert header(out)[:2] == ["NAMESPACE", "NAME"] and {r[0] for r in rows(out)} == {"batch", "default", "shop"}
    out = kubectl("get", "pods", "-n", "shop", "--show-labels").stdout
    assert header(out)[-1] == "LABELS" and all("app=" in r[-1] for r in rows(out))


@pytest.mark.parametrize(
    "args,want_header,want_row",
    [
        (
            ["get", "deploy", "frontend", "-n", "shop", "-o", "wide"],
            ["NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE", "CONTAINERS", "IMAGES", "SELECTOR"],
            ["frontend", "5/5", "5", "5", None, "frontend", "nginx:1.27", "app=frontend"],
        ),
        (["get", "configmap", "web-config"], ["NAME", "DATA", "AGE"], ["web-config", "2", None]),
        (
            ["get", "secret", "default-credentials"],
            ["NAME", "TYPE", "DATA", "AGE"],
            ["default-credentials", "Opaque", "1", None],
        ),
        (["get", "namespace", "shop"], ["NAME", "STATUS", "AGE"], ["shop", "Active", None]),
        (["get", "crd"], ["NAME", "CREATED AT"], ["widgets.example.com", None]),
        (
            ["get", "widgets", "shop-widget", "-n", "shop"],
            ["NAME", "SIZE", "COLOR", "AGE"],
            ["shop-widget", "3", "red", None],
        ),
        (
            ["get", "widgets", "shop-widget", "-n", "shop", "-o", "wide"],
            ["NAME", "SIZE", "COLOR", "READY", "AGE"],
            ["shop-widget", "3", "red", "true", None],
        ),
    ],
    ids=[
        "deployments-wide",
        "configmaps",
        "secrets",
        "namespaces",
        "crds",
        "crd-printer-columns",
        "crd-printer-columns-wide",
    ],
)
def test_get_tables_per_kind(env, args, want_header, want_row):
    _, kubectl, _ = env
    out = kubectl(*args).stdout
    assert header(out) == want_header
    row = rows(out)[0]
    assert len(row) == len(want_row), row
    assert [w if w is None else c for c, w in zip(row, want_row, strict=True)] == want_row


def test_get_events_and_wide(env):
    _, kubectl, _ = env
    out = kubectl("get", "events", "-n", "shop").stdout
    assert header(out) == ["LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"]
    reasons = {r[2] for r in rows(out)}
    assert {"Scheduled", "Started"} <= reasons and all(r[3].startswith("pod/") for r in rows(out))
    out = kubectl("get", "events", "-n", "shop", "-o", "wide").stdout
    assert header(out) == [
        "LAST SEEN",
        "TYPE",
        "REASON",
        "OBJECT",
        "SUBOBJECT",
        "SOURCE",
        "MESSAGE",
        "FIRST SEEN",
        "COUNT",
        "NAME",
    ]


def test_describe_shows_the_pods_events(env):
    sim, kubectl, _ = env
    name = sim.store.list("pods", "default")[0]["metadata"]["name"]
    out = kubectl("describe", "pod", name).stdout
    events = out[out.index("Events:") :].splitlines()
    assert events[1].split() == ["Type", "Reason", "Age", "From", "Message"]
    assert {tuple(line.split()[:2]) for line in events[3:]} == {("Normal", "Scheduled"), ("Normal", "Started")}


@contextlib.contextmanager
def watching(sim, kubectl, resource: str, namespace: str):
    """``kubectl get RESOURCE -w --watch-only`` running, its watch open."""
    p = subprocess.Popen(
        kubectl.base + ["get", resource, "-n", namespace, "--watch-only"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert wait_for(lambda: sim.store.watchers(resource), timeout=20)
        yield p
    finally:
        p.kill()
        p.wait()


def test_get_pods_watch_prints_table_rows(env):
    sim, kubectl, _ = env
    with watching(sim, kubectl, "pods", "shop") as p:
        obj = sim.store.list("pods", "shop")[-1]
        obj["metadata"]["labels"]["touched"] = "yes"
        sim.store.update("pods", obj)
        lines = [p.stdout.readline(), p.stdout.readline()]
    assert header(lines[0]) == ["NAME", "READY", "STATUS", "RESTARTS", "AGE"]
    assert rows(lines[0] + lines[1])[0][:4] == [obj["metadata"]["name"], "1/1", "Running", "0"]


def test_get_events_watch_streams_new_events(env):
    sim, kubectl, _ = env
    with watching(sim, kubectl, "events", "default") as p:
        pod = sim.store.list("pods", "default")[0]
        EventRecorder(sim.store).record(pod, "Warning", "Unhealthy", "Readiness probe failed", "kubelet")
        lines = [p.stdout.readline(), p.stdout.readline()]
    assert header(lines[0]) == ["LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"]
    assert rows(lines[0] + lines[1])[0][1:4] == ["Warning", "Unhealthy", f"pod/{pod['metadata']['name']}"]


def test_scale_and_the_scale_and_status_subresources(env):
    sim, kubectl, _ = env
    gen = sim.store.get("deployments", "default", "web")["metadata"]["generation"]
    assert kubectl("scale", "deploy", "web", "--replicas=7").stdout.strip() == "deployment.apps/web scaled"
    d = sim.store.get("deployments", "default", "web")
    assert d["spec"]["replicas"] == 7 and d["metadata"]["generation"] == gen + 1
    sc = kubectl.json("get", "deploy", "web", "--subresource=scale")
    assert (sc["kind"], sc["spec"]["replicas"], sc["status"]["selector"]) == ("Scale", 7, "app=web")
    st = kubectl.json("get", "deploy", "web", "--subresource=status")
    assert st["status"]["readyReplicas"] == 5
    kubectl("patch", "deploy", "web", "--subresource=status", "--type=merge", "-p", '{"status":{"readyReplicas":6}}')
    d = sim.store.get("deployments", "default", "web")
    assert d["status"]["readyReplicas"] == 6 and d["metadata"]["generation"] == gen + 1  # status: no new generation


def test_set_image_patches_one_container_and_keeps_the_rest(env):
    sim, kubectl, _ = env
    name = sim.store.list("pods", "batch")[0]["metadata"]["name"]
    before = sim.store.get("pods", "batch", name)["spec"]["containers"][0]
    out = kubectl("set", "image", f"pod/{name}", f"{before['name']}=busybox:1.36", "-n", "batch").stdout
    assert out.strip() == f"pod/{name} image updated"
    after = sim.store.get("pods", "batch", name)["spec"]["containers"]
    assert after == [{**before, "image": "busybox:1.36"}]  # ports, resources... kept: a strategic merge


def test_server_side_dry_run_changes_nothing(env):
    sim, kubectl, _ = env
    rv = sim.store.current_rv()
    obj = kubectl.json("create", "configmap", "dry", "--from-literal=a=b", "--dry-run=server")
    assert obj["metadata"]["uid"] and obj["data"] == {"a": "b"}
    r = kubectl("scale", "deploy", "api", "--replicas=9", "--dry-run=server")
    assert r.stdout.strip() == "deployment.apps/api scaled (server dry run)"
    r = kubectl("delete", "deploy", "api", "--dry-run=server")
    assert r.stdout.strip() == 'deployment.apps "api" deleted (server dry run)'
    r = kubectl("label", "configmap", "web-config", "dry=run", "--dry-run=server")
    assert r.stdout.strip() == "configmap/web-config labeled (server dry run)"
    assert sim.store.current_rv() == rv
    assert sim.store.get("deployments", "default", "api")["spec"]["replicas"] == 4


DEPLOY = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: ssa
  labels: {app: ssa, team: a}
spec:
  replicas: 2
  selector: {matchLabels: {app: ssa}}
  template:
    metadata: {labels: {app: ssa}}
    spec:
      containers:
      - name: c
        image: nginx:1
"""


def test_apply_server_side_and_diff(env):
    sim, kubectl, tmp = env
    f = tmp / "ssa.yaml"
    f.write_text(DEPLOY)
    assert kubectl("apply", "--server-side", "-f", str(f)).stdout.strip() == "deployment.apps/ssa serverside-applied"
    mf = sim.store.get("deployments", "default", "ssa")["metadata"]["managedFields"]
    assert [(m["manager"], m["operation"]) for m in mf] == [("kubectl", "Apply")]
    assert mf[0]["fieldsV1"]["f:spec"]["f:replicas"] == {}
    r = kubectl("diff", "--server-side", "-f", str(f))
    assert r.stdout == ""
    f.write_text(DEPLOY.replace("replicas: 2", "replicas: 3").replace(", team: a", ""))
    r = kubectl("diff", "--server-side", "-f", str(f), ok=False)
    assert r.returncode == 1 and "-  replicas: 2\n+  replicas: 3" in r.stdout and "-    team: a" in r.stdout
    assert sim.store.get("deployments", "default", "ssa")["spec"]["replicas"] == 2  # diff is a dry run
    kubectl("apply", "--server-side", "-f", str(f))
    d = sim.store.get("deployments", "default", "ssa")
    assert d["spec"]["replicas"] == 3 and d["metadata"]["labels"] == {"app": "ssa"}  # the dropped label goes
    f2 = tmp / "other.yaml"
    f2.write_text(DEPLOY.replace("replicas: 2", "replicas: 5"))
    r = kubectl("apply", "--server-side", "--field-manager=other", "-f", str(f2), ok=False)
    assert r.returncode != 0 and 'conflict with "kubectl": .spec.replicas' in r.stderr
    kubectl("apply", "--server-side", "--field-manager=other", "--force-conflicts", "-f", str(f2))
    assert sim.store.get("deployments", "default", "ssa")["spec"]["replicas"] == 5
    kubectl("scale", "deploy", "ssa", "--replicas=6")  # an Update: kubectl (its User-Agent) now owns replicas
    mf = sim.store.get("deployments", "default", "ssa")["metadata"]["managedFields"]
    assert ("kubectl", "Update", {"f:spec": {"f:replicas": {}}}) in [
        (m["manager"], m["operation"], m["fieldsV1"]) for m in mf
    ]
    r = kubectl("apply", "--server-side", "--field-manager=other", "-f", str(f2), ok=False)
    assert re.search(
        r'Apply failed with 1 conflict: conflict with "kubectl" using apps/v1 at \S+: \.spec\.replicas', r.stderr
    )


def test_auth_can_i_is_always_yes(env):
    _, kubectl, _ = env
    assert kubectl("auth", "can-i", "delete", "pods").stdout.strip() == "yes"
    assert kubectl("auth", "can-i", "create", "deployments", "-n", "shop").stdout.strip() == "yes"
    assert kubectl("auth", "can-i", "get", "/healthz").stdout.strip() == "yes"


def test_delete_pod_is_graceful_then_gone(env):
    sim, kubectl, _ = env
    name = sim.store.list("pods", "shop")[0]["metadata"]["name"]
    w, _, _ = sim.store.start_watch("pods", "shop", resource_version=str(sim.store.current_rv()))
    try:
        r = kubectl("delete", "pod", name, "-n", "shop")
        assert r.stdout.strip() == f'pod "{name}" deleted'
        first, second = json.loads(w.next(5).line()), json.loads(w.next(5).line())
    finally:
        sim.store.stop_watch(w)
    assert first["type"] == "MODIFIED" and first["object"]["metadata"]["deletionGracePeriodSeconds"] == 30
    assert first["object"]["metadata"]["deletionTimestamp"]
    assert second["type"] == "DELETED"


def test_force_delete_is_immediate(env):
    sim, kubectl, _ = env
    name = sim.store.list("pods", "shop")[0]["metadata"]["name"]
    rv = sim.store.current_rv()
    r = kubectl("delete", "pod", name, "-n", "shop", "--grace-period=0", "--force")
    assert r.stdout.strip() == f'pod "{name}" force deleted' and "Immediate deletion" in r.stderr
    assert sim.store.current_rv() == rv + 1  # one write: the delete, no graceful update


def test_finalizers_hold_a_deletion_until_removed(env):
    sim, kubectl, tmp = env
    f = tmp / "fin.yaml"
    f.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: fin\n  finalizers: [example.com/keep]\n")
    kubectl("create", "-f", str(f))
    assert kubectl("delete", "configmap", "fin", "--wait=false").stdout.strip() == 'configmap "fin" deleted'
    obj = kubectl.json("get", "configmap", "fin")
    assert obj["metadata"]["deletionTimestamp"] and obj["metadata"]["finalizers"] == ["example.com/keep"]
    kubectl("patch", "configmap", "fin", "--type=merge", "-p", '{"metadata":{"finalizers":null}}')
    r = kubectl("get", "configmap", "fin", ok=False)
    assert r.returncode == 1 and 'configmaps "fin" not found' in r.stderr


def test_bad_bodies_answer_a_status_not_a_python_error(env):
    _, kubectl, tmp = env
    f = tmp / "bad.json"
    f.write_bytes(b'{"kind": "ConfigMap", "metadata": {"name": "x"\xff')
    r = kubectl("create", "--raw", "/api/v1/namespaces/default/configmaps", "-f", str(f), ok=False)
    assert r.returncode == 1
    assert (
        r.stderr.strip() == "Error from server (BadRequest): the body of the request was in an unknown "
        "format: it is not valid JSON"
    )


def test_plugin_watches_events_of_the_demo():
    p = start("watch", "events", "-A", "--demo", "steady", "-o", "text")
    lines = read_until(p, lambda ls: any(line.startswith("Added ") and "[initial list]" not in line for line in ls))
    assert any(line.endswith("[initial list]") for line in lines)  # the seeded events
    rc, _, err = finish(p)
    assert rc == 143 and err == ""  # SIGTERM, as docs/security.md says


def test_kubectl_does_not_fall_back_from_protobuf_on_415(env):
    """Why the simulator decodes protobuf: a server that answers 415 (as one
    without protobuf would) gets no JSON retry from kubectl's typed clients."""
    sim, kubectl, _ = env
    sim.faults.fail_next(415, verb="create", resource="configmaps")
    before = len([r for r in sim.request_log if r[0] == "POST"])
    r = kubectl("create", "configmap", "no-fallback", "--from-literal=a=b", ok=False)
    assert r.returncode == 1 and "unknown format" in r.stderr

    # The server logs a request once its answer is written: kubectl may have
    # exited before that, so the log is waited for; one try, no JSON retry.
    def posts() -> int:
        return len([r for r in sim.request_log if r[0] == "POST"])

    assert wait_for(lambda: posts() >= before + 1)
    assert not wait_for(lambda: posts() > before + 1, timeout=0.3)
    assert "no-fallback" not in {c["metadata"]["name"] for c in sim.store.list("configmaps", "default")}


def test_kubectl_132_sends_no_cbor_even_with_the_client_gates(env, tmp_path):
    _, kubectl, _ = env
    f = tmp_path / "cm.yaml"
    f.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cbor-cm}\ndata: {a: b}\n")
    env_vars = dict(os.environ, KUBE_FEATURE_ClientsAllowCBOR="true", KUBE_FEATURE_ClientsPreferCBOR="true")
    r = subprocess.run(
        kubectl.base + ["-v=8", "create", "-f", str(f)], capture_output=True, text=True, env=env_vars, timeout=60
    )
    assert r.stdout.strip() == "configmap/cbor-cm created"
    sent = re.findall(r"POST http\S+configmaps\S*\n.*?Content-Type: (\S+)", r.stderr, re.S)
    assert sent == ["application/json"]
