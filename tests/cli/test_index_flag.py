"""``--index NAME=JSONPATH`` on watch and queue: bad input is one usage line
(exit 2) before anything runs; a good one reaches the informer, whose trace
names every index and says each key's values (``index.update``)."""

from __future__ import annotations

import json

import pytest

from tests.cli.test_cli import assert_one_line_error, invoke

HEADLESS = ["-o", "text", "--duration", "30s"]


@pytest.mark.parametrize("cmd", ["watch", "queue"])
@pytest.mark.parametrize(
    "value,expected",
    [
        ("byNode", "expected NAME=JSONPATH"),
        ("by node=spec.nodeName", "an index name is a letter"),
        ("=spec.nodeName", "an index name is a letter"),
        ("namespace=spec.nodeName", "built-in namespace index"),
        ("byNode=spec[nodeName", "expected [N], [*] or ['name']"),
        ("byNode={.spec.nodeName", "unbalanced braces"),
        ("byNode={.spec.containers[?(@.name=='a')].image}", "expected [N], [*] or ['name']"),
        ("byNode=", "empty path"),
    ],
)
def test_a_bad_index_is_one_usage_line(cmd, value, expected):
    r = invoke(cmd, "pods", "--index", value, *HEADLESS)
    assert_one_line_error(r, code=2, contains=["invalid value for '--index'", expected])


def test_an_index_named_twice_is_a_usage_error():
    r = invoke("watch", "pods", "--index", "a=spec.x", "--index", "a=spec.y", *HEADLESS)
    assert_one_line_error(r, code=2, contains=["'a' given twice"])


def test_the_indexes_reach_the_informer_and_its_trace():
    r = invoke(
        "watch", "pods", "--demo", "-A", "--index", "byNode={.spec.nodeName}", "-o", "json", "--max-events", "150"
    )
    assert r.exit_code == 0, r.stderr
    events = [json.loads(line) for line in r.stdout.splitlines()]
    start = next(e for e in events if e["kind"] == "informer.start")
    assert start["fields"]["indexers"] == {
        "namespace": "metadata.namespace (MetaNamespaceIndexFunc)",
        "byNode": "{.spec.nodeName}",
    }
    stored = {e["key"] for e in events if e["kind"] == "store.add"}
    by_node = {
        e["key"]: e["fields"]["values"]
        for e in events
        if e["kind"] == "index.update" and e["fields"]["index"] == "byNode"
    }
    assert stored and stored <= set(by_node)  # every add says its values on byNode
    assert any(v and v[0].startswith("node-") for v in by_node.values())
    # The namespace index is the keys' namespaces, which the store events say: not traced again.
    assert not [e for e in events if e["kind"] == "index.update" and e["fields"]["index"] == "namespace"]
