from kubectl_informer.clock.testing import FakeClock
from kubectl_informer.core.trace import TraceBuffer, TraceEvent, Tracer, read_trace


def test_emit_without_subscriber_records_nothing_and_is_disabled():
    t = Tracer(FakeClock())
    assert t.enabled is False
    t.emit("fifo.queue", "default/a", type="Added", depth=1, pending=1)  # no sequence number taken
    buf = TraceBuffer()
    t.subscribe(buf)
    t.emit("fifo.pop", "default/a", types=["Added"], is_in_initial_list=False, waited=None, depth=0)
    [ev] = buf.drain()
    assert ev.seq == 1


def test_events_carry_seq_clock_time_kind_key_fields():
    clock = FakeClock(start=10.0)
    t = Tracer(clock)
    buf = TraceBuffer()
    t.subscribe(buf)
    t.emit("watch.start", resource_version="5")
    clock.step(0.25)
    t.emit("fifo.queue", "ns/a", type="Added", depth=1, pending=1)
    a, b = buf.drain()
    assert (a.seq, a.time, a.kind, a.key, a.fields) == (1, 10.0, "watch.start", None, {"resource_version": "5"})
    assert (b.seq, b.time, b.kind, b.key) == (2, 10.25, "fifo.queue", "ns/a")


def test_unsubscribe_disables_when_last_subscriber_leaves():
    t = Tracer(FakeClock())
    seen = []
    unsub = t.subscribe(seen.append)
    t.emit("watch.start", resource_version="1")
    unsub()
    t.emit("watch.bookmark", resource_version="2")
    assert [e.kind for e in seen] == ["watch.start"]
    assert t.enabled is False


def test_json_round_trip_matches_design_shape():
    ev = TraceEvent.checked(
        1, 0.125, "fifo.pop", "default/web-1", types=["Sync"], is_in_initial_list=False, waited=None, depth=0
    )
    line = ev.to_json()
    assert line.startswith('{"seq":1,"time":0.125,"kind":"fifo.pop","key":"default/web-1","fields":')
    assert read_trace([line, "", line.encode()]) == [ev, ev]


def test_buffer_is_bounded_and_counts_drops():
    buf = TraceBuffer(maxlen=3)
    t = Tracer(FakeClock())
    t.subscribe(buf)
    for i in range(5):
        t.emit("worker.start", str(i), worker=0)
    assert buf.received == 5 and buf.dropped == 2
    assert [e.key for e in buf.drain(2)] == ["2", "3"]
    assert [e.key for e in buf.drain()] == ["4"]
    assert len(buf) == 0


def test_buffer_counts_what_it_received_alone_shared_and_after_leaving():
    t = Tracer(FakeClock())
    buf = TraceBuffer()
    unsub = t.subscribe(buf)  # alone: the tracer appends to its deque directly
    t.emit("watch.start", resource_version="1")
    seen = []
    unsub_other = t.subscribe(seen.append)  # shared: a fan-out calls it
    t.emit("watch.start", resource_version="2")
    unsub_other()
    t.emit("watch.start", resource_version="3")
    unsub()
    t.emit("watch.start", resource_version="4")  # gone: not received
    assert buf.received == 3 and len(seen) == 1 and buf.dropped == 0
    assert [e.fields["resource_version"] for e in buf.drain()] == ["1", "2", "3"]
