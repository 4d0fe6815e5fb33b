import pytest
from kubernetes import client as k8s_client

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
    client = k8s_client.ApiClient(cfg)
    yield client
    client.close()


@pytest.fixture
def disco(fake):
    serve_discovery(fake)
    return fake
