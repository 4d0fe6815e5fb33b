"""Recordings written by hand: NDJSON lines with explicit times."""

from __future__ import annotations

from kubectl_informer.core.trace import TraceEvent

T0 = 5000.0
WALL = 1_795_000_000.0  # the run.info's wall clock at T0


def header_fields(**kw):
    f = dict(
        resource="pods",
        namespace="default",
        context="kind-dev",
        server="https://127.0.0.1:6443",
        profile="1.36",
        fifo="RealFIFO (atomic)",
        initial_list="WatchList stream",
        resync=3.0,
        mode="watch",
        args=["watch", "pods", "--client-go", "1.36", "--resync", "3s"],
        wall_time=WALL,
        version="0.1.0",
    )
    f.update(kw)
    return f


def story(header: bool = True) -> list[TraceEvent]:
    """Ten seconds of a watch: a list at 0s, updates at 1s and 2s, a 410 at
    4s and its relist at 4.5s, a tombstone at 6s, an update at 10s."""
    evs: list[TraceEvent] = []

    def e(t, kind, key=None, **fields):
        evs.append(TraceEvent.build(len(evs) + 1, T0 + t, kind, key, **fields))

    if header:
        e(0.0, "run.info", **header_fields())
    e(0.0, "informer.start", fifo="DeltaFIFO", watch_list=False, resync_check_period=3.0)
    e(
        0.0,
        "store.add",
        "default/web-1",
        resource_version="5",
        delta="Replaced",
        summary="Running",
        is_in_initial_list=True,
    )
    e(
        0.0,
        "store.add",
        "default/web-2",
        resource_version="6",
        delta="Replaced",
        summary="Running",
        is_in_initial_list=True,
    )
    e(
        1.0,
        "store.update",
        "default/web-1",
        resource_version="7",
        old_resource_version="5",
        delta="Updated",
        summary="Running",
        diff=["status.containerStatuses[0].restartCount 0→1"],
        is_in_initial_list=False,
    )
    e(
        2.0,
        "store.update",
        "default/web-2",
        resource_version="8",
        old_resource_version="6",
        delta="Updated",
        summary="Running",
        diff=["labels.app +"],
        is_in_initial_list=False,
    )
    e(4.0, "watch.end", resource_version="8", error="410 Gone: too old resource version", expired=True)
    e(4.5, "relist", reason="expired")
    e(
        6.0,
        "store.delete",
        "default/web-2",
        resource_version="8",
        delta="Deleted",
        summary="",
        is_in_initial_list=False,
        tombstone=True,
    )
    e(
        10.0,
        "store.update",
        "default/web-1",
        resource_version="9",
        old_resource_version="7",
        delta="Updated",
        summary="Succeeded",
        diff=["status.phase Running→Succeeded"],
        is_in_initial_list=False,
    )
    return evs


def ndjson(events) -> str:
    return "".join(ev.to_json() + "\n" for ev in events)


def v1_lines(events) -> str:
    """The same events as a version-1 recording wrote them: no "v", and a
    watch.end that said 410 only in prose."""
    import json

    out = []
    for ev in events:
        if ev.kind == "run.info":
            continue
        d = ev.to_dict()
        d.pop("v")
        if ev.kind == "watch.end":
            d["fields"].pop("expired")
        out.append(json.dumps(d) + "\n")
    return "".join(out)


class SteppingClock:
    """A clock whose sleep moves it on at once (and says so): headless
    replays paced without waiting."""

    def __init__(self, start: float = 0.0) -> None:
        self.t = start
        self.sleeps: list[float] = []

    def now(self) -> float:
        return self.t

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(round(seconds, 6))
        self.t += seconds
