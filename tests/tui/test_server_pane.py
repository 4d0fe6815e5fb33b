"""The Server pane: its state's figures are the server.* events' figures,
and it draws them (window, watchers, RV differences, refusal, nothing yet)
at any size; in a several-informer run each informer has its own "ours"."""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as hs

from kubectl_informer.core.trace import TraceEvent
from kubectl_informer.panes.server import ServerState, parse_watcher
from kubectl_informer.tui.server import ServerPane, render_server

from .pane_harness import OnePane, Trace, json_values, shown
from .test_any_size import assert_fits

RULE = 'nonResourceURLs: ["/metrics"], verbs: ["get"]'


def window(e: Trace, t: float, oldest: int, newest: int, ours: int, **more) -> None:
    fields = dict(
        source="sim",
        resource="pods",
        oldest_rv=str(oldest),
        newest_rv=str(newest),
        capacity=100,
        events=newest - oldest + 1,
        turnover=25.0,
        initialisations=1,
        bookmarks_sent=3,
        watchers=[f"w-1 rv={ours} sent={ours - 1000} ours", f"w-2 rv={newest} sent=140"],
        ours_rv=str(ours),
    )
    fields.update(more)
    e(t, "server.window", **fields)


def sim_trace() -> Trace:
    """A window turning over past a slow watcher (ours): 410, relist, back in."""
    e = Trace()
    e(0.0, "watch.start", resource_version="1000")
    window(e, 1.0, 1001, 1100, 1050)
    window(e, 2.0, 1041, 1140, 1050)
    window(e, 3.0, 1061, 1160, 1050)
    e(3.1, "watch.end", resource_version="1050", expired=True, error="410 Gone: too old resource version")
    e(3.2, "relist", reason="expired")
    window(e, 3.5, 1061, 1160, 1160, watchers=["w-2 rv=1160 sent=160", "w-3 rv=1160 sent=0 ours"])
    return e


def metrics_trace() -> Trace:
    e = Trace()
    e(
        0.0,
        "server.metrics",
        source="metrics",
        resource="pods",
        cache_rv="52013",
        ours_rv="50809",
        rv_behind=1204,
        events_received_per_s=4.2,
        events_dispatched_per_s=8.4,
        initialisations=1,
        consistent_reads_cache=120,
        consistent_reads_fallback=2,
        consistent_reads_failed=1,
        read_wait_p99=0.045,
        read_wait_p99_estimated=True,
        read_wait_bucket="0.025-0.05",
        capacity=800,
        terminated_watchers=3,
        open_watches=7,
        objects=340,
        series="group",
    )
    return e


def state_of(e) -> ServerState:
    """A state fed a Trace, or a list of its events."""
    st = ServerState()
    st.feed_all(e.events if isinstance(e, Trace) else e)
    return st


# -- the state ----------------------------------------------------------------------------


def test_watcher_strings_parse_as_the_contract_writes_them():
    w = parse_watcher("w-7 rv=1234 sent=56 ours")
    assert (w.id, w.rv, w.sent, w.ours) == ("w-7", "1234", 56, True)
    assert not parse_watcher("w-8 rv=9 sent=0").ours
    for bad in ("", "rv=1 sent=2", "w-1 rv=1 sent=two", "w-1 color=red"):
        with pytest.raises(ValueError):
            parse_watcher(bad)


def test_window_figures_are_the_events_figures():
    e = sim_trace()
    st = state_of(e.events[:3])
    last = e.events[2].fields
    assert st.source == "sim" and st.resource == "pods"
    assert (st.window["oldest_rv"], st.window["newest_rv"]) == (last["oldest_rv"], last["newest_rv"])
    assert (st.window["capacity"], st.window["events"], st.window["turnover"]) == (100, 100, 25.0)
    assert [w.id for w in st.watchers] == ["w-1", "w-2"] and st.ours().rv == "1050"
    # Position in the window: (1050 - 1041) / (1140 - 1041); 90 revisions behind the newest.
    assert st.position("1050") == pytest.approx(9 / 99)
    assert st.rv_behind("1050") == 90


