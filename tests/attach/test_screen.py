"""The attach screen driven in-process (Textual's run_test), fed pages in
client-go's form: cards, sparklines and the backing-up sentence."""

import asyncio
import threading

from kubectl_informer.attach.model import AttachModel
from kubectl_informer.attach.page import parse_page
from kubectl_informer.tui.attach import AttachApp
from kubectl_informer.tui.attach_cards import QueueCard
from tests.tui.helpers import until

from .pages import client_go_page, controller_manager_page, controller_runtime_page

LAT_1 = [0, 0, 0, 1, 4, 8, 10, 10, 10, 10]
LAT_2 = [0, 0, 0, 1, 4, 8, 30, 40, 40, 40]


def screen_text(app) -> str:
    return "\n".join(str(w.render()) for w in app.query("Static"))


def test_cards_show_each_queue_and_controller_and_flag_the_backlog():
    model = AttachModel()
    model.update(parse_page(client_go_page(depth=2, adds=100, retries=4, latency_cum=LAT_1, work_cum=LAT_1), 10.0))
    lock = threading.Lock()

    async def go():
        app = AttachApp(model, lock, "http://127.0.0.1:8080/metrics")
        async with app.run_test(size=(140, 40)) as pilot:
            await pilot.pause()
            with lock:
                model.update(
                    parse_page(client_go_page(depth=20, adds=150, retries=9, latency_cum=LAT_2, work_cum=LAT_1), 12.0)
                )
                model.update(
                    parse_page(
                        controller_runtime_page(
                            success=3,
                            errors=1,
                            requeue=0,
                            active=2,
                            depth_p0=1,
                            depth_p1=0,
                            adds=5,
                            latency_cum=[0] * 12,
                        ),
                        12.5,
                    )
                )
            app.refresh_model()
            await pilot.pause()
            app.refresh_model()  # cards mounted on the frame before show their figures now
            await pilot.pause()
            text = screen_text(app)
            cards = {c.text.render().plain.split("\n")[0]: c for c in app.query("#cards QueueCard")}
            dep = cards["workqueue deployment"].sparks
            spark = [dep.lines[n].data for n in ("depth", "adds/s", "retries/s")]
            labels = [str(dep.labels[n].render()) for n in ("depth", "adds/s", "retries/s")]
            assert len(app.query("#cards Sparkline")) == 3 * 3 + 2  # three queue cards, one controller card
            await pilot.press("q")
            return text, cards, spark, labels

    text, cards, spark, labels = asyncio.run(go())
    assert "attach · scrape 3 · http://127.0.0.1:8080/metrics" in text
    assert "deployment is backing up: depth rose from 2 to 20" in text
    assert "controller memcached  reconciles error" in text and "workers 2/4 active" in text
    assert "rest client: 200 " in text
    assert set(cards) == {"workqueue deployment", "workqueue replicaset", "workqueue memcached"}
    # The deployment card's sparklines: depth, adds/s, retries/s per scrape.
    assert spark == [[2.0, 20.0], [0.0, 25.0], [0.0, 2.5]]
    assert labels == ["depth ≤20", "adds/s ≤25", "retries/s ≤2.5"]


# --- a kube-controller-manager: 50 workqueues ---------------------------------------


def kcm_model(scrapes: int = 3) -> AttachModel:
    model = AttachModel()
    for i in range(scrapes):
        model.update(parse_page(controller_manager_page(i), 10.0 + i))
    return model


def drive(model, check, size=(160, 45)):
    lock = threading.Lock()

    async def go():
        app = AttachApp(model, lock, "https://127.0.0.1:10257/metrics")
        async with app.run_test(size=size) as pilot:
            for _ in range(3):  # cards mount on one frame, show their figures on the next
                await pilot.pause()
                app.refresh_model()
            return await check(app, pilot)

    return asyncio.run(go())


def table_lines(app) -> list[str]:
    return app.table.render().plain.split("\n")


