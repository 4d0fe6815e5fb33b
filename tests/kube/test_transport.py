"""What both transports (the light client's http.client, the kubernetes
client's urllib3) do at the HTTP level: keep connections alive, send a
request that got no answer again, and report a body cut short."""

import pytest

from kubectl_informer.kube import rest

from .fake_apiserver import Raw

DOC = b'{"kind":"APIVersions","versions":["v1"]}'


def answer(h, body: bytes = DOC, length: int | None = None) -> None:
    h.send_response(200)
    h.send_header("Content-Type", "application/json")
    h.send_header("Content-Length", str(len(body) if length is None else length))
    h.end_headers()
    h.wfile.write(body)
    h.wfile.flush()


def test_requests_reuse_one_kept_alive_connection(api, fake):
    peers = []
    fake.routes["/api"] = Raw(lambda h, req: (peers.append(h.client_address), answer(h)))
    for _ in range(3):
        assert rest.get_json(api, "/api") == {"kind": "APIVersions", "versions": ["v1"]}
    assert len(peers) == 3 and len(set(peers)) == 1


def test_a_request_that_got_no_answer_is_sent_again_on_a_new_connection(api, fake):
    peers = []

    def flaky(h, req):
        peers.append(h.client_address)
        if len(peers) == 1:
            h.close_connection = True  # hang up without a word, as a server restarting does
            return
        answer(h)

    fake.routes["/api"] = Raw(flaky)
    assert rest.get_json(api, "/api")["kind"] == "APIVersions"
    assert len(peers) == 2 and peers[0] != peers[1]


def test_retries_stop_after_three(api, fake):
    calls = []

    def never(h, req):
        calls.append(1)
        h.close_connection = True

    fake.routes["/api"] = Raw(never)
    with pytest.raises(ConnectionError):
        rest.get_json(api, "/api")
    assert len(calls) == 4  # the request and urllib3's Retry(total=3)


def test_a_body_shorter_than_its_content_length_is_a_broken_answer(api, fake):
    peers = []

    def short(h, req):
        peers.append(h.client_address)
        if len(peers) == 1:
            answer(h, DOC[:10], length=len(DOC))
            h.close_connection = True
        else:
            answer(h)

    fake.routes["/api"] = Raw(short)
    with pytest.raises(ConnectionResetError, match="broke mid-answer"):
        rest.get_json(api, "/api")
    # The broken connection is never used again.
    assert rest.get_json(api, "/api")["kind"] == "APIVersions"
    assert peers[0] != peers[1]
