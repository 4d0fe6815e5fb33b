"""SharedIndexInformer tests; cases port client-go's shared_informer_test.go
and controller_test.go (named per test). FakeClock drives resync; other
threads are awaited with wait_for."""

from __future__ import annotations

import threading

import pytest

from kubectl_informer.cache.keys import DeletedFinalStateUnknown
from kubectl_informer.cache.shared_informer import (
    ResourceEventHandler,
    ResourceEventHandlerFuncs,
    SharedIndexInformer,
    determine_resync_period,
)
from kubectl_informer.cache.testing.fake_controller_source import FakeSource, make_object
from kubectl_informer.clock.testing import FakeClock, wait_for
from kubectl_informer.core.apierrors import ApiError
from kubectl_informer.core.trace import TraceEvent

PROFILES = [dict(fifo="delta"), dict(fifo="real"), dict(fifo="real", atomic_events=True)]
PROFILE_IDS = ["DeltaFIFO", "RealFIFO", "RealFIFO-atomic"]


class Recorder(ResourceEventHandler):
    def __init__(self):
        self.events: list[tuple] = []
        self.lock = threading.Lock()

    def on_add(self, obj, is_in_initial_list):
        with self.lock:
            self.events.append(("add", _key(obj), _rv(obj), is_in_initial_list))

    def on_update(self, old, new):
        with self.lock:
            self.events.append(("update", _key(new), _rv(old), _rv(new)))

    def on_delete(self, obj):
        with self.lock:
            self.events.append(("delete", _key(obj), isinstance(obj, DeletedFinalStateUnknown)))

    def of(self, kind):
        with self.lock:
            return [e for e in self.events if e[0] == kind]

    def clear(self):
        with self.lock:
            self.events.clear()


def _key(obj):
    if isinstance(obj, DeletedFinalStateUnknown):
        return obj.key
    return f"{obj['metadata'].get('namespace')}/{obj['metadata']['name']}"


def _rv(obj):
    if isinstance(obj, DeletedFinalStateUnknown):
        return None
    return obj["metadata"]["resourceVersion"]


def source(n=2, **kw):
    src = FakeSource(**kw)
    for i in range(1, n + 1):
        src.add(make_object(f"pod{i}"))
    return src


# --- resync period rules -------------------------------------------------------


def test_determine_resync_period():
    assert determine_resync_period(0, 5) == 0
    assert determine_resync_period(10, 0) == 0
    assert determine_resync_period(3, 5) == 5
    assert determine_resync_period(7, 5) == 7


def test_resync_check_period_lowered_before_start(clock):
    # TestResyncCheckPeriod: each shorter handler period before start lowers
    # the check period; listeners keep their own periods.
    inf = SharedIndexInformer(FakeSource(), 12 * 3600, clock=clock)
    l1 = inf.add_event_handler(Recorder(), 12 * 3600)
    assert inf.resync_check_period == 12 * 3600 and l1.resync_period == 12 * 3600
    l2 = inf.add_event_handler(Recorder(), 60)
    assert inf.resync_check_period == 60
    assert (l1.resync_period, l2.resync_period) == (12 * 3600, 60)
    l3 = inf.add_event_handler(Recorder(), 55)
    assert inf.resync_check_period == 55
    l4 = inf.add_event_handler(Recorder(), 5)
    assert inf.resync_check_period == 5
    assert [x.resync_period for x in (l1, l2, l3, l4)] == [12 * 3600, 60, 55, 5]
    l5 = inf.add_event_handler(Recorder(), 0)
    assert l5.resync_period == 0


def test_minimum_resync_period_and_check_period_zero(clock, tracer, trace):
    inf = SharedIndexInformer(FakeSource(), 0, clock=clock, tracer=tracer)
    l1 = inf.add_event_handler(Recorder(), 10, name="ten")
    assert l1.resync_period == 0  # the informer does not resync
    reg = [e.fields for e in trace.drain() if e.kind == "handler.register"][0]
    assert reg == dict(
        listener="ten",
        requested=10.0,
        effective=0.0,
        check_period=0.0,
        reason="the informer does not resync (check period 0)",
    )
    inf2 = SharedIndexInformer(FakeSource(), 30, clock=clock, tracer=tracer)
    l2 = inf2.add_event_handler(Recorder(), 0.2, name="fast")
    assert l2.resync_period == 1.0 and inf2.resync_check_period == 1.0
    l3 = inf2.add_event_handler(Recorder())  # default period
    assert l3.resync_period == 30 and l3.name == "handler-2"