def test_a_watcher_behind_the_oldest_event_has_fallen_out_and_its_410_is_counted():
    e = sim_trace()
    st = state_of(e.events[:4])
    assert st.position(st.ours().rv) < 0
    st.feed_all(e.events[4:])
    assert (st.gone, st.gone_rv, st.relists) == (1, "1050", 1)
    assert st.ours().id == "w-3" and st.position("1160") == 1.0


def test_a_watch_that_ended_without_410_is_not_counted():
    e = Trace()
    e(1.0, "watch.end", resource_version="5", expired=False, reason="closed")
    st = state_of(e)
    assert st.gone == 0 and st.version == 0


def test_metrics_figures_are_the_scrapes_and_a_scrape_clears_a_refusal():
    e = Trace()
    e(0.0, "server.forbidden", source="metrics", status=403, rule=RULE, message='cannot get path "/metrics"')
    st = state_of(e)
    assert st.forbidden["status"] == 403 and st.source == "metrics"
    st.feed_all(metrics_trace().events)
    assert st.forbidden is None and st.scrapes == 1
    assert (st.metrics["cache_rv"], st.metrics["rv_behind"], st.metrics["open_watches"]) == ("52013", 1204, 7)


def test_a_recording_from_before_rv_behind_reads_its_lag_and_drops_its_countdown():
    e = Trace()
    e.malformed(0.0, "server.metrics", source="metrics", resource="pods", cache_rv="70", lag=5)
    e.malformed(
        1.0,
        "server.window",
        source="sim",
        resource="pods",
        oldest_rv="1",
        newest_rv="9",
        capacity=8,
        events=8,
        turnover=2.0,
        watchers=["w rv=4 sent=1 ours"],
        ours_rv="4",
        ours_seconds_left=1.5,
    )
    st = state_of(e)
    assert st.metrics_of["pods"]["rv_behind"] == 5 and "lag" not in st.metrics_of["pods"]
    assert "ours_seconds_left" not in st.window
    assert "falls out in" not in render_server(st, 1.0, 120, 20).plain


def test_too_large_and_reinit_are_counted():
    e = Trace()
    e(1.0, "server.too_large", requested_rv="900", current_rv="500")
    e(2.0, "server.reinit", resource="pods", initialisations=2)
    e(3.0, "server.reinit", resource="pods", initialisations=3)
    st = state_of(e)
    assert (st.too_large, st.too_large_last, st.reinits, st.reinit_at) == (1, ("900", "500"), 2, 3.0)


def test_bad_figures_are_counted_not_drawn():
    e = Trace()
    e.malformed(1.0, "server.window", watchers=["rv=1"], capacity=1, events=1, turnover=1.0)
    e.malformed(2.0, "server.window", watchers=[], capacity="many", events=1, turnover=1.0)
    e.malformed(3.0, "server.metrics", rv_behind=["x"])
    e.malformed(4.0, "server.metrics", read_wait_p99="soon")
    st = state_of(e)
    assert st.bad_events == 4 and st.window is None and st.metrics is None
    assert "no figures yet" in render_server(st, 4.0, 80, 20).plain


# -- the drawing ---------------------------------------------------------------------------


def test_sim_view_draws_the_window_and_ours_in_revisions():
    st = state_of(sim_trace().events[:3])
    text = render_server(st, 2.1, 100, 20).plain
    assert "window 100/100 events" in text and "turnover 25.0/s" in text
    bar = next(ln for ln in text.splitlines() if "├" in ln)
    assert bar.startswith("1041 ├") and bar.endswith("┤ 1140") and "▲" in bar
    assert "ours  RV 1050 · RV Δ 90 to the window's newest (revisions, not events) · in the window" in text
    assert "falls out in" not in text  # no countdown: a real window's size moves with its events' age
    assert "cache  RV 1041-1140 · bookmarks sent 3 · initialisations 1" in text
    ours_row = next(ln for ln in text.splitlines() if "◀ ours" in ln)
    assert ours_row.split()[:4] == ["w-1", "1050", "90", "50"]
    assert "RV Δ" in next(ln for ln in text.splitlines() if "watcher" in ln and "sent" in ln)


