"""The Explain pane follows the selection of the pane it explains."""

import pytest

from tests.tui.helpers import demo_trace, life_of_pod, make_app, pane_text, run

SIZES = [(80, 24), (160, 45)]


@pytest.mark.parametrize("size", SIZES)
def test_e_explains_the_selected_delta_and_e_again_goes_back(size):
    app = make_app()

    async def check(pilot):
        await pilot.press("d")
        await pilot.press("e")
        app.pump()
        assert app.active == "explain"
        text = " ".join(pane_text(app.panes["explain"]).split())
        # Following: the newest delta, the watch's DELETED of default/web-2.
        assert "Deltas ▸ Deleted default/web-2 (RV 103)" in text
        assert "The watch sent DELETED for default/web-2 at RV 103" in text
        assert "docs/explain.md#deleted-from-the-watch" in text
        await pilot.press("e")
        assert app.active == "deltas"
        await pilot.press("k", "k")  # two rows up: the first of web-1's two updates
        await pilot.press("e")
        app.pump()
        text = " ".join(pane_text(app.panes["explain"]).split())
        assert "Deltas ▸ Updated default/web-1 (RV 101)" in text
        assert "resourceVersion 90 → 101" in text and "every listener (handler-1)" in text
        # Popped with the next update in one slot: said too.
        assert "2 deltas popped together for default/web-1 (Updated ×2)" in text

    run(check, app, size)


def test_the_explain_pane_is_in_the_grid_and_follows_the_active_pane():
    app = make_app()

    async def check(pilot):
        assert app.layout_mode == "grid" and app.panes["explain"].display
        await pilot.press("r")  # RV: the newest mark, the bookmark at 110
        app.pump()
        assert "RV ▸ bookmark at RV 110" in " ".join(pane_text(app.panes["explain"]).split())
        await pilot.press("n")
        app.pump()
        assert "No resync: the informer runs with a resync period of 0" in " ".join(
            pane_text(app.panes["explain"]).split()
        )
        await pilot.press("c")
        app.pump()
        assert "The indexer holds 4 objects" in " ".join(pane_text(app.panes["explain"]).split())

    run(check, app, (160, 45))


def test_queue_records_step_back_with_j_and_k():
    e = demo_trace()
    k = "default/web-9"  # two adds while a worker holds it: a record with a story
    e("queue.add", k, outcome="queued", depth=1)
    e("queue.get", k, waited=0.001, depth=0)
    e("worker.start", k, worker=1)
    e("queue.add", k, outcome="dirty_while_processing", depth=1)
    e("queue.add", k, outcome="already_dirty", depth=1)
    e("worker.done", k, worker=1, outcome="ok", duration=0.1)
    e("queue.done", k, worked=0.1, requeued=True)
    life_of_pod(e, "default/api-0", 300)
    app = make_app(e)

    async def check(pilot):
        await pilot.press("w", "e")
        app.pump()
        pane = app.panes["explain"]
        text = " ".join(pane_text(pane).split())
        assert "Queue ▸ done default/api-0 (0 back" in text and "w0 worked 200ms on it" in text
        await pilot.press("k")
        text = " ".join(pane_text(pane).split())
        assert "(1 back" in text
        assert "2 adds while w1 processed default/web-9: key marked dirty, run once after Done" in text
        await pilot.press("k", "k", "k")  # no further back than the oldest record
        assert "(1 back" in pane_text(pane)
        await pilot.press("j")
        assert "(0 back" in pane_text(pane)

    run(check, app, (160, 45))


def test_e_in_the_queue_pane_explains_the_item_under_the_cursor():
    e = demo_trace()
    held, first, second = "default/web-7", "default/web-8", "default/web-9"
    e("queue.add", held, outcome="queued", depth=1)
    e("queue.get", held, waited=0.002, depth=0, worker=1)
    life_of_pod(e, "default/api-0", 300)  # the newest record: api-0 processed
    e("queue.add", first, outcome="queued", depth=1)
    e("queue.add", second, outcome="queued", depth=2)
    e("queue.add", second, outcome="already_dirty", depth=2)
    e("queue.add", second, outcome="already_dirty", depth=2)
    app = make_app(e)

    def explained() -> str:
        app.pump()
        return " ".join(pane_text(app.panes["explain"]).split())

    async def check(pilot):
        await pilot.press("w", "e")
        assert "Queue ▸ done default/api-0" in explained()  # no cursor yet: the newest record
        await pilot.press("e", "j")  # back to the Queue pane; the cursor on its first item
        assert app.active == "queue" and app.selected_key() == held
        assert app.panes["queue"].render().plain.startswith(f"▸ {held} · processing (w1) · 1/3")
        await pilot.press("e")
        text = explained()
        assert f"Queue ▸ item {held}" not in text and f"Queue ▸ get {held}" in text
        assert "until w1's Get, and that worker holds it now" in text
        await pilot.press("e", "j", "j", "e")  # the third item: queued behind web-8, added three times
        text = explained()
        assert f"Queue ▸ queued {second}" in text
        assert f"{second} waits in the queue" in text and "1 items ahead of it" in text and "(3 so far)" in text
        await pilot.press("e", "g", "e")  # g: no cursor, the newest record again
        assert "Queue ▸ done default/api-0" in explained()

    run(check, app, (160, 45))


@pytest.mark.parametrize("mode,says", [("watch", True), ("queue", False)])
def test_queue_pane_says_watch_runs_no_workqueue(mode, says):
    from tests.tui.helpers import TraceMaker, info

    e = TraceMaker()  # an informer and its list; no workqueue event
    e("informer.start", fifo="DeltaFIFO", watch_list=False, resync_check_period=0.0)
    e("list.start", resource_version="0", watch_list=False)
    e("list.done", resource_version="100", items=0, duration=0.01, watch_list=False)
    app = make_app(e, info=info(mode=mode))

    async def check(pilot):
        await pilot.press("w")
        app.pump()
        text = " ".join(app.panes["queue"].render().plain.split())
        assert ("watch runs no workqueue: `kubectl informer queue` feeds each notified key into one" in text) is says
        await pilot.press("e")
        app.pump()
        explained = " ".join(pane_text(app.panes["explain"]).split())
        assert ("watch runs no workqueue" in explained) is says

    run(check, app, (80, 24))


def test_a_delta_older_than_the_records_kept_is_said_not_blanked():
    """`x b` on the selected key: 20 updates push the row's record out of the
    key's last 16 while the cursor stays on the row. Explain says so and
    explains the key's newest delta, instead of a blank pane."""
    e = demo_trace()
    app = make_app(e)

    async def check(pilot):
        await pilot.press("d", "k", "k")  # web-1's first update, paused at the cursor
        assert app.panes["deltas"].selected_key() == "default/web-1"
        fed = len(e.events)
        for rv in range(200, 220):
            e(
                "store.update",
                "default/web-1",
                resource_version=str(rv),
                old_resource_version=str(rv - 1),
                delta="Updated",
                summary="Running",
                diff=["metadata.annotations.burst"],
                is_in_initial_list=False,
            )
        app.buffer.extend(e.events[fed:])
        app.pump()
        assert app.panes["deltas"].selected_key() == "default/web-1"
        await pilot.press("e")
        app.pump()
        text = " ".join(pane_text(app.panes["explain"]).split())
        assert "is older than the last 16 records Explain keeps for this key" in text
        assert "Deltas ▸ Updated default/web-1 (RV 219)" in text
        assert "Nothing to explain" not in text

    run(check, app, (160, 45))
