"""Which text explains a selection, with which numbers: fed hand-written traces."""

from __future__ import annotations

from kubectl_informer.panes.explain import Facts, explain, render, subject_for
from tests.tui.helpers import TraceMaker


def facts_of(e: TraceMaker, mode: str = "watch") -> Facts:
    f = Facts()
    f.mode = mode
    for ev in e.events:
        f.feed(ev)
    return f


def texts(subject, facts) -> dict[str, str]:
    return {tid: render(tid, v, strict=True) for tid, v in explain(subject, facts)}


def started(e: TraceMaker, check: float = 0.0) -> None:
    e("handler.register", listener="handler-1", requested=check, effective=check, check_period=check, reason=None)
    e("informer.start", fifo="DeltaFIFO", watch_list=False, resync_check_period=check)
    e("list.start", resource_version="0", watch_list=False)
    e("list.done", resource_version="100", items=1, duration=0.02, watch_list=False)


def test_a_late_handlers_resync_is_raised_to_the_check_period():
    e = TraceMaker()
    started(e, check=4.0)
    e(
        "handler.register",
        listener="late",
        requested=3.0,
        effective=4.0,
        check_period=4.0,
        reason="raised to the resync check period: the informer has already started",
    )
    got = texts(subject_for("resync", facts_of(e)), facts_of(e))
    assert got["resync.raised"].startswith(
        "resync asked 3s, informer check period 4s because the informer started with 4s: a late handler's period "
        "is raised to the check period."
    )


def test_a_handler_registered_before_the_start_is_not_raised():
    e = TraceMaker()
    e("handler.register", listener="early", requested=3.0, effective=3.0, check_period=3.0, reason=None)
    started(e, check=3.0)
    assert "resync.raised" not in texts(subject_for("resync", facts_of(e)), facts_of(e))


def test_a_resync_tick_counts_its_syncs_and_no_api_call():
    e = TraceMaker()
    started(e, check=4.0)
    e("fifo.pop", "default/web", types=["Replaced"], is_in_initial_list=True, waited=0.0, depth=0)
    e("store.add", "default/web", resource_version="7", delta="Replaced", summary="Running", is_in_initial_list=True)
    e("resync.tick", due=["handler-1"], check_period=4.0)
    e("fifo.queue", "default/web", type="Sync", depth=1, pending=1)
    e("fifo.pop", "default/web", types=["Sync"], is_in_initial_list=False, waited=0.0, depth=0)
    e(
        "store.update",
        "default/web",
        resource_version="7",
        old_resource_version="7",
        delta="Sync",
        summary="",
        is_in_initial_list=False,
        diff=[],
    )
    e("handler.update", "default/web", listener="handler-1", is_sync=True, buffered=0)
    f = facts_of(e)
    tick = texts(subject_for("resync", f), f)["resync.tick"]
    assert tick.startswith(
        "Resync check every 4s: handler-1 due. 0 API calls: a resync replays the indexer "
        "(still 1 LISTs in this run): the FIFO queued 1 Sync deltas from 1 cached objects"
    )
    seq = e.events[-2].seq
    sync = texts(subject_for("deltas", f, key="default/web", seq=seq), f)["delta.sync"]
    assert sync.startswith("Nothing changed: old.RV == new.RV == 7. This is a resync: every 4s")
    assert "only to the due listeners (handler-1)" in sync


def test_a_tombstone_names_the_relist_that_found_the_object_gone():
    e = TraceMaker()
    started(e)
    e("watch.start", resource_version="100")
    e("watch.end", resource_version="100", expired=True, error="410 Expired: too old resource version")
    e("reflector.backoff", delay=0.9)
    e("relist", reason="expired")
    e("list.start", resource_version="100", watch_list=False)
    e("list.done", resource_version="200", items=5, duration=0.01, watch_list=False)
    e("fifo.pop", "default/gone", types=["Deleted"], is_in_initial_list=False, waited=0.0, depth=0)
    e(
        "store.delete",
        "default/gone",
        resource_version="90",
        delta="Deleted",
        summary="",
        tombstone=True,
        is_in_initial_list=False,
    )
    f = facts_of(e)
    got = texts(subject_for("deltas", f, key="default/gone", seq=e.events[-1].seq), f)
    assert got["delta.tombstone"].startswith(
        "This Deleted is a DeletedFinalStateUnknown: default/gone vanished from a relist (410 Expired, 5 objects at "
        "RV 200) while the watch was down"
    )
    marks = {tid for back in range(3) for tid, _ in explain(subject_for("rv", f, back=back), f)}
    assert marks == {"rv.relist_expired", "rv.backoff"}
    relist = texts(subject_for("rv", f, back=1), f)["rv.relist_expired"]
    assert "RV 100 is older than the events the API server still keeps" in relist


def test_adds_while_a_worker_holds_a_key_run_it_once_after_done():
    e = TraceMaker()
    k = "default/web"
    e("queue.add", k, outcome="queued", depth=1)
    e("queue.get", k, waited=0.01, depth=0)
    e("worker.start", k, worker=1)
    e("queue.add", k, outcome="dirty_while_processing", depth=1)
    e("queue.add", k, outcome="already_dirty", depth=1)
    e("queue.add", k, outcome="already_dirty", depth=1)
    e("worker.done", k, worker=1, outcome="ok", duration=0.2)
    e("queue.done", k, worked=0.2, requeued=True)
    f = facts_of(e, "queue")
    assert texts(subject_for("queue", f), f)["queue.dirty_while_processing"].startswith(
        "3 adds while w1 processed default/web: key marked dirty, run once after Done."
    )


