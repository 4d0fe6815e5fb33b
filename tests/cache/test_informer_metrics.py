"""client-go 1.36's informer identity (ports of identity_test.go) and the
informer metrics (fifo_metrics.go, component-base's clientgo/fifo)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kubectl_informer.cache import informer_metrics as im
from kubectl_informer.cache.informer_metrics import (
    GroupVersionResource,
    InformerMetricsRegistry,
    InformerNameAndResource,
    new_informer_name,
    parse_rv_for_metrics_with_truncation,
    reset_informer_names_for_testing,
)
from kubectl_informer.cache.real_fifo import RealFIFO
from kubectl_informer.cache.shared_informer import SharedIndexInformer
from kubectl_informer.cache.store import Store
from kubectl_informer.cache.testing.fake_controller_source import FakeSource, make_object
from kubectl_informer.clock.testing import wait_for
from kubectl_informer.core.profiles import PROFILES

PODS = GroupVersionResource("", "v1", "pods")
CONFIGMAPS = GroupVersionResource("", "v1", "configmaps")


@pytest.fixture(autouse=True)
def fresh_names():
    reset_informer_names_for_testing()
    yield
    reset_informer_names_for_testing()


# ----- identity_test.go -----


@pytest.mark.parametrize(
    "setup,name,fails",
    [
        (lambda: None, "my-informer", False),  # first name is unique
        (lambda: new_informer_name("my-informer"), "my-informer", True),  # duplicate name
        (lambda: None, "", True),  # empty name
        (lambda: new_informer_name("informer-1"), "informer-2", False),  # different name
        (lambda: new_informer_name("my-informer").release(), "my-informer", False),  # released name reused
    ],
)
def test_new_informer_name(setup, name, fails):
    setup()
    if fails:
        with pytest.raises(ValueError):
            new_informer_name(name)
    else:
        assert new_informer_name(name).name == name


def test_with_resource():
    n = new_informer_name("my-informer")
    assert n.with_resource(PODS).reserved()  # first GVR is reserved
    assert not n.with_resource(PODS).reserved()  # same GVR a second time is not
    assert n.with_resource(CONFIGMAPS).reserved()  # a different GVR is
    assert not InformerNameAndResource(gvr=PODS).reserved()  # no name: never


def test_release():
    n = new_informer_name("my-informer")
    id1 = n.with_resource(PODS)
    assert id1.reserved()
    n.release()
    assert not id1.reserved()
    n2 = new_informer_name("my-informer")
    assert n2.with_resource(PODS).reserved()
    assert not id1.reserved()


# ----- the metrics -----


@pytest.mark.parametrize(
    "rv,want", [("", 0), ("123", 123), ("1234567890123456789", 567890123456789), ("abc", None), ("12a", None)]
)
def test_rv_truncated_to_15_digits(rv, want):
    assert parse_rv_for_metrics_with_truncation(rv) == want


def test_store_rv_gauge_only_for_a_reserved_identity():
    reg = InformerMetricsRegistry()
    n = new_informer_name("t")
    store = Store(identifier=n.with_resource(PODS), metrics_provider=reg)
    dup = Store(identifier=n.with_resource(PODS), metrics_provider=reg)
    store.add({"metadata": {"name": "a", "resourceVersion": "1234567890123456789"}})
    dup.add({"metadata": {"name": "a", "resourceVersion": "99"}})
    [series] = reg.series()
    assert series.id.gvr == PODS and series.store_resource_version == 567890123456789
    store.bookmark("not-a-number")  # the RV is kept, the gauge left alone
    assert store.last_store_sync_resource_version() == "not-a-number"
    assert reg.series()[0].store_resource_version == 567890123456789
    n.release()
    store.bookmark("7")  # released: the gauge stops moving (reservedGaugeMetric)
    assert reg.series()[0].store_resource_version == 567890123456789


class SetOnlyProvider:
    """A provider whose gauges can only be set, as a Go provider's: the FIFO
    sets them where the_real_fifo.go does."""

    def __init__(self):
        self.sets, self.observed = [], []

    def new_queued_item_metric(self, id):
        return type("G", (), {"set": lambda _, v: self.sets.append(v)})()

    def new_processing_latency_metric(self, id):
        return type("H", (), {"observe": lambda _, v: self.observed.append(v)})()

    def new_store_resource_version_metric(self, id):
        return self.new_queued_item_metric(id)


def test_real_fifo_sets_queued_items_where_upstream_does():
    p = SetOnlyProvider()
    fifo = RealFIFO(
        atomic_events=True,
        emit_delta_type_bookmark=True,
        identifier=new_informer_name("t").with_resource(PODS),
        metrics_provider=p,
    )
    fifo.replace([], "1")
    fifo.add(make_object("a"))
    fifo.add(make_object("b"))
    fifo.bookmark("5")  # upstream's Bookmark does not set the gauge
    assert p.sets == [1, 2, 3]
    fifo.pop(lambda deltas, initial: None)
    assert p.sets == [1, 2, 3, 3] and len(p.observed) == 1  # 4 queued, one popped


def test_real_fifo_queued_items_and_latency_read_when_scraped():
    reg = InformerMetricsRegistry()
    fifo = RealFIFO(
        atomic_events=True,
        emit_delta_type_bookmark=True,
        identifier=new_informer_name("t").with_resource(PODS),
        metrics_provider=reg,
    )
    fifo.replace([], "1")
    fifo.add(make_object("a"))
    fifo.add(make_object("b"))
    assert reg.series()[0].queued_items == 3
    fifo.pop(lambda deltas, initial: None)
    s = reg.series()[0]
    assert s.queued_items == 2
    assert s.latency_count == 1 and s.latency_buckets[0] == 1 and s.latency_sum < 0.001


def test_the_global_provider_is_set_once():
    im.reset_informer_metrics_provider_for_testing()
    try:
        first, second = InformerMetricsRegistry(), InformerMetricsRegistry()
        im.set_informer_metrics_provider(first)
        im.set_informer_metrics_provider(second)
        assert im.informer_metrics_provider() is first
        ident = new_informer_name("t").with_resource(PODS)
        fifo = RealFIFO(atomic_events=True, identifier=ident)  # no provider given: the process's
        fifo.add(make_object("a"))
        assert first.series()[0].queued_items == 1 and not second.series()
        # A store given no provider publishes nothing (NewIndexer's nil check): kube-controller-manager
        # 1.36 serves informer_queued_items for its informers but no informer_store_resource_version.
        store = Store(identifier=ident)
        store.bookmark("3")
        assert first.series()[0].store_resource_version == 0
        Store(identifier=ident, metrics_provider=first).bookmark("4")
        assert first.series()[0].store_resource_version == 4
    finally:
        im.reset_informer_metrics_provider_for_testing()


def test_informer_publishes_under_its_identity(clock, start):
    reg = InformerMetricsRegistry()
    src = FakeSource()
    src.add(make_object("pod-1"))
    inf = SharedIndexInformer(src, 0, clock=clock, profile=PROFILES["1.36"])
    inf.set_identifier(new_informer_name("kubectl-informer").with_resource(PODS), reg)
    start(inf)
    assert wait_for(inf.has_synced)
    mod = src.modify(make_object("pod-1", labels={"a": "b"}))
    rv = int(mod["metadata"]["resourceVersion"])
    assert wait_for(lambda: reg.series() and reg.series()[0].store_resource_version == rv)
    s = reg.series()[0]
    assert s.id.name == "kubectl-informer" and s.queued_items == 0 and s.latency_count == 2


# ----- the processing-latency histogram, bucketed lazily -----


def _eager(values):
    """Bucket each value at once, as component-base's histogram does: the
    first bound >= the value (Prometheus' le), the rest above every bound."""
    counts = [0] * (len(im.PROCESSING_LATENCY_BUCKETS) + 1)
    total = 0.0
    for v in values:
        i = next((i for i, b in enumerate(im.PROCESSING_LATENCY_BUCKETS) if v <= b), len(counts) - 1)
        counts[i] += 1
        total += v
    cumulative, n = [], 0
    for c in counts[:-1]:
        n += c
        cumulative.append(n)
    return cumulative, sum(counts), total


_bounds = st.sampled_from(im.PROCESSING_LATENCY_BUCKETS)
_latencies = st.one_of(
    st.floats(0, 0.001),  # where nearly every pop falls
    st.floats(0, 20),
    _bounds,  # exactly on a bound: counted in that bucket
    _bounds.map(lambda b: math.nextafter(b, math.inf)),
)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(_latencies, max_size=3 * im.FOLD_AT // 2), max_size=4))
def test_lazy_histogram_reads_as_eager_bucketing(batches):
    h = im._Histogram(new_informer_name("lazy").with_resource(PODS))
    flag, samples, fold = h.sink()
    seen = []
    for batch in batches:
        for v in batch:  # the RealFIFO's inline path, and observe's
            if len(seen) % 2:
                h.observe(v)
            elif flag.value:
                samples.append(v)
                if len(samples) >= im.FOLD_AT:
                    fold()
            seen.append(v)
            assert len(samples) < im.FOLD_AT  # the samples held stay bounded
        buckets, count, total = h.snapshot()  # read between batches
        want = _eager(seen)
        assert (buckets, count) == (want[0], want[1])
        assert total == pytest.approx(want[2], rel=1e-12, abs=1e-15)
    reset_informer_names_for_testing()


def test_released_histogram_keeps_what_it_took_and_takes_no_more():
    name = new_informer_name("gone")
    reg = InformerMetricsRegistry()
    fifo = RealFIFO(atomic_events=True, identifier=name.with_resource(PODS), metrics_provider=reg)
    for i in range(3):
        fifo.add(make_object(f"p{i}"))
    fifo.pop(lambda deltas, initial: None)
    fifo.pop(lambda deltas, initial: None)  # two samples held, not yet bucketed
    name.release()
    fifo.pop(lambda deltas, initial: None)  # after release: not recorded (reservedHistogramMetric)
    s = reg.series()[0]
    assert (s.latency_count, s.latency_buckets[0]) == (2, 2)


def test_real_fifo_holds_at_most_fold_at_latency_samples():
    reg = InformerMetricsRegistry()
    fifo = RealFIFO(atomic_events=True, identifier=new_informer_name("t").with_resource(PODS), metrics_provider=reg)
    n = 2 * im.FOLD_AT + 5
    for i in range(n):
        fifo.add(make_object(f"p{i}"))
    hist = reg._latency[fifo.identifier]
    for _ in range(n):
        fifo.pop(lambda deltas, initial: None)
        assert len(hist._pending) < im.FOLD_AT
    assert len(hist._pending) == 5  # the last fold left these; a read buckets them
    assert reg.series()[0].latency_count == n and not hist._pending
