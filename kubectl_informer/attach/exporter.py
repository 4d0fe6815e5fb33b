"""``queue --metrics-addr``: our simulated controller's metrics, served the
way a Go controller serves them, so ``attach`` (and a user's Prometheus)
can read the model like any controller.

The workqueue series carry client-go's names, label (``name``) and buckets
(component-base's ``metrics/prometheus/workqueue``); the simulated workers
stand in for a reconciler, so their totals go out as controller-runtime's
``controller_runtime_*`` series (``controller`` label; result ``success``
or ``error``). Values are read from the queue's own ``metrics()`` at each
scrape, as client-go's provider would hold them; nothing is counted twice.

The informers' series are client-go 1.36's (component-base's
``metrics/prometheus/clientgo/fifo``): ``informer_queued_items``,
``informer_processing_latency_seconds`` and ``informer_store_resource_version``,
labels name, group, version, resource, one set per reserved informer identity.
The exporter is the process's informer metrics provider
(``set_informer_metrics_provider``, set once, as component-base registers it).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, TypeVar

from prometheus_client import start_http_server
from prometheus_client.core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
)
from prometheus_client.registry import CollectorRegistry
from prometheus_client.utils import floatToGoString

from kubectl_informer.cache.informer_metrics import (
    PROCESSING_LATENCY_BUCKETS,
    InformerMetricsRegistry,
    informer_metrics_provider,
    set_informer_metrics_provider,
)
from kubectl_informer.workqueue.metrics import BUCKETS

HELP = {
    "depth": "Current depth of workqueue",
    "adds": "Total number of adds handled by workqueue",
    "queue_duration_seconds": "How long in seconds an item stays in workqueue before being requested.",
    "work_duration_seconds": "How long in seconds processing an item from workqueue takes.",
    "unfinished_work_seconds": "How many seconds of work has done that is in progress and hasn't been observed "
    "by work_duration. Large values indicate stuck threads. One can deduce the number "
    "of stuck threads by observing the rate at which this increases.",
    "longest_running_processor_seconds": "How many seconds has the longest running processor for workqueue "
    "been running.",
    "retries": "Total number of retries handled by workqueue",
}

if TYPE_CHECKING:
    from kubectl_informer.workqueue.metrics import Summary

_Family = TypeVar("_Family", GaugeMetricFamily, CounterMetricFamily)


def _histogram(name: str, queue: str, summary: Summary) -> HistogramMetricFamily:
    h = HistogramMetricFamily("workqueue_" + name, HELP[name], labels=["name"])
    buckets = [
        (floatToGoString(b), float(c)) for b, c in zip(BUCKETS, summary.buckets or [0] * len(BUCKETS), strict=True)
    ]
    buckets.append(("+Inf", float(summary.count)))
    h.add_metric([queue], buckets, summary.sum)
    return h


class QueueCollector:
    """A prometheus_client collector over one controller's queue."""

    def __init__(self, controller: Any) -> None:
        self.controller = controller

    def collect(self) -> Iterator:
        c = self.controller
        m = c.queue.metrics()
        name = m.name or c.name
        yield _family(GaugeMetricFamily, "depth", name, m.depth)
        yield _family(CounterMetricFamily, "adds", name, m.adds)
        yield _histogram("queue_duration_seconds", name, m.queue_latency)
        yield _histogram("work_duration_seconds", name, m.work_duration)
        yield _family(GaugeMetricFamily, "unfinished_work_seconds", name, m.unfinished_work_seconds)
        yield _family(GaugeMetricFamily, "longest_running_processor_seconds", name, m.longest_running_processor_seconds)
        yield _family(CounterMetricFamily, "retries", name, m.retries)
        yield from _controller_families(c)


def _family(cls: type[_Family], key: str, queue: str, value: float) -> _Family:
    f = cls("workqueue_" + key, HELP[key], labels=["name"])
    f.add_metric([queue], float(value))
    return f


