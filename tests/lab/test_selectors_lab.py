"""The simulator's answers to bad list parameters against kube-apiserver v1.36's
on the lab: the same requests, through the plugin's own REST client, get the
same status and Status message. Label selectors (the recorded table of
tests/sim/label_selector_answers.py, asked again) and continue tokens.
"""

from __future__ import annotations

import base64
import json

import pytest

from kubectl_informer.kube.config import load_kube
from kubectl_informer.sim.server import SimServer
from tests.sim.label_selector_answers import LAB_ANSWERS

pytestmark = pytest.mark.lab

PODS = "/api/v1/namespaces/default/pods"


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
