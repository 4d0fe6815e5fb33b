"""The simulator's answers to bad list parameters against kube-apiserver v1.36's
on the lab: the same requests, through the plugin's own REST client, get the
same status and Status message. Label selectors (the recorded table of
tests/sim/label_selector_answers.py, asked again), continue tokens, and the
selectors of ReplicaSets and Deployments created in a dry run (the table of
tests/sim/selector_validation_answers.py), and query bytes that are not UTF-8,
not well escaped or not numbers (tests/sim/query_bytes_answers.py, whole bodies).
"""

from __future__ import annotations

import base64
import http.client
import json
import uuid
from urllib.parse import urlsplit

import pytest

from kubectl_informer.kube.config import load_kube
from kubectl_informer.sim.server import SimServer
from tests.sim.label_selector_answers import LAB_ANSWERS
from tests.sim.query_bytes_answers import LAB_ANSWERS as QUERY_ANSWERS
from tests.sim.selector_validation_answers import LAB_ANSWERS as SELECTOR_ANSWERS
from tests.sim.selector_validation_answers import UPDATE_ANSWERS, UPDATE_ORIGINAL

pytestmark = pytest.mark.lab

PODS = "/api/v1/namespaces/default/pods"
POD_SPEC = {"containers": [{"name": "c", "image": "i"}]}


def _raw(text: str) -> str:
    return base64.urlsafe_b64encode(text.encode("latin-1")).decode().rstrip("=")


# Tokens whose refusal the simulator words as kube-apiserver does (see sim/continuation.py).
CONTINUE_TOKENS = [
    "garbage",
    "a",
    "a=b",
    "YQ==",
    "Zm9v+/",
    "Zm9v\nYQ",
    _raw("{"),
    _raw("  "),
    _raw("{}"),
    _raw("null"),
    _raw("[]"),
    _raw("1"),
    _raw('"x"'),
    _raw('{"v":1}'),
    _raw('{"v":"meta.k8s.io/v1"}'),
    _raw('{"v":"meta.k8s.io/v1","rv":5}'),
    _raw('{"v":"meta.k8s.io/v1","rv":"5","start":"x"}'),
    _raw('{"v":"meta.k8s.io/v1","rv":1.5,"start":"x"}'),
    _raw('{"rv":9223372036854775808}'),
    _raw('{"v":"meta.k8s.io/v2","rv":5,"start":"x"}'),
    _raw('{"v":"meta.k8s.io/v1","rv":-1,"start":"../x"}'),
    _raw('{"V":"meta.k8s.io/v1","RV":-1,"Start":"x"}'),
    _raw('{"v":"a"} x'),
    _raw("{x}"),
    _raw('{"v":}'),
    _raw("tru"),
]


def _answers(kubeconfig: str, param: str, values: list[str], **extra: str) -> list[tuple[str, int, str | None]]:
    api = load_kube(kubeconfig=kubeconfig).api_client
    out = []
    for value in values:
        resp = api.get(api.url(PODS, [*extra.items(), (param, value)]), "application/json", 10)
        body = json.loads(resp.data)
        out.append((value, resp.status, body.get("message") if resp.status != 200 else None))
    return out


@pytest.fixture
def sim_kubeconfig(tmp_path):
    sim = SimServer(tls=True).start()
    sim.store.create("namespaces", {"metadata": {"name": "default"}})
    try:
        yield sim.write_kubeconfig(str(tmp_path / "kubeconfig"))
    finally:
        sim.stop()


def test_label_selectors_get_the_labs_answers(lab_kubeconfig, sim_kubeconfig):
    selectors = [row[0] for row in LAB_ANSWERS]
    lab = _answers(lab_kubeconfig, "labelSelector", selectors)
    assert lab == LAB_ANSWERS  # the recorded table still holds
    assert _answers(sim_kubeconfig, "labelSelector", selectors) == lab


def test_continue_tokens_get_the_labs_answers(lab_kubeconfig, sim_kubeconfig):
    lab = _answers(lab_kubeconfig, "continue", CONTINUE_TOKENS, limit="1")
    assert sum(status == 400 for _, status, _ in lab) == len(CONTINUE_TOKENS) - 1  # all but the one with "RV"
    assert _answers(sim_kubeconfig, "continue", CONTINUE_TOKENS, limit="1") == lab


def _call(kubeconfig: str, method: str, path: str, body: dict | None = None) -> tuple[int, dict]:
    """``method`` with ``body`` as JSON (the plugin's client only reads: its TLS and credentials, http.client's)."""
    api = load_kube(kubeconfig=kubeconfig).api_client
    cfg = api.configuration
    context, _ = api._tls_context()
    url = urlsplit(cfg.host)
    conn = http.client.HTTPSConnection(url.hostname or "", url.port or 443, context=context, timeout=10)
    headers = {"Content-Type": "application/json", "Accept": "application/json"}
    if cfg.authorization:
        headers["Authorization"] = cfg.authorization
    try:
        conn.request(method, path, None if body is None else json.dumps(body), headers)
        resp = conn.getresponse()
        return resp.status, json.loads(resp.read())
    finally:
        conn.close()