def test_resync_period_raised_after_start(clock, tracer, trace, start):
    # AddEventHandlerWithResyncPeriod after start: a period below the check
    # period is raised to it.
    inf = SharedIndexInformer(source(1), 5, clock=clock, tracer=tracer)
    inf.add_event_handler(Recorder())
    start(inf)
    assert wait_for(inf.has_synced)
    late = inf.add_event_handler(Recorder(), 2, name="late")
    assert late.resync_period == 5 and inf.resync_check_period == 5
    reg = [e.fields for e in trace.drain() if e.kind == "handler.register" and e.fields["listener"] == "late"][0]
    assert reg["requested"] == 2 and reg["effective"] == 5 and "already started" in reg["reason"]


@pytest.mark.parametrize("profile", PROFILES, ids=PROFILE_IDS)
def test_listener_resync_periods(clock, tracer, trace, start, profile):
    # TestListenerResyncPeriods: check period 1s; listener1 never resyncs,
    # listener2 every 2s, listener3 every 3s; each tick only due listeners
    # get the Sync updates.
    src = source(2)
    inf = SharedIndexInformer(src, 1, clock=clock, tracer=tracer, **profile)
    l1, l2, l3 = Recorder(), Recorder(), Recorder()
    inf.add_event_handler(l1, 0, name="listener1")
    inf.add_event_handler(l2, 2, name="listener2")
    inf.add_event_handler(l3, 3, name="listener3")
    start(inf)
    for rec in (l1, l2, l3):
        assert wait_for(lambda rec=rec: len(rec.of("add")) == 2)
        assert all(e[3] for e in rec.of("add"))  # is_in_initial_list
        rec.clear()
    assert wait_for(clock.has_waiters)
    clock.step(2)
    assert wait_for(lambda: len(l2.of("update")) == 2)
    assert sorted(e[1] for e in l2.of("update")) == ["default/pod1", "default/pod2"]
    assert all(e[2] == e[3] for e in l2.of("update"))  # old and new RV equal
    assert wait_for(clock.has_waiters)
    assert l1.events == [] and l3.events == []
    l2.clear()
    clock.step(1)
    assert wait_for(lambda: len(l3.of("update")) == 2)
    assert wait_for(clock.has_waiters)
    assert l1.events == [] and l2.events == []
    ticks = [e.fields for e in trace.drain() if e.kind == "resync.tick"]
    assert [t["due"] for t in ticks] == [["listener2"], ["listener3"]]
    assert ticks[0]["check_period"] == 1.0


# --- notifications -------------------------------------------------------------


