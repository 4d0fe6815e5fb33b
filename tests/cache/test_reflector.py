"""Reflector tests; most port cases of client-go's reflector_test.go and
reflector_watchlist_test.go (named per test). A FakeClock drives every
timed rule; other threads are awaited with wait_for."""

from __future__ import annotations

import random
import threading

import pytest

from kubectl_informer.cache.listwatch import ADDED, BOOKMARK, DELETED, ListOptions, ListWatch, WatchEvent
from kubectl_informer.cache.reflector import BackoffManager, DelayWithReset, Reflector, _StopRequested
from kubectl_informer.cache.testing.fake_controller_source import (
    FakeSource,
    expired_error,
    make_object,
    too_large_error,
    too_many_requests_error,
)
from kubectl_informer.clock.testing import FakeClock, wait_for
from kubectl_informer.core.apierrors import ApiError


class RecordingStore:
    """A tiny store that records every call the reflector makes."""

    def __init__(self, with_bookmark: bool = False):
        self.ops: list[tuple] = []
        self.items: dict[str, dict] = {}
        self.lock = threading.Lock()
        if with_bookmark:
            self.bookmark = self._bookmark

    @staticmethod
    def _key(obj):
        m = obj["metadata"]
        return f"{m.get('namespace')}/{m['name']}" if m.get("namespace") else m["name"]

    def add(self, obj):
        with self.lock:
            self.ops.append(("add", self._key(obj), obj["metadata"]["resourceVersion"]))
            self.items[self._key(obj)] = obj

    def update(self, obj):
        with self.lock:
            self.ops.append(("update", self._key(obj), obj["metadata"]["resourceVersion"]))
            self.items[self._key(obj)] = obj

    def delete(self, obj):
        with self.lock:
            self.ops.append(("delete", self._key(obj), obj["metadata"]["resourceVersion"]))
            self.items.pop(self._key(obj), None)

    def replace(self, items, rv):
        with self.lock:
            self.ops.append(("replace", sorted(self._key(o) for o in items), rv))
            self.items = {self._key(o): o for o in items}

    def resync(self):
        with self.lock:
            self.ops.append(("resync",))

    def _bookmark(self, rv):
        with self.lock:
            self.ops.append(("bookmark", rv))

    def kinds(self):
        with self.lock:
            return [op[0] for op in self.ops]


def calls(src, verb=None):
    return [o for (v, o) in src.calls if verb is None or v == verb]


def seeded(n=3, **kw):
    src = FakeSource(**kw)
    for i in range(n):
        src.add(make_object(f"p{i}"))
    return src


# --- list then watch -------------------------------------------------------


def test_first_list_at_rv0_then_watch_from_list_rv(clock, tracer, trace, runners):
    # TestReflectorListAndWatch: list at "0", watch from the listed RV, every
    # event moves the last synced RV.
    src = seeded(3)
    store = RecordingStore()
    r = Reflector(src, store, clock=clock, tracer=tracer)
    runners(r)
    assert wait_for(lambda: len(calls(src, "watch")) == 1)
    lst = calls(src, "list")[0]
    assert lst.resource_version == "0" and lst.limit == 500
    assert store.ops[0] == ("replace", ["default/p0", "default/p1", "default/p2"], "3")
    w = calls(src, "watch")[0]
    assert w.resource_version == "3" and w.allow_watch_bookmarks is True
    assert 300 <= w.timeout_seconds < 600
    src.add(make_object("p3"))
    obj = dict(src.get("default/p0"), status={"phase": "Running"})
    src.modify(obj)
    src.delete("default/p1")
    assert wait_for(lambda: len(store.ops) == 4)
    assert store.ops[1:] == [("add", "default/p3", "4"), ("update", "default/p0", "5"), ("delete", "default/p1", "6")]
    assert wait_for(lambda: r.last_sync_resource_version() == "6")
    kinds = [e.kind for e in trace.drain()]
    assert kinds[:3] == ["list.start", "list.page", "rv.advance"]
    assert "list.done" in kinds and "watch.start" in kinds
    assert kinds.count("watch.event") == 3


