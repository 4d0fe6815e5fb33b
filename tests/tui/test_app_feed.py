"""How the app feeds pane states and what it sets while running."""


from kubectl_informer.tui.app import PANES, _feeder
from kubectl_informer.tui.pane import PaneState

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
    for spec in PANES:
        fast, slow = spec.state_cls(), spec.state_cls()
        for i in range(0, len(e.events), 7):  # in uneven chunks, as frames do
            _feeder(fast)(e.events[i:i + 7])
        for ev in e.events:
            slow.feed(ev)
        assert fast.version > 0 and slow.version > 0, spec.name
        skip = {"version", "_handlers"}
        fv = {k: v for k, v in vars(fast).items() if k not in skip and not callable(v)}
        sv = {k: v for k, v in vars(slow).items() if k not in skip and not callable(v)}
        assert repr(fv) == repr(sv), spec.name


def test_footer_lists_the_keys():
    app = make_app()

    async def check(pilot):
        last = screen_text(app).splitlines()[-1]
        for hint in ("? ", "Help", "/ ", "Filter", "Pause", "Inspect", "Next pane", "Quit"):
            assert hint in last

    run(check, app)


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
