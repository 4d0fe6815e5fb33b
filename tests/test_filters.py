"""The / filter's syntax: key regex (plain text too), !, type:, label:."""

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kubectl_informer.core.trace_kinds import DELTA_TYPES
from kubectl_informer.panes.filters import KeyFilter, parse_filter

KEYS = ["default/web-1", "default/web-2", "kube-system/coredns-0", "shop/cart-7", "node-a"]


def shown(text, keys=KEYS, **kw):
    f = parse_filter(text)
    return [k for k in keys if f.matches(k, **kw)]


def test_empty_and_blank_match_everything():
    for text in ("", "   ", None):
        f = parse_filter(text)
        assert not f and f.kind == "all" and shown(text) == KEYS


def test_plain_text_is_a_substring_as_before():
    assert shown("web") == ["default/web-1", "default/web-2"]
    assert shown("default/web-1") == ["default/web-1"]


def test_a_regex_searches_the_key():
    assert shown(r"^default/web-\d$") == ["default/web-1", "default/web-2"]
    assert shown("cart|coredns") == ["kube-system/coredns-0", "shop/cart-7"]
    assert parse_filter("web").note == ""


def test_an_invalid_regex_matches_as_plain_text_and_says_so():
    f = parse_filter("web(")
    assert f.kind == "key" and "not a regular expression" in f.note and "'web('" in f.note
    assert shown("web(", keys=["a/web(1", "a/web-1"]) == ["a/web(1"]


def test_bang_inverts():
    assert shown("!kube-system") == [k for k in KEYS if "kube-system" not in k]
    assert shown("! web") == ["kube-system/coredns-0", "shop/cart-7", "node-a"]
    f = parse_filter("!")
    assert not f and "inverts" in f.note


def test_type_matches_any_of_the_row_types_case_insensitively():
    f = parse_filter("type:deleted")
    assert f.kind == "type" and f.note == ""
    assert f.matches("a", "Deleted") and f.matches("a", ["Updated", "Deleted"])
    assert not f.matches("a", "Updated") and not f.matches("a", None)
    assert parse_filter("type:Added,Sync").matches("a", "Sync")
    assert parse_filter("!type:Sync").matches("a", "Updated") and not parse_filter("!type:Sync").matches("a", "Sync")


def test_an_unknown_type_is_named():
    f = parse_filter("type:Removed")
    assert "unknown delta type Removed" in f.note and not f.matches("a", "Deleted")
    assert "needs a delta type" in parse_filter("type:").note


@pytest.mark.parametrize(
    "selector, labels, expected",
    [
        ("app=web", {"app": "web"}, True),
        ("app=web", {"app": "api"}, False),
        ("app==web", {"app": "web", "tier": "fe"}, True),
        ("app!=web", {"app": "api"}, True),
        ("app!=web", {}, True),
        ("app in (web,api)", {"app": "api"}, True),
        ("app notin (web,api)", {"app": "api"}, False),
        ("app", {"app": ""}, True),
        ("!app", {"tier": "x"}, True),
        ("app=web,tier=fe", {"app": "web", "tier": "fe"}, True),
        ("app=web,tier=fe", {"app": "web"}, False),
    ],
)
def test_label_selectors_use_the_apiservers_grammar(selector, labels, expected):
    f = parse_filter(f"label:{selector}")
    assert f.kind == "label" and f.uses_labels and f.note == ""
    assert f.matches("ns/x", labels=labels) is expected
    assert parse_filter(f"!label:{selector}").matches("ns/x", labels=labels) is (not expected)


def test_unknown_labels_are_no_labels():
    assert not parse_filter("label:app=web").matches("ns/x", labels=None)
    assert parse_filter("label:!app").matches("ns/x", labels=None)


def test_a_bad_selector_matches_nothing_and_says_why():
    f = parse_filter("label:app in web")
    assert "not a label selector" in f.note and not f.matches("a", labels={"app": "web"})
    assert "needs a selector" in parse_filter("label:").note


# A namespace, and a name or none: what from_regex(r"[a-z0-9-]{1,12}(/[a-z0-9.-]{1,20})?")
# gives, built from texts (from_regex costs about ten times as much an example).
_NS = "abcdefghijklmnopqrstuvwxyz0123456789-"
_key = st.builds(
    lambda ns, name: ns if name is None else f"{ns}/{name}",
    st.text(_NS, min_size=1, max_size=12),
    st.none() | st.text(_NS + ".", min_size=1, max_size=20),
)


@given(st.lists(_key, max_size=20), _key)
def test_plain_text_filters_are_substrings_and_bang_is_the_complement(keys, text):
    f = parse_filter(text)
    inv = parse_filter("!" + text)
    for k in keys:
        assert f.matches(k) is (text in k)
        assert inv.matches(k) is (not f.matches(k))


@given(st.text(max_size=12), st.text(max_size=30))
def test_any_text_parses_and_matches_without_raising(text, key):
    f = parse_filter(text)
    assert isinstance(f, KeyFilter)
    result = f.matches(key, ["Updated"], {"app": "web"})
    if f.kind == "key" and not f.invert and not f.note:  # a valid regex, as typed
        assert result is (re.search(text.strip(), key) is not None)


@given(st.sets(st.sampled_from(DELTA_TYPES), min_size=1), st.lists(st.sampled_from(DELTA_TYPES), max_size=5))
def test_type_filters_match_exactly_when_a_row_type_is_wanted(wanted, row):
    f = parse_filter("type:" + ",".join(sorted(wanted)))
    assert f.matches("k", row) is bool(set(row) & wanted)