def test_a_thousand_adds_while_queued_ran_the_worker_once():
    e = TraceMaker()
    k = "default/web"
    e("queue.add", "default/busy", outcome="queued", depth=1)
    e("queue.add", k, outcome="queued", depth=2)
    for _ in range(999):
        e("queue.add", k, outcome="already_dirty", depth=2)
    e("queue.get", k, waited=0.5, depth=1)
    f = facts_of(e, "queue")
    assert texts(subject_for("queue", f), f)["queue.dedup"].startswith(
        "1000 adds of default/web while it waited ran the worker once"
    )


def test_watch_mode_says_queue_runs_the_workqueue_and_queue_mode_waits():
    assert [t for t, _ in explain(subject_for("queue", Facts()), Facts())] == ["queue.watch_mode"]
    f = Facts()
    f.mode = "queue"
    assert explain(subject_for("queue", f), f) == []


def test_a_queue_that_fills_faster_than_it_drains_is_backing_up():
    e = TraceMaker(step=0.05)
    for i in range(40):
        e("queue.add", f"default/p{i}", outcome="queued", depth=i + 1)
        if i % 4 == 0:
            e("queue.get", f"default/p{i // 4}", waited=0.1, depth=i)
    f = facts_of(e, "queue")
    got = texts(subject_for("queue", f), f)
    assert got["queue.backing_up"].startswith("the workqueue is backing up: depth rose from")
    assert "because adds" in got["queue.backing_up"]


def test_a_popped_list_is_said_in_runs():
    from kubectl_informer.panes.explain.match import delta_runs

    assert delta_runs(["Updated"] * 20) == "Updated ×20"
    assert delta_runs(["Added", "Updated", "Updated", "Deleted"]) == "Added, Updated ×2, Deleted"
    assert delta_runs(["Sync"]) == "Sync"


def test_an_initial_add_popped_before_its_list_is_said_done_names_that_list():
    # The reflector says list.done once the FIFO holds the items; the informer's
    # thread may pop and add the first of them before that event is emitted.
    e = TraceMaker()
    e("handler.register", listener="handler-1", requested=0.0, effective=0.0, check_period=0.0, reason=None)
    e("informer.start", fifo="DeltaFIFO", watch_list=False, resync_check_period=0.0)
    e("list.start", resource_version="0", watch_list=False)
    e("fifo.pop", "default/web", types=["Replaced"], is_in_initial_list=True, waited=0.0, depth=0)
    e("store.add", "default/web", resource_version="7", delta="Replaced", summary="Running", is_in_initial_list=True)
    seq = e.events[-1].seq
    e("list.done", resource_version="100", items=3, duration=0.02, watch_list=False)
    f = facts_of(e)
    said = texts(subject_for("deltas", f, key="default/web", seq=seq), f)["delta.initial_list"]
    assert "3" in said and "paged LIST" in said, said


def test_the_backoff_text_says_when_the_runs_client_go_starts_it_over():
    e = TraceMaker()
    started(e)
    e("reflector.backoff", delay=1.2, error="connection refused")
    f = facts_of(e)
    words = {}
    for profile in ("1.32", "1.35", "1.36"):
        f.profile = profile
        words[profile] = texts(subject_for("rv", f, back=0), f)["rv.backoff"]
    assert "starts over after 2 minutes without one (wait.NewExponentialBackoffManager)" in words["1.32"]
    assert words["1.35"] == words["1.32"]
    assert (
        "starts over 2 minutes after it last started over, failures or not (client-go 1.36's Backoff.DelayWithReset)"
    ) in words["1.36"]


def test_explain_state_takes_the_runs_client_go():
    from kubectl_informer.core.run_info import RunInfo
    from kubectl_informer.panes.explain_state import ExplainState

    st = ExplainState()
    st.run_info(RunInfo(profile="1.36"))
    assert st.facts.profile == "1.36"


def test_a_deltafifo_without_known_objects_is_explained_on_the_fifo_and_on_a_relist():
    e = TraceMaker()
    started(e)
    f = facts_of(e)
    assert "fifo.no_known_objects" not in texts(subject_for("fifo", f), f)
    e(
        "informer.start",
        fifo="DeltaFIFO (no known objects)",
        watch_list=False,
        initial_list="paged LIST",
        resync_check_period=0.0,
    )
    e("fifo.skip", "default/gone", type="Deleted", reason="unknown_delete")
    e("watch.start", resource_version="100")
    e("watch.end", resource_version="100", expired=True, error="410 Expired: too old resource version")
    e("relist", reason="expired")
    f = facts_of(e)
    said = texts(subject_for("fifo", f), f)["fifo.no_known_objects"]
    assert said.startswith("This run's DeltaFIFO has no known objects (--no-fifo-known-objects)")
    assert "A relist (1 so far)" in said and "dropped as unknown (1 so far)" in said
    on_relist = {tid for tid, _ in explain(subject_for("rv", f, back=0), f)}
    assert on_relist == {"rv.relist_expired", "fifo.no_known_objects"}