def test_watch_handler_applies_events_and_bookmark_advances_rv(clock, tracer, trace):
    # TestReflectorWatchHandler: events go to the store in order; a bookmark
    # moves the RV without touching the store, and is forwarded to a store
    # with bookmark() (RealFIFO).
    src = seeded(2)
    store = RecordingStore(with_bookmark=True)
    r = Reflector(src, store, clock=clock, tracer=tracer)
    w = src.watch(ListOptions(resource_version="2", allow_watch_bookmarks=True))
    src.add(make_object("p9"))
    src.modify(dict(src.get("default/p0")))
    src.bookmark()
    src.delete("default/p9")
    src.drop_watches()
    r.handle_watch(clock.now(), w, iter(w), store, threading.Event())
    assert store.ops == [
        ("add", "default/p9", "3"),
        ("update", "default/p0", "4"),
        ("bookmark", "4"),
        ("delete", "default/p9", "5"),
    ]
    assert r.last_sync_resource_version() == "5"
    evs = trace.drain()
    # Each event's watch.event carries the RV it moved to; the bookmark at 4 moved nothing.
    assert [e.fields["resource_version"] for e in evs if e.kind == "watch.event"] == ["3", "4", "5"]
    assert [e for e in evs if e.kind == "rv.advance"] == []


def test_bookmark_alone_advances_rv(clock, tracer, trace):
    src = seeded(1)
    store = RecordingStore()  # no bookmark(): nothing forwarded
    r = Reflector(src, store, clock=clock, tracer=tracer)
    w = src.watch(ListOptions(resource_version="1", allow_watch_bookmarks=True))
    src.bulk_add([])  # no-op
    src._rv = 7  # the server moved on with objects we do not see
    src.bookmark()
    src.drop_watches()
    r.handle_watch(clock.now(), w, iter(w), store, threading.Event())
    assert store.ops == []
    assert r.last_sync_resource_version() == "7"
    evs = trace.drain()
    assert [e.fields["resource_version"] for e in evs if e.kind == "watch.bookmark"] == ["7"]
    assert [e.fields["source"] for e in evs if e.kind == "rv.advance"] == ["bookmark"]


def test_error_event_ends_watch_as_api_error(clock, tracer):
    # TestCloseWatchChannelOnError: an ERROR event ends the watch with the
    # Status as an error.
    src = seeded(1)
    r = Reflector(src, RecordingStore(), clock=clock, tracer=tracer)
    w = src.watch(ListOptions(resource_version="1"))
    src.send_error(ApiError(500, "InternalError", "boom"))
    with pytest.raises(ApiError) as ei:
        r.handle_watch(clock.now(), w, iter(w), RecordingStore(), threading.Event())
    assert ei.value.status == 500 and ei.value.message == "boom"


def test_very_short_empty_watch_is_an_error(clock):
    # handleAnyWatch: closed within 1 s with no events.
    src = seeded(1)
    r = Reflector(src, RecordingStore(), clock=clock)
    w = src.watch(ListOptions(resource_version="1"))
    src.drop_watches()
    with pytest.raises(Exception, match="less than a second"):
        r.handle_watch(clock.now(), w, iter(w), RecordingStore(), threading.Event())
    # The same close after a second on the clock is a normal end.
    w = src.watch(ListOptions(resource_version="1"))
    start = clock.now()
    clock.step(1.5)
    src.drop_watches()
    assert r.handle_watch(start, w, iter(w), RecordingStore(), threading.Event()) is False


def test_clean_watch_close_rewatches_without_relist(clock, tracer, trace, runners):
    src = seeded(2)
    store = RecordingStore()
    r = Reflector(src, store, clock=clock, tracer=tracer)
    runners(r)
    assert wait_for(lambda: len(calls(src, "watch")) == 1)
    src.add(make_object("p5"))
    assert wait_for(lambda: r.last_sync_resource_version() == "3")
    src.drop_watches()
    assert wait_for(lambda: len(calls(src, "watch")) == 2)
    assert calls(src, "watch")[1].resource_version == "3"
    assert len(calls(src, "list")) == 1
    ends = [e for e in trace.drain() if e.kind == "watch.end"]
    assert ends[0].fields["reason"] == "closed"


