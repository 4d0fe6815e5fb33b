"""The same pods reach the cache as compactly, and are measured the same,
whether they came through a paged LIST (client-go 1.32) or a WatchList
stream (1.36): the Cache pane's bytes per object must not depend on the path.

Both runs go through the plugin's own Run against one simulated API server
over real HTTP, a kubeconfig its only way in (a real cluster, to the plugin).
"""

import pytest

from kubectl_informer.clock.testing import wait_for
from kubectl_informer.core.trace import TraceBuffer, Tracer
from kubectl_informer.core.trace_kinds import OBJECT_SIZE
from kubectl_informer.panes.cache import SizeSamples
from kubectl_informer.run.config import RunConfig
from kubectl_informer.run.runner import Run
from kubectl_informer.run.transforms import SAMPLE_EVERY
from kubectl_informer.sim.objects import make_pod
from kubectl_informer.sim.server import SimServer

pytestmark = pytest.mark.e2e

PODS = SAMPLE_EVERY * 12


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    srv = SimServer().start()
    srv.store.create("namespaces", {"metadata": {"name": "default"}})
    srv.store.bulk_load(
        "pods",
        (
            make_pod("default", f"app{i % 5}-{i:04d}", app=f"app{i % 5}", index=i, node=f"node-{i % 7}")
            for i in range(PODS)
        ),
    )
    srv.kubeconfig = srv.write_kubeconfig(str(tmp_path_factory.mktemp("wl") / "kubeconfig"))
    yield srv
    srv.stop()


def sizes(cluster, client_go: str) -> tuple[str, dict[str, int], SizeSamples]:
    """(initial list path, bytes per sampled key, the Cache pane's samples) of one run."""
    tracer = Tracer()
    buf = TraceBuffer()
    tracer.subscribe(buf)
    run = Run(RunConfig.from_flags(kubeconfig=cluster.kubeconfig, namespace="default", client_go=client_go), tracer)
    info = run.prepare()
    run.start()
    events = []
    try:
        assert wait_for(lambda: run.informer.has_synced(), timeout=30)
        events += buf.drain()
    finally:
        run.stop()
    samples = SizeSamples(window=PODS)
    per_key = {}
    for e in events:
        if e.kind == OBJECT_SIZE:
            per_key[e.key] = e.fields["bytes"]
            samples.feed(e.fields)
    return info.initial_list, per_key, samples


def test_list_and_watchlist_give_the_same_bytes_per_object(cluster):
    list_path, listed, list_samples = sizes(cluster, "1.32")
    stream_path, streamed, stream_samples = sizes(cluster, "1.36")
    assert list_path == "paged LIST" and "WatchList" in stream_path
    # One sample every SAMPLE_EVERY objects, the same objects in the same order.
    assert len(listed) == PODS // SAMPLE_EVERY and listed.keys() == streamed.keys()
    assert streamed == listed
    assert stream_samples.per_object() == list_samples.per_object()