def test_sim_view_after_the_window_passed_ours():
    st = state_of(sim_trace().events[:5])
    text = render_server(st, 3.2, 140, 20).plain
    assert "fallen out of the window: 410 on its next read" in text
    assert "RV Δ 110 · fell out: 410 next" in render_server(st, 3.2, 90, 20).plain  # the short words fit
    assert "ours fell out" in text and "410 ×1" in text


def test_metrics_view_names_the_rv_difference_in_revisions_and_marks_the_p99_as_estimated():
    text = render_server(state_of(metrics_trace()), 1.0, 160, 20).plain
    assert "watch cache RV 52013 · ours 50809 · RV Δ 1,204 revisions" in text
    assert "progress notifications move the cache's too" in text
    assert "received 4.2/s · dispatched 8.4/s · slow watchers terminated 3" in text
    assert "read-wait p99 ≈ 45ms (estimated, bucket 0.025-0.05 s)" in text
    assert "consistent: from cache 120 · answered by etcd 2 · failed 1" in text
    assert "capacity 800 events · initialisations 1 · open watches 7 · objects 340" in text


# -- several informers: ours per informer -------------------------------------------------------


def several_trace() -> Trace:
    """``queue deployments --owns replicasets`` on the simulator: each
    informer's watch, and each resource's window with its informer's watcher."""
    e = Trace()
    e(0.0, "watch.start", resource_version="500", informer="deployments.apps")
    e(0.1, "watch.start", resource_version="510", informer="replicasets.apps")
    window(
        e, 1.0, 400, 520, 500, resource="deployments.apps", watchers=["w-1 rv=500 sent=0 ours", "w-9 rv=520 sent=30"]
    )
    window(e, 1.0, 450, 530, 510, resource="replicasets.apps", watchers=["w-2 rv=510 sent=0 ours"])
    return e


def test_several_informers_each_have_their_own_ours():
    e = several_trace()
    st = state_of(e)
    assert st.order == ["deployments.apps", "replicasets.apps"] and st.resource == "deployments.apps"
    assert st.ours().id == "w-1" and st.ours("replicasets.apps").id == "w-2"
    text = render_server(st, 1.5, 120, 24).plain
    assert "no watch of ours is open" not in text
    assert "ours  deployments.apps RV 500 · RV Δ 20 to the window's newest" in text
    assert "ours  replicasets.apps RV 510 · RV Δ 20 to the window's newest" in text
    # The replicasets informer's 410 is its own, named as such.
    e(2.0, "watch.end", resource_version="510", expired=True, informer="replicasets.apps")
    e(2.1, "relist", reason="expired", informer="replicasets.apps")
    st = state_of(e)
    assert [words for _, words, _ in st.happenings] == [
        "410 Gone: ours (replicasets.apps) at RV 510 fell out (window 450-530)",
        "our replicasets.apps informer relisted (expired)",
    ]


def test_one_informer_without_a_watch_says_so_and_the_other_keeps_its_own():
    e = Trace()
    window(e, 1.0, 400, 520, 500, resource="deployments.apps", watchers=["w-1 rv=500 sent=0 ours"])
    window(e, 1.0, 450, 530, 510, resource="replicasets.apps", watchers=["w-2 rv=510 sent=0"], ours_rv="")
    text = render_server(state_of(e), 1.5, 120, 24).plain
    assert "ours  deployments.apps RV 500" in text
    assert "ours  replicasets.apps no watch of ours is open now" in text


def test_forbidden_view_names_the_rule():
    e = Trace()
    e(0.0, "server.forbidden", source="metrics", status=403, rule=RULE, message='cannot get path "/metrics"')
    text = render_server(state_of(e), 1.0, 120, 20).plain
    assert "/metrics refused (403)" in text and RULE in text
    assert "kubectl create clusterrole metrics-reader --verb=get --non-resource-url=/metrics" in text


def test_nothing_yet_says_what_will_appear():
    text = " ".join(render_server(ServerState(), None, 80, 24).plain.split())
    assert "no figures yet" in text and "--server-scrape" in text and "ours marked" in text


# -- in Textual, at several sizes ------------------------------------------------------------