def test_expired_watch_relists_at_last_rv(clock, tracer, trace, runners):
    # TestReflectorListAndWatchWithErrors / DefaultWatchErrorHandler: a 410
    # from the watch relists at the last RV (not ""), after a back-off.
    src = seeded(2)
    store = RecordingStore()
    r = Reflector(src, store, clock=clock, tracer=tracer, rng=random.Random(1))
    runners(r)
    assert wait_for(lambda: len(calls(src, "watch")) == 1)
    src.add(make_object("p7"))
    assert wait_for(lambda: r.last_sync_resource_version() == "3")
    src.expire_watches()
    assert wait_for(clock.has_waiters)  # BackoffUntil's sliding back-off
    assert len(calls(src, "list")) == 1
    clock.step(2.0)
    assert wait_for(lambda: len(calls(src, "watch")) == 2)
    assert [o.resource_version for o in calls(src, "list")] == ["0", "3"]
    assert calls(src, "list")[1].limit is None  # a relist at an RV is unpaged
    evs = trace.drain()
    relists = [e.fields["reason"] for e in evs if e.kind == "relist"]
    assert relists == ["expired"]
    # The fact, not the wording: watch.end says the watch expired.
    assert [e.fields["expired"] for e in evs if e.kind == "watch.end"] == [True]


def test_other_watch_error_relists_with_reason_error(clock, tracer, trace, runners):
    src = seeded(1)
    r = Reflector(src, RecordingStore(), clock=clock, tracer=tracer)
    runners(r)
    assert wait_for(lambda: len(calls(src, "watch")) == 1)
    src.send_error(ApiError(500, "InternalError", "etcd hiccup"))
    assert wait_for(clock.has_waiters)
    clock.step(2.0)
    assert wait_for(lambda: len(calls(src, "list")) == 2)
    evs = trace.drain()
    assert any(e.kind == "watch.end" and "etcd hiccup" in e.fields.get("error", "") for e in evs)
    assert not any(e.fields.get("expired") for e in evs if e.kind == "watch.end")
    assert wait_for(lambda: any(e.kind == "relist" for e in evs + trace.drain()))


@pytest.mark.parametrize("err, reason", [(expired_error(), "expired"), (too_large_error(9, 3), "too_large")])
def test_list_at_unavailable_rv_retries_at_empty_rv(clock, tracer, trace, err, reason):
    # TestReflectorFullListIfExpired / TestReflectorFullListIfTooLarge:
    # retry at once with RV "" (a consistent read).
    src = seeded(2)
    store = RecordingStore()
    r = Reflector(src, store, clock=clock, tracer=tracer)
    src.fail_next(err, "list")
    r._list(threading.Event())
    assert [o.resource_version for o in calls(src, "list")] == ["0", ""]
    assert store.ops == [("replace", ["default/p0", "default/p1"], "2")]
    assert r.last_sync_resource_version() == "2"
    assert not r._rv_unavailable  # reset by the successful list
    assert [e.fields["reason"] for e in trace.drain() if e.kind == "relist"] == [reason]


def test_expired_list_marks_rv_unavailable_until_a_list_succeeds(clock):
    # TestReflectorExpiredExactResourceVersion: relist RV goes "" after an
    # expired list that also failed the retry.
    src = seeded(2)
    r = Reflector(src, RecordingStore(), clock=clock)
    r._list(threading.Event())
    assert r.relist_resource_version() == "2"
    src.fail_next(expired_error(), "list", count=2)
    with pytest.raises(ApiError):
        r._list(threading.Event())
    assert r.relist_resource_version() == ""
    assert r.rewatch_resource_version() == ""
    r._list(threading.Event())
    assert calls(src, "list")[-1].resource_version == ""
    assert r.relist_resource_version() == "2"


