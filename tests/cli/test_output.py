"""The headless renderers and the transforms the runner installs."""

import io

import orjson

from kubectl_informer.cli.output import JsonRenderer, TextRenderer, format_store_event
from kubectl_informer.core.trace import TraceEvent, read_trace
from kubectl_informer.run.config import RunConfig


def ev(seq, kind, key=None, **fields):
    return TraceEvent.build(seq, float(seq), kind, key, **fields)


def test_text_sync_line_reads_like_the_issue():
    line = format_store_event(
        ev(
            1,
            "store.update",
            "default/web-1",
            delta="Sync",
            resource_version="1234",
            old_resource_version="1234",
            summary="Running",
            diff=[],
        )
    )
    assert line == "Sync default/web-1 rv=1234 Running (no change)"


def test_text_update_carries_its_diff_and_delete_its_tombstone():
    up = format_store_event(
        ev(
            1,
            "store.update",
            "default/web-1",
            delta="Updated",
            resource_version="12",
            old_resource_version="11",
            summary="Running",
            diff=["status.phase Pending→Running", "labels.app +"],
        )
    )
    assert up == "Updated default/web-1 rv=12 Running (status.phase Pending→Running, labels.app +)"
    de = format_store_event(
        ev(2, "store.delete", "default/web-2", delta="Deleted", resource_version="9", tombstone=True)
    )
    assert de == "Deleted default/web-2 rv=9 (tombstone: DeletedFinalStateUnknown)"
    add = format_store_event(
        ev(
            3,
            "store.add",
            "default/web-3",
            delta="Added",
            resource_version="3",
            is_in_initial_list=True,
            summary="Pending",
        )
    )
    assert add == "Added default/web-3 rv=3 Pending [initial list]"


def test_text_renderer_prints_only_applied_deltas_and_flushes_each():
    class Out(io.StringIO):
        flushes = 0

        def flush(self):
            Out.flushes += 1

    out = Out()
    r = TextRenderer(out)
    n = r.render(
        [
            ev(1, "watch.event", "default/a", type="ADDED"),
            ev(2, "fifo.pop", "default/a"),
            ev(3, "store.add", "default/a", delta="Added", resource_version="5"),
            ev(4, "queue.done", "default/a", worked=0.2, requeued=False, worker=1, outcome="ok"),
        ]
    )
    assert n == 1 and out.getvalue() == "Added default/a rv=5\n" and Out.flushes == 1
    rq = TextRenderer(io.StringIO(), workers=True)
    rq.render(
        [
            ev(4, "queue.done", "default/a", worked=0.2, requeued=False, worker=1, outcome="error"),
            ev(5, "queue.rate_limited", "default/a", delay=0.005, requeues=1),
            # A recording made before queue.done carried the worker.
            ev(6, "worker.done", "default/b", worker=0, outcome="ok", duration=0.1),
            # A queue no sample-controller worker drains: no line.
            ev(7, "queue.done", "default/c", worked=0.1, requeued=False),
        ]
    )
    assert rq.out.getvalue().splitlines() == [
        "Worked default/a worker=1 error 200ms",
        "Requeue default/a after 5.0ms requeues=1",
        "Worked default/b worker=0 ok 100ms",
    ]


def test_json_renderer_round_trips_through_read_trace():
    out = io.StringIO()
    events = [ev(1, "list.start", resource_version="0"), ev(2, "store.add", "ns/a", delta="Added")]
    JsonRenderer(out).render(events)
    lines = out.getvalue().splitlines()
    assert [orjson.loads(line)["kind"] for line in lines] == ["list.start", "store.add"]
    assert read_trace(lines) == events


def test_name_becomes_a_metadata_name_field_selector():
    assert RunConfig.from_flags(name="web-1").field_selector_with_name() == "metadata.name=web-1"
    assert (
        RunConfig.from_flags(name="web-1", field_selector="status.phase=Running").field_selector_with_name()
        == "status.phase=Running,metadata.name=web-1"
    )
    assert RunConfig.from_flags().field_selector_with_name() is None
