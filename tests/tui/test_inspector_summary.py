"""The Inspector pane draws a key's rows from a summarised stretch (the UI
behind: panes/trail.py) in its timeline, marked as such."""

from __future__ import annotations

from kubectl_informer.core.trace import TraceEvent
from kubectl_informer.panes.state import Stretch
from tests.tui.helpers import TraceMaker, demo_trace, life_of_pod, make_app, pane_text, run


def test_the_inspector_shows_a_summarised_stretch_as_rows_marked_from_a_summary():
    e = demo_trace()
    life_of_pod(e, "default/api-0", 200, phase="Running")
    app = make_app(e, start_pane="inspector")
    later = TraceMaker(start=e.t + 1)
    life_of_pod(later, "default/api-0", 201, phase="Pending")
    first = len(e.events)  # the stretch's seqs follow the trace's
    stretch = [TraceEvent(first + i, ev.time, ev.kind, ev.key, ev.raw_fields) for i, ev in enumerate(later.events, 1)]

    async def check(pilot):
        pane = app.panes["inspector"]
        pane.state.summarise(Stretch(stretch))
        pane.inspect("default/api-0")
        app.pump()
        lines = pane_text(pane).splitlines()
        assert lines[0].startswith("default/api-0  16 events")
        assert "8 from summaries (kind and RV only)" in lines[0]
        assert lines[1] == "watch 2 → fifo 2 → pop 2 → store 2 → handler 2 → queue 6"
        body = [ln for ln in lines[2:] if ln.strip()]
        assert len(body) == 16  # every row fits: the key's life in full, then the stretch
        assert [ln.split()[2] for ln in body[8:]] == [
            "watch.event",
            "fifo.queue",
            "fifo.pop",
            "store.add",
            "handler.add",
            "queue.add",
            "queue.get",
            "queue.done",
        ]
        assert all("(from a summary: no detail)" in ln for ln in body[8:])
        assert not any("from a summary" in ln for ln in body[:8])
        assert "rv=201" in body[8] and "rv=201" in body[11]  # the watch event's and the delta's RV
        assert "Running" in body[3] and "rv=200" in body[3]  # the row fed in full keeps its detail

    run(check, app, (100, 40))  # tabs: the Inspector alone


def test_the_key_list_lists_a_key_known_only_from_summaries_and_enter_follows_it():
    e = demo_trace()
    app = make_app(e, start_pane="inspector")
    later = TraceMaker(start=e.t + 1)
    life_of_pod(later, "default/only-summarised", 300)
    first = len(e.events)
    stretch = [TraceEvent(first + i, ev.time, ev.kind, ev.key, ev.raw_fields) for i, ev in enumerate(later.events, 1)]

    async def check(pilot):
        pane = app.panes["inspector"]
        assert "default/only-summarised" not in pane.state.history
        pane.state.summarise(Stretch(stretch))
        pane.inspect(None)
        app.pump()
        lines = pane_text(pane).splitlines()
        assert lines[1].startswith("default/only-summarised from summaries, last queue.done")
        assert pane.cursor_keys[0] == "default/only-summarised"
        pane.focus()
        await pilot.press("enter")
        app.pump()
        lines = pane_text(pane).splitlines()
        assert lines[0].startswith("default/only-summarised") and "8 from summaries" in lines[0]

    run(check, app, (100, 40))


def test_a_key_busier_than_its_history_says_its_stage_counts_are_of_what_is_held():
    """A key whose stage events outnumber what the Inspector keeps: the ribbon's
    counts (watch 16 → fifo 17 → pop 1 …) are of the held events, and say so,
    so that they do not read as events lost between stages."""
    e = demo_trace()
    app = make_app(e, start_pane="inspector")

    async def check(pilot):
        pane = app.panes["inspector"]
        per_key = pane.state.history.per_key
        fed = len(e.events)
        for rv in range(300, 300 + per_key):
            life_of_pod(e, "default/busy", rv, phase="Running")
        app.buffer.extend(e.events[fed:])
        app.pump()
        pane.inspect("default/busy")
        app.pump()
        lines = pane_text(pane).splitlines()
        assert "stage events kept" in lines[0]
        assert lines[1].startswith("held: watch ")
        assert "older events let go, not lost" in lines[1]

    run(check, app, (160, 40))
