"""client-go 1.36's informer identity (ports of identity_test.go) and the
informer metrics (fifo_metrics.go, component-base's clientgo/fifo)."""

from __future__ import annotations

import pytest

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