@pytest.mark.parametrize("profile", PROFILES, ids=PROFILE_IDS)
def test_initial_list_then_watch_events(clock, tracer, trace, start, profile):
    src = source(2)
    inf = SharedIndexInformer(src, clock=clock, tracer=tracer, **profile)
    rec = Recorder()
    reg = inf.add_event_handler(rec)
    assert not inf.has_synced() and not reg.has_synced()
    start(inf)
    assert wait_for(reg.has_synced)
    assert inf.has_synced()
    assert sorted(rec.events) == [("add", "default/pod1", "1", True), ("add", "default/pod2", "2", True)]
    src.modify(dict(src.get("default/pod1"), status={"phase": "Running"}))
    src.delete("default/pod2")
    src.add(make_object("pod3"))
    assert wait_for(lambda: len(rec.events) == 5)
    assert rec.events[2:] == [
        ("update", "default/pod1", "1", "3"),
        ("delete", "default/pod2", False),
        ("add", "default/pod3", "5", False),
    ]
    assert sorted(inf.get_store().list_keys()) == ["default/pod1", "default/pod3"]
    assert inf.last_sync_resource_version() == "5"
    evs = trace.drain()
    kinds = [e.kind for e in evs]
    assert kinds.count("informer.synced") == 1 and kinds.count("informer.start") == 1
    synced = next(e for e in evs if e.kind == "informer.synced")
    assert synced.fields["items"] == 2
    upd = next(e for e in evs if e.kind == "store.update" and e.key == "default/pod1")
    assert upd.fields["delta"] == "Updated" and upd.fields["old_resource_version"] == "1"
    assert upd.fields["diff"] == ["status +"] and upd.fields["summary"] == "Running"
    # The object rides along in-process (the UI's YAML and full diff), never into JSON.
    assert upd.raw_fields["object"] is inf.get_store().get_by_key("default/pod1")[0]
    assert '"object"' not in upd.to_json() and "object" not in TraceEvent.from_json(upd.to_json()).fields
    assert upd.fields["is_in_initial_list"] is False
    dele = next(e for e in evs if e.kind == "store.delete")
    assert dele.fields["tombstone"] is False and dele.fields["delta"] == "Deleted"
    handler_kinds = [e.kind for e in evs if e.kind.startswith("handler.") and e.kind != "handler.register"]
    assert handler_kinds.count("handler.add") == 3
    start_ev = next(e for e in evs if e.kind == "informer.start")
    assert start_ev.fields["fifo"] == {"delta": "DeltaFIFO", "real": "RealFIFO"}[profile["fifo"]] + (
        " (atomic)" if profile.get("atomic_events") else ""
    )


@pytest.mark.parametrize("profile", PROFILES, ids=PROFILE_IDS)
def test_deletion_missed_while_watch_down_is_a_tombstone(clock, start, profile):
    # TestSharedInformerWatchDisruption: the relist finds pod1 gone; the
    # handler gets a DeletedFinalStateUnknown; pod2's change becomes an
    # update.
    src = source(2)
    inf = SharedIndexInformer(src, clock=clock, **profile)
    rec = Recorder()
    inf.add_event_handler(rec)
    start(inf)
    assert wait_for(lambda: len(rec.events) == 2)
    src.expire_watches()
    assert wait_for(clock.has_waiters)  # backing off before the relist
    src.delete("default/pod1")
    src.modify(dict(src.get("default/pod2"), status={"phase": "Failed"}))
    src.compact()
    clock.step(2)
    assert wait_for(lambda: len(rec.events) == 4)
    # DeltaFIFO queues the list first and tombstones after it; RealFIFO
    # queues tombstones first.
    expected = [("delete", "default/pod1", True), ("update", "default/pod2", "2", "4")]
    if profile["fifo"] == "delta":
        expected.reverse()
    assert rec.events[2:] == expected
    assert inf.get_store().list_keys() == ["default/pod2"]


def test_without_known_objects_a_relist_cannot_report_a_vanished_key(clock, start, tracer):
    # The same disruption with the DeltaFIFO given no known objects
    # (--no-fifo-known-objects): Replace only checks what is queued, so
    # pod1, long popped into the indexer, gets no tombstone and stays cached;
    # a watch DELETED for a popped key is dropped as unknown; resync has no keys.
    from kubectl_informer.core.profiles import resolve_profile

    seen = []
    tracer.subscribe(seen.append)
    src = source(3)
    inf = SharedIndexInformer(src, clock=clock, tracer=tracer, profile=resolve_profile("1.32", known_objects=False))
    rec = Recorder()
    inf.add_event_handler(rec)
    start(inf)
    assert wait_for(lambda: len(rec.events) == 3)
    assert inf.fifo._known is None
    src.delete("default/pod3")  # on the watch: the FIFO holds nothing for pod3
    assert wait_for(lambda: any(e.kind == "fifo.skip" for e in list(seen)))
    src.expire_watches()
    assert wait_for(clock.has_waiters)
    src.delete("default/pod1")
    src.modify(dict(src.get("default/pod2"), status={"phase": "Failed"}))
    src.compact()
    clock.step(2)
    assert wait_for(lambda: len(rec.events) == 4)
    assert rec.events[3][:3] == ("update", "default/pod2", "2")  # the relist's newer pod2
    assert not rec.of("delete")
    assert sorted(inf.get_store().list_keys()) == ["default/pod1", "default/pod2", "default/pod3"]
    skips = [(e.key, e.fields["reason"]) for e in list(seen) if e.kind == "fifo.skip"]
    assert skips == [("default/pod3", "unknown_delete")]
    inf.fifo.resync()
    assert inf.fifo.list_keys() == []


