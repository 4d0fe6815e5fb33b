"""A one-informer run traces as it always did: no ``informer`` field on any
event, no ``cause`` on ``queue.add``, no ``informers`` in run.info, and the
informer and its threads keep their names; a resource named twice is still
one informer."""

from __future__ import annotations

from kubectl_informer.clock.testing import wait_for
from kubectl_informer.core.trace import TraceBuffer, Tracer, informer_of
from kubectl_informer.run.config import RunConfig
from kubectl_informer.run.runner import Run


def _queue_run(**flags):
    tracer, buf = Tracer(), TraceBuffer()
    tracer.subscribe(buf)
    run = Run(RunConfig.from_flags(mode="queue", demo="quiet", work_time=0.0, **flags), tracer)
    return run, buf


def test_one_informer_traces_without_informer_or_cause():
    run, buf = _queue_run(resource="pods", owns=("po", "pod"))  # one resource, three spellings
    info = run.prepare()
    assert info.informers == () and info.queue_resource is None
    run.start()
    seen = []
    try:
        assert wait_for(lambda: seen.extend(buf.drain()) or any(e.kind == "queue.add" for e in seen), timeout=20)
        assert wait_for(run.informer.has_synced, timeout=20)
    finally:
        run.stop()
    seen += buf.drain()
    assert list(run.factory.informers) == ["pods"] and run.informer.name == "informer"
    assert all(informer_of(e) is None for e in seen)
    assert all("cause" not in e.fields for e in seen if e.kind == "queue.add")
    assert "kubectl-informer-informer" in {t.name for t in run.threads}


def test_several_informers_name_their_threads_after_their_resource():
    run, _ = _queue_run(resource="deployments", owns=("pods",))
    info = run.prepare()
    assert info.informers == ("deployments.apps", "pods") and info.queue_resource == "deployments.apps"
    run.start()
    try:
        names = {t.name for t in run.threads}
        assert {"kubectl-informer-informer-deployments.apps", "kubectl-informer-informer-pods"} <= names
        assert run.informer is run.factory.informers["deployments.apps"]
    finally:
        run.stop()
    assert not run.alive_threads()
