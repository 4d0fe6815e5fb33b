"""Names that churn (pods deleted, created again under new names) must not
grow what the UI holds: every history has a total across keys, deleted
keys go first, and old entries let their objects go. Counted, not measured:
entries and objects held after tens of thousands of keys came and went."""

from kubectl_informer.clock.testing import FakeClock
from kubectl_informer.core.trace import TraceBuffer, Tracer
from kubectl_informer.core.trace_kinds import STORE_ADD, STORE_DELETE, STORE_UPDATE
from kubectl_informer.panes.deltas import DeltasState
from kubectl_informer.panes.explain import Facts
from kubectl_informer.panes.explain.facts import PerKey
from kubectl_informer.panes.inspector import InspectorState
from kubectl_informer.panes.objects import ObjectHistory

from .test_objects import pod

# The histories here are built with bounds a tenth of the product's (the
# same classes, the same code at their bounds): churning past them takes a
# tenth of the events. The Inspector keeps 200 keys (the product 2,000),
# 1,600 events (16,384), 820 entries (8,192) and 100 objects (1,024); the
# Explain store 500 keys (5,000) and 820 records (8,192).
INSPECTOR_KEYS = 200


def inspector() -> InspectorState:
    st = InspectorState(max_keys=INSPECTOR_KEYS, max_events=1_600)
    st.objects = ObjectHistory(INSPECTOR_KEYS, max_entries=820, max_objects=100)
    return st


def facts_small() -> Facts:
    facts = Facts()
    facts.store = PerKey(max_keys=500, max_records=820)
    return facts


# Sized to the bounds, each key through a whole life (5 store events, 9 in
# all): twice the Inspector's keys, so its histories turn over and are
# checked past their bounds (9 events a key pass its events' bound, 5
# entries a key its entries'); the Explain store's 820 records hold at most
# 164 such keys (its 500-key bound cannot be reached first).
KEYS = 2 * INSPECTOR_KEYS
CHUNK = KEYS // 4


def churn(tracer, clock, first, n, updates=3, live=()):
    """``n`` pods from number ``first``: each added, updated, deleted, as the
    informer emits them (objects in-process); ``live`` keys get a resync
    between every pod's life (same object both sides)."""
    live_objs = {}
    for key in live:
        live_objs[key] = obj = pod(key.split("/")[1], 1)
        tracer.emit_derived(STORE_ADD, key, resource_version="1", delta="Added", is_in_initial_list=False, object=obj)
    for i in range(first, first + n):
        key = f"default/web-{i}"
        old = pod(f"web-{i}", 1)
        tracer.emit("watch.event", key, type="ADDED", resource_version="1")
        tracer.emit_derived(STORE_ADD, key, resource_version="1", delta="Added", is_in_initial_list=False, object=old)
        for rv in range(2, updates + 2):
            new = pod(f"web-{i}", rv, restarts=rv)
            tracer.emit_derived(
                STORE_UPDATE,
                key,
                resource_version=str(rv),
                delta="Updated",
                is_in_initial_list=False,
                old_resource_version=str(rv - 1),
                object=new,
                old=old,
            )
            tracer.emit("handler.update", key, listener="handler-1", is_sync=False, buffered=0)
            old = new
        tracer.emit_derived(
            STORE_DELETE,
            key,
            resource_version=str(updates + 2),
            delta="Deleted",
            is_in_initial_list=False,
            tombstone=False,
            object=old,
        )
        for key, obj in live_objs.items():
            rv = obj["metadata"]["resourceVersion"]
            tracer.emit_derived(
                STORE_UPDATE,
                key,
                resource_version=rv,
                delta="Sync",
                is_in_initial_list=False,
                old_resource_version=rv,
                object=obj,
                old=obj,
            )
        clock.step(0.01)


def traced():
    clock = FakeClock(start=1000.0)
    tracer, buf = Tracer(clock), TraceBuffer(maxlen=10_000_000)
    tracer.subscribe(buf)
    return tracer, buf, clock


def fed_in_chunks(feed_all, check) -> None:
    """KEYS pods churned through ``feed_all`` CHUNK at a time, ``check()``
    after each chunk."""
    tracer, buf, clock = traced()
    for start in range(0, KEYS, CHUNK):
        churn(tracer, clock, start, CHUNK)
        feed_all(buf.drain())
        check()


def test_inspector_totals_stay_bounded_as_names_churn():
    st = inspector()

    def check():
        hist, objs = st.history, st.objects
        assert len(hist) <= hist.max_keys and hist.items == hist.total_items() <= hist.max_items
        assert len(objs) <= objs.max_keys and objs.entries_held() <= objs.max_entries
        assert objs.objects_held() <= objs.max_objects
        assert len(objs._holding) <= objs.max_objects

    fed_in_chunks(st.feed_all, check)
    # Every bound was passed: keys, events and entries forgotten, objects let go.
    assert st.history.evicted > 0 and st.history.items > 0.9 * st.history.max_items
    assert st.objects.evicted > 0 and st.objects.objects_held() == st.objects.max_objects
    # The keys seen last are whole: every event and delta of the newest pod.
    last = f"default/web-{KEYS - 1}"
    kinds = [ev.kind for ev, _ in st.timeline(last)]
    assert kinds == ["watch.event", "store.add"] + ["store.update", "handler.update"] * 3 + ["store.delete"]
    assert st.objects.entries(last)[1].detail_lines()  # its first update's full diff, objects or not