def _post(kubeconfig: str, path: str, body: dict) -> tuple[int, str | None]:
    status, answer = _call(kubeconfig, "POST", path, body)
    return status, answer.get("message") if status != 201 else None


def _update_answers(kubeconfig: str, namespace: str) -> list[tuple[str, dict | None, dict, int, str | None]]:
    """UPDATE_ANSWERS' requests: "imm" created, then each update in a dry run."""
    out = []
    for kind in ("ReplicaSet", "Deployment"):
        base = f"/apis/apps/v1/namespaces/{namespace}/{kind.lower()}s"
        selector, labels = UPDATE_ORIGINAL
        spec = {"replicas": 0, "selector": selector, "template": {"metadata": {"labels": labels}, "spec": POD_SPEC}}
        obj = {"apiVersion": "apps/v1", "kind": kind, "metadata": {"name": "imm", "namespace": namespace}}
        status, created = _call(kubeconfig, "POST", base, {**obj, "spec": spec})
        assert status == 201, created
        for k, sel, new_labels, _, _ in UPDATE_ANSWERS:
            if k != kind:
                continue
            new_spec = {**spec, "template": {"metadata": {"labels": new_labels}, "spec": POD_SPEC}}
            new_spec.pop("selector")
            if sel is not None:
                new_spec["selector"] = sel
            meta = {k: v for k, v in created["metadata"].items() if k != "resourceVersion"}  # unconditional
            status, answer = _call(
                kubeconfig, "PUT", f"{base}/imm?dryRun=All", {**obj, "metadata": meta, "spec": new_spec}
            )
            out.append((kind, sel, new_labels, status, answer.get("message") if status != 200 else None))
    return out


def test_a_selector_is_held_immutable_as_the_lab_holds_it(lab_kubeconfig, sim_kubeconfig):
    """The recorded updates of tests/sim/selector_validation_answers.py, asked of both."""
    namespace = f"lab-immutable-{uuid.uuid4().hex[:8]}"
    answers = {}
    for side, kubeconfig in (("lab", lab_kubeconfig), ("sim", sim_kubeconfig)):
        status, _ = _call(kubeconfig, "POST", "/api/v1/namespaces", {"metadata": {"name": namespace}})
        assert status == 201
        try:
            answers[side] = _update_answers(kubeconfig, namespace)
        finally:
            _call(kubeconfig, "DELETE", f"/api/v1/namespaces/{namespace}")
    assert answers["lab"] == UPDATE_ANSWERS  # the recorded table still holds
    assert answers["sim"] == answers["lab"]


def test_replicaset_and_deployment_selectors_get_the_labs_answers(lab_kubeconfig, sim_kubeconfig):
    """The recorded table of tests/sim/selector_validation_answers.py, asked of both (dry runs)."""
    for kind, selector, labels, status, message in SELECTOR_ANSWERS:
        obj = {"apiVersion": "apps/v1", "kind": kind, "metadata": {"name": "bad", "namespace": "default"}}
        spec: dict = {
            "replicas": 0,
            "template": {"metadata": {}, "spec": {"containers": [{"name": "c", "image": "i"}]}},
        }
        if selector is not None:
            spec["selector"] = selector
        if labels is not None:
            spec["template"]["metadata"]["labels"] = labels
        path = f"/apis/apps/v1/namespaces/default/{kind.lower()}s?dryRun=All"
        lab = _post(lab_kubeconfig, path, {**obj, "spec": spec})
        assert lab == (status, message), (kind, selector, labels)  # the recorded answer still holds
        assert _post(sim_kubeconfig, path, {**obj, "spec": spec}) == lab, (kind, selector, labels)


def _raw_answers(kubeconfig: str, queries: list[str]) -> list[tuple[str, int, bytes | None]]:
    """Each query sent as written (its escapes kept), with the whole body of a refusal."""
    api = load_kube(kubeconfig=kubeconfig).api_client
    out = []
    for query in queries:
        resp = api.get(f"{api.configuration.host}{PODS}?{query}", "application/json", 10)
        body = resp.data
        out.append((query, resp.status, body if resp.status != 200 else None))
    return out


def test_bad_query_bytes_get_the_labs_answers_byte_for_byte(lab_kubeconfig, sim_kubeconfig):
    """The recorded table of tests/sim/query_bytes_answers.py, asked of both."""
    queries = [row[0] for row in QUERY_ANSWERS]
    lab = _raw_answers(lab_kubeconfig, queries)
    assert lab == QUERY_ANSWERS  # the recorded table still holds
    assert _raw_answers(sim_kubeconfig, queries) == lab
