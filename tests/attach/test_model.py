"""Pages in client-go's and controller-runtime's exact form (see pages.py for
where each came from) through the parser and the model."""

import pytest

from kubectl_informer.attach.model import AttachModel
from kubectl_informer.attach.page import NotPrometheusText, parse_page
from kubectl_informer.attach.report import model_dict, model_lines

from .pages import CB_BOUNDS, client_go_page, controller_runtime_page

#          1e-6 1e-5 1e-4 1ms 10ms 100ms 1s  10s 100s 1000s
LAT_1 = [0, 0, 0, 1, 4, 8, 10, 10, 10, 10]
LAT_2 = [0, 0, 0, 1, 4, 8, 30, 40, 40, 40]  # 30 more observations, mostly slow
WORK = [0, 0, 0, 0, 2, 10, 10, 10, 10, 10]


def feed(model, text, t):
    model.update(parse_page(text, t))


def test_client_go_page_figures_per_queue():
    m = AttachModel(rate_window=5.0)
    feed(m, client_go_page(depth=2, adds=100, retries=4, latency_cum=LAT_1, work_cum=WORK), 10.0)
    feed(
        m,
        client_go_page(depth=20, adds=150, retries=9, latency_cum=LAT_2, work_cum=WORK, unfinished=3.5, longest=2.0),
        12.0,
    )
    q = m.queues["deployment"]
    assert set(m.queues) == {"deployment", "replicaset"}
    assert (q.depth, q.adds_total, q.retries_total) == (20, 150, 9)
    assert q.adds_per_s == pytest.approx(50 / 2.0)
    assert q.retries_per_s == pytest.approx(5 / 2.0)
    assert q.drain_per_s == pytest.approx(30 / 2.0)  # gets: queue latency observations
    assert (q.unfinished, q.longest) == (3.5, 2.0)
    # p50/p99 over the 30 observations between the scrapes: 20 in (0.1, 1], 10 in (1, 10].
    assert q.latency_p50 == pytest.approx(0.1 + 0.9 * 15 / 20)
    assert q.latency_p99 == pytest.approx(1 + 9 * (29.7 - 20) / 10)
    # No work observed between them: the totals' quantile (10 in (10ms, 100ms] after 2 <= 10ms).
    assert q.work_p50 == pytest.approx(0.01 + 0.09 * (5 - 2) / 8)
    assert (q.latency_count, q.latency_sum) == (40, 1.5)
    assert m.rest == {"200": (107, pytest.approx(0.0)), "409": (2, 0.0)}
    assert m.controllers == {} and m.reflectors == {}


def test_a_queue_filling_faster_than_it_drains_is_flagged_with_the_reason():
    m = AttachModel(rate_window=5.0)
    feed(m, client_go_page(depth=2, adds=100, retries=4, latency_cum=LAT_1, work_cum=WORK), 10.0)
    feed(m, client_go_page(depth=20, adds=150, retries=9, latency_cum=LAT_2, work_cum=WORK), 12.0)
    q = m.queues["deployment"]
    assert q.backing_up is not None
    assert "depth rose from 2 to 20 in 2s" in q.backing_up
    assert "adds (25.0/s) outpace what its workers take off the queue (15.0/s)" in q.backing_up
    assert any(line.startswith("  ! deployment is backing up") for line in model_lines(m))
    assert m.queues["replicaset"].backing_up is None


def test_depth_growing_while_draining_faster_is_not_flagged():
    m = AttachModel()
    lat_more = [0, 0, 0, 1, 4, 8, 70, 70, 70, 70]  # 60 gets while 50 adds
    feed(m, client_go_page(depth=2, adds=100, retries=0, latency_cum=LAT_1, work_cum=WORK), 10.0)
    feed(m, client_go_page(depth=3, adds=150, retries=0, latency_cum=lat_more, work_cum=WORK), 12.0)
    assert m.queues["deployment"].backing_up is None