def test_expired_continue_falls_back_to_full_list_at_requested_rv(clock, tracer, trace):
    # TestReflectorFullListIfExpired: page size 4; the initial list at "0";
    # the relist at "10" gets a first page, then its continue token expires:
    # the pager lists once more, unpaged, at the RV the reflector asked for
    # ("10", not "": the reflector's own fallback is not needed).
    pods = [make_object(f"pod-{i}", resourceVersion=str(i)) for i in range(8)]
    for i, p in enumerate(pods):
        p["metadata"]["resourceVersion"] = str(i)
    seen: list[tuple] = []

    def list_func(opts):
        key = (opts.resource_version or "", opts.continue_ or "", opts.limit or 0)
        seen.append(key)
        if key == ("0", "", 4):
            return {"metadata": {"resourceVersion": "10"}, "items": pods[0:4]}
        if key == ("10", "", 4):
            return {"metadata": {"resourceVersion": "11", "continue": "C1"}, "items": pods[0:4]}
        if key == ("", "C1", 4):
            raise expired_error("The resourceVersion for the provided watch is too old.")
        if key == ("10", "", 0):
            return {"metadata": {"resourceVersion": "11"}, "items": pods[0:8]}
        raise AssertionError(f"unexpected list options: {opts}")

    store = RecordingStore()
    r = Reflector(ListWatch(list_func, lambda o: None), store, page_size=4, clock=clock, tracer=tracer)
    r._list(threading.Event())
    assert len(store.items) == 4
    r._list(threading.Event())
    assert len(store.items) == 8
    assert [k[0] for k in seen] == ["0", "10", "", "10"]
    assert r.last_sync_resource_version() == "11"
    evs = trace.drain()
    assert not [e for e in evs if e.kind == "relist"]  # the pager handled it
    assert [e.fields.get("full_list_if_expired", False) for e in evs if e.kind == "list.page"] == [False, False, True]


def test_expired_full_list_after_expired_continue_relists_at_empty_rv(clock):
    # The pager's fallback list fails as expired too: then the reflector's
    # own rule applies, a consistent list at "" (TestReflectorExpiredExactResourceVersion).
    src = seeded(5)
    seen: list[tuple] = []
    r = Reflector(src, RecordingStore(), page_size=2, clock=clock)
    r._list(threading.Event())

    def list_func(opts):
        seen.append((opts.resource_version, opts.limit, bool(opts.continue_)))
        if opts.continue_ or (opts.resource_version == "5" and not opts.limit):
            raise expired_error()
        return src.list(opts)

    r.lw = ListWatch(list_func, src.watch)
    r._list(threading.Event())
    assert seen == [
        ("5", 2, False),
        ("", 2, True),
        ("5", None, False),
        ("", 2, False),
        ("", 2, True),
        ("", None, False),
    ]
    assert r.last_sync_resource_version() == "5" and not r._rv_unavailable


def test_paging_follows_continue(clock, tracer, trace):
    # TestReflectorWatchListPageSize: an explicit page size always pages.
    src = seeded(5)
    store = RecordingStore()
    r = Reflector(src, store, page_size=2, clock=clock, tracer=tracer)
    r._list(threading.Event())
    lists = calls(src, "list")
    assert [(o.limit, bool(o.continue_)) for o in lists] == [(2, False), (2, True), (2, True)]
    assert store.ops == [("replace", [f"default/p{i}" for i in range(5)], "5")]
    pages = [e.fields for e in trace.drain() if e.kind == "list.page"]
    assert [p["items"] for p in pages] == [2, 2, 1]
    assert pages[-1]["continue"] == ""
    r._list(threading.Event())  # a relist at an RV still pages: it was asked for
    assert calls(src, "list")[3].limit == 2


def test_relist_at_rv_unpaged_unless_first_list_was_paginated(clock):
    # TestReflectorNotPaginatingNotConsistentReads and
    # TestReflectorPaginatingNonConsistentReadsIfWatchCacheDisabled.
    small = seeded(3)
    r = Reflector(small, RecordingStore(), clock=clock)
    r._list(threading.Event())
    r._list(threading.Event())
    assert [(o.resource_version, o.limit) for o in calls(small, "list")] == [("0", 500), ("3", None)]

    big = FakeSource()
    big.bulk_add(make_object(f"p{i:04d}") for i in range(501))
    r = Reflector(big, RecordingStore(), clock=clock)
    r._list(threading.Event())
    assert len(calls(big, "list")) == 2  # 500 + 1: paginated at RV "0"
    r._list(threading.Event())
    assert calls(big, "list")[2].resource_version == "501" and calls(big, "list")[2].limit == 500

    # A watch cache ignores limit at RV "0": not paginated, relists unpaged.
    cached = FakeSource(honor_limit=False)
    cached.bulk_add(make_object(f"p{i:04d}") for i in range(501))
    r = Reflector(cached, RecordingStore(), clock=clock)
    r._list(threading.Event())
    r._list(threading.Event())
    assert [(o.resource_version, o.limit) for o in calls(cached, "list")] == [("0", 500), ("501", None)]