def test_released_entries_keep_their_diff_and_events_drop_their_objects():
    tracer, buf, clock = traced()
    st = inspector()
    churn(tracer, clock, 0, INSPECTOR_KEYS // 2)  # within the keys and entries kept
    st.feed_all(buf.drain())
    objs = st.objects
    first = objs.entries("default/web-0")  # 500 store events ago, 5x the objects held: long let go
    assert [e.obj for e in first] == [None] * 5 and [e.old for e in first] == [None] * 5
    upd = first[1]
    assert upd.detail is not None and any("restartCount" in line for _, line in upd.detail)
    assert upd.summary()  # the row's short diff, kept as text
    for e in first:
        assert "object" not in e.event.raw_fields and "old" not in e.event.raw_fields
    for ev in st.life("default/web-0"):
        assert "object" not in ev.raw_fields and "old" not in ev.raw_fields
    newest = objs.entries(f"default/web-{INSPECTOR_KEYS // 2 - 1}")
    assert all(e.obj is not None for e in newest)  # recent keys: objects held, YAML available


def test_deleted_keys_go_before_live_ones():
    """A live key quiet since long before a flood of short-lived names keeps
    its history: the deleted names are forgotten first."""
    tracer, buf, clock = traced()
    st = inspector()
    facts = facts_small()
    tracer.emit("watch.event", "default/quiet", type="ADDED", resource_version="1")
    tracer.emit_derived(
        STORE_ADD,
        "default/quiet",
        resource_version="1",
        delta="Added",
        is_in_initial_list=False,
        object=pod("quiet", 1),
    )
    churn(tracer, clock, 0, 250)  # past the Inspector's 200 keys and Explain's 820 records
    events = buf.drain()
    st.feed_all(events)
    facts.feed_all(events)
    assert st.history.evicted > 0 and st.objects.evicted > 0
    assert [ev.kind for ev in st.life("default/quiet")] == ["watch.event", "store.add"]
    assert [e.event.kind for e in st.objects.entries("default/quiet")] == ["store.add"]
    assert facts.store_rec("default/quiet") is not None
    assert "default/web-0" not in st.history and facts.store_rec("default/web-0") is None


def test_live_keys_resynced_keep_their_objects_while_deleted_ones_let_go():
    tracer, buf, clock = traced()
    st = inspector()
    live = [f"default/live-{i}" for i in range(10)]
    churn(tracer, clock, 0, 150, live=live)  # 15 entries a pod: nearly 3x the 820 entries
    st.feed_all(buf.drain())
    objs = st.objects
    assert objs.objects_held() <= objs.max_objects
    for key in live:
        assert objs.latest(key) is not None  # y still shows a live key's object
        assert len(objs.entries(key)) == objs.per_key


def test_explain_facts_stay_bounded_and_hold_no_objects():
    facts = facts_small()

    def check():
        store = facts.store
        assert len(store) <= store.max_keys
        assert store.items == sum(len(r) for r in store._rings.values()) <= store.max_items

    fed_in_chunks(facts.feed_all, check)
    assert facts.store.items > 0.9 * facts.store.max_items  # the records' bound was reached
    for ring in facts.store._rings.values():
        for rec in ring:
            assert "object" not in rec.fields and "old" not in rec.fields
    last = facts.store_rec(f"default/web-{KEYS - 1}")
    assert last.kind == STORE_DELETE and last.fields["delta"] == "Deleted"
    assert len(facts.store.get(f"default/web-{KEYS - 1}")) == 5


def test_deltas_rows_let_old_objects_go_keeping_what_they_show():
    tracer, buf, clock = traced()
    deltas = DeltasState(maxlen=200, keep_objects=128)  # a tenth of the product's 2,000 and 1,280
    churn(tracer, clock, 0, 100)  # 500 rows: 2.5x the rows kept
    deltas.feed_all(buf.drain())
    assert len(deltas.rows) == deltas.rows.maxlen
    assert deltas.objects_held() == deltas.keep_objects < deltas.rows.maxlen
    old = [r for r in deltas.rows if "object" not in r.event.raw_fields]
    assert len(old) == deltas.rows.maxlen - deltas.keep_objects
    upd = next(r for r in old if r.delta == "Updated")
    assert upd.summary == "Running" and upd.labels == {"app": "web"}
    assert any("restartCount" in d for d in upd.diff) and upd.event.field("predicates") is not None


def test_the_app_derives_each_released_delta_once_however_many_panes_let_it_go(monkeypatch):
    """The Inspector lets an entry's objects go first and derives what the
    other panes show into the event; the Deltas row letting go later, and
    the Explain record, derive nothing more: no update's short diff is
    derived apart (the Inspector's full diff gives it), predicates once."""
    from kubectl_informer.core import trace_kinds

    from .helpers import TraceMaker, make_app, run

    derived = []
    for name in ("diff", "predicates"):
        fn = trace_kinds.STORE_UPDATE.derive[name]
        monkeypatch.setitem(
            trace_kinds.STORE_UPDATE.derive, name, lambda f, fn=fn, name=name: derived.append(name) or fn(f)
        )
    app = make_app(TraceMaker())
    tracer, buf, clock = traced()
    churn(tracer, clock, 0, 1000)
    events = buf.drain()

    async def check(pilot):
        app.buffer.extend(events)
        app.drain(max_events=len(events))  # in the live UI's chunks
        assert app.states["deltas"].objects_held() == app.states["deltas"].keep_objects
        assert app.states["inspector"].objects.objects_held() <= app.states["inspector"].objects.max_objects
        assert derived.count("diff") == 0
        released = sum(
            1
            for key in (f"default/web-{i}" for i in range(1000))
            for e in app.states["inspector"].objects.entries(key)
            if e.is_update and e.obj is None
        )
        assert derived.count("predicates") == released > 0

    run(check, app)
