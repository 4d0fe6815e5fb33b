"""Label and field selectors on LIST, through real HTTP, and the parser's errors."""

import pytest

from kubectl_informer.core.apierrors import ApiError
from kubectl_informer.core.selectors import parse_label_selector
from tests.sim.conftest import pod

PODS = "/api/v1/namespaces/default/pods"


@pytest.fixture
def seeded(client):
    client.request("POST", PODS, pod("a", labels={"app": "web", "tier": "fe", "n": "1"}, phase="Running"))
    client.request("POST", PODS, pod("b", labels={"app": "api", "n": "5"}))
    client.request("POST", PODS, pod("c", labels={"app": "db"}, phase="Running"))
    client.request("POST", "/api/v1/namespaces/other/pods", pod("d", ns="other", labels={"app": "web"}))
    return client


@pytest.mark.parametrize(
    "sel,expected",
    [
        ("app=web", ["a", "d"]),
        ("app==web", ["a", "d"]),
        ("app!=web", ["b", "c"]),
        ("app in (web,db)", ["a", "c", "d"]),
        ("app notin (web, db)", ["b"]),
        ("tier", ["a"]),
        ("!tier", ["b", "c", "d"]),
        ("app=web,tier=fe", ["a"]),
        ("n>2", ["b"]),
        ("n<2", ["a"]),
        ("", ["a", "b", "c", "d"]),
    ],
)
def test_label_selectors(seeded, sel, expected):
    status, lst = seeded.get("/api/v1/pods", labelSelector=sel)
    assert status == 200
    assert [i["metadata"]["name"] for i in lst["items"]] == expected


@pytest.mark.parametrize(
    "sel,expected",
    [
        ("metadata.name=b", ["b"]),
        ("metadata.name!=b", ["a", "c", "d"]),
        ("metadata.namespace=other", ["d"]),
        ("status.phase=Running", ["a", "c"]),
        ("status.phase=Pending,metadata.namespace=default", ["b"]),
        ("status.phase==Pending", ["b", "d"]),
    ],
)
def test_field_selectors(seeded, sel, expected):
    status, lst = seeded.get("/api/v1/pods", fieldSelector=sel)
    assert status == 200
    assert [i["metadata"]["name"] for i in lst["items"]] == expected


def test_unsupported_field_is_bad_request(seeded):
    status, st = seeded.get(PODS, fieldSelector="spec.foo=1")
    assert status == 400 and st["message"] == "field label not supported: spec.foo"
    # status.phase is a pod field, not a configmap field.
    status, st = seeded.get("/api/v1/namespaces/default/configmaps", fieldSelector="status.phase=x")
    assert status == 400


@pytest.mark.parametrize("bad", ["app in (web", "a=b=c", "=x", "n>x", "a,,b"])
def test_bad_label_selectors(bad):
    with pytest.raises(ApiError) as e:
        parse_label_selector(bad)
    assert e.value.status == 400 and "unable to parse requirement" in e.value.message