def test_list_error_is_returned_and_run_backs_off(clock, tracer, trace, runners):
    # TestReflectorListAndWatchWithErrors: a failed list returns the error
    # to Run, which reports it and backs off before the next ListAndWatch.
    src = seeded(1)
    src.fail_next(too_many_requests_error(), "list")
    store = RecordingStore()
    r = Reflector(src, store, clock=clock, tracer=tracer, rng=random.Random(3))
    run = runners(r)
    assert wait_for(lambda: run.errors and clock.has_waiters())
    assert isinstance(run.errors[0], ApiError) and run.errors[0].status == 429
    assert store.ops == []
    deadline = clock.next_deadline()
    assert 0.8 <= deadline - clock.now() < 1.6
    clock.step(1.6)
    assert wait_for(lambda: len(calls(src, "watch")) == 1)
    assert [o.resource_version for o in calls(src, "list")] == ["0", "0"]
    done = [e.fields for e in trace.drain() if e.kind == "list.done"]
    assert "error" in done[0] and done[-1]["items"] == 1


@pytest.mark.parametrize(
    "err", [ConnectionRefusedError("refused"), too_many_requests_error()], ids=["connection_refused", "429"]
)
def test_retriable_watch_error_backs_off_and_rewatches(clock, tracer, err, runners):
    # TestBackoffOnTooManyRequests / isWatchErrorRetriable: back off and
    # watch again at the same RV, without a relist.
    src = seeded(2)
    src.fail_next(err, "watch", count=2)
    r = Reflector(src, RecordingStore(), clock=clock, tracer=tracer, rng=random.Random(7))
    runners(r)
    assert wait_for(lambda: len(calls(src, "watch")) == 1 and clock.has_waiters())
    first = clock.next_deadline() - clock.now()
    assert 0.8 <= first < 1.6
    clock.step(first)
    assert wait_for(lambda: len(calls(src, "watch")) == 2 and clock.has_waiters())
    second = clock.next_deadline() - clock.now()
    assert 1.6 <= second < 3.2  # doubled
    clock.step(second)
    assert wait_for(lambda: len(calls(src, "watch")) == 3 and src.open_watches() == 1)
    assert [o.resource_version for o in calls(src, "watch")] == ["2", "2", "2"]
    assert len(calls(src, "list")) == 1


def test_429_error_event_backs_off_and_rewatches(clock, runners):
    src = seeded(1)
    r = Reflector(src, RecordingStore(), clock=clock, rng=random.Random(2))
    runners(r)
    assert wait_for(lambda: src.open_watches() == 1)
    src.send_error(too_many_requests_error())
    assert wait_for(clock.has_waiters)
    clock.step(2.0)
    assert wait_for(lambda: len(calls(src, "watch")) == 2 and src.open_watches() == 1)
    assert len(calls(src, "list")) == 1


def test_backoff_manager_doubles_caps_jitters_and_resets():
    # wait.NewExponentialBackoffManager(800ms, 30s, 2m, 2.0, 1.0)
    clock = FakeClock()
    b = BackoffManager(clock, rng=random.Random(5))
    ds = [b.next() for _ in range(8)]
    bases = [0.8, 1.6, 3.2, 6.4, 12.8, 25.6, 30.0, 30.0]
    for d, base in zip(ds, bases, strict=True):
        assert base <= d < 2 * base
    clock.step(121)
    assert 0.8 <= b.next() < 1.6
    nojit = BackoffManager(clock, jitter=0.0)
    assert [nojit.next() for _ in range(3)] == [0.8, 1.6, 3.2]


def test_delay_with_reset_starts_over_from_its_last_start_over():
    # apimachinery's TestBackoffDelayWithResetExponential, at the reflector's figures
    # (client-go 1.36: Backoff{800ms, 2.0, jitter 1.0, cap 30s}.DelayWithReset(clock, 2m)).
    clock = FakeClock()
    b = DelayWithReset(clock, jitter=0.0)
    assert [b.next() for _ in range(8)] == [0.8, 1.6, 3.2, 6.4, 12.8, 25.6, 30.0, 30.0]
    clock.step(121)
    assert b.next() == 0.8
    jittered = DelayWithReset(clock, rng=random.Random(5))
    assert all(base <= jittered.next() < 2 * base for base in (0.8, 1.6, 3.2))