def test_fifty_queues_are_a_table_busiest_first_with_a_hint_for_the_rest():
    async def check(app, pilot):
        assert app.table_mode and app.table.display and not app.query("#cards QueueCard")
        lines = table_lines(app)
        return lines, app.table.size.height, str(app.detail.text.render())

    lines, height, detail = drive(kcm_model(), check)
    assert lines[0].split()[:3] == ["QUEUE", "DEPTH", "ADDS/S"]
    names = [ln.split()[0] for ln in lines[1:-1]]
    # depth first (namespace 30, deployment 25, replicaset 12, gc 3), then adds/s, then retries/s.
    assert names[:7] == [
        "namespace",
        "deployment",
        "replicaset",
        "garbage_collector_graph_changes",
        "endpoint_slice",
        "endpoint",
        "job",
    ]
    assert names[7:] == sorted(names[7:])  # idle ones by name
    shown = len(names)
    assert shown == height - 2 and lines[-1].startswith(f"▼ {50 - shown} more")
    # The cursor starts on the busiest queue; its card, under the table, says where its percentiles lie.
    assert detail.startswith("workqueue namespace")


def test_estimated_percentiles_are_marked_and_their_bucket_given():
    async def check(app, pilot):
        await pilot.press("down")  # deployment: every reconcile takes 200ms, all in the (100ms, 1s] bucket
        await pilot.pause()
        return table_lines(app), str(app.detail.text.render())

    lines, detail = drive(kcm_model(), check)
    row = next(ln for ln in lines if ln.startswith("deployment"))
    assert "≈550ms" in row.split() and "550ms" not in [c for c in row.split() if not c.startswith("≈")]
    assert "work duration p50 ≈550ms p99 ≈991ms" in detail
    assert "work p50 100ms–1s, p99 100ms–1s" in detail and "estimated inside histogram buckets" in detail
    assert "latency p50 1.0ms–10ms" in detail


def test_the_filter_narrows_the_queues_and_cards_come_back_under_seven():
    async def check(app, pilot):
        await pilot.press("slash", *"garbage")
        await pilot.pause()
        app.refresh_model()
        await pilot.pause()
        typed = (app.filter_input.display, app.table_mode, str(app.status.render()))
        await pilot.press("enter")
        for _ in range(3):
            await pilot.pause()
            app.refresh_model()
        cards = [str(c.text.render()).split("\n")[0] for c in app.query("#cards QueueCard") if c.display]
        inverted_hint = None
        await pilot.press("slash", "home", "exclamation_mark", "enter")
        await pilot.pause()
        app.refresh_model()
        await pilot.pause()
        inverted_hint = (app.table_mode, len(app.shown))
        await pilot.press("escape")
        await pilot.pause()
        app.refresh_model()
        return typed, cards, inverted_hint, (app.key_filter.text, len(app.shown), app.table_mode)

    typed, cards, inverted, cleared = drive(kcm_model(), check)
    shown, table, status = typed
    assert shown and not table and "/garbage: 3 of 50 queues" in status
    # Three queues: cards, busiest first.
    assert cards == [
        "workqueue garbage_collector_graph_changes",
        "workqueue garbage_collector_attempt_to_delete",
        "workqueue garbage_collector_attempt_to_orphan",
    ]
    assert inverted == (True, 47)  # !garbage: every other queue, a table again
    assert cleared == ("", 50, True)


def test_cards_say_how_many_are_off_screen_and_t_switches():
    async def check(app, pilot):
        await pilot.press("t")
        for _ in range(3):
            await pilot.pause()
            app.refresh_model()
        first = (app.table_mode, str(app.hint.render()))
        await pilot.press("pagedown")
        for _ in range(2):
            await pilot.pause()
            app.refresh_model()
        second = str(app.hint.render())
        await pilot.press("t")
        await pilot.pause()
        return first, second, app.table_mode

    (table, hint), scrolled, back = drive(kcm_model(), check)
    assert not table and back
    above_below = hint.split("  (")[0]
    assert above_below.startswith("▼ ") and above_below.endswith(" more")
    hidden = int(above_below.split()[1])
    assert 40 <= hidden <= 44  # 6 or 7 cards of 6 rows in the 42 rows under the status line
    assert scrolled.startswith("▲ ") and "above · ▼ " in scrolled
    up, down = int(scrolled.split()[1]), int(scrolled.split("▼ ")[1].split()[0])
    assert up > 0 and down < hidden


