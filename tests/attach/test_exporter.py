"""queue --metrics-addr's exporter: client-go's names, label and buckets, the
queue's own values at each scrape (FakeClock, so every figure is exact)."""

import socket

import pytest

from kubectl_informer.attach.exporter import MetricsExporter, parse_metrics_addr
from kubectl_informer.attach.page import parse_page
from kubectl_informer.attach.scrape import UrlScraper
from kubectl_informer.run.sample_controller import SimulatedController
from kubectl_informer.workqueue import ItemExponentialFailureRateLimiter
from kubectl_informer.workqueue.metrics import BUCKETS
from tests.security.in_process import run_in_process
from tests.test_sample_controller import FakeInformer

CLIENT_GO_NAMES = {  # component-base/metrics/prometheus/workqueue/metrics.go
    "workqueue_depth",
    "workqueue_adds_total",
    "workqueue_queue_duration_seconds_bucket",
    "workqueue_queue_duration_seconds_count",
    "workqueue_queue_duration_seconds_sum",
    "workqueue_work_duration_seconds_bucket",
    "workqueue_work_duration_seconds_count",
    "workqueue_work_duration_seconds_sum",
    "workqueue_unfinished_work_seconds",
    "workqueue_longest_running_processor_seconds",
    "workqueue_retries_total",
}


@pytest.fixture
def served(clock):
    ctrl = SimulatedController(
        FakeInformer(), workers=3, work_time=0, clock=clock, rate_limiter=ItemExponentialFailureRateLimiter(10.0, 100.0)
    )
    exporter = MetricsExporter("127.0.0.1:0")
    exporter.serve(ctrl)
    yield ctrl, UrlScraper(exporter.url)
    exporter.stop()


def values(page, name):
    return {tuple(sorted(labels.items())): v for labels, v in page.samples[name]}


def test_the_page_has_client_gos_names_labels_and_buckets(served, clock):
    ctrl, scraper = served
    q = ctrl.queue
    q.add("a")
    q.add("b")
    clock.step(0.002)
    item, _ = q.get()  # waited 2 ms
    clock.step(0.5)
    q.done(item)  # worked 500 ms
    q.add_rate_limited("c")  # a retry, parked 10 s: not back within this test
    item, _ = q.get()  # "b", still processing below
    clock.step(3.0)
    page = parse_page(scraper.fetch(), 0.0)

    wq = {n for n in page.samples if n.startswith("workqueue_")}
    assert wq == CLIENT_GO_NAMES
    for name in wq:
        for labels, _ in page.samples[name]:
            assert set(labels) == ({"name", "le"} if name.endswith("_bucket") else {"name"})
            assert labels["name"] == "controller"
    assert values(page, "workqueue_depth") == {(("name", "controller"),): 0}
    assert values(page, "workqueue_adds_total") == {(("name", "controller"),): 2}
    assert values(page, "workqueue_retries_total") == {(("name", "controller"),): 1}
    assert values(page, "workqueue_unfinished_work_seconds") == {(("name", "controller"),): 3.0}
    assert values(page, "workqueue_longest_running_processor_seconds") == {(("name", "controller"),): 3.0}
    lat = page.histograms("workqueue_queue_duration_seconds", "name")["controller"]
    assert [b for b, _ in lat.buckets] == [*BUCKETS, float("inf")]
    # "a" waited 2 ms (le 0.01), "b" 502 ms (le 1).
    assert [c for _, c in lat.buckets] == [0, 0, 0, 0, 1, 1, 2, 2, 2, 2, 2]
    assert (lat.count, lat.sum) == (2, pytest.approx(0.002 + 0.502))
    work = page.histograms("workqueue_work_duration_seconds", "name")["controller"]
    assert [c for _, c in work.buckets] == [0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1]
    assert (work.count, work.sum) == (1, pytest.approx(0.5))
    assert values(page, "controller_runtime_max_concurrent_reconciles") == {(("controller", "controller"),): 3}
    assert set(values(page, "controller_runtime_reconcile_total")) == {
        (("controller", "controller"), ("result", "success")),
        (("controller", "controller"), ("result", "error")),
    }


def test_bounds_are_printed_as_a_go_process_prints_them(served):
    _, scraper = served
    text = scraper.fetch()
    assert 'workqueue_queue_duration_seconds_bucket{le="9.999999999999999e-06",name="controller"} 0.0' in text
    assert "# TYPE workqueue_work_duration_seconds histogram" in text