def _app(st: ServerState, now: float) -> OnePane:
    return OnePane(ServerPane(st, id="server"), now)


@pytest.mark.parametrize("size", [(80, 24), (160, 50), (50, 10), (24, 5)])
def test_pane_in_textual_at_several_sizes(size):
    st = state_of(sim_trace().events[:3])
    text = shown(_app(st, 2.1), size)
    rows = text.splitlines()
    assert len(rows) == size[1] and all(len(r) <= size[0] for r in rows)
    assert "Server" in rows[0]
    assert "├" in text  # the window's bar survives every size here
    if size[1] >= 10:
        assert "ours  RV 1050" in text
    if size[1] >= 24:
        assert "◀ ours" in text


def test_pane_in_textual_metrics_and_forbidden():
    assert "watch cache RV 52013" in shown(_app(state_of(metrics_trace()), 1.0), (80, 12))
    e = Trace()
    e(0.0, "server.forbidden", source="metrics", status=403, rule=RULE, message="forbidden")
    assert "/metrics refused (403)" in shown(_app(state_of(e), 1.0), (80, 12))


@pytest.mark.parametrize("name", ["sim", "fell-out", "metrics", "empty"])
def test_render_fits_any_size(name):
    events = {
        "sim": sim_trace().events[:3],
        "fell-out": sim_trace().events,
        "metrics": metrics_trace().events,
        "empty": [],
    }[name]
    st = state_of(events)

    @settings(max_examples=150, deadline=None)
    @given(width=hs.integers(1, 320), height=hs.integers(1, 100))
    def check(width, height):
        assert_fits(render_server(st, 3.3, width, height), width, height)

    check()


_kinds = hs.sampled_from(
    ["server.window", "server.metrics", "server.forbidden", "server.reinit", "server.too_large", "watch.end", "relist"]
)
_fields = hs.dictionaries(
    hs.sampled_from(
        [
            "watchers",
            "capacity",
            "events",
            "turnover",
            "oldest_rv",
            "newest_rv",
            "ours_seconds_left",
            "lag",
            "rv_behind",
            "read_wait_p99",
            "status",
            "rule",
            "expired",
            "resource_version",
            "cache_rv",
            "resource",
            "informer",
            "terminated_watchers",
            "series",
        ]
    ),
    hs.one_of(
        json_values, hs.sampled_from(["w rv=3 sent=1 ours", "12"]), hs.just(["a rv=5 sent=1 ours", "b rv=x sent=2"])
    ),
)


@settings(max_examples=100, deadline=None)
@given(
    hs.lists(hs.tuples(_kinds, hs.floats(0, 1000, allow_nan=False), _fields), max_size=30),
    hs.integers(1, 200),
    hs.integers(1, 60),
)
# Found by this test: a status with a line break in the refused line pushed
# the next lines past the pane's height.
@example(events=[("server.forbidden", 0.0, {"status": "\n"})], width=27, height=3)
def test_any_trace_feeds_and_renders_without_error(events, width, height):
    st = ServerState()
    for i, (kind, t, fields) in enumerate(events):
        st.feed(TraceEvent(i + 1, t, kind, None, fields))
    assert_fits(render_server(st, None, width, height), width, height)
    assert_fits(render_server(st, 1000.0, width, height), width, height)


def test_what_the_server_did_is_listed_newest_first():
    e = sim_trace()
    e(4.0, "server.too_large", requested_rv="1300", current_rv="1200")
    e(5.0, "server.reinit", resource="pods", initialisations=2)
    st = state_of(e)
    assert [words for _, words, _ in st.happenings] == [
        "410 Gone: ours at RV 1050 fell out (window 1061-1160)",
        "our informer relisted (expired)",
        "Too large resource version: asked 1300, server at 1200",
        "watch cache of pods re-initialised (2 so far): every watch ended",
    ]
    rows = render_server(st, 6.0, 100, 30).plain.splitlines()
    recent = rows[rows.index("  recent") + 1 :]
    assert [r.split("ago")[0].strip() for r in recent] == ["1s", "2s", "2.8s", "2.9s"]
    assert "re-initialised" in recent[0] and "410 Gone" in recent[-1]