def test_question_mark_opens_attachs_help_and_escape_closes_it():
    from kubectl_informer.tui.help import HelpScreen

    model = AttachModel()
    model.update(parse_page(client_go_page(depth=2, adds=100, retries=4, latency_cum=LAT_1, work_cum=LAT_1), 10.0))

    async def go():
        app = AttachApp(model, threading.Lock(), "http://127.0.0.1:8080/metrics")
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.press("question_mark")
            assert isinstance(app.screen, HelpScreen)
            update = app.screen._compositor.render_update(full=True)
            text = "\n".join("".join(s.text for s in line) for line in update.strips)
            assert "kubectl informer attach: keys" in text and "table (every queue" in text
            await pilot.press("escape")
            assert not isinstance(app.screen, HelpScreen)

    asyncio.run(go())


def test_a_narrow_table_drops_columns_instead_of_wrapping_each_row():
    """With --resource pods the table gets half of 160 columns: its rows were
    wrapped onto two lines each; now the least needed columns go, k9s-like."""

    async def check(app, pilot):
        return table_lines(app), app.table.content_region.width

    lines, width = drive(kcm_model(), check, size=(80, 30))
    assert all(len(ln) <= width for ln in lines)
    assert lines[0].split()[:4] == ["QUEUE", "DEPTH", "ADDS/S", "RETRIES/S"]
    assert "LONGEST" not in lines[0] and "(last scrapes)" not in lines[0]
    wide, _ = drive(kcm_model(), check)
    assert "LONGEST" in wide[0] and "DEPTH (last scrapes)" in wide[0]


def test_the_status_line_keeps_the_scrape_count_at_80_columns():
    async def check(app, pilot):
        return str(app.status.render()).splitlines()

    lines = drive(kcm_model(), check, size=(80, 24))
    assert len(lines) == 1 and lines[0].startswith("attach · scrape 3 · ")


def _with_cards_shown(step) -> None:
    """Run ``await step(app, shown)`` on an attach screen of one page once its cards are
    composed and shown (a tick after their mount: no refresh is then due that would mount
    or move cards under the step)."""
    model = AttachModel()
    model.update(parse_page(client_go_page(depth=2, adds=100, retries=4, latency_cum=LAT_1, work_cum=LAT_1), 10.0))

    async def go():
        app = AttachApp(model, threading.Lock(), "http://127.0.0.1:8080/metrics")
        async with app.run_test(size=(120, 40)) as pilot:
            assert await until(pilot, lambda: app._shown == model.version)
            shown = list(app.shown)
            assert shown and all(c.parent is app.cards for c in app.queue_cards.values())
            await step(pilot, app, shown)

    asyncio.run(go())


def test_a_card_whose_mount_was_refused_is_mounted_later_not_moved():
    """Textual does not mount into a container that is closing: a refresh in
    that moment left a card that the next refresh moved, and move_child raised
    WidgetError ("QueueCard() is not a child of VerticalScroll") at the exit."""

    async def step(pilot, app, shown):
        app.queue_cards.clear()
        for card in list(app.cards.query(QueueCard)):
            await card.remove()
        app.cards._closing = True  # what Textual sets on a container it is tearing down
        try:
            app._cards(app.queue_cards, QueueCard, shown)  # the mount is refused: no parent
        finally:
            app.cards._closing = False
        refused = next(iter(app.queue_cards.values()))
        assert refused.parent is None
        app._cards(app.queue_cards, QueueCard, shown)  # raised WidgetError before
        await pilot.pause()
        assert refused.parent is app.cards

    _with_cards_shown(step)


def test_a_refresh_while_the_screen_is_torn_down_places_no_card():
    """At the app's exit Textual prunes the cards' container: a refresh in that moment
    moved a card before ``others``, no longer a child, and raised WidgetError."""

    async def step(pilot, app, shown):
        await app.others.remove()  # what the teardown does to the container's children
        app._cards(app.queue_cards, QueueCard, shown)  # raised WidgetError before

    _with_cards_shown(step)
