"""Label and field selectors on LIST, through real HTTP, and the parser's errors."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kubectl_informer.core import label_selector
from kubectl_informer.core.apierrors import ApiError
from kubectl_informer.core.selectors import parse_label_selector
from tests.sim.conftest import pod
from tests.sim.label_selector_answers import LAB_ANSWERS

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


@pytest.mark.parametrize("selector,status,message", LAB_ANSWERS, ids=[repr(row[0]) for row in LAB_ANSWERS])
def test_the_parser_accepts_and_refuses_as_kube_apiserver_did(selector, status, message):
    # Each answer was taken from kube-apiserver v1.36.2 (tests/sim/label_selector_answers.py).
    if status == 200:
        parse_label_selector(selector)
        return
    with pytest.raises(ApiError) as e:
        parse_label_selector(selector)
    assert (e.value.status, e.value.reason, e.value.message) == (400, "BadRequest", message)


def test_a_list_answers_each_selector_as_kube_apiserver_did(client):
    # Through HTTP: the Status carries the parser's text alone (the "Unable to find ... that match
    # label selector" in front of it is kubectl's, added client-side by cli-runtime's EnhanceListError).
    got = []
    for selector, _, _ in LAB_ANSWERS:
        status, body = client.get(PODS, labelSelector=selector)
        got.append((selector, status, body.get("message") if status != 200 else None))
    assert got == LAB_ANSWERS


@pytest.mark.parametrize(
    "selector,labels,matches",
    [
        ("a!=x", {}, True),  # a missing label is not equal to anything
        ("a notin (x)", {}, True),
        ("a notin (x)", {"a": "x"}, False),
        ("a in (x)", {}, False),
        ("a=", {}, False),  # "" is a value: a missing label does not equal it
        ("a=", {"a": ""}, True),
        ("a in ()", {"a": ""}, True),
        ("!a", {"a": ""}, False),
        ("a", {"a": ""}, True),
        ("n>2", {"n": "x"}, False),  # gt/lt never match a value that is not an integer
        ("n<2", {}, False),
        ("n>2", {"n": "+5"}, True),  # strconv.ParseInt takes a sign
        ("n>2", {"n": "5_0"}, False),  # ...but not Python's digit separators
        ("n>2", {"n": " 5"}, False),  # ...nor blanks
        ("n<0", {"n": "-9223372036854775808"}, True),
        ("n>0", {"n": "9223372036854775808"}, False),  # out of int64: not an integer to Go
        ("in in (in,notin)", {"in": "notin"}, True),
        ("a=x,a!=x", {"a": "x"}, False),
        ("a=b\x00", {"a": "b"}, True),  # a NUL ends the text
    ],
)
def test_matching_follows_requirement_matches(selector, labels, matches):
    matcher = parse_label_selector(selector)
    assert matcher is not None and matcher(labels) is matches


_WORDS = st.sampled_from(["a", "b", "x.io/k", "in", "notin", "1", "-2", "", "=", "==", "!=", "!", "(", ")", ",", ">"])
_TEXTS = st.lists(st.tuples(_WORDS, st.sampled_from(["", " "])), max_size=12).map(
    lambda parts: "".join(w + sep for w, sep in parts)
)


@settings(max_examples=300, deadline=None)
@given(_TEXTS)
def test_an_accepted_selector_rendered_again_parses_to_the_same_requirements(text):
    try:
        reqs = label_selector.parse(text)
    except label_selector.SelectorError:
        return
    assert label_selector.parse(label_selector.render(reqs)) == reqs


_LABELS = st.dictionaries(
    st.sampled_from(["a", "b", "in", "x.io/k"]), st.sampled_from(["", "1", "-2", "+3", "x", "in", "b", "9" * 20])
)


@settings(max_examples=300, deadline=None)
@given(_TEXTS, _LABELS)
def test_the_compiled_matcher_agrees_with_requirement_matches(text, labels):
    try:
        reqs = label_selector.parse(text)
    except label_selector.SelectorError:
        return
    for r in reqs:
        assert r.matcher()(labels) is r.matches(labels)
