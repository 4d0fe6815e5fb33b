"""Each core pane in the running app, fed a recorded trace, at 80x24 and 160x50."""

import pytest

from kubectl_informer.tui.app import InformerApp

from .helpers import (
    TraceMaker,
    demo_trace,
    info,
    life_of_pod,
    make_app,
    pane_text,
    run,
    screen_text,
)

SIZES = [(80, 24), (160, 50)]


@pytest.mark.parametrize("size", SIZES)
def test_header_shows_run_profile_sync_and_watch_health(size):
    app = make_app()

    async def check(pilot):
        text = screen_text(app)
        head = "\n".join(text.splitlines()[:2])
        assert "pods" in head and "ns default" in head and "ctx sim" in head
        assert "client-go 1.32" in head and "DeltaFIFO · paged LIST" in head
        assert "● synced 5 in 250ms" in head
        # The FakeClock is 1 s past the trace's last event (the bookmark).
        assert "last event 1s ago" in head
        assert "rv 103" in head  # the last watch event's RV

    run(check, app, size)


def test_header_shows_watchlist_profile_from_informer_start_and_relists():
    e = TraceMaker()
    e("informer.start", fifo="RealFIFO (atomic)", watch_list=True, resync_check_period=0.0)
    e("watch.start", resource_version="5")
    e("watch.end", error="410 Gone", expired=True)
    e("relist", reason="expired")
    app = make_app(e, info=info(profile="1.36", fifo="RealFIFO (atomic)"))

    async def check(pilot):
        head = "\n".join(screen_text(app).splitlines()[:2])
        assert "RealFIFO (atomic) · WatchList stream" in head
        assert "✕ 410 Gone" in head and "relists 1 (expired)" in head
        assert "not synced" in head

    run(check, app, (120, 30))


@pytest.mark.parametrize("size", SIZES)
def test_deltas_pane_shows_the_popped_stream_with_diffs(size):
    app = make_app(start_pane="deltas")

    async def check(pilot):
        text = pane_text(app.panes["deltas"])
        lines = text.splitlines()
        assert lines[0].startswith("8 deltas")
        assert lines[1].startswith("GRLA predicates an update passes: G GenerationChanged")
        rows = [ln for ln in lines[2:] if ln.strip()]
        assert len(rows) == 8
        assert "Replaced default/web-0" in rows[0] and "Pending" in rows[0]
        assert "Updated  default/web-1" in rows[5] and "rv=101" in rows[5]
        screen = screen_text(app)
        assert "init Pending" in rows[0]  # the initial-list mark, at every width
        # Wide terminals show the whole diff.
        if size[0] >= 100:
            assert "status.phase Pending→Running" in screen
        else:
            assert "status.phase Pending→" in screen
        assert "Deleted  default/web-2" in rows[7]

    run(check, app, size)


def test_deltas_pane_shows_only_the_newest_rows_that_fit():
    e = TraceMaker()
    for i in range(500):
        e("store.update", f"ns/pod-{i}", resource_version=str(i), delta="Updated", summary="Running")
    app = make_app(e)

    async def check(pilot):
        pane = app.panes["deltas"]
        lines = pane_text(pane).splitlines()
        assert len(lines) == pane.content_region.height  # never more than fit
        assert "ns/pod-499" in lines[-1]
        assert "500 deltas" in lines[0]
        # Cursor up twice: selection moves off the tail and stays on its row.
        await pilot.press("up", "up")
        assert pane.selected_key() == "ns/pod-497"
        e2 = TraceMaker(start=e.t)
        e2("store.add", "ns/late", resource_version="999", delta="Added")
        app.buffer.extend(e2.events)
        app.pump()
        assert pane.selected_key() == "ns/pod-497"
        await pilot.press("end")
        assert pane.selected_key() == "ns/late"

    run(check, app)


