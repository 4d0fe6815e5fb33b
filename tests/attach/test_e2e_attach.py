"""attach against our own ``queue --metrics-addr`` while a scenario churns:
real HTTP from the exporter to the scraper, prometheus_client's parser, and
the model; the figures must be the queue's own."""

import time

import pytest

from kubectl_informer.attach.exporter import MetricsExporter
from kubectl_informer.attach.model import AttachModel
from kubectl_informer.attach.quantile import histogram_quantile
from kubectl_informer.attach.report import model_lines
from kubectl_informer.attach.scrape import UrlScraper, scrape
from kubectl_informer.clock.testing import wait_for
from kubectl_informer.core.trace import Tracer
from kubectl_informer.run.config import RunConfig
from kubectl_informer.run.runner import Run
from kubectl_informer.workqueue.metrics import BUCKETS

pytestmark = pytest.mark.e2e


def own_quantile(q, summary):
    return histogram_quantile(q, list(zip(BUCKETS, summary.buckets, strict=True)) + [(float("inf"), summary.count)])


def quiescent(run):
    """Churn stopped, the informer caught up, every item done and nothing waiting."""
    q = run.controller.queue
    before = q.metrics()
    time.sleep(0.3)  # real time for the informer's last events to arrive; the check below decides
    now = q.metrics()
    return (
        now.adds == before.adds
        and now.depth == 0
        and not q.processing()
        and not q.waiting()
        and run.controller.stats()["active"] == 0
    )


def test_attach_figures_equal_the_queues_own():
    opts = RunConfig.from_flags(
        resource="pods",
        namespace="default",
        demo="steady",
        mode="queue",
        workers=2,
        work_time=0.02,
        fail_rate=0.3,
        rate_limiter="exponential:5ms,40ms",
        seed=7,
    )
    run = Run(opts, Tracer())
    run.prepare()
    exporter = MetricsExporter("127.0.0.1:0")
    try:
        run.start()
        exporter.serve(run.controller)
        scraper = UrlScraper(exporter.url)
        model = AttachModel(rate_window=0.2, quantile_window=0.5)  # rates and quantiles between the last two scrapes
        saw_rate = False
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and not (saw_rate and model.scrapes >= 4):
            model.update(scrape(scraper))
            q = model.queues.get("controller")
            saw_rate |= bool(q and q.adds_per_s > 0 and q.drain_per_s > 0)
            time.sleep(0.25)
        assert saw_rate, "the churn never showed as adds/s and drain/s"

        run.demo.runner.stop()
        assert wait_for(lambda: quiescent(run), timeout=30.0)
        # Two quiescent scrapes stamped a window apart, so the window holds no
        # observations and p50/p99 are over all of them, as the queue's own buckets.
        t = time.monotonic()
        model.update(scrape(scraper, now=t + 1.0))
        model.update(scrape(scraper, now=t + 2.0))

        own = run.controller.queue.metrics()
        stats = run.controller.stats()
        q = model.queues["controller"]
        assert q.depth == own.depth == 0
        assert q.adds_total == own.adds > 0
        assert q.retries_total == own.retries > 0
        assert q.adds_per_s == 0 and q.retries_per_s == 0 and q.drain_per_s == 0
        assert q.latency_count == own.queue_latency.count and q.work_count == own.work_duration.count
        assert q.latency_sum == pytest.approx(own.queue_latency.sum, rel=1e-12)
        assert q.work_sum == pytest.approx(own.work_duration.sum, rel=1e-12)
        assert q.latency_p50 == pytest.approx(own_quantile(0.5, own.queue_latency))
        assert q.latency_p99 == pytest.approx(own_quantile(0.99, own.queue_latency))
        assert q.work_p50 == pytest.approx(own_quantile(0.5, own.work_duration))
        assert q.work_p99 == pytest.approx(own_quantile(0.99, own.work_duration))
        assert (q.unfinished, q.longest) == (own.unfinished_work_seconds, own.longest_running_processor_seconds)
        assert q.backing_up is None
        c = model.controllers["controller"]
        assert c.reconciles_total == {"error": stats["failures"], "success": stats["processed"] - stats["failures"]}
        assert c.errors_total == stats["failures"] > 0
        assert (c.active, c.max_workers) == (0, 2)
        shown = "\n".join(model_lines(model))
        assert f"adds 0.0/s ({own.adds})" in shown and f"retries 0.0/s ({own.retries})" in shown
    finally:
        exporter.stop()
        run.stop()