def test_controller_runtime_page_per_controller_and_priority_depth():
    lat = [0, 0, 0, 0, 0, 0, 5, 10, 10, 10, 10, 10]
    lat2 = [0, 0, 0, 0, 0, 0, 5, 20, 30, 30, 30, 30]
    m = AttachModel()
    feed(
        m,
        controller_runtime_page(
            success=10, errors=1, requeue=2, active=1, depth_p0=3, depth_p1=1, adds=20, latency_cum=lat
        ),
        100.0,
    )
    feed(
        m,
        controller_runtime_page(
            success=20, errors=5, requeue=2, active=3, depth_p0=4, depth_p1=2, adds=40, latency_cum=lat2, reflector=True
        ),
        102.0,
    )
    q = m.queues["memcached"]
    assert q.controller == "memcached"
    assert q.depth == 6  # priority "" and "1" add up
    assert q.adds_per_s == pytest.approx(10.0)
    assert q.retries_total == 5
    assert (q.unfinished, q.longest) == (0.5, 0.25)
    assert q.work_p50 is None  # a histogram with no observations at all
    c = m.controllers["memcached"]
    assert c.reconciles_total == {"error": 5, "requeue": 2, "requeue_after": 0, "success": 20}
    assert c.reconciles_per_s["success"] == pytest.approx(5.0)
    assert c.reconciles_per_s["error"] == pytest.approx(2.0)
    assert c.errors_per_s == pytest.approx(2.0)
    assert (c.active, c.max_workers) == (3, 4)
    assert m.rest["201"][0] == 3
    assert list(m.reflectors.values()) == [(2, 5)]
    d = model_dict(m, "x")
    assert d["controllers"]["memcached"]["active"] == 3
    assert "reconcile_history" not in d["controllers"]["memcached"]
    text = "\n".join(model_lines(m))
    assert "workers 3/4 active" in text and "informer sigs.k8s.io" in text and "lists 2 · watches 5" in text


def test_a_counter_reset_is_a_restart_not_a_negative_rate():
    m = AttachModel()
    feed(m, client_go_page(depth=0, adds=500, retries=0, latency_cum=LAT_1, work_cum=WORK), 1.0)
    feed(m, client_go_page(depth=0, adds=10, retries=0, latency_cum=LAT_1, work_cum=WORK), 2.0)
    assert m.queues["deployment"].adds_per_s == pytest.approx(10.0)


def test_history_is_bounded():
    from kubectl_informer.attach.model import HISTORY

    m = AttachModel()
    scrapes = HISTORY + 5  # past the bound (120 points), and well past the 30 s window
    for i in range(scrapes):
        feed(m, client_go_page(depth=i, adds=i, retries=0, latency_cum=LAT_1, work_cum=WORK), float(i))
    q = m.queues["deployment"]
    assert HISTORY == 120 and len(q.depth_history) == 120 and list(q.depth_history)[0] == scrapes - 120
    assert q.depth_history[-1] == scrapes - 1
    assert len(m.points) <= 32  # 30 s of 1 s scrapes


@pytest.mark.parametrize("body", ["<html><body>Login</body></html>", '{"kind":"Status","code":403}', "", "ok"])
def test_what_is_not_prometheus_text(body):
    with pytest.raises(NotPrometheusText):
        parse_page(body, 0.0)


def test_bucket_bounds_are_read_as_go_prints_them():
    page = parse_page(client_go_page(depth=0, adds=0, retries=0, latency_cum=LAT_1, work_cum=WORK), 0.0)
    h = page.histograms("workqueue_queue_duration_seconds", "name")["deployment"]
    assert [b for b, _ in h.buckets][:-1] == [float(x) for x in CB_BOUNDS]
    assert h.buckets[1][0] == 9.999999999999999e-06


def test_other_families_are_skipped_and_a_page_without_workqueues_says_so():
    runtime = "".join(f'go_gc_duration_seconds{{quantile="{i / 100}"}} {i}\n' for i in range(80))
    page = parse_page(runtime + client_go_page(depth=4, adds=1, retries=0, latency_cum=LAT_1, work_cum=WORK), 0.0)
    assert "go_gc_duration_seconds" not in page.samples
    assert page.by("workqueue_depth", "name")["deployment"] == 4
    m = AttachModel()
    m.update(parse_page(runtime, 1.0))
    assert m.queues == {} and model_lines(m) == [
        "no workqueue or controller metrics on this page (is it a client-go controller's?)",
        "informers: this page has none of client-go 1.36's informer_* series (an older process, or its "
        "informers have no reserved name): no informer rows",
    ]
    # Garbage in the head is refused by the parser even among skipped families.
    with pytest.raises(NotPrometheusText, match="invalid metric name"):
        parse_page("<html>\n" + runtime, 0.0)


def test_rates_before_a_second_scrape_are_unknown_not_zero():
    """The first scrape has totals but no rates: `adds 0.0/s` read as an idle
    queue; it says `–` until a second scrape gives a rate."""
    from kubectl_informer.panes.attach_view import table_row

    m = AttachModel(rate_window=5.0)
    feed(m, client_go_page(depth=2, adds=100, retries=4, latency_cum=LAT_1, work_cum=WORK), 10.0)
    q = m.queues["deployment"]
    assert not q.rated
    assert table_row(q)[2:5] == ("–", "–", "–")
    text = "\n".join(model_lines(m))
    assert "adds – (100)" in text and "0.0/s" not in text
    feed(m, client_go_page(depth=20, adds=150, retries=9, latency_cum=LAT_2, work_cum=WORK), 12.0)
    assert q.rated and table_row(q)[2] == "25.0"
    assert "adds 25.0/s (150)" in "\n".join(model_lines(m))