@pytest.mark.parametrize("size", SIZES)
def test_fifo_pane_shows_queued_keys_counters_and_recent(size):
    app = make_app(start_pane="fifo")

    async def check(pilot):
        text = pane_text(app.panes["fifo"])
        assert "DeltaFIFO 1 key/2 deltas · queued 8 appended 2 dedups 1 skips 1 pops 7" in text
        # The words say what DeltaFIFO does: deltas accumulate, nothing is collapsed.
        assert "one slot per key: deltas accumulate, pop together, handler gets each" in text
        assert "coalesc" not in text and "the workqueue, not the FIFO, collapses a key (Queue pane)" in text
        assert "default/web-3 [Updated Deleted]" in text
        if app.layout_mode == "tabs":
            assert "skip     default/ghost Deleted: unknown_delete" in text
            assert "dedup    default/web-3" in text
            assert "append   default/web-1 +Updated → slot [Updated ×2]" in text
            assert "append   default/web-1 +Updated" in screen_text(app)
        else:  # the grid's narrow FIFO pane: fewer words, the slot whole
            assert "skip default/ghost Deleted: unknown_delete" in text
            assert "dedup default/web-3" in text
            assert "append default/web-1 Updated→[Updated ×2]" in screen_text(app)

    run(check, app, size)


def test_fifo_pane_lists_pending_deltas_of_many_keys_in_queue_order():
    e = TraceMaker()
    for i in range(100):
        e("fifo.queue", f"default/web-{i}", type="Updated", depth=i + 1, pending=1)
    e("fifo.coalesce", "default/web-0", type="Updated", depth=100, pending=2)
    e("fifo.coalesce", "default/web-0", type="Deleted", depth=100, pending=3)
    app = make_app(e, start_pane="fifo")

    async def check(pilot):
        lines = pane_text(app.panes["fifo"]).splitlines()
        assert lines[1].rstrip() == "default/web-0 [Updated ×2 Deleted]"
        assert lines[2] == "default/web-1 [Updated]"
        more = [ln for ln in lines if ln.startswith("…")]
        assert more and "more queued" in more[0]

    run(check, app)


@pytest.mark.parametrize("size", SIZES)
def test_cache_pane_counts_per_namespace(size):
    app = make_app(start_pane="cache")

    async def check(pilot):
        lines = pane_text(app.panes["cache"]).splitlines()
        assert lines[0].startswith("4 objects in 2 namespaces")
        assert lines[2].startswith("default     3 █")
        assert lines[3].startswith("kube-system 1 █")
        # The largest namespace gets the longest bar.
        assert lines[2].count("█") > lines[3].count("█")

    run(check, app, size)


# The grid's fourth row (Handlers) takes 9 lines: 56 rows give the Inspector
# the height that 50 gave it before, for the whole 10-event life.
@pytest.mark.parametrize("size", [(80, 24), (160, 56)])
def test_inspector_pane_shows_a_keys_life_across_stages_in_order(size):
    e = demo_trace()
    life_of_pod(e, "default/api-0", 200, phase="Running")
    app = make_app(e, start_pane="inspector")

    async def check(pilot):
        pane = app.panes["inspector"]
        text = pane_text(pane)
        assert "default/api-0 8 events, last queue.done" in text
        pane.inspect("default/api-0")
        app.pump()
        lines = pane_text(pane).splitlines()
        assert lines[0].startswith("default/api-0  8 events")
        assert lines[1] == "watch 1 → fifo 1 → pop 1 → store 1 → handler 1 → queue 3"
        kinds = [ln.split()[2] for ln in lines[2:] if ln.strip()]
        assert kinds == [
            "watch.event",
            "fifo.queue",
            "fifo.pop",
            "store.add",
            "handler.add",
            "queue.add",
            "queue.get",
            "queue.done",
        ]
        assert "Running" in lines[5] and "rv=200" in lines[5]
        assert "w0 got it after 1.0ms" in lines[8] and "w0 ok · worked 200ms" in lines[9]

    run(check, app, size)


