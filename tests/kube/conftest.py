import pytest

from kubectl_informer.kube import config as kconfig
from kubectl_informer.kube.config import new_api_client
from kubectl_informer.kube.light import LightClient, LightConfig

from .fake_apiserver import FakeAPIServer, serve_discovery


@pytest.fixture
def fake():
    srv = FakeAPIServer().start()
    yield srv
    srv.stop()


@pytest.fixture(params=["light", "kubernetes-client"])
def api(fake, request):
    """Every test using it runs through both transports load_kube can hand
    out: the light client and the kubernetes client's ApiClient."""
    if request.param == "light":
        client = LightClient(LightConfig(fake.url), kconfig.USER_AGENT)
    else:
        from kubernetes import client as k8s_client  # a quarter second: not in every worker's collection

        cfg = k8s_client.Configuration()
        cfg.host = fake.url
        client = new_api_client(cfg)
    yield client
    client.close()


@pytest.fixture
def disco(fake):
    serve_discovery(fake)
    return fake
