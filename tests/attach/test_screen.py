"""The attach screen driven in-process (Textual's run_test), fed pages in
client-go's form: cards, sparklines and the backing-up sentence."""

import asyncio
import threading

from textual.widgets import Sparkline

from kubectl_informer.attach.model import AttachModel
from kubectl_informer.attach.page import parse_page
from kubectl_informer.tui.attach import AttachApp, QueueCard

from .pages import client_go_page, controller_runtime_page

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
                model.update(parse_page(client_go_page(depth=20, adds=150, retries=9, latency_cum=LAT_2,
                                                       work_cum=LAT_1), 12.0))
                model.update(parse_page(controller_runtime_page(success=3, errors=1, requeue=0, active=2,
                                                                depth_p0=1, depth_p1=0, adds=5,
                                                                latency_cum=[0] * 12), 12.5))
            app.refresh_model()
            await pilot.pause()
            app.refresh_model()  # cards mounted on the frame before show their figures now
            await pilot.pause()
            text = screen_text(app)
            cards = {c.text.render().plain.split("\n")[0]: c for c in app.query(QueueCard)}
            dep = cards["workqueue deployment"].sparks
            spark = [dep.lines[n].data for n in ("depth", "adds/s", "retries/s")]
            labels = [str(dep.labels[n].render()) for n in ("depth", "adds/s", "retries/s")]
            assert len(app.query(Sparkline)) == 3 * 3 + 2  # three queue cards, one controller card
            await pilot.press("q")
            return text, cards, spark, labels

    text, cards, spark, labels = asyncio.run(go())
    assert "attach http://127.0.0.1:8080/metrics · scrape 3" in text
    assert "deployment is backing up: depth rose from 2 to 20" in text
    assert "controller memcached  reconciles error" in text and "workers 2/4 active" in text
    assert "rest client: 200 " in text
    assert set(cards) == {"workqueue deployment", "workqueue replicaset", "workqueue memcached"}
    # The deployment card's sparklines: depth, adds/s, retries/s per scrape.
    assert spark == [[2.0, 20.0], [0.0, 25.0], [0.0, 2.5]]
    assert labels == ["depth ≤20", "adds/s ≤25", "retries/s ≤2.5"]