def _controller_families(c: Any) -> Iterator:
    s = c.stats()
    total = CounterMetricFamily(
        "controller_runtime_reconcile",
        "Total number of reconciliations per controller",
        labels=["controller", "result"],
    )
    total.add_metric([c.name, "success"], float(s["processed"] - s["failures"]))
    total.add_metric([c.name, "error"], float(s["failures"]))
    yield total
    errors = CounterMetricFamily(
        "controller_runtime_reconcile_errors",
        "Total number of reconciliation errors per controller",
        labels=["controller"],
    )
    errors.add_metric([c.name], float(s["failures"]))
    yield errors
    skips = getattr(c, "stale_sync_skips", None)
    if skips:
        # kube-controller-manager v1.36's <controller>_stale_sync_skips_total{group,resource}.
        stale = CounterMetricFamily(
            f"{c.name}_stale_sync_skips",
            "Total number of syncs skipped due to a stale watch cache.",
            labels=["group", "resource"],
        )
        for (group, resource), n in sorted(dict(skips).items()):
            stale.add_metric([group, resource], float(n))
        yield stale
    for metric, help_text, value in (
        ("controller_runtime_active_workers", "Number of currently used workers per controller", s["active"]),
        (
            "controller_runtime_max_concurrent_reconciles",
            "Maximum number of concurrent reconciles per controller",
            c.workers,
        ),
    ):
        g = GaugeMetricFamily(metric, help_text, labels=["controller"])
        g.add_metric([c.name], float(value))
        yield g


INFORMER_LABELS = ["name", "group", "version", "resource"]


class InformerCollector:
    """client-go 1.36's informer series from an ``InformerMetricsRegistry``."""

    def __init__(self, registry: InformerMetricsRegistry) -> None:
        self.registry = registry

    def collect(self) -> Iterator:
        queued = GaugeMetricFamily(
            "informer_queued_items", "Number of items currently queued in the FIFO.", labels=INFORMER_LABELS
        )
        latency = HistogramMetricFamily(
            "informer_processing_latency_seconds",
            "Time taken to process events after popping from the queue.",
            labels=INFORMER_LABELS,
        )
        rv = GaugeMetricFamily(
            "informer_store_resource_version",
            "The 15 least significant digits of the resource version of the store.",
            labels=INFORMER_LABELS,
        )
        for s in self.registry.series():
            labels = [s.id.name, s.id.gvr.group, s.id.gvr.version, s.id.gvr.resource]
            queued.add_metric(labels, s.queued_items)
            buckets = [
                (_go_float(b), float(c)) for b, c in zip(PROCESSING_LATENCY_BUCKETS, s.latency_buckets, strict=True)
            ]
            buckets.append(("+Inf", float(s.latency_count)))
            latency.add_metric(labels, buckets, s.latency_sum)
            rv.add_metric(labels, s.store_resource_version)
        yield queued
        yield latency
        yield rv


def _go_float(b: float) -> str:
    """A bucket bound as a Go process writes it: ``1``, not ``1.0``."""
    text = floatToGoString(float(b))
    return text[:-2] if text.endswith(".0") else text


def _informer_registry() -> InformerMetricsRegistry:
    """The process's provider: ours if none was set before (only the first counts)."""
    set_informer_metrics_provider(InformerMetricsRegistry())
    provider = informer_metrics_provider()
    return provider if isinstance(provider, InformerMetricsRegistry) else InformerMetricsRegistry()


def parse_metrics_addr(addr: str) -> tuple[str, int]:
    """``127.0.0.1:9100`` or ``:9100`` (loopback); ValueError otherwise."""
    host, sep, port = addr.rpartition(":")
    if not sep or not port.isdigit() or not 0 <= int(port) <= 65535:
        raise ValueError(f'--metrics-addr "{addr}" is not HOST:PORT (e.g. 127.0.0.1:9100)')
    return host.strip("[]") or "127.0.0.1", int(port)


class MetricsExporter:
    """Binds at once (so a port in use is an error before anything runs);
    ``serve(controller)`` starts answering; ``stop()`` closes the socket.

    Until ``serve`` the page is a 503, not an empty 200: a scraper or a
    ``curl -f`` loop waiting for the exporter must not take the run's
    start-up for a queue with no metrics."""

    def __init__(self, addr: str) -> None:
        host, port = parse_metrics_addr(addr)
        self.registry = CollectorRegistry(auto_describe=False)
        self._collector: QueueCollector | None = None
        self.informers = _informer_registry()
        self.registry.register(InformerCollector(self.informers))
        self._server, self._thread = start_http_server(port, addr=host, registry=self.registry)
        self._server.set_app(self._until_served(self._server.get_app()))
        self.host = host
        self.port = self._server.server_port

    def _until_served(self, page: Any) -> Any:
        def app(environ: dict, start_response: Any) -> Any:
            if self._collector is None:
                start_response(
                    "503 Service Unavailable", [("Content-Type", "text/plain; charset=utf-8"), ("Retry-After", "1")]
                )
                return [b"the run is starting: no workqueue yet\n"]
            return page(environ, start_response)

        return app

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}/metrics"

    def serve(self, controller: Any) -> None:
        """Answer for ``controller`` (again after a restart: the new run's)."""
        if self._collector is not None:
            self.registry.unregister(self._collector)
        self._collector = QueueCollector(controller)
        self.registry.register(self._collector)

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(5.0)
