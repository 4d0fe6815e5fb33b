"""An object's LabelSelector turned into a selector as apimachinery's
``LabelSelectorAsSelector`` does (core/label_selector_object), the simulated
controllers' use of it, and the simulator's refusal of a ReplicaSet's or
Deployment's bad selector with kube-apiserver's words (sim/selector_validation,
the recorded answers of tests/sim/selector_validation_answers.py)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kubectl_informer.core.apierrors import ApiError
from kubectl_informer.core.label_selector import SelectorError, parse
from kubectl_informer.core.label_selector_object import EVERYTHING, NOTHING, as_selector, format_selector
from kubectl_informer.sim import strategy
from kubectl_informer.sim.controllers import deployment_sync, replicasets
from kubectl_informer.sim.controllers.owners import SyncError, selector_matches
from kubectl_informer.sim.store import Store
from tests.sim.label_selector_answers import KEY_RULE, VALUE_RULE
from tests.sim.selector_validation_answers import LAB_ANSWERS, UPDATE_ANSWERS, UPDATE_ORIGINAL

IN_QUX_NORF = {"key": "baz", "operator": "In", "values": ["qux", "norf"]}

# helpers_test.go TestLabelSelectorAsSelector: (selector, its String, or None for an error).
UPSTREAM_CASES = [
    (None, ""),  # labels.Nothing()
    ({}, ""),  # labels.Everything()
    ({"matchLabels": {"foo": "bar"}}, "foo=bar"),
    ({"matchExpressions": [IN_QUX_NORF]}, "baz in (norf,qux)"),
    ({"matchLabels": {"foo": "bar"}, "matchExpressions": [IN_QUX_NORF]}, "baz in (norf,qux),foo=bar"),
    ({"matchExpressions": [{"key": "baz", "operator": "Exists", "values": ["qux", "norf"]}]}, None),
]


@pytest.mark.parametrize(("selector", "text"), UPSTREAM_CASES)
def test_upstreams_cases(selector, text):
    if text is None:
        with pytest.raises(SelectorError):
            as_selector(selector)
        return
    got = as_selector(selector)
    assert str(got) == text
    if text:
        assert [str(r) for r in got.requirements] == [str(r) for r in parse(text)]


def test_nil_selects_nothing_and_empty_selects_everything():
    assert as_selector(None) is NOTHING and not NOTHING.matches({"a": "b"}) and not NOTHING.empty()
    assert as_selector({}) is EVERYTHING and as_selector({"matchLabels": {}, "matchExpressions": []}) is EVERYTHING
    assert EVERYTHING.matches({"a": "b"}) and EVERYTHING.matches({}) and EVERYTHING.empty()


# NewRequirement's words, with no path; the text the parser never produces for an In.
ERRORS = [
    (
        {"matchExpressions": [{"key": "app", "operator": "In"}]},
        "values: Invalid value: null: for 'in', 'notin' operators, values set can't be empty",
    ),
    (
        {"matchExpressions": [{"key": "app", "operator": "NotIn", "values": []}]},
        "values: Invalid value: null: for 'in', 'notin' operators, values set can't be empty",
    ),
    (
        {"matchExpressions": [{"key": "app", "operator": "Exists", "values": ["x", "y"]}]},
        'values: Invalid value: ["x","y"]: values set must be empty for exists and does not exist',
    ),
    (
        {"matchExpressions": [{"key": "app", "operator": "Gt", "values": ["1"]}]},
        '"Gt" is not a valid label selector operator',
    ),
    (
        {"matchExpressions": [{"key": "app", "operator": "in", "values": ["1"]}]},
        '"in" is not a valid label selector operator',
    ),
    ({"matchLabels": {"a$": "x"}}, 'key: Invalid value: "a$": name part ' + KEY_RULE),
    ({"matchLabels": {"a": "x$"}}, 'values[0][a]: Invalid value: "x$": ' + VALUE_RULE),
    (
        {"matchExpressions": [{"key": "a$", "operator": "In"}]},
        '[key: Invalid value: "a$": name part '
        + KEY_RULE
        + ", values: Invalid value: null: for 'in', 'notin' operators, values set can't be empty]",
    ),
]


@pytest.mark.parametrize(("selector", "message"), ERRORS)
def test_a_selector_newrequirement_refuses_is_an_error_in_its_words(selector, message):
    with pytest.raises(SelectorError) as e:
        as_selector(selector)
    assert str(e.value) == message
    assert format_selector(selector) == "<error>"


def test_an_in_with_no_value_no_longer_matches_the_empty_value():
    selector = {"matchExpressions": [{"key": "app", "operator": "In", "values": []}]}
    assert not selector_matches(selector, {"app": ""})
    assert selector_matches({"matchExpressions": [{"key": "app", "operator": "In", "values": [""]}]}, {"app": ""})


def test_the_handlers_match_nothing_with_a_nil_empty_or_invalid_selector():
    """GetPodReplicaSets / getDeploymentsForReplicaSet skip a selector that is Empty or does not convert."""
    for selector in (None, {}, {"matchLabels": {}}, {"matchExpressions": [{"key": "a", "operator": "Foo"}]}):
        assert not selector_matches(selector, {"a": "b"})
    assert selector_matches({"matchExpressions": [{"key": "a", "operator": "Exists"}]}, {"a": "b"})


def test_format_selector_is_what_the_tables_print():
    assert format_selector(None) == "<none>" and format_selector({}) == "<none>"
    assert format_selector({"matchLabels": {"b": "1", "a": "2"}}) == "a=2,b=1"
    exprs = [{"key": "c", "operator": "NotIn", "values": ["y", "x"]}, {"key": "b", "operator": "DoesNotExist"}]
    assert format_selector({"matchLabels": {"d": "1"}, "matchExpressions": exprs}) == "!b,c notin (x,y),d=1"


_KEY = st.sampled_from(["a", "b", "example.com/c"])
_VALUE = st.sampled_from(["", "x", "y"])
_EXPR = st.one_of(
    st.builds(
        lambda k, op, vs: {"key": k, "operator": op, "values": vs},
        _KEY,
        st.sampled_from(["In", "NotIn"]),
        st.lists(_VALUE, min_size=1, max_size=3),
    ),
    st.builds(lambda k, op: {"key": k, "operator": op}, _KEY, st.sampled_from(["Exists", "DoesNotExist"])),
)


@given(
    st.dictionaries(_KEY, _VALUE, max_size=2),
    st.lists(_EXPR, min_size=1, max_size=3),
    st.dictionaries(_KEY, _VALUE, max_size=3),
)
def test_a_valid_selector_matches_as_its_text_parsed_does(match_labels, exprs, labels):
    """Built directly or from its String, the requirements agree on every label set."""
    selector = as_selector({"matchLabels": match_labels, "matchExpressions": exprs})
    reqs = parse(str(selector))
    assert selector.matches(labels) == all(r.matches(labels) for r in reqs)


# --- the simulator's API refuses what kube-apiserver refuses --------------------


def _object(kind: str, selector, labels) -> dict:
    spec: dict = {"replicas": 0, "template": {"metadata": {}, "spec": {"containers": [{"name": "c", "image": "i"}]}}}
    if selector is not None:
        spec["selector"] = selector
    if labels is not None:
        spec["template"]["metadata"]["labels"] = labels
    return {"apiVersion": "apps/v1", "kind": kind, "metadata": {"name": "bad", "namespace": "default"}, "spec": spec}


def _answer(store: Store, kind: str, selector, labels) -> tuple[int, str | None]:
    try:
        store.create(kind.lower() + "s", _object(kind, selector, labels), dry_run=True)
    except ApiError as e:
        return e.status, e.message
    return 201, None


@pytest.fixture
def store():
    s = Store()
    s.create("namespaces", {"metadata": {"name": "default"}})
    yield s
    s.close_all()


def test_the_simulator_refuses_a_bad_selector_as_the_lab_did(store):
    for kind, selector, labels, status, message in LAB_ANSWERS:
        assert _answer(store, kind, selector, labels) == (status, message), (kind, selector, labels)


def test_the_refusal_names_the_object_and_each_cause(store):
    with pytest.raises(ApiError) as e:
        store.create("replicasets", _object("ReplicaSet", {"matchExpressions": [{"key": "a", "operator": "In"}]}, {}))
    status = e.value.to_status()
    assert status["details"]["name"] == "bad" and status["details"]["group"] == "apps"
    assert status["details"]["kind"] == "ReplicaSet"
    assert [c["field"] for c in status["details"]["causes"]] == [
        "spec.selector.matchExpressions[0].values",
        "spec.selector",
    ]
    assert [c["reason"] for c in status["details"]["causes"]] == ["FieldValueRequired", "FieldValueInvalid"]


def test_the_simulator_holds_the_selector_immutable_as_the_lab_did(store):
    for kind, selector, labels, status, message in UPDATE_ANSWERS:
        resource = kind.lower() + "s"
        obj = _object(kind, *UPDATE_ORIGINAL)
        obj["metadata"]["name"] = "imm"
        created = store.create(resource, obj)
        new = {**created, "metadata": {k: v for k, v in created["metadata"].items() if k != "resourceVersion"}}
        new["spec"] = {k: v for k, v in created["spec"].items() if k != "selector"}
        if selector is not None:
            new["spec"]["selector"] = selector
        new["spec"]["template"] = {**created["spec"]["template"], "metadata": {"labels": labels}}
        try:
            store.update(resource, new, dry_run=True)
            got: tuple[int, str | None] = (200, None)
        except ApiError as e:
            got = (e.status, e.message)
        store.delete(resource, "default", "imm")
        assert got == (status, message), (kind, selector, labels)


def test_an_update_is_checked_too(store):
    rs = store.create("replicasets", _object("ReplicaSet", {"matchLabels": {"app": "x"}}, {"app": "x"}))
    rs["spec"]["template"]["metadata"]["labels"] = {"app": "y"}
    with pytest.raises(ApiError) as e:
        store.update("replicasets", rs)
    assert e.value.status == 422 and "`selector` does not match template `labels`" in e.value.message


# --- the controllers, given what the API would have refused -----------------------


@pytest.fixture
def unvalidated(store, monkeypatch):
    """A store that keeps a bad selector (as if written before the rule existed)."""
    monkeypatch.setattr(strategy, "_validate_spec", lambda rdef, obj, old=None: None)
    return store


def test_a_replicaset_with_an_invalid_selector_is_not_synced(unvalidated, caplog):
    store = unvalidated
    orphan = {
        "metadata": {"name": "orphan", "labels": {"app": ""}},
        "spec": {"containers": [{"name": "c", "image": "i"}]},
    }
    store.create("pods", orphan, "default")
    selector = {"matchExpressions": [{"key": "app", "operator": "In", "values": []}]}
    rs = _object("ReplicaSet", selector, {"app": ""})
    rs["spec"]["replicas"] = 2
    store.create("replicasets", rs)
    assert replicasets.sync(store, "default", "bad") == []
    assert "error converting pod selector to selector for rs default/bad" in caplog.text
    pods = store.list("pods", "default")
    assert [p["metadata"]["name"] for p in pods] == ["orphan"] and not pods[0]["metadata"].get("ownerReferences")
    assert not (store.get("replicasets", "default", "bad").get("status") or {}).get("observedGeneration")  # no write


def test_a_deployment_with_an_invalid_selector_fails_its_sync(unvalidated):
    selector = {"matchExpressions": [{"key": "app", "operator": "Foo"}]}
    unvalidated.create("deployments", _object("Deployment", selector, {"app": "x"}))
    with pytest.raises(SyncError) as e:
        deployment_sync.sync(unvalidated, "default", "bad")
    assert (
        str(e.value)
        == 'deployment default/bad has invalid label selector: "Foo" is not a valid label selector operator'
    )
    assert unvalidated.list("replicasets", "default") == []


class _Events:
    def __init__(self):
        self.recorded: list[tuple] = []

    def record(self, obj, type_, reason, message, component):
        self.recorded.append((obj["metadata"]["name"], type_, reason, message, component))


def test_a_deployment_selecting_all_gets_a_warning_and_its_generation_observed(unvalidated):
    store = unvalidated
    orphan = _object("ReplicaSet", {"matchLabels": {"app": "x"}}, {"app": "x"})
    orphan["metadata"]["name"] = "orphan"
    store.create("replicasets", orphan)
    store.create("deployments", _object("Deployment", {}, {"app": "x"}))
    events = _Events()
    deployment_sync.sync(store, "default", "bad", events)
    msg = "This deployment is selecting all pods. A non-empty selector is required."
    assert events.recorded == [("bad", "Warning", "SelectingAll", msg, "deployment-controller")]
    d = store.get("deployments", "default", "bad")
    assert d["status"]["observedGeneration"] == d["metadata"]["generation"]
    assert not store.get("replicasets", "default", "orphan")["metadata"].get("ownerReferences")  # nothing adopted