@pytest.mark.parametrize(
    "manager,at_130s",
    [(BackoffManager, 30.0), (DelayWithReset, 0.8)],
    ids=["1.35-manager-resets-after-2m-without-backoff", "1.36-delay-resets-2m-after-last-reset"],
)
def test_backoff_under_failures_without_pause(manager, at_130s):
    # A back-off every 10 s from 0 to 130 s: the older manager never sees 2 minutes
    # without one and stays at the cap; DelayWithReset starts over 2 minutes
    # after it was made, failures or not (backoffManager.Step moves lastStart
    # only when it resets).
    clock = FakeClock()
    b = manager(clock, jitter=0.0)
    for _ in range(13):
        b.next()
        clock.step(10)
    assert b.next() == at_130s
    # Both start over after 2 minutes of quiet.
    clock.step(121)
    assert b.next() == 0.8


def test_the_profile_picks_the_reflectors_backoff():
    from kubectl_informer.cache.shared_informer import SharedIndexInformer
    from kubectl_informer.core.profiles import resolve_profile

    kinds = {}
    for version in ("1.32", "1.35", "1.36", "1.37"):
        inf = SharedIndexInformer(FakeSource(), profile=resolve_profile(version))
        stop = threading.Event()
        stop.set()
        inf.run(stop)
        kinds[version] = type(inf.reflector.backoff)
    assert kinds == {"1.32": BackoffManager, "1.35": BackoffManager, "1.36": DelayWithReset, "1.37": DelayWithReset}


def test_watch_timeout_in_range(clock):
    # TestReflectorWatchTimeout-like: timeouts spread over [300, 600).
    r = Reflector(FakeSource(), RecordingStore(), clock=clock, rng=random.Random(0))
    ts = [r._watch_timeout() for _ in range(200)]
    assert min(ts) >= 300 and max(ts) < 600 and len(set(ts)) > 50
    # A minimum below 5 minutes is not honoured.
    assert Reflector(FakeSource(), RecordingStore(), min_watch_timeout=10).min_watch_timeout == 300


def test_watch_ends_at_its_timeout_on_the_clock_and_rewatches(clock, runners):
    src = FakeSource(clock=clock)
    src.add(make_object("a"))
    r = Reflector(src, RecordingStore(), clock=clock, rng=random.Random(0))
    runners(r)
    assert wait_for(lambda: src.open_watches() == 1)
    clock.step(calls(src, "watch")[0].timeout_seconds)
    assert wait_for(lambda: len(calls(src, "watch")) == 2)
    assert len(calls(src, "list")) == 1


def test_stop_ends_run(clock, runners):
    # TestRunUntil / TestReflectorStopWatch: stopping ends the watch and Run.
    src = seeded(1)
    r = Reflector(src, RecordingStore(), clock=clock)
    run = runners(r)
    assert wait_for(lambda: src.open_watches() == 1)
    run.stop.set()
    run.t.join(5)
    assert not run.t.is_alive()
    assert wait_for(lambda: src.open_watches() == 0)
    assert run.errors == []


def test_stopped_before_watch_handler(clock):
    # TestReflectorHandleWatchStoppedBefore: the watch is stopped at once.
    src = seeded(1)
    r = Reflector(src, RecordingStore(), clock=clock)
    w = src.watch(ListOptions(resource_version="1"))
    stop = threading.Event()
    stop.set()
    with pytest.raises(_StopRequested):  # client-go's errorStopRequested
        r.handle_watch(clock.now(), w, iter(w), RecordingStore(), stop)
    assert w.stopped


def test_resync_calls_store_resync_when_should_resync(clock, runners):
    # TestReflectorResync: every period the store resyncs if ShouldResync.
    src = seeded(1)
    store = RecordingStore()
    answers = iter([False, True, True])
    r = Reflector(src, store, resync_period=30, should_resync=lambda: next(answers), clock=clock)
    runners(r)
    assert wait_for(lambda: src.open_watches() == 1 and clock.has_waiters())
    clock.step(30)
    assert wait_for(clock.has_waiters)
    assert "resync" not in store.kinds()
    clock.step(30)
    assert wait_for(lambda: store.kinds().count("resync") == 1)
    assert wait_for(clock.has_waiters)
    clock.step(30)
    assert wait_for(lambda: store.kinds().count("resync") == 2)