def test_real_fifo_delivers_every_intermediate_state(clock, start):
    # The InOrderInformers difference: DeltaFIFO may coalesce, RealFIFO
    # hands every event to the handler in order.
    src = source(1)
    gate = threading.Event()
    seen = []
    inf = SharedIndexInformer(src, clock=clock, fifo="real")

    def update(old, new):
        gate.wait(5)
        seen.append(new["metadata"]["resourceVersion"])

    inf.add_event_handler(ResourceEventHandlerFuncs(update=update))
    start(inf)
    assert wait_for(inf.has_synced)
    for i in range(5):
        src.modify(dict(src.get("default/pod1"), n=i))
    gate.set()
    assert wait_for(lambda: len(seen) == 5)
    assert seen == ["2", "3", "4", "5", "6"]


def test_late_handler_gets_synthetic_adds(clock, tracer, trace, start):
    # TestAddWhileActive: a handler added after start first gets an add,
    # in the initial list, for every cached object.
    src = source(3)
    inf = SharedIndexInformer(src, clock=clock, tracer=tracer)
    first = Recorder()
    inf.add_event_handler(first)
    start(inf)
    assert wait_for(lambda: len(first.events) == 3)
    late = Recorder()
    reg = inf.add_event_handler(late, name="late")
    assert wait_for(reg.has_synced)
    assert sorted(late.events) == [("add", f"default/pod{i}", str(i), True) for i in (1, 2, 3)]
    src.add(make_object("pod4"))
    assert wait_for(lambda: len(late.events) == 4 and len(first.events) == 4)
    synth = [e for e in trace.drain() if e.kind == "handler.add" and e.fields.get("synthetic")]
    assert len(synth) == 3 and all(e.fields["listener"] == "late" for e in synth)


def test_add_handler_after_stop_raises(clock, start):
    # TestAddOnStoppedSharedInformer
    inf = SharedIndexInformer(source(1), clock=clock)
    run = start(inf)
    assert wait_for(inf.has_synced)
    run.close()
    assert inf.is_stopped()
    with pytest.raises(RuntimeError, match="stopped"):
        inf.add_event_handler(Recorder())


def test_transform_applied_and_settings_locked_after_start(clock, start):
    # TestSharedInformerTransformer
    src = source(2)
    inf = SharedIndexInformer(src, clock=clock)

    def upper(obj):
        obj = dict(obj)
        obj["metadata"] = dict(obj["metadata"], name=obj["metadata"]["name"].upper())
        return obj

    inf.set_transform(upper)
    rec = Recorder()
    inf.add_event_handler(rec)
    start(inf)
    assert wait_for(lambda: len(rec.events) == 2)
    assert sorted(inf.get_store().list_keys()) == ["default/POD1", "default/POD2"]
    with pytest.raises(RuntimeError):
        inf.set_transform(None)
    with pytest.raises(RuntimeError):
        inf.set_watch_error_handler(lambda r, e: None)


def test_watch_error_handler_sees_list_errors(clock, start):
    # TestSharedInformerErrorHandling
    src = source(1)
    src.fail_next(ApiError(403, "Forbidden", "pods is forbidden"), "list")
    errors = []
    inf = SharedIndexInformer(src, clock=clock)
    inf.set_watch_error_handler(lambda r, err: errors.append((r.name, err)))
    start(inf)
    assert wait_for(lambda: errors)
    assert errors[0][0] == "informer-reflector" and errors[0][1].status == 403
    assert not inf.has_synced()
    assert wait_for(clock.has_waiters)
    clock.step(2)
    assert wait_for(inf.has_synced)


