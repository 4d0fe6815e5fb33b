"""A stretch taken in as a summary (the UI behind: panes/feed.py) leaves
every pane's figures as feeding it event by event does.

Hypothesis draws what a small cluster and its controller do (adds,
updates, deletes through a DeltaFIFO, handler calls, a workqueue, relists,
resyncs); the trace that results is fed to each pane's state twice: once
event by event, once with a stretch in the middle as one summary. What the
panes show as figures (counts, depths, RVs, relists, cached objects, the
queue's items) must be the same; only rows and per-key stories may be
missing for the stretch.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kubectl_informer.core.run_info import RunInfo
from kubectl_informer.core.trace import TraceBuffer, TraceEvent
from kubectl_informer.core.trace_kinds import KINDS
from kubectl_informer.panes.cache import CacheState
from kubectl_informer.panes.deltas import DeltasState
from kubectl_informer.panes.explain_state import ExplainState
from kubectl_informer.panes.feed import FeedLoop, feeder, summariser
from kubectl_informer.panes.fifo import FifoState
from kubectl_informer.panes.handlers import HandlersState
from kubectl_informer.panes.header import HeaderState
from kubectl_informer.panes.informers import InformersState
from kubectl_informer.panes.inspector import InspectorState
from kubectl_informer.panes.queue import QueueState
from kubectl_informer.panes.resync import ResyncState
from kubectl_informer.panes.rv import RVState
from kubectl_informer.panes.state import Stretch

KEYS = [f"ns-{i % 2}/pod-{i}" for i in range(5)]
OPS = ("add", "update", "delete", "pop", "work", "done", "relist", "resync", "bookmark", "sync")


class Cluster:
    """Emits the trace a run would for a list of operations, keeping the
    DeltaFIFO and the workqueue consistent (their events say what client-go
    did: outcomes, depths, popped types)."""

    def __init__(self, informer: str | None = None, prefix: str = "") -> None:
        self.informer, self.prefix = informer, prefix  # several informers: whose events, on which keys
        self.events: list[TraceEvent] = []
        self.rv = 100
        self.cached: set[str] = set()
        self.fifo: dict[str, list[str]] = {}
        self.dirty: set[str] = set()
        self.queue: list[str] = []
        self.processing: set[str] = set()

    def emit(self, kind: str, key: str | None = None, **fields) -> None:
        if self.informer and "informer" in KINDS[kind].fields:
            fields["informer"] = self.informer
        if key is not None:
            key = self.prefix + key
        n = len(self.events) + 1
        self.events.append(TraceEvent.build(n, 1000.0 + n * 0.01, kind, key, **fields))

    def run(self, ops) -> list[TraceEvent]:
        self.emit("informer.start", None, fifo="DeltaFIFO", watch_list=False, resync_check_period=1.0)
        self.emit("handler.register", None, listener="handler-1", requested=1.0, effective=1.0, check_period=1.0)
        self.emit("list.start", None, resource_version="0")
        self.emit("list.done", None, resource_version=str(self.rv), items=0, duration=0.1)
        self.emit("informer.synced", None, items=0, duration=0.1)
        self.emit("watch.start", None, resource_version=str(self.rv))
        for op, k in ops:
            getattr(self, "_" + op)(self.prefix + KEYS[k])
        return self.events

    def _delta(self, key: str, typ: str) -> None:
        pending = self.fifo.setdefault(key, [])
        pending.append(typ)
        kind = "fifo.queue" if len(pending) == 1 else "fifo.coalesce"
        self.emit(kind, key, type=typ, depth=len(self.fifo), pending=len(pending))

    def _watch_event(self, key: str, typ: str, delta: str) -> None:
        self.rv += 1
        self.emit("watch.event", key, type=typ, resource_version=str(self.rv))
        self._delta(key, delta)

    def _add(self, key: str) -> None:
        self._watch_event(key, "ADDED", "Added")

    def _update(self, key: str) -> None:
        self._watch_event(key, "MODIFIED", "Updated")

    def _delete(self, key: str) -> None:
        self._watch_event(key, "DELETED", "Deleted")

    def _sync(self, key: str) -> None:
        if key in self.cached:
            self._delta(key, "Sync")

    def _pop(self, key: str) -> None:
        types = self.fifo.pop(key, None)
        if not types:
            return
        self.emit("fifo.pop", key, types=types, depth=len(self.fifo))
        for typ in types:
            if typ == "Deleted":
                kind = "store.delete"
                self.cached.discard(key)
            elif key in self.cached:
                kind = "store.update"
            else:
                kind = "store.add"
                self.cached.add(key)
            self.emit(kind, key, resource_version=str(self.rv), delta=typ)
            handler = {"store.add": "handler.add", "store.update": "handler.update"}.get(kind, "handler.delete")
            self.emit(handler, key, listener="handler-1", is_sync=typ == "Sync")
            self._queue_add(key)

    def _queue_add(self, key: str) -> None:
        if key in self.dirty:
            outcome = "already_dirty"
        elif key in self.processing:
            outcome = "dirty_while_processing"
        else:
            outcome = "queued"
            self.queue.append(key)
        self.dirty.add(key)
        self.emit("queue.add", key, outcome=outcome, depth=len(self.queue))

    def _work(self, key: str) -> None:
        if key not in self.queue:
            return
        self.queue.remove(key)
        self.dirty.discard(key)
        self.processing.add(key)
        self.emit("queue.get", key, waited=0.01, depth=len(self.queue), worker=0)

    def _done(self, key: str) -> None:
        if key not in self.processing:
            return
        self.processing.discard(key)
        requeued = key in self.dirty
        if requeued:
            self.queue.append(key)
        self.emit("queue.done", key, worked=0.01, requeued=requeued, worker=0, outcome="ok")

    def _relist(self, key: str) -> None:
        self.emit("watch.end", None, reason="closed", resource_version=str(self.rv), expired=True)
        self.emit("relist", None, reason="expired")
        self.emit("list.start", None, resource_version="")
        self.emit("list.done", None, resource_version=str(self.rv), items=len(self.cached), duration=0.1)
        self.emit("watch.start", None, resource_version=str(self.rv))

    def _resync(self, key: str) -> None:
        self.emit("resync.tick", None, due=["handler-1"], check_period=1.0)

    def _bookmark(self, key: str) -> None:
        self.rv += 1
        self.emit("watch.bookmark", None, resource_version=str(self.rv))


def figures(name: str, state) -> dict:
    """What a pane shows as figures (not its rows)."""
    if name == "deltas":
        return {"total": state.total, "counts": dict(state.counts)}
    if name == "fifo":
        return {
            "depth": state.depth,
            "queued": dict(state.queued),
            "waiting": state.deltas_waiting,
            "counts": (state.queues, state.coalesces, state.pops, state.dedups, state.skips),
        }
    if name == "rv":
        return {
            "rv": (state.synced_rv, state.watch_rv, state.list_rv),
            "counts": dict(state.counts),
            "relists": (dict(state.relist_reasons), state.last_relist),
            "open": state.watch_open,
            "listing": state.listing,
        }
    if name == "cache":
        return {
            "keys": dict(state.keys),
            "per_ns": dict(state.per_ns),
            "ops": dict(state.ops),
            "deltas": dict(state.deltas),
            "count": state.count,
            "synced": state.synced_items,
        }
    if name == "queue":
        return {
            "counts": (
                state.adds,
                state.gets,
                state.depth,
                state.add_calls,
                state.worker_ok,
                state.worker_errors,
                state.gaps,
                state.requeued_on_done,
                state.retries,
            ),
            "queue": list(state.queue),
            "dirty": set(state.dirty),
            "processing": set(state.processing),
            "causes": (state.stories.caused, state.stories.mapped),
        }
    if name == "handlers":
        return {
            n: (ln.adds, ln.updates, ln.deletes, ln.syncs, ln.synthetic, ln.errors, ln.pending)
            for n, ln in state.lanes.items()
        }
    if name == "resync":
        return {
            "ticks": state.tick_count,
            "syncs": (state.syncs_queued, state.syncs_skipped),
            "listeners": {n: (ls.resyncs, ls.syncs) for n, ls in state.listeners.items()},
        }
    if name == "informers":
        return {n: repr(row) for n, row in state.rows.items()}
    if name == "header":
        return {
            "synced": state.synced,
            "watch": state.watch_events,
            "rv": state.rv,
            "relists": state.relists,
            "progress": (state.progress.applied, state.progress.items),
        }
    if name == "explain":
        f = state.facts
        return {
            "counts": (f.lists, f.watches, f.pops, f.appended, f.cache_count, f.consistent_lists),
            "relists": [r.seq for r in f.relists],
            "ticks": [(r.seq, r.extra) for r in f.ticks],
            # each key's workqueue story (adds, since when, worker, wait; in queue order), not its causes
            "queued": [(k, q[0], q[1]) for k, q in f._queued.items()],
            "processing": [(k, p[:4]) for k, p in f._processing.items()],
        }
    assert name == "inspector"
    return {}


def fresh() -> dict:
    states = {
        "deltas": DeltasState(),
        "fifo": FifoState(),
        "rv": RVState(),
        "cache": CacheState(),
        "queue": QueueState(),
        "handlers": HandlersState(),
        "resync": ResyncState(),
        "informers": InformersState(),
        "header": HeaderState(),
        "explain": ExplainState(),
        "inspector": InspectorState(),
    }
    for st_ in states.values():
        if hasattr(st_, "run_info"):
            st_.run_info(RunInfo(resource="pods"))
    return states


ops = st.lists(st.tuples(st.sampled_from(OPS), st.integers(0, len(KEYS) - 1)), min_size=1, max_size=120)


@settings(max_examples=150, deadline=None)
@given(ops=ops, cut=st.tuples(st.floats(0, 1), st.floats(0, 1)))
def test_a_stretch_summarised_leaves_every_panes_figures_as_feeding_it_event_by_event(ops, cut):
    events = Cluster().run(ops)
    i, j = sorted(int(c * len(events)) for c in cut)
    one_by_one, summarised = fresh(), fresh()
    for state in one_by_one.values():
        feed = feeder(state)
        for ev in events:
            feed([ev])
    for state in summarised.values():
        feeder(state)(events[:i])
        summariser(state)(Stretch(events[i:j]))
        feeder(state)(events[j:])
    for name in one_by_one:
        assert figures(name, summarised[name]) == figures(name, one_by_one[name]), name


def test_a_summary_keeps_no_row_and_no_history_for_its_stretch():
    events = Cluster().run([("add", 0), ("pop", 0), ("update", 0), ("pop", 0), ("work", 0), ("done", 0)])
    states = fresh()
    for state in states.values():
        summariser(state)(Stretch(events))
    assert states["deltas"].total == 2 and not states["deltas"].rows
    assert states["inspector"].life(KEYS[0]) == []
    assert states["cache"].count == 1 and states["queue"].gets == 1


@settings(max_examples=40, deadline=None)
@given(pods=ops, deployments=ops, cut=st.tuples(st.floats(0, 1), st.floats(0, 1)))
def test_with_several_informers_a_summary_routes_each_informers_events_to_its_own_panes(pods, deployments, cut):
    a = Cluster("pods", "").run(pods)
    b = Cluster("deployments.apps", "d-").run(deployments)
    merged = sorted(a + b, key=lambda ev: (ev.time, ev.kind))
    events = [TraceEvent(i + 1, ev.time, ev.kind, ev.key, ev.fields) for i, ev in enumerate(merged)]
    i, j = sorted(int(c * len(events)) for c in cut)
    info = RunInfo(resource="pods", informers=("pods", "deployments.apps"), queue_resource="pods", mode="queue")
    makers = {
        "deltas": DeltasState,
        "fifo": FifoState,
        "rv": RVState,
        "cache": CacheState,
        "queue": QueueState,
        "informers": InformersState,
    }
    loops = [FeedLoop(TraceBuffer(), makers, info=info) for _ in range(2)]
    loops[0].feed(events)
    loops[1].feed(events[:i])
    loops[1].feed(events[i:j], summarise=True)
    loops[1].feed(events[j:])
    full, summarised = loops
    for informer in info.informers:
        for name in makers:
            assert figures(name, summarised.sets[informer][name]) == figures(name, full.sets[informer][name]), (
                informer,
                name,
            )
        assert figures("header", summarised.headers[informer]) == figures("header", full.headers[informer])


STORY_OPS = [
    # added three times while queued; then got, added twice while a worker has it, done and requeued
    [
        ("add", 0),
        ("pop", 0),
        ("update", 0),
        ("pop", 0),
        ("update", 0),
        ("pop", 0),
        ("work", 0),
        ("update", 0),
        ("pop", 0),
        ("update", 0),
        ("pop", 0),
        ("done", 0),
        ("work", 0),
        ("done", 0),
    ],
    # two keys interleaved: the queue's order is the order of first adds
    [
        ("add", 1),
        ("add", 0),
        ("pop", 1),
        ("pop", 0),
        ("update", 1),
        ("pop", 1),
        ("work", 1),
        ("update", 0),
        ("pop", 0),
        ("done", 1),
        ("work", 0),
    ],
]


@pytest.mark.parametrize("ops", STORY_OPS)
def test_a_summary_keeps_each_keys_workqueue_story_as_feeding_it_event_by_event(ops):
    # Every stretch of the trace, summarised after the events before it: the
    # Explain panel's per-key stories right after it (adds counted, since
    # when, the worker, the wait; the queue's order) are those of the same
    # events fed one at a time.
    events = Cluster().run(ops)
    one_by_one = ExplainState()
    wants = [figures("explain", one_by_one)]
    for ev in events:
        one_by_one.feed_all([ev])
        wants.append(figures("explain", one_by_one))
    assert any(q[1] > 1 for w in wants for q in w["queued"])  # the cases the stories exist for
    assert any(p[1][0] > 0 for w in wants for p in w["processing"]) or ops is STORY_OPS[1]
    for j in range(len(events) + 1):
        for i in range(j + 1):
            summarised = ExplainState()
            summarised.feed_all(events[:i])
            summariser(summarised)(Stretch(events[i:j]))
            got = figures("explain", summarised)
            assert (got["queued"], got["processing"]) == (wants[j]["queued"], wants[j]["processing"]), (i, j)