# --- WatchList ---------------------------------------------------------------


def test_watch_list_streams_initial_state_then_keeps_watching(clock, tracer, trace, runners):
    # TestWatchList "the reflector won't fall back to LIST if the server
    # supports watch-list": one replace at the bookmark's RV, no LIST, and
    # the same stream goes on as the watch.
    src = seeded(3)
    store = RecordingStore(with_bookmark=True)
    r = Reflector(src, store, use_watch_list=True, clock=clock, tracer=tracer)
    runners(r)
    assert wait_for(lambda: store.ops)
    w = calls(src, "watch")[0]
    assert (w.send_initial_events, w.resource_version_match, w.resource_version, w.allow_watch_bookmarks) == (
        True,
        "NotOlderThan",
        "",
        True,
    )
    assert store.ops == [("replace", ["default/p0", "default/p1", "default/p2"], "3")]
    assert r.last_sync_resource_version() == "3"
    src.add(make_object("p3"))
    src.bookmark()
    assert wait_for(lambda: len(store.ops) == 3)
    assert store.ops[1:] == [("add", "default/p3", "4"), ("bookmark", "4")]  # end bookmark not forwarded
    assert calls(src, "list") == [] and len(calls(src, "watch")) == 1
    done = [e.fields for e in trace.drain() if e.kind == "list.done"]
    assert done[0]["watch_list"] is True and done[0]["items"] == 3


def test_watch_list_applies_events_inside_the_stream(clock):
    # Events of the initial stream build a temporary store; one replace.
    src = seeded(2)
    store = RecordingStore()
    r = Reflector(src, store, use_watch_list=True, clock=clock)
    w = src.watch(ListOptions(send_initial_events=True, allow_watch_bookmarks=True))
    # A stream where an object is deleted before the end bookmark.
    lw = ListWatch(
        src.list,
        lambda o: _Scripted(
            [
                WatchEvent(ADDED, src.get("default/p0")),
                WatchEvent(ADDED, src.get("default/p1")),
                WatchEvent(DELETED, src.get("default/p0")),
                WatchEvent(
                    BOOKMARK,
                    {"metadata": {"resourceVersion": "9", "annotations": {"k8s.io/initial-events-end": "true"}}},
                ),
            ]
        ),
    )
    w.stop()
    r.lw = lw
    assert r._watch_list(threading.Event()) is not None
    assert store.ops == [("replace", ["default/p1"], "9")]


class _Scripted:
    """A watch that yields a fixed list of events then closes."""

    def __init__(self, events, hold=False):
        self.events = list(events)
        self.stopped = threading.Event()
        self.hold = hold

    def __iter__(self):
        for ev in self.events:
            if self.stopped.is_set():
                return
            yield ev
        if self.hold:
            self.stopped.wait()

    def stop(self):
        self.stopped.set()


def test_watch_list_unsupported_falls_back_to_list(clock, tracer, trace, runners):
    # TestWatchList "the reflector falls back to LIST when the server does
    # not support streaming": the stream closes at once with no events.
    src = seeded(2, watch_list=False)
    store = RecordingStore()
    r = Reflector(src, store, use_watch_list=True, clock=clock, tracer=tracer)
    runners(r)
    assert wait_for(lambda: src.open_watches() == 1)
    assert calls(src, "watch")[0].send_initial_events is True
    assert [o.resource_version for o in calls(src, "list")] == ["0"]
    assert calls(src, "watch")[1].send_initial_events is None
    assert store.ops == [("replace", ["default/p0", "default/p1"], "2")]
    fell = [e.fields for e in trace.drain() if e.kind == "list.done" and e.fields.get("watch_list")]
    assert "falling back" in fell[0]["error"]


def test_watch_list_ended_early_is_requested_again(clock, runners):
    # A stream that closes with events but before the bookmark is not a
    # fallback: the watch-list request is sent again.
    src = seeded(2)
    n = {"calls": 0}

    def watch(opts):
        n["calls"] += 1
        if n["calls"] == 1:
            return _Scripted([WatchEvent(ADDED, src.get("default/p0"))])
        return src.watch(opts)

    store = RecordingStore()
    r = Reflector(ListWatch(src.list, watch), store, use_watch_list=True, clock=clock)
    runners(r)
    assert wait_for(lambda: store.ops)
    assert n["calls"] == 2 and calls(src, "list") == []
    assert store.ops == [("replace", ["default/p0", "default/p1"], "2")]


