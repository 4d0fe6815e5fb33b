import pytest
from kubernetes import client as k8s_client

from kubectl_informer.kube.config import new_api_client

from .fake_apiserver import FakeAPIServer, serve_discovery


@pytest.fixture
def fake():
    srv = FakeAPIServer().start()
    yield srv
    srv.stop()


@pytest.fixture
def api(fake):
    cfg = k8s_client.Configuration()
    cfg.host = fake.url
    client = new_api_client(cfg)
    yield client
    client.close()


@pytest.fixture
def disco(fake):
    serve_discovery(fake)
    return fake
