"""Pane states fed recorded traces: what each pane will draw from."""

from kubectl_informer.core.trace import TraceEvent
from kubectl_informer.panes.cache import CLUSTER, CacheState
from kubectl_informer.panes.deltas import DeltasState
from kubectl_informer.panes.fifo import BATCH_KEY, FifoState
from kubectl_informer.panes.header import HeaderState
from kubectl_informer.panes.inspector import InspectorState, stage_of

from .helpers import TraceMaker, demo_trace, life_of_pod


def test_deltas_state_keeps_store_events_in_order_with_fields():
    st = DeltasState()
    st.feed_all(demo_trace().events)
    assert [r.delta for r in st.rows] == ["Replaced"] * 5 + ["Updated", "Updated", "Deleted"]
    upd = st.rows[5]
    assert (upd.key, upd.rv, upd.old_rv, upd.summary) == ("default/web-1", "101", "90", "Running")
    assert list(upd.diff) == ["status.phase Pending→Running"]
    assert st.rows[0].initial and not upd.initial
    assert st.counts["Replaced"] == 5 and st.total == 8


def test_deltas_state_feed_and_feed_all_agree():
    a, b = DeltasState(), DeltasState()
    events = demo_trace().events
    a.feed_all(events)
    for ev in events:
        b.feed(ev)
    assert [(r.seq, r.delta) for r in a.rows] == [(r.seq, r.delta) for r in b.rows]
    assert a.counts == b.counts


def test_fifo_state_tracks_pending_deltas_per_key_and_counters():
    st = FifoState()
    st.feed_all(demo_trace().events)
    # web-3: Updated, then two deletions deduped to one (the second is
    # reported as the dedup, as the engine does); never popped.
    assert dict(st.queued) == {"default/web-3": ["Updated", "Deleted"]}
    assert (st.queues, st.coalesces, st.dedups, st.skips, st.pops) == (8, 2, 1, 1, 7)
    kinds = [k for _, k, _, _ in st.recent]
    assert kinds == ["append", "append", "dedup", "skip"]
    assert st.recent[-1][2] == "default/ghost" and "unknown_delete" in st.recent[-1][3]


def test_fifo_state_realfifo_pops_one_entry_at_a_time():
    # RealFIFO queues every delta on its own: a key can hold two entries and a
    # pop removes only the oldest one.
    e = TraceMaker()
    e("fifo.queue", "ns/a", type="Added", depth=1)
    e("fifo.queue", "ns/a", type="Updated", depth=2)
    e("fifo.queue", None, type="ReplacedAll", depth=3)
    st = FifoState()
    st.feed_all(e.events)
    assert st.queued["ns/a"] == ["Added", "Updated"]
    assert st.queued[BATCH_KEY] == ["ReplacedAll"]
    st.feed(
        TraceEvent.checked(
            10, 200.0, "fifo.pop", "ns/a", types=["Added"], is_in_initial_list=False, waited=None, depth=1
        )
    )
    assert st.queued["ns/a"] == ["Updated"]
    st.feed(
        TraceEvent.checked(
            11, 200.1, "fifo.pop", "ns/a", types=["Updated"], is_in_initial_list=False, waited=None, depth=1
        )
    )
    assert "ns/a" not in st.queued


def test_cache_state_counts_objects_per_namespace():
    st = CacheState()
    st.feed_all(demo_trace().events)
    assert st.count == 4  # five listed, one deleted
    assert dict(st.per_ns) == {"default": 3, "kube-system": 1}
    assert st.ops["add"] == 5 and st.ops["update"] == 2 and st.ops["delete"] == 1
    assert st.synced_items == 5
    e = TraceMaker()
    e("store.add", "node-1", resource_version="1", delta="Added")
    e("store.update", "default/new", resource_version="2", delta="Replaced")  # replace of an unseen key adds it
    e("store.delete", "default/never-seen", resource_version="3", delta="Deleted")
    st.feed_all(e.events)
    assert st.per_ns[CLUSTER] == 1 and st.per_ns["default"] == 4 and st.count == 6


def test_header_state_follows_sync_and_watch_health():
    st = HeaderState()
    e = demo_trace()
    st.feed_all(e.events)
    assert st.fifo == "DeltaFIFO" and st.watch_list is False
    assert st.synced and st.synced_items == 5
    assert st.watching_since is not None and st.rv == "103"  # the last watch event's
    assert st.last_event == e.events[-1].time  # the bookmark
    assert st.relists == 0
    more = TraceMaker(start=e.t)
    more("watch.end", error="410 Gone: too old resource version", expired=True)
    more("relist", reason="expired")
    st.feed_all(more.events)
    assert st.watching_since is None and "410" in st.watch_ended
    assert st.relists == 1 and st.last_relist == "expired"


def test_inspector_state_keeps_a_keys_whole_life_in_order():
    e = TraceMaker()
    life_of_pod(e, "default/web-1", 7)
    life_of_pod(e, "default/web-2", 8)
    st = InspectorState()
    st.feed_all(e.events)
    kinds = [ev.kind for ev in st.life("default/web-1")]
    assert kinds == [
        "watch.event",
        "fifo.queue",
        "fifo.pop",
        "store.add",
        "handler.add",
        "queue.add",
        "queue.get",
        "queue.done",
    ]
    assert [stage_of(k)[0] for k in kinds[:5]] == ["watch", "fifo", "pop", "store", "handler"]
    assert st.find("web-2") == "default/web-2"
    assert st.find("default/web-1") == "default/web-1"
    assert st.find("nope") is None
