"""run/first_contact.py: the informer's first list and watch stand in for the
probe (what ends a run, what the reflector is left to back off from)."""

import threading

import pytest

from kubectl_informer.core.apierrors import ApiError
from kubectl_informer.kube.limits import TooLargeError
from kubectl_informer.run.first_contact import FirstContact, is_fatal


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class ScriptedLW:
    """A lister-watcher at the edge: each call answers what the test says."""

    namespace = "default"

    def __init__(self, answers):
        self.answers = list(answers)
        self.list_progress = None

    def _next(self, options):
        a = self.answers.pop(0)
        if isinstance(a, BaseException):
            raise a
        return a

    list = watch = _next


@pytest.mark.parametrize(
    "err, fatal",
    [
        (ApiError(403, "Forbidden", "pods is forbidden"), True),
        (ApiError(401, "Unauthorized", ""), True),
        (ApiError(404, "NotFound", ""), True),
        (ApiError(500, "InternalError", ""), False),
        (ApiError(410, "Gone", ""), False),
        (ConnectionRefusedError("refused"), True),
        (ConnectionResetError("reset mid-answer"), False),
        (ConnectionAbortedError("the run is stopping"), False),
        (TooLargeError("one object of the list", 16 << 20), False),
    ],
)
def test_what_ends_a_run(err, fatal):
    assert is_fatal(err) is fatal


def test_a_403_on_the_watch_after_a_list_is_the_outcome():
    fc = FirstContact(ScriptedLW([{"items": []}, ApiError(403, "Forbidden", "cannot watch")]))
    fc.list(None)
    with pytest.raises(ApiError):
        fc.watch(None)
    fc.wait(threading.Event(), timeout=1.0)
    assert fc.verb == "watch" and fc.error.status == 403


def test_a_transient_failure_ends_the_wait_but_not_the_run_and_a_later_403_still_does():
    fc = FirstContact(ScriptedLW([ApiError(503, "ServiceUnavailable", ""), ApiError(403, "Forbidden", "no")]))
    with pytest.raises(ApiError):
        fc.list(None)
    fc.wait(threading.Event(), timeout=1.0)
    assert fc.troubled and fc.error is None
    seen = []
    fc.after(lambda verb, err: seen.append((verb, err.status)))
    with pytest.raises(ApiError):
        fc.list(None)  # the reflector's next try
    assert seen == [("list", 403)]


def test_a_long_list_is_left_to_the_ui_and_its_watchs_403_closes_it_later():
    clock = Clock()
    inner = ScriptedLW([ApiError(403, "Forbidden", "cannot watch")])
    fc = FirstContact(inner, clock=clock)
    got = []
    fc.list_progress = lambda nbytes, items: got.append(nbytes)
    inner.list_progress(1024, 3)  # the list's first bytes: it is arriving
    assert got == [1024] and fc.listing_since == 0.0
    clock.now = 1.0  # arriving for a second (reading_grace): the UI may start
    fc.wait(threading.Event(), timeout=30.0)
    assert fc.error is None and not fc.watched
    seen = []
    fc.after(lambda verb, err: seen.append((verb, err.message)))
    with pytest.raises(ApiError):
        fc.watch(None)
    assert seen == [("watch", "cannot watch")]


def test_an_open_watch_settles_it():
    fc = FirstContact(ScriptedLW(["a watch", ApiError(403, "Forbidden", "later")]))
    assert fc.watch(None) == "a watch"
    fc.wait(threading.Event(), timeout=1.0)
    assert fc.watched
    seen = []
    fc.after(lambda verb, err: seen.append(verb))
    with pytest.raises(ApiError):
        fc.watch(None)  # a 403 long after start is the reflector's to report
    assert seen == [] and fc.error is None


def test_the_wait_ends_at_its_timeout_or_stop():
    clock = Clock()
    fc = FirstContact(ScriptedLW([]), clock=clock)
    stop = threading.Event()
    stop.set()
    fc.wait(stop, timeout=30.0)  # returns at once
    assert not fc.watched and fc.error is None
    ticks = iter(range(0, 1000, 10))
    fc = FirstContact(ScriptedLW([]), clock=lambda: float(next(ticks)))
    fc.wait(threading.Event(), timeout=30.0)  # no answer: returns at the deadline
    assert next(ticks) == 40  # deadline 30 set at 0; 10, 20 waited; 30 ended it


def test_a_bad_request_ends_the_run_on_the_first_list_only():
    """kubectl ends at once on a 400 (an unsupported field selector); a 400 on a
    watch stays the reflector's (a refused WatchList falls back to LIST)."""
    bad = ApiError(400, "BadRequest", "field label not supported: spec.foo")
    assert is_fatal(bad, "list") and not is_fatal(bad, "watch")
    fc = FirstContact(object())
    fc._note("list", bad)
    assert fc.error is bad and fc.verb == "list"
