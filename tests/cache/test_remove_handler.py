"""``remove_event_handler``: client-go's RemoveEventHandler, with the cases of
its shared_informer_test.go (TestRemoveWhileActive,
TestSharedInformerRemoveHandler, TestSharedInformerRemoveForeignHandler,
TestSharedInformerMultipleRegistration, TestRemovingRemovedSharedInformer,
TestRemoveOnStoppedSharedInformer)."""

from __future__ import annotations

import pytest

from kubectl_informer.cache.shared_informer import SharedIndexInformer
from kubectl_informer.cache.testing.fake_controller_source import make_object
from kubectl_informer.clock.testing import FakeClock, wait_for
from tests.cache.running import Running
from tests.cache.test_shared_informer import Recorder, source


@pytest.fixture
def clock():
    return FakeClock()


def test_remove_while_active_stops_its_notifications_and_not_the_others(clock):
    # TestRemoveWhileActive
    src = source(1)
    inf = SharedIndexInformer(src, clock=clock)
    removed, kept = Recorder(), Recorder()
    reg = inf.add_event_handler(removed)
    inf.add_event_handler(kept)
    run = Running(inf)
    try:
        assert wait_for(lambda: len(removed.events) == 1 and len(kept.events) == 1)
        inf.remove_event_handler(reg)
        assert not inf.is_registered(reg)
        src.add(make_object("pod2"))
        assert wait_for(lambda: len(kept.events) == 2)
        assert wait_for(lambda: inf.last_sync_resource_version() == "2")
        assert [e[1] for e in removed.events] == ["default/pod1"]
    finally:
        run.close()
    # Its listener thread ends with the removal (told to, as client-go closes
    # the listener's channel; it ends when next scheduled, under load later).
    assert wait_for(lambda: not reg._thread.is_alive(), timeout=30)


def test_remove_each_handler_before_start(clock):
    # TestSharedInformerRemoveHandler
    inf = SharedIndexInformer(source(1), clock=clock)
    h1, h2 = inf.add_event_handler(Recorder()), inf.add_event_handler(Recorder())
    assert inf.event_handler_count() == 2
    inf.remove_event_handler(h2)
    assert inf.event_handler_count() == 1 and inf.is_registered(h1) and not inf.is_registered(h2)
    inf.remove_event_handler(h1)
    assert inf.event_handler_count() == 0


def test_removing_a_foreign_registration_is_a_no_op(clock):
    # TestSharedInformerRemoveForeignHandler: no error, nothing removed anywhere
    inf, other = SharedIndexInformer(source(1), clock=clock), SharedIndexInformer(source(1), clock=clock)
    h1, h2 = inf.add_event_handler(Recorder()), inf.add_event_handler(Recorder())
    other.remove_event_handler(h1)
    other.remove_event_handler(h2)
    assert inf.event_handler_count() == 2 and other.event_handler_count() == 0
    assert inf.is_registered(h1) and inf.is_registered(h2)
    assert not other.is_registered(h1)


def test_one_handler_registered_twice_is_two_registrations(clock):
    # TestSharedInformerMultipleRegistration
    inf = SharedIndexInformer(source(1), clock=clock)
    handler = Recorder()
    reg1, reg2 = inf.add_event_handler(handler), inf.add_event_handler(handler)
    assert reg1 is not reg2 and inf.event_handler_count() == 2
    inf.remove_event_handler(reg1)
    assert not inf.is_registered(reg1) and inf.is_registered(reg2) and inf.event_handler_count() == 1
    inf.remove_event_handler(reg2)
    assert inf.event_handler_count() == 0


def test_removing_twice_and_after_stop_raise_nothing(clock):
    # TestRemovingRemovedSharedInformer, TestRemoveOnStoppedSharedInformer
    inf = SharedIndexInformer(source(1), clock=clock)
    reg, reg2 = inf.add_event_handler(Recorder()), inf.add_event_handler(Recorder())
    inf.remove_event_handler(reg)
    inf.remove_event_handler(reg)
    assert not inf.is_registered(reg)
    run = Running(inf)
    assert wait_for(inf.has_synced)
    run.close()
    assert inf.is_stopped()
    inf.remove_event_handler(reg2)
    assert not inf.is_registered(reg2)


def test_what_is_not_a_registration_is_refused(clock):
    # client-go: "invalid key type"
    inf = SharedIndexInformer(source(1), clock=clock)
    with pytest.raises(TypeError, match="registration"):
        inf.remove_event_handler(Recorder())
