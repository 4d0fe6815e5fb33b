import pytest

from kubectl_informer.sim.server import SimServer
from tests.sim._http import RawClient


def pod(name, ns="default", labels=None, phase=None):
    obj = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": ns},
        "spec": {"containers": [{"name": "c", "image": "nginx"}]},
    }
    if labels:
        obj["metadata"]["labels"] = labels
    if phase:
        obj["status"] = {"phase": phase}
    return obj


@pytest.fixture
def sim():
    s = SimServer().start()
    for ns in ("default", "other"):
        s.store.create("namespaces", {"metadata": {"name": ns}})
    yield s
    s.stop()


@pytest.fixture
def client(sim):
    return RawClient(sim.url, token=sim.token)