def test_grid_on_a_large_terminal_tabs_on_a_small_one():
    for size, mode, min_shown in (((80, 24), "tabs", 1), ((130, 30), "tabs", 2), ((160, 50), "grid", 5)):
        app = make_app()

        async def check(pilot, app=app, mode=mode, min_shown=min_shown):
            assert app.layout_mode == mode
            shown = [n for n, p in app.panes.items() if p.display]
            assert len(shown) >= min_shown
            if mode == "tabs":
                assert len(shown) <= 2 and app.active in shown
            # Every shown pane got a real area on screen.
            for n in shown:
                assert app.panes[n].content_region.height > 3

        run(check, app, size)


def test_the_tab_bar_takes_its_full_labels_back_when_the_terminal_grows():
    # Seen in tmux: 80x24 -> 20x5 -> 160x45 kept the tabs cut to "1 D  2 F ...",
    # the bar measured against the size before the resize.
    app = make_app()

    async def check(pilot):
        for size in ((20, 5), (160, 45)):
            await pilot.resize_terminal(*size)
            await pilot.pause()
        app.pump()
        await pilot.pause()
        bar = app.tabbar.render().plain
        assert " 1 Deltas " in bar and " 2 FIFO " in bar and " 9 Explain " in bar, bar

    run(check, app, (80, 24))


def test_unknown_pane_name_is_a_one_line_error():
    with pytest.raises(ValueError, match="unknown pane 'nope'"):
        InformerApp(demo_trace().buffer(), info(), panes=["nope"])


def test_header_shows_a_slow_list_moving_then_its_failure_and_the_retry():
    e = TraceMaker()
    e("informer.start", fifo="DeltaFIFO", watch_list=False, resync_check_period=0.0)
    e("list.start", resource_version="0", watch_list=False)
    e("list.progress", pages=0, items=0, bytes=1234, elapsed=3.0)
    app = make_app(e)

    async def check(pilot):
        head = "\n".join(screen_text(app).splitlines()[:2])
        assert "◌ listing" in head and "page 1 · 0 items · 1.2 KB" in head

    run(check, app, (160, 30))
    e(
        "list.done",
        resource_version="",
        items=0,
        duration=5.0,
        watch_list=False,
        error="503 ServiceUnavailable: upstream down",
    )
    e("reflector.backoff", delay=600.0, error="503 ServiceUnavailable: upstream down")
    app = make_app(e)

    async def check_failed(pilot):
        head = "\n".join(screen_text(app).splitlines()[:2])
        assert "✕ 503 ServiceUnavailable: upstream down · retry in" in head

    run(check_failed, app, (160, 30))


def test_a_burst_in_one_slot_reads_whole_in_the_fifo_pane_at_160x45():
    """`--demo burst` piles deltas into one DeltaFIFO slot: the grid's FIFO
    pane says them as a count, not cut at `[Updated Upda…`."""
    e = demo_trace()
    key = "default/web-0"
    e("fifo.queue", key, type="Updated", depth=2, pending=1)
    for n in range(2, 8):
        e("fifo.coalesce", key, type="Updated", depth=2, pending=n)
    app = make_app(e)

    async def check(pilot):
        assert app.layout_mode == "grid"
        screen = screen_text(app)
        assert f"{key} [Updated ×7]" in screen
        assert f"append {key} Updated→[Updated ×7]" in screen  # the newest append, narrow

    run(check, app, (160, 45))


def test_header_shows_the_reflectors_back_off_after_sync_too():
    """`--demo flaky`: synced, then the watch ends in a 410 and the relist backs
    off for many seconds; the header says so while it lasts, not only before sync."""
    e = demo_trace()
    e("watch.end", error="410 Expired: too old resource version", expired=True)
    e("relist", reason="expired")
    e("reflector.backoff", delay=25.6, error="")
    app = make_app(e)

    async def check(pilot):
        head = "\n".join(screen_text(app).splitlines()[:2])
        assert "● synced" in head
        assert "✕ 410 Expired: too old resource version · retry in 24.6s (back-off 25.6s)" in head

    run(check, app, (200, 30))


def test_header_keeps_the_resync_period_at_80_columns():
    app = make_app(info=info(resync_period=5.0, demo_scenario="steady"))

    async def check(pilot):
        assert "resync 5s" in screen_text(app).splitlines()[0]

    run(check, app, (80, 24))
