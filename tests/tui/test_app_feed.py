"""How the app feeds pane states and what it sets while running."""

import pytest

from kubectl_informer.panes.feed import feeder as _feeder
from kubectl_informer.panes.state import PaneState
from kubectl_informer.tui.app import PANES

from .helpers import TraceMaker, demo_trace, life_of_pod, make_app, run, screen_text


class Recorder(PaneState):
    """A state with a dispatch table, like the RV/Resync/Queue states."""

    def __init__(self):
        super().__init__()
        self.seen = []
        self._handlers = {"fifo.pop": None, "store.add": None}

    def feed(self, ev):
        if ev.kind in self._handlers:
            self.seen.append(ev.seq)
            self.version += 1


def test_feeder_gives_a_dispatching_state_only_its_kinds_in_order():
    e = demo_trace()
    a, b = Recorder(), Recorder()
    _feeder(a)(e.events)
    for ev in e.events:
        b.feed(ev)
    assert a.seen == b.seen and a.seen  # same events, same order
    assert a.version == b.version


def test_every_pane_state_fed_by_the_app_matches_feeding_it_event_by_event():
    e = demo_trace()
    life_of_pod(e, "default/api-0", 300)
    # The API server's side (Server pane): rare events, a few of each.
    e(
        "server.window",
        source="sim",
        resource="pods",
        oldest_rv="295",
        newest_rv="302",
        capacity=8,
        events=8,
        turnover=2.0,
        initialisations=1,
        bookmarks_sent=1,
        watchers=["1 rv=300 sent=5 ours"],
        ours_rv="300",
    )
    e("server.too_large", requested_rv="400", current_rv="302")
    e("server.reinit", resource="pods", initialisations=2)
    for spec in PANES:
        fast, slow = spec.state_cls(), spec.state_cls()
        for i in range(0, len(e.events), 7):  # in uneven chunks, as frames do
            _feeder(fast)(e.events[i : i + 7])
        for ev in e.events:
            slow.feed(ev)
        assert fast.version > 0 and slow.version > 0, spec.name
        skip = {"version", "_handlers"}
        fv = {k: v for k, v in vars(fast).items() if k not in skip and not callable(v)}
        sv = {k: v for k, v in vars(slow).items() if k not in skip and not callable(v)}
        assert repr(fv) == repr(sv), spec.name


@pytest.mark.parametrize(
    "size,hints",
    [
        (
            (80, 24),
            [
                "? ",
                "Help",
                "/ ",
                "Filter",
                ": ",
                "Cmd",
                "e ",
                "Explain",
                "x ",
                "Exper",
                "z ",
                "Zoom",
                "y ",
                "YAML",
                "q ",
                "Quit",
            ],
        ),
        (
            (160, 45),
            [
                "Help",
                "Filter",
                "Command",
                "Explain",
                "Experiments",
                "Zoom",
                "YAML",
                "Inspect",
                "Pause",
                "Next pane",
                "Quit",
            ],
        ),
    ],
    ids=["80x24", "160x45"],
)
def test_footer_lists_the_keys_as_k9s_shows_its_menu(size, hints):
    """e x : z y were only in ? help: at 80 columns the footer names them too."""
    app = make_app()

    async def check(pilot):
        last = screen_text(app).splitlines()[-1]
        for hint in hints:
            assert hint in last, hint
        assert len(last.rstrip()) <= size[0]

    run(check, app, size)


def test_inspector_says_how_many_earlier_events_did_not_fit():
    e = TraceMaker()
    for i in range(30):
        e("store.update", "ns/busy", resource_version=str(i), delta="Updated")
    app = make_app(e, start_pane="inspector")

    async def check(pilot):
        pane = app.panes["inspector"]
        pane.inspect("ns/busy")
        app.pump()
        from .helpers import pane_text

        lines = pane_text(pane).splitlines()
        assert lines[0].startswith("ns/busy  30 events")
        earlier = [ln for ln in lines if ln.startswith("…")]
        shown = [ln for ln in lines if "store.update" in ln]
        assert earlier == [f"… {30 - len(shown)} earlier"]
        assert "rv=29" in shown[-1]

    run(check, app)


def test_absorbing_store_events_derives_no_diff_or_predicates(monkeypatch):
    """The informer's store events carry objects; what is derived from them
    (an update's diff, its predicates) costs the UI thread, which shares the
    engine's GIL. Absorbing them derives none of it; only the Inspector's
    history, letting an old entry of a key go, keeps what it needs of its
    objects, once per event."""
    from kubectl_informer.clock.testing import FakeClock
    from kubectl_informer.core import trace_kinds
    from kubectl_informer.core.trace import TraceBuffer, Tracer
    from kubectl_informer.panes.objects import ObjectHistory

    derived = []
    for name in ("diff", "predicates"):
        fn = trace_kinds.STORE_UPDATE.derive[name]
        monkeypatch.setitem(
            trace_kinds.STORE_UPDATE.derive, name, lambda f, fn=fn, name=name: derived.append(name) or fn(f)
        )
    tracer, buf = Tracer(FakeClock()), TraceBuffer()
    tracer.subscribe(buf)

    def updates(key, n):
        name = key.split("/")[1]
        old = {
            "metadata": {"name": name, "namespace": "default", "resourceVersion": "1", "labels": {"app": "web"}},
            "status": {"phase": "Pending"},
        }
        tracer.emit_derived(
            trace_kinds.STORE_ADD, key, resource_version="1", delta="Added", is_in_initial_list=False, object=old
        )
        for rv in range(2, n + 2):
            new = {**old, "metadata": {**old["metadata"], "resourceVersion": str(rv)}, "status": {"phase": "Running"}}
            tracer.emit_derived(
                trace_kinds.STORE_UPDATE,
                key,
                resource_version=str(rv),
                delta="Updated",
                is_in_initial_list=False,
                old_resource_version=str(rv - 1),
                object=new,
                old=old,
            )
            old = new

    # Keys enough to fill many rings, within the objects held in all (the
    # hot key's 101 entries below too): none is let go but by its key's ring.
    hist = ObjectHistory()
    for i in range((hist.max_objects - 101) // hist.keep_objects):
        updates(f"default/web-{i}", hist.keep_objects - 1)
    app = make_app(TraceMaker())

    async def check(pilot):
        app.feed_loop.feed(buf.drain())
        assert derived == []
        # The Cache pane still knows the labels (for /label: filters).
        assert app.states["cache"].keys["default/web-7"][1] == {"app": "web"}
        # A hot key: each update the history lets go is diffed once (its
        # short diff reuses the full one) and its predicates derived once.
        updates("default/hot", 100)
        app.feed_loop.feed(buf.drain())
        let_go = 100 - ObjectHistory().keep_objects  # of 101 entries (the add first), the newest kept
        assert derived.count("predicates") == let_go and derived.count("diff") == 0

    run(check, app)