def test_metrics_addr_forms():
    assert parse_metrics_addr("127.0.0.1:9100") == ("127.0.0.1", 9100)
    assert parse_metrics_addr(":9100") == ("127.0.0.1", 9100)
    for bad in ("9100", "host:", "h:99999", "h:x"):
        with pytest.raises(ValueError):
            parse_metrics_addr(bad)


def test_queue_metrics_addr_errors_are_one_line():
    def run(*args):
        # The CLI's code in this process (tests/security/in_process.py): the words and exit codes are its.
        return run_in_process("queue", *args)

    for addr in ("nonsense", "127.0.0.1:0"):
        r = run("--demo", "quiet", "-o", "json", "--duration", "1s", "--metrics-addr", addr)
        assert r.returncode == 2 and r.stderr.startswith("error: invalid value for '--metrics-addr'"), r.stderr
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        # Ends at the bind, right after start-up: the duration only must not
        # come first (1 s did, on a loaded machine, before the demo answered).
        r = run("--demo", "quiet", "-o", "json", "--duration", "30s", "--metrics-addr", f"127.0.0.1:{port}")
    assert (r.returncode, r.stderr) == (1, f"error: cannot serve metrics on 127.0.0.1:{port}: Address already in use\n")


def test_the_page_is_a_503_until_the_run_serves_a_queue(clock):
    """A `curl -f` loop (docs/attach.md) waits for the page: before the run's
    queue exists it must fail, not pass with an empty page."""
    import urllib.error
    import urllib.request

    exporter = MetricsExporter("127.0.0.1:0")
    try:
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(exporter.url, timeout=10)
        assert refused.value.code == 503 and refused.value.headers["Retry-After"] == "1"
        exporter.serve(SimulatedController(FakeInformer(), workers=1, work_time=0, clock=clock))
        with urllib.request.urlopen(exporter.url, timeout=10) as answer:
            assert answer.status == 200 and b"workqueue_depth" in answer.read()
    finally:
        exporter.stop()


def test_informer_series_with_client_gos_names_and_labels():
    """component-base's clientgo/fifo series, one label set per reserved informer."""
    from prometheus_client import generate_latest
    from prometheus_client.parser import text_string_to_metric_families
    from prometheus_client.registry import CollectorRegistry

    from kubectl_informer.attach.exporter import InformerCollector
    from kubectl_informer.cache.informer_metrics import (
        GroupVersionResource,
        InformerMetricsRegistry,
        new_informer_name,
        reset_informer_names_for_testing,
    )
    from kubectl_informer.cache.store import Store

    reset_informer_names_for_testing()
    reg = InformerMetricsRegistry()
    name = new_informer_name("kube-controller-manager")
    try:
        ident = name.with_resource(GroupVersionResource("apps", "v1", "replicasets"))
        store = Store(identifier=ident, metrics_provider=reg)
        store.bookmark("1234567890123456789")
        latency = reg.new_processing_latency_metric(ident)
        latency.observe(0.003)
        registry = CollectorRegistry(auto_describe=False)
        registry.register(InformerCollector(reg))
        text = generate_latest(registry).decode()
    finally:
        name.release()
    samples: dict[str, dict] = {}
    for family in text_string_to_metric_families(text):
        for smp in family.samples:
            samples.setdefault(smp.name, {})[tuple(sorted(smp.labels.items()))] = smp.value
    labels = (("group", "apps"), ("name", "kube-controller-manager"), ("resource", "replicasets"), ("version", "v1"))
    assert samples["informer_store_resource_version"] == {labels: 567890123456789.0}
    assert samples["informer_queued_items"] == {labels: 0.0}
    buckets = {dict(k)["le"]: v for k, v in samples["informer_processing_latency_seconds_bucket"].items()}
    assert list(buckets) == [
        "0.001",
        "0.005",
        "0.01",
        "0.025",
        "0.05",
        "0.1",
        "0.25",
        "0.5",
        "1",
        "2.5",
        "5",
        "10",
        "+Inf",
    ]  # as a Go process writes them
    assert buckets["0.001"] == 0 and buckets["0.005"] == 1 and buckets["+Inf"] == 1
    assert samples["informer_processing_latency_seconds_count"] == {labels: 1.0}
