"""The Server pane's explanations: which text for which record, with the
run's numbers, fed hand-written traces in the server.* kinds' shapes."""

from __future__ import annotations

from kubectl_informer.panes.explain import subject_for
from kubectl_informer.panes.explain.match import marks_for
from kubectl_informer.panes.explain_state import describe
from tests.tui.helpers import TraceMaker

from .test_match import facts_of, started, texts


def window(e: TraceMaker, oldest: str, newest: str, ours: str) -> None:
    e(
        "server.window",
        source="sim",
        resource="pods",
        oldest_rv=oldest,
        newest_rv=newest,
        capacity=8,
        events=8,
        turnover=2.5,
        initialisations=1,
        bookmarks_sent=0,
        watchers=[f"1 rv={ours} sent=3 ours"],
        ours_rv=ours,
    )


def test_the_newest_window_explains_the_window_and_our_lag():
    e = TraceMaker()
    started(e)
    window(e, "101", "108", "104")
    facts = facts_of(e)
    got = texts(subject_for("server", facts), facts)
    assert got["server.window"].startswith(
        "The API server's watch cache holds the most recent events of pods, 8 at most right now: RV 101 to 108, 8 "
        "held, 2.5 events/s entering. Every watch reads from its own place in it; ours is at RV 104: it is in the "
        "window."
    )
    assert "would fall out in" not in got["server.window"]  # no countdown from a window that resizes itself
    assert got["server.rv_behind"].startswith(
        "The API server's watch cache for pods is at RV 108; our informer's last "
        "RV is 4 revisions behind it. Events enter the window at 2.5/s. RVs are "
        "etcd revisions, one counter for every resource of the cluster"
    )
    assert "server.consistent_reads" not in got  # the list asked RV 0: not a consistent read


def test_a_410_is_explained_with_the_window_the_server_had_then():
    e = TraceMaker()
    started(e)
    window(e, "101", "108", "100")
    e("watch.end", resource_version="100", expired=True, error="410 Gone: too old resource version: 100 (101)")
    window(e, "103", "110", "")
    facts = facts_of(e)
    marks = marks_for("server", facts)
    assert [m.kind for m in marks] == ["watch.end", "server.window"]  # the newest figures last
    got = texts(subject_for("server", facts, back=1), facts)
    assert got["server.gone"].startswith(
        "Our watch needed the events after RV 100, but the API server's window for pods then held RV 101 to 108 "
        "(8 events at most): they were already evicted"
    )
    now = texts(subject_for("server", facts), facts)
    assert "no watch of ours is open now" in now["server.window"] and "server.rv_behind" not in now


def test_too_large_then_a_consistent_relist():
    e = TraceMaker()
    started(e)
    e("server.too_large", requested_rv="180", current_rv="120")
    e("relist", reason="too_large")
    e("list.start", resource_version="", watch_list=False)
    e("list.done", resource_version="121", items=1, duration=0.02, watch_list=False)
    window(e, "114", "121", "121")
    facts = facts_of(e)
    got = texts(subject_for("server", facts, back=1), facts)
    assert got["server.too_large"].startswith("We asked for RV 180, but the API server is at RV 120")
    now = texts(subject_for("server", facts), facts)
    assert "ours is at RV 121: it is in the window" in now["server.window"]
    assert 'This run listed with RV "" 1 time(s)' in now["server.consistent_reads"]


def test_a_reinit_and_the_metrics_view():
    e = TraceMaker()
    e("server.reinit", resource="pods", initialisations=2)
    e(
        "server.metrics",
        source="metrics",
        resource="pods",
        cache_rv="5000",
        rv_behind=1204,
        events_received_per_s=3.0,
        events_dispatched_per_s=6.0,
        consistent_reads_cache=40,
        consistent_reads_fallback=1,
        consistent_reads_failed=2,
        read_wait_p99_estimated=True,
        read_wait_bucket="0.025-0.05",
    )
    facts = facts_of(e)
    assert texts(subject_for("server", facts, back=1), facts)["server.reinit"].startswith(
        "The API server's watch cache for pods started over (2 initialisations so far)"
    )
    got = texts(subject_for("server", facts), facts)
    assert (
        "our informer's last RV is 1,204 revisions behind it. Events reach the cache at 3.0/s and are "
        "dispatched to watchers at 6.0/s." in got["server.rv_behind"]
    )
    assert (
        "served 40 from its cache; etcd answered 1 after the cache did not catch up, and 2 failed"
        in got["server.consistent_reads"]
    )
    assert describe(subject_for("server", facts)) == "the watch cache at RV 5000"


def test_nothing_from_the_server_yet_explains_nothing():
    e = TraceMaker()
    started(e)
    facts = facts_of(e)
    assert texts(subject_for("server", facts), facts) == {}
    assert describe(subject_for("server", facts)) == "the API server"
