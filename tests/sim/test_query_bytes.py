"""The simulator reads a query as Go's ``url.ParseQuery`` does and writes its
Status as Go's JSON encoder does: the recorded answers of kube-apiserver to
bad query bytes (tests/sim/query_bytes_answers.py) come back byte for byte."""

from __future__ import annotations

import http.client

import pytest

from kubectl_informer.core.go_json import go_json
from kubectl_informer.core.names import go_quote
from kubectl_informer.sim.query_params import as_text, parse_query
from kubectl_informer.sim.server import SimServer
from tests.sim.query_bytes_answers import LAB_ANSWERS


@pytest.fixture(scope="module")
def sim():
    server = SimServer().start()
    server.store.create("namespaces", {"metadata": {"name": "default"}})
    yield server
    server.stop()


def _get(sim: SimServer, query: str) -> tuple[int, bytes | None]:
    host, port = "127.0.0.1", sim.port
    conn = http.client.HTTPConnection(host, port, timeout=10)
    try:
        conn.request(
            "GET", "/api/v1/namespaces/default/pods?" + query, headers={"Authorization": f"Bearer {sim.token}"}
        )
        resp = conn.getresponse()
        body = resp.read()
    finally:
        conn.close()
    return resp.status, body if resp.status != 200 else None


@pytest.mark.parametrize(("query", "status", "body"), LAB_ANSWERS, ids=[row[0] for row in LAB_ANSWERS])
def test_bad_query_bytes_get_the_labs_answer_byte_for_byte(sim, query, status, body):
    assert _get(sim, query) == (status, body)


# net/url's ParseQuery cases (url_test.go parseTests) and the lab's.
PARSE_CASES = [
    ("a=1", {"a": ["1"]}),
    ("a=1&b=2", {"a": ["1"], "b": ["2"]}),
    ("a=1&a=2&a=banana", {"a": ["1", "2", "banana"]}),
    ("ascii=%3Ckey%3A+0x90%3E", {"ascii": ["<key: 0x90>"]}),
    ("a=1;b=2", {}),
    ("a;b=1", {}),
    ("a=%3B", {"a": [";"]}),
    ("a%3Bb=1", {"a;b": ["1"]}),
    ("a=1&a=2;a=banana", {"a": ["1"]}),
    ("a;b&c=1", {"c": ["1"]}),
    ("a=1&a=%zz&b=3", {"a": ["1"], "b": ["3"]}),
    ("a=%f&b=%&c=%4", {}),
    ("a&&b=&=c", {"a": [""], "b": [""], "": ["c"]}),
    ("a=x=y", {"a": ["x=y"]}),
]


@pytest.mark.parametrize(("raw", "want"), PARSE_CASES)
def test_parse_query_is_gos(raw, want):
    assert parse_query(raw) == want


def test_a_value_keeps_its_bytes_and_prints_as_go_prints_them():
    value = parse_query("v=a%ff%e2%82%ed%a0%80%c3%a9")["v"][0]
    assert value.encode("utf-8", "surrogateescape") == b"a\xff\xe2\x82\xed\xa0\x80\xc3\xa9"
    assert go_quote(value) == '"a\\xff\\xe2\\x82\\xed\\xa0\\x80é"'
    assert go_json(value) == '"a\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\\ufffdé"'
    assert as_text(value) == "a\ufffd\ufffd\ufffd\ufffd\ufffd\ufffdé"


def test_a_raw_byte_in_the_request_line_is_kept_too():
    """``http.server`` hands the request line over as latin-1: its bytes come back as they were."""
    assert parse_query("v=\xff")["v"][0].encode("utf-8", "surrogateescape") == b"\xff"


def test_a_field_manager_that_is_not_utf8_is_stored_as_its_json_reads(sim):
    host, port = "127.0.0.1", sim.port
    conn = http.client.HTTPConnection(host, port, timeout=10)
    body = b'{"metadata":{"name":"fm"},"data":{"a":"b"}}'
    headers = {"Authorization": f"Bearer {sim.token}", "Content-Type": "application/json"}
    conn.request("POST", "/api/v1/namespaces/default/configmaps?fieldManager=a%ff", body=body, headers=headers)
    resp = conn.getresponse()
    resp.read()
    conn.close()
    assert resp.status == 201
    managed = sim.store.get("configmaps", "default", "fm")["metadata"]["managedFields"]
    assert [m["manager"] for m in managed] == ["a\ufffd"]