def test_handler_exception_skips_item(clock, tracer, trace, start):
    src = source(2)
    inf = SharedIndexInformer(src, clock=clock, tracer=tracer)
    got = []

    def add(obj):
        if obj["metadata"]["name"] == "pod1":
            raise ValueError("bad handler")
        got.append(obj["metadata"]["name"])

    reg = inf.add_event_handler(ResourceEventHandlerFuncs(add=add), name="h")
    start(inf)
    assert wait_for(reg.has_synced)
    assert got == ["pod2"]
    err = [e.fields for e in trace.drain() if e.kind == "handler.error"]
    assert err == [{"listener": "h", "error": "ValueError: bad handler"}]


def test_funcs_add_with_initial_flag():
    seen = []
    h = ResourceEventHandlerFuncs(add=lambda obj, initial: seen.append(initial))
    h.on_add({}, True)
    h2 = ResourceEventHandlerFuncs(add=seen.append)
    h2.on_add("x", True)
    h2.on_update(1, 2)  # no update func: nothing
    assert seen == [True, "x"]


# --- atomic RealFIFO (client-go 1.36) -------------------------------------------


def test_atomic_replaced_all_deletions_first_then_updates(clock, tracer, trace, start):
    src = source(2)
    inf = SharedIndexInformer(src, clock=clock, tracer=tracer, fifo="real", atomic_events=True)
    rec = Recorder()
    inf.add_event_handler(rec)
    start(inf)
    assert wait_for(lambda: len(rec.events) == 2)
    src.expire_watches()
    assert wait_for(clock.has_waiters)
    src.delete("default/pod1")
    src.add(make_object("pod3"))
    src.compact()
    trace.drain()
    clock.step(2)
    assert wait_for(lambda: len(rec.events) == 5)
    # ReplacedAll: tombstone first, then pod2 (unchanged: a Sync-like update)
    # and pod3 in list order.
    assert rec.events[2] == ("delete", "default/pod1", True)
    assert set(rec.events[3:]) == {("update", "default/pod2", "2", "2"), ("add", "default/pod3", "4", False)}
    evs = [e for e in trace.drain() if e.kind.startswith("store.")]
    assert [e.fields["delta"] for e in evs] == ["Deleted", "Replaced", "Replaced"]
    assert evs[0].fields["tombstone"] is True


def test_atomic_empty_list_syncs_only_after_pop(clock, start):
    inf = SharedIndexInformer(FakeSource(), clock=clock, fifo="real", atomic_events=True)
    reg = inf.add_event_handler(Recorder())
    start(inf)
    assert wait_for(inf.has_synced)
    assert wait_for(reg.has_synced)


def test_atomic_bookmark_deltas_and_sync_all(clock, tracer, trace, start):
    src = source(2)
    inf = SharedIndexInformer(src, 1, clock=clock, tracer=tracer, fifo="real", atomic_events=True, use_watch_list=True)
    due, idle = Recorder(), Recorder()
    inf.add_event_handler(due, 1, name="due")
    inf.add_event_handler(idle, 0, name="idle")
    start(inf)
    assert wait_for(lambda: len(due.events) == 2 and len(idle.events) == 2)
    src._rv += 5
    src.bookmark()
    assert wait_for(lambda: inf.bookmark_resource_version == "7")
    assert len(due.events) == 2  # a bookmark notifies no handler
    due.clear()
    assert wait_for(clock.has_waiters)
    clock.step(1)
    assert wait_for(lambda: len(due.of("update")) == 2)  # SyncAll: update(obj, obj)
    assert wait_for(clock.has_waiters)
    assert len(idle.events) == 2
    assert any(e.kind == "informer.bookmark" for e in trace.drain())


def test_invalid_fifo_options():
    with pytest.raises(ValueError):
        SharedIndexInformer(FakeSource(), fifo="other")
    with pytest.raises(ValueError):
        SharedIndexInformer(FakeSource(), fifo="delta", atomic_events=True)


def test_informer_stops_cleanly_with_fake_clock():
    clock = FakeClock()
    inf = SharedIndexInformer(source(1), 1, clock=clock)
    inf.add_event_handler(Recorder(), 1)
    stop = threading.Event()
    t = threading.Thread(target=inf.run, args=(stop,), daemon=True)
    t.start()
    assert wait_for(inf.has_synced)
    stop.set()
    t.join(10)
    assert not t.is_alive()
