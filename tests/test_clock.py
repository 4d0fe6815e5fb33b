import threading

from kubectl_informer.clock import RealClock
from kubectl_informer.clock.testing import FakeClock, wait_for


def test_fake_clock_moves_only_when_stepped():
    c = FakeClock(start=5.0)
    assert c.now() == 5.0
    c.step(1.5)
    assert c.now() == 6.5
    c.set_time(100.0)
    assert c.since(90.0) == 10.0


def test_sleep_wakes_when_time_comes():
    c = FakeClock()
    woke = threading.Event()

    def sleeper():
        c.sleep(3.0)
        woke.set()

    threading.Thread(target=sleeper, daemon=True).start()
    assert wait_for(c.has_waiters)
    c.step(2.999)
    assert not woke.wait(0.02)
    c.step(0.001)
    assert woke.wait(2.0)
    assert not c.has_waiters()


def test_wait_on_returns_on_deadline_and_on_notify():
    c = FakeClock()
    cond = threading.Condition()
    returned = []

    def waiter():
        with cond:
            c.wait_on(cond, 10.0)
        returned.append(c.now())

    t = threading.Thread(target=waiter, daemon=True)
    t.start()
    assert wait_for(c.has_waiters)
    assert c.next_deadline() == 10.0
    c.step(10.0)
    t.join(2.0)
    assert returned == [10.0]

    # A notify wakes the waiter before its deadline, and unregisters it.
    t = threading.Thread(target=waiter, daemon=True)
    t.start()
    assert wait_for(c.has_waiters)
    with cond:
        cond.notify_all()
    t.join(2.0)
    assert returned == [10.0, 10.0]
    assert wait_for(lambda: not c.has_waiters())


def test_wait_event_true_when_set_false_on_timeout():
    c = FakeClock()
    ev = threading.Event()
    results = []
    t = threading.Thread(target=lambda: results.append(c.wait_event(ev, 5.0)), daemon=True)
    t.start()
    assert wait_for(c.has_waiters)
    c.step(5.0)
    t.join(2.0)
    assert results == [False]

    t = threading.Thread(target=lambda: results.append(c.wait_event(ev, 5.0)), daemon=True)
    t.start()
    assert wait_for(c.has_waiters)
    ev.set()
    t.join(2.0)
    assert results == [False, True]


def test_zero_timeout_does_not_block():
    c = FakeClock()
    assert c.wait_event(threading.Event(), 0) is False
    c.sleep(0)
    assert not c.has_waiters()


def test_real_clock_is_monotonic():
    c = RealClock()
    a = c.now()
    assert c.now() >= a
    assert c.wait_event(threading.Event(), 0.0) is False
