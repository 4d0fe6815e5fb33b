"""client-go's rest client retries a 429 or 5xx answer that carries
Retry-After (request.go's ``request``/``Watch`` with ``withRetry``,
``checkWait``): after that many seconds, at most 10 times, every retry
traced as ``request.retry``. Ported from client-go's
TestCheckRetryHandles429And5xx and with_retry_test.go's IsNextRetry cases."""

import threading

import pytest

from kubectl_informer.cache.listwatch import ListOptions
from kubectl_informer.clock.testing import FakeClock, wait_for
from kubectl_informer.core.apierrors import ApiError
from kubectl_informer.core.trace import Tracer
from kubectl_informer.kube import request_limits, rest
from kubectl_informer.kube.discovery import Resource
from kubectl_informer.kube.listwatch import KubeListerWatcher

from .fake_apiserver import Reply, Stream, status

PODS = Resource("", "v1", "pods", "Pod", True)
POD_LIST = {"kind": "PodList", "apiVersion": "v1", "metadata": {"resourceVersion": "7"}, "items": []}


@pytest.mark.parametrize(
    "code, header, wait",
    [
        (429, "1", 1),
        (500, "0", 0),
        (501, "0", 0),
        (503, "2", 2),
        (504, "1", 1),
        (599, "3", 3),
        (200, "1", None),
        (404, "1", None),
        (410, "1", None),
        (428, "1", None),
        (503, None, None),
        (503, "", None),
        (503, " 1", None),
        (503, "1.5", None),
        (503, "Fri, 31 Dec 1999 23:59:59 GMT", None),
        (503, "+2", 2),
    ],
)
def test_check_wait_is_client_gos(code, header, wait):
    assert rest.check_wait(code, header) == wait


def _answers(statuses, final):
    """A route answering each of ``statuses`` (with Retry-After: 0) in turn, then ``final``."""
    left = list(statuses)

    def route(req):
        if left:
            code = left.pop(0)
            return Reply(
                code,
                status(code, "TooManyRequests" if code == 429 else "InternalError", "try again"),
                {"Retry-After": "0"},
            )
        return final

    return route


def _traced(api, clock=None):
    tracer, seen = Tracer(), []
    tracer.subscribe(seen.append)
    request_limits.set_retries(api, clock=clock, tracer=tracer)
    return seen


def test_429_and_5xx_with_retry_after_are_sent_again_until_an_answer(api, fake):
    fake.routes["/api/v1/pods"] = _answers([429, 500, 501, 504], POD_LIST)
    seen = _traced(api)
    assert KubeListerWatcher(api, PODS).list(ListOptions(resource_version="0"))["metadata"]["resourceVersion"] == "7"
    assert len(fake.requests_to("/api/v1/pods")) == 5
    assert [(e.kind, e.fields["status"], e.fields["attempt"], e.fields["delay"], e.fields["verb"]) for e in seen] == [
        ("request.retry", s, n, 0.0, "list") for n, s in enumerate((429, 500, 501, 504), 1)
    ]
    assert seen[0].fields["reason"] == "TooManyRequests" and seen[0].fields["path"] == "/api/v1/pods"


def test_at_most_ten_retries_then_the_last_answer_is_the_error(api, fake):
    fake.routes["/api/v1/pods"] = Reply(
        504, status(504, "Timeout", "Too large resource version: 9, current: 3"), {"Retry-After": "0"}
    )
    seen = _traced(api)
    with pytest.raises(ApiError) as e:
        KubeListerWatcher(api, PODS).list(ListOptions(resource_version="9"))
    assert e.value.status == 504 and len(fake.requests_to("/api/v1/pods")) == 11
    assert [ev.fields["attempt"] for ev in seen] == list(range(1, 11))


def test_no_retry_without_retry_after_or_for_a_4xx(api, fake):
    seen = _traced(api)
    for reply in (
        Reply(503, status(503, "ServiceUnavailable", "down")),
        Reply(403, status(403, "Forbidden", "no"), {"Retry-After": "0"}),
    ):
        fake.requests.clear()
        fake.routes["/api/v1/pods"] = reply
        with pytest.raises(ApiError):
            KubeListerWatcher(api, PODS).list(ListOptions())
        assert len(fake.requests_to("/api/v1/pods")) == 1
    assert seen == []


def test_the_delay_is_the_header_on_the_clients_clock_and_a_watch_is_retried_too(api, fake):
    clock = FakeClock()
    answers = iter(
        [
            Reply(429, status(429, "TooManyRequests", "slow down"), {"Retry-After": "5"}),
            Stream([{"type": "ADDED", "object": {"metadata": {"name": "a", "resourceVersion": "8"}}}]),
        ]
    )
    fake.routes["/api/v1/pods"] = lambda req: next(answers)
    seen = _traced(api, clock)
    got = []
    t = threading.Thread(target=lambda: got.append(next(iter(KubeListerWatcher(api, PODS).watch(ListOptions())))))
    t.start()
    assert wait_for(clock.has_waiters)
    assert len(fake.requests_to("/api/v1/pods")) == 1 and not got
    clock.step(4.9)
    assert len(fake.requests_to("/api/v1/pods")) == 1
    clock.step(0.1)
    t.join(10)
    assert got[0].type == "ADDED" and len(fake.requests_to("/api/v1/pods")) == 2
    assert [(e.fields["status"], e.fields["delay"], e.fields["verb"]) for e in seen] == [(429, 5.0, "watch")]


def _list_stopped(api, fake, ready) -> BaseException:
    """What a list raises when abort_requests (stopping the run) comes once ``ready()`` holds."""
    errors: list[BaseException] = []

    def run():
        try:
            KubeListerWatcher(api, PODS).list(ListOptions())
        except Exception as e:  # noqa: BLE001 - the test looks at it
            errors.append(e)

    t = threading.Thread(target=run)
    t.start()
    assert wait_for(lambda: len(fake.requests_to("/api/v1/pods")) == 1 and ready())
    request_limits.abort_requests(api)
    t.join(10)
    return errors[0]


def test_stopping_the_run_ends_a_retry_wait(api, fake):
    fake.routes["/api/v1/pods"] = Reply(503, status(503, "ServiceUnavailable", "down"), {"Retry-After": "60"})
    clock = FakeClock()
    request_limits.set_retries(api, clock=clock)
    assert isinstance(_list_stopped(api, fake, clock.has_waiters), ConnectionAbortedError)  # in the 60s wait


def test_stopping_the_run_while_a_request_waits_for_its_answer_is_an_abort_not_a_reset(api, fake):
    # The server holds the request and says nothing: abort_requests cuts the socket under the client
    # reading the headers, which saw a reset (ConnectionError) and said so, as if the server had broken.
    release = threading.Event()

    def held(req):
        release.wait(10)
        return Reply(503, status(503, "ServiceUnavailable", "down"), {"Retry-After": "60"})

    fake.routes["/api/v1/pods"] = held
    try:
        err = _list_stopped(api, fake, lambda: True)
    finally:
        release.set()
    assert isinstance(err, ConnectionAbortedError), err


def test_text_output_says_each_retry_on_stderr():
    from kubectl_informer.cli.output import format_trouble
    from kubectl_informer.core.trace import TraceEvent

    ev = TraceEvent.build(
        1,
        3.0,
        "request.retry",
        None,
        status=504,
        attempt=2,
        delay=1.0,
        path="/api/v1/pods",
        verb="list",
        reason="Timeout",
    )
    assert format_trouble(ev) == (
        "the server answered 504 Timeout to a list of /api/v1/pods: sending it again in 1s (Retry-After; retry 2 of 10)"
    )
