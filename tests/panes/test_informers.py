"""Several informers, one workqueue: the Informers pane's state, the feed
loop's routing to the selected informer, and why a key was queued
(causes.py), without Textual."""

from __future__ import annotations

from kubectl_informer.core.run_info import RunInfo
from kubectl_informer.core.trace import TraceBuffer, TraceEvent, informer_of
from kubectl_informer.panes.causes import CauseStories, chain
from kubectl_informer.panes.deltas import DeltasState
from kubectl_informer.panes.feed import FeedLoop
from kubectl_informer.panes.informers import InformersState
from kubectl_informer.panes.inspector import InspectorState
from kubectl_informer.panes.queue import QueueState

from .controller_trace import DEPLOY, INFO, PODS, RS, RS_LINK, rollout

STATES = {"informers": InformersState, "deltas": DeltasState, "queue": QueueState, "inspector": InspectorState}


def loop_on(events, info=INFO) -> FeedLoop:
    buf = TraceBuffer()
    buf.extend(events)
    loop = FeedLoop(buf, STATES, info=info)
    loop.drain()
    return loop


def test_informer_of_names_the_informer_or_none():
    t = rollout()
    by_kind = {e.kind: informer_of(e) for e in t.events}
    assert by_kind["store.delete"] == PODS
    assert by_kind["queue.add"] is None  # the workqueue is no informer's


def test_one_row_per_informer_in_run_order_with_its_pipeline():
    loop = loop_on(rollout(rs_updates=4).events)
    st = loop.states["informers"]
    assert st.names() == [DEPLOY, RS, PODS]
    pods = st.rows[PODS]
    assert pods.synced and pods.synced_items == 5 + 1 and pods.rv == "120"
    assert pods.cached == 5  # 6 listed, 1 deleted
    assert pods.pending == 3
    assert pods.drops == {"not_recreate": 1, "no_controller": 1}
    assert st.rows[RS].drops == {"uid_mismatch": 1} and st.rows[RS].rv == "113"
    assert st.rows[DEPLOY].rv == "100" and st.rows[DEPLOY].cached == 1
    assert st.all_synced()


def test_unsynced_informer_shows_unsynced():
    t = rollout()
    loop = loop_on([e for e in t.events if not (e.kind == "informer.synced" and informer_of(e) == RS)])
    st = loop.states["informers"]
    assert not st.rows[RS].synced and st.rows[PODS].synced
    assert not st.all_synced()


def test_panes_follow_the_selected_informer():
    loop = loop_on(rollout().events)
    assert loop.selected == DEPLOY  # the queue's resource first
    deltas_home = loop.states["deltas"]
    assert loop.select(PODS)
    deltas_pods = loop.states["deltas"]
    assert deltas_pods is not deltas_home
    inspector = loop.states["inspector"]
    assert "default/web-5887-0" in inspector.history and "default/web" not in inspector.history
    assert loop.select(DEPLOY)
    inspector = loop.states["inspector"]
    assert "default/web" in inspector.history and "default/web-5887-0" not in inspector.history
    # The shared states are one object whichever informer is selected.
    assert loop.sets[PODS]["queue"] is loop.sets[DEPLOY]["queue"]
    assert loop.sets[PODS]["informers"] is loop.sets[DEPLOY]["informers"]
    assert not loop.select("widgets.example.com")


def test_header_follows_the_selected_informer():
    loop = loop_on(rollout().events)
    assert loop.header.info.resource == DEPLOY and loop.header.rv == "100"
    loop.select(RS)
    assert loop.header.info.resource == RS and loop.header.rv == "114"  # synced at 101, then 5 updates


def test_selection_survives_a_replay_seek_back():
    loop = loop_on(rollout().events)
    told = []
    loop.on_select = lambda: told.append(loop.selected)
    loop.select(PODS)
    assert told == [PODS]
    loop.reset()
    assert loop.selected == PODS and "default/web-5887-0" not in loop.states["inspector"].history