# -- in the app: s, then e ------------------------------------------------------------------


@pytest.mark.parametrize("size", [(80, 24), (160, 45)])
def test_s_shows_the_server_pane_and_e_explains_its_window(size):
    from .helpers import demo_trace, make_app, pane_text, run

    trace = demo_trace()
    trace(
        "server.window",
        source="sim",
        resource="pods",
        oldest_rv="95",
        newest_rv="103",
        capacity=8,
        events=8,
        turnover=2.0,
        initialisations=1,
        bookmarks_sent=0,
        watchers=["3 rv=101 sent=4 ours"],
        ours_rv="101",
    )
    app = make_app(trace)

    async def check(pilot):
        await pilot.press("s")
        app.pump()
        assert app.active == "server" and app.panes["server"].display
        assert "window 8/8 events" in app.panes["server"].render().plain
        await pilot.press("e")
        app.pump()
        text = " ".join(pane_text(app.panes["explain"]).split())
        assert "Server ▸ the watch cache's window, RV 95-103" in text
        assert (
            "The API server's watch cache holds the most recent events of pods, 8 at most right now: RV 95 to "
            "103" in text
        )
        assert "ours is at RV 101: it is in the window" in text
        assert "our informer's last RV is 2 revisions behind it" in text
        await pilot.press("e")
        assert app.active == "server"

    run(check, app, size)


def test_the_tenth_tab_and_its_help_line_name_its_letter():
    from .helpers import make_app, run, screen_text

    app = make_app()

    async def check(pilot):
        tabs = screen_text(app).splitlines()[2]
        assert tabs.rstrip().endswith("s Server") and " 9 Explain" in tabs and "10" not in tabs
        await pilot.press("question_mark")
        jumps = {name: jump for jump, _, name in app.screen.panes}  # the help screen's pane lines
        assert (jumps["server"], jumps["resync"], jumps["explain"]) == ("s", "4 n", "9 e")

    run(check, app, (160, 45))


def test_wild_resource_versions_draw():
    e = Trace()
    big = "9" * 400
    window(e, 1.0, 1, 2, 1, watchers=[f"w rv={big} sent=1 ours", "x rv=0 sent=0"], newest_rv="3", oldest_rv="1")
    st = state_of(e)
    assert st.position(big) == 2.0 and st.position("0") == -1.0
    assert_fits(render_server(st, 1.0, 80, 20), 80, 20)


def test_a_window_naming_two_watchers_ours_labels_the_one_its_bar_places():
    # A recording may say "ours" of two watchers, the first at an RV that is no
    # number: the bar places the second, and its label said the first's position
    # (None < 0: a TypeError that ended the UI).
    e = Trace()
    window(e, 1.0, 1001, 1100, 1050, watchers=["w-1 rv=x sent=0 ours", "w-2 rv=1000 sent=40 ours"])
    st = state_of(e)
    assert st.bad_events == 0  # within the contract
    lines = render_server(st, 1.0, 100, 20).plain.splitlines()
    assert "◀" in lines[1] and lines[2].strip() == "ours fell out"


def test_in_a_several_informer_run_one_server_pane_holds_every_informers_watch():
    """The feed gives each informer its own states, but the Server pane is
    shared: whichever informer is selected, it shows each one's watch."""
    from kubectl_informer.core.run_info import RunInfo
    from kubectl_informer.core.trace import TraceBuffer
    from kubectl_informer.panes.feed import FeedLoop

    info = RunInfo(
        resource="deployments.apps",
        mode="queue",
        informers=("deployments.apps", "replicasets.apps"),
        queue_resource="deployments.apps",
    )
    buf = TraceBuffer()
    loop = FeedLoop(buf, {"server": ServerState}, info=info)
    for ev in several_trace().events:
        buf(ev)
    loop.drain()
    for informer in ("deployments.apps", "replicasets.apps"):
        assert loop.select(informer, tell=False)
        st = loop.states["server"]
        assert st.ours("deployments.apps").rv == "500" and st.ours("replicasets.apps").rv == "510"
