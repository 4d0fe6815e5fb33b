"""gc_pause: the cyclic GC is off while any holder decodes, and comes back as
the caller had it."""

import gc
import threading

from kubectl_informer.kube.decode import _GCPause


def test_gc_is_off_while_held_and_back_on_after_the_last_release():
    p = _GCPause()
    assert gc.isenabled()
    p.acquire()
    p.acquire()  # a second decoder, e.g. another thread's list
    assert not gc.isenabled() and p.depth == 2
    p.release()
    assert not gc.isenabled()  # the other holder still decodes
    p.release()
    assert gc.isenabled() and p.depth == 0


def test_a_caller_that_disabled_the_gc_keeps_it_disabled():
    p = _GCPause()
    gc.disable()
    try:
        p.acquire()
        p.release()
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_release_with_freeze_moves_what_was_built_out_of_collections():
    p = _GCPause()
    before = gc.get_freeze_count()
    p.acquire()
    kept = [{"metadata": {"name": str(i)}} for i in range(1000)]
    p.release(freeze=True)
    # Not unfrozen after: that would put back what tests/conftest.py froze
    # after collection into every later collection of the worker; ``kept``
    # is freed by its reference count as before.
    assert gc.get_freeze_count() > before and kept


def test_concurrent_holders_leave_the_gc_on():
    p = _GCPause()

    def hold():
        for _ in range(200):
            p.acquire()
            p.release()

    threads = [threading.Thread(target=hold) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert gc.isenabled() and p.depth == 0