def test_one_informer_run_is_routed_as_before():
    # A one-informer run's events name no informer.
    events = [
        TraceEvent(e.seq, e.time, e.kind, e.key, {k: v for k, v in e.fields.items() if k != "informer"})
        for e in rollout().events
        if e.kind != "owner.drop"
    ]
    info = RunInfo(resource=PODS, mode="queue")
    loop = loop_on(events, info=info)
    assert loop.sets == {} and loop.informers == ()
    assert loop.states["informers"].names() == [PODS]
    # Everything reaches the one set of states.
    hist = loop.states["inspector"].history
    assert "default/web" in hist and "default/web-5887-0" in hist


def test_queue_story_collapses_the_replica_set_storm_into_one_reconcile():
    loop = loop_on(rollout(rs_updates=6).events)
    q = loop.states["queue"]
    story = q.stories.story("default/web")
    assert story.reconciles == 2
    assert story.last.adds == 6  # six ReplicaSet updates, one reconcile
    assert story.last.kinds == {"ReplicaSet": 6}
    assert story.last.newest == (RS_LINK,) and story.last.via == {(RS_LINK,): "updateReplicaSet"}
    assert q.add_calls == 7 and q.adds == 2  # client-go's adds metric counts the first only
    assert q.drops == {"not_recreate": 1, "no_controller": 1, "uid_mismatch": 1}
    assert q.shows_causes()


def test_inspector_keeps_the_story_of_its_keys():
    loop = loop_on(rollout(rs_updates=3).events)
    story = loop.states["inspector"].stories.story("default/web")
    assert story.last.adds == 3 and story.reconciles == 2


def test_chain_reads_the_key_then_its_cause():
    assert chain("default/web", [RS_LINK]) == "default/web ← ReplicaSet default/web-5887 Updated"
    # a recording made before causes were one event: nearest link first
    assert chain("default/web", [RS_LINK, "Pod default/web-5887-x Deleted"]) == (
        "default/web ← ReplicaSet default/web-5887 Updated ← Pod default/web-5887-x Deleted"
    )


def test_stories_are_bounded_and_keep_the_newest_causes():
    s = CauseStories(max_keys=3)
    for i in range(10):
        s.add(f"k{i}", [f"Pod default/p{i} Updated"])
    assert [k for k, _ in s.newest_first()] == ["k9", "k8", "k7"]
    for i in range(10):
        s.add("k9", ["ReplicaSet default/r Updated", f"Pod default/p{i} Deleted"])
    story = s.story("k9")
    assert story.pending.adds == 11 and len(story.pending.causes) == 3
    assert story.newest == ("ReplicaSet default/r Updated", "Pod default/p9 Deleted")


def test_unknown_informers_are_bounded():
    t = rollout()
    for i in range(100):
        t.ev("relist", informer=f"x{i}.example.com", reason="error")
    loop = loop_on(t.events)
    assert len(loop.states["informers"].rows) == 32
    assert set(loop.sets) == {DEPLOY, RS, PODS}  # their events went to the home set


def test_a_restart_to_one_resource_feeds_one_set_and_a_profile_change_keeps_the_sets():
    t = rollout()
    t.ev(
        "run.restart",
        resource=DEPLOY,
        namespace="default",
        client_go="1.36",
        fifo="RealFIFO",
        watch_list=True,
        restarts=1,
        took=0.1,
        informers=[DEPLOY, RS, PODS],
    )
    loop = loop_on(t.events)
    loop.select(PODS)
    loop.drain()
    assert loop.informers == (DEPLOY, RS, PODS) and loop.selected == PODS  # the profile changed, not the informers
    buf_events = [
        TraceEvent.build(
            1000,
            200.0,
            "run.restart",
            None,
            resource="services",
            namespace="default",
            client_go="1.36",
            fifo="RealFIFO",
            restarts=2,
            took=0.1,
        ),
        TraceEvent.build(1001, 200.1, "store.add", "default/svc", delta="Added", resource_version="9"),
    ]
    loop.buffer.extend(buf_events)
    loop.drain()
    assert loop.informers == () and loop.sets == {}
    assert "default/svc" in loop.states["inspector"].history
    assert loop.header.info.resource == "services"
