"""SharedInformerFactory: client-go's informers/factory.go semantics
(InformerFor builds one informer per type however often it is asked for,
the default and custom resync, Start runs each informer once,
WaitForCacheSync reports the started ones)."""

from __future__ import annotations

import threading

from kubectl_informer.cache.factory import SharedInformerFactory
from kubectl_informer.cache.testing.fake_controller_source import FakeSource, make_object
from kubectl_informer.clock.testing import wait_for
from kubectl_informer.core.profiles import resolve_profile
from kubectl_informer.core.trace import InformerTracer, TraceBuffer, Tracer, informer_of


def _source(*names):
    src = FakeSource()
    for n in names:
        src.add(make_object(n))
    return src


def test_one_informer_per_resource_however_many_times_it_is_asked_for():
    factory = SharedInformerFactory(resolve_profile("1.32"), 30.0)
    pods = factory.informer_for("pods", _source("a"))
    again = factory.informer_for("pods", _source("b"))  # the second lister-watcher is never used
    rs = factory.informer_for("replicasets.apps", _source())
    assert again is pods and rs is not pods
    assert list(factory.informers) == ["pods", "replicasets.apps"]


def test_every_informer_shares_the_default_resync_and_the_profile_unless_its_resource_has_its_own():
    profile = resolve_profile("1.36")
    factory = SharedInformerFactory(profile, 30.0, custom_resync={"pods": 5.0})
    pods, rs = factory.informer_for("pods", _source()), factory.informer_for("replicasets.apps", _source())
    assert (pods.default_event_handler_resync_period, rs.default_event_handler_resync_period) == (5.0, 30.0)
    assert pods.profile is profile and rs.profile is profile and rs.fifo_label == pods.fifo_label


def test_start_runs_each_informer_once_and_wait_for_cache_sync_reports_the_started():
    factory = SharedInformerFactory(resolve_profile("1.32"))
    stop = threading.Event()
    a = factory.informer_for("pods", _source("p1", "p2"))
    assert factory.start(stop) == ["pods"]
    b = factory.informer_for("configmaps", _source("c1"))
    assert factory.start(stop) == ["configmaps"] and factory.start(stop) == []  # started once
    try:
        assert factory.wait_for_cache_sync(stop, timeout=10) == {"pods": True, "configmaps": True}
        assert len(a.get_store().list_keys()) == 2 and len(b.get_store().list_keys()) == 1
    finally:
        stop.set()
        factory.shutdown()
    assert not any(t.is_alive() for t in factory._threads)


def test_wait_for_cache_sync_returns_when_stopped():
    factory = SharedInformerFactory(resolve_profile("1.32"))
    factory.informer_for("pods", _source())  # never started: not waited for
    stop = threading.Event()
    stop.set()
    assert factory.wait_for_cache_sync(stop, timeout=5) == {}


def test_several_informers_trace_which_they_are_one_alone_as_before():
    tracer, buf = Tracer(), TraceBuffer()
    tracer.subscribe(buf)
    alone = SharedInformerFactory(resolve_profile("1.32"), tracer=tracer)
    assert alone.informer_for("pods", _source()).tracer is tracer
    several = SharedInformerFactory(resolve_profile("1.32"), tracer=tracer, several=True)
    pods = several.informer_for("pods", _source("a"))
    assert isinstance(pods.tracer, InformerTracer) and pods.name == "informer-pods"
    stop = threading.Event()
    several.start(stop)
    try:
        assert wait_for(pods.has_synced)
        assert wait_for(lambda: any(e.kind == "informer.synced" for e in buf._events))
    finally:
        stop.set()
        several.shutdown()
    events = buf.drain()
    assert events and all(informer_of(e) == "pods" for e in events)
    synced = next(e for e in events if e.kind == "informer.synced")
    assert synced.fields["items"] == 1 and synced.fields["resource_version"] == pods.last_sync_resource_version()
