import threading

import pytest

from kubectl_informer.cache.shared_informer import ResourceEventHandlerFuncs
from kubectl_informer.cache.testing.fake_controller_source import FakeSource, make_object
from kubectl_informer.clock.testing import wait_for
from kubectl_informer.run.pipeline import PROFILES, Profile, new_informer, resolve_profile


def test_profiles_match_design_table():
    assert PROFILES["1.32"] == Profile("1.32", "delta", False, False)
    assert PROFILES["1.35"] == Profile("1.35", "real", True, False)
    assert PROFILES["1.36"] == Profile("1.36", "real", True, True)
    assert [p.fifo_label for p in PROFILES.values()] == ["DeltaFIFO", "RealFIFO", "RealFIFO (atomic)"]
    assert PROFILES["1.32"].initial_list_label == "paged LIST"
    assert PROFILES["1.36"].initial_list_label == "WatchList stream"


def test_resolve_default_and_versions():
    assert resolve_profile() == PROFILES["1.32"]
    assert resolve_profile(None) == PROFILES["1.32"]
    assert resolve_profile("v1.36.2") == PROFILES["1.36"]
    assert resolve_profile("1.29").fifo == "delta"
    assert resolve_profile("1.33") == Profile("1.33", "real", False, False)
    assert resolve_profile("1.40").atomic is True


def test_overrides():
    p = resolve_profile("1.36", fifo="delta")
    assert (p.fifo, p.atomic, p.watch_list) == ("delta", False, True)
    p = resolve_profile("1.32", fifo="real", watch_list=True)
    assert (p.fifo, p.atomic, p.watch_list) == ("real", False, True)
    assert resolve_profile("1.35", watch_list=False).watch_list is False
    assert resolve_profile("1.36", fifo="REAL").atomic is True


def test_no_known_objects_is_a_deltafifo_override():
    p = resolve_profile("1.32", known_objects=False)
    assert (p.fifo, p.known_objects, p.fifo_label) == ("delta", False, "DeltaFIFO (no known objects)")
    assert resolve_profile("1.36", fifo="delta", known_objects=False).fifo_label == "DeltaFIFO (no known objects)"
    # :fifo real keeps the RealFIFO's own known objects.
    assert p.with_fifo("real").known_objects is True
    assert resolve_profile("1.32", known_objects=True) == PROFILES["1.32"]
    with pytest.raises(ValueError, match="not with the RealFIFO"):
        resolve_profile("1.35", known_objects=False)


@pytest.mark.parametrize(
    "kwargs, msg",
    [
        (dict(client_go="2.0"), 'invalid --client-go "2.0"'),
        (dict(client_go="latest"), 'invalid --client-go "latest"'),
        (dict(fifo="ring"), 'invalid --fifo "ring"'),
    ],
)
def test_bad_input_one_line(kwargs, msg):
    with pytest.raises(ValueError) as ei:
        resolve_profile(**kwargs)
    assert str(ei.value).startswith(msg) and "\n" not in str(ei.value)


@pytest.mark.parametrize("name", ["1.32", "1.35", "1.36"])
def test_new_informer_runs_each_profile(clock, tracer, trace, name):
    src = FakeSource()
    src.add(make_object("a"))
    inf = new_informer(src, PROFILES[name], clock=clock, tracer=tracer, transform=lambda o: dict(o, transformed=True))
    seen = []
    inf.add_event_handler(ResourceEventHandlerFuncs(add=lambda o: seen.append(o)))
    stop = threading.Event()
    t = threading.Thread(target=inf.run, args=(stop,), daemon=True)
    t.start()
    try:
        assert wait_for(lambda: seen)
        assert seen[0]["transformed"] is True
        watches = [o for v, o in src.calls if v == "watch"]
        lists = [o for v, o in src.calls if v == "list"]
        if PROFILES[name].watch_list:
            assert watches[0].send_initial_events is True and lists == []
        else:
            assert lists[0].resource_version == "0"
        start_ev = next(e for e in trace.drain() if e.kind == "informer.start")
        assert start_ev.fields["fifo"] == PROFILES[name].fifo_label
        assert start_ev.fields["watch_list"] == PROFILES[name].watch_list
    finally:
        stop.set()
        t.join(10)