def test_watch_list_error_event_falls_back_to_list(clock, runners):
    # A non-retriable error in the stream: fall back to LIST ("making
    # progress is better than deadlocking").
    src = seeded(1)
    n = {"calls": 0}

    def watch(opts):
        n["calls"] += 1
        if opts.send_initial_events:
            return _Scripted([WatchEvent("ERROR", ApiError(500, "InternalError", "x").to_status())])
        return src.watch(opts)

    store = RecordingStore()
    r = Reflector(ListWatch(src.list, watch), store, use_watch_list=True, clock=clock)
    runners(r)
    assert wait_for(lambda: store.ops)
    assert n["calls"] >= 1 and len(calls(src, "list")) == 1


def test_watch_list_expired_retries_at_empty_rv(clock, runners):
    # TestWatchList "410 / too large RV": retry the stream at RV "".
    src = seeded(2)
    store = RecordingStore()
    r = Reflector(src, store, use_watch_list=True, clock=clock)
    r._set_last_sync_rv("1", "list")  # as after an earlier sync
    src.fail_next(too_large_error(1, 0), "watch")
    runners(r)
    assert wait_for(lambda: store.ops)
    assert [o.resource_version for o in calls(src, "watch")] == ["1", ""]
    assert calls(src, "list") == []


def test_watch_list_429_backs_off_then_retries(clock, runners):
    src = seeded(1)
    src.fail_next(too_many_requests_error(), "watch")
    store = RecordingStore()
    r = Reflector(src, store, use_watch_list=True, clock=clock, rng=random.Random(0))
    runners(r)
    assert wait_for(clock.has_waiters)
    assert store.ops == []
    clock.step(1.6)
    assert wait_for(lambda: store.ops)
    assert [o.send_initial_events for o in calls(src, "watch")] == [True, True]
    assert calls(src, "list") == []


def test_watch_list_relist_after_expired_watch_streams_again(clock, runners):
    src = seeded(2)
    store = RecordingStore()
    r = Reflector(src, store, use_watch_list=True, clock=clock)
    runners(r)
    assert wait_for(lambda: store.ops)
    src.add(make_object("p2"))
    assert wait_for(lambda: r.last_sync_resource_version() == "3")
    src.expire_watches()
    assert wait_for(clock.has_waiters)
    clock.step(2.0)
    assert wait_for(lambda: len([o for o in store.ops if o[0] == "replace"]) == 2)
    second = [o for o in calls(src, "watch") if o.send_initial_events][1]
    assert second.resource_version == "3"
    assert calls(src, "list") == []


def test_list_progress_of_a_long_page_is_traced_at_most_every_100ms(clock, tracer, trace):
    # A ListerWatcher that reads a page in chunks reports (bytes, items) as
    # they arrive; the reflector turns that into list.progress events.
    src = seeded(6)

    class ChunkedLW:
        list_progress = None

        def list(self, opts):
            for i in range(1, 4):
                clock.step(0.06)
                self.list_progress(1000 * i, 2 * i)
            return src.list(opts)

        def watch(self, opts):
            return src.watch(opts)

    lw = ChunkedLW()
    r = Reflector(lw, RecordingStore(), page_size=3, clock=clock, tracer=tracer)
    assert lw.list_progress == r._on_list_progress
    r._list(threading.Event())
    evs = [e for e in trace.drain() if e.kind in ("list.progress", "list.page")]
    # Chunks every 0.06 s: progress at 0.12, 0.24 and 0.36 s, counting the
    # pages done; each page carries the bytes it read.
    assert [(e.kind, e.fields.get("pages"), e.fields["items"], e.fields.get("bytes")) for e in evs] == [
        ("list.progress", 0, 4, 2000),
        ("list.page", None, 3, 3000),
        ("list.progress", 1, 5, 4000),
        ("list.progress", 1, 9, 6000),
        ("list.page", None, 3, 3000),
    ]
