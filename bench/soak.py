"""Soak: the whole pipeline for minutes under steady churn, memory flat, no drift.

What runs is what ``kubectl informer watch pods --demo quiet`` runs (``Run``:
the simulated API server over real HTTP, the kubernetes client, the 1.32
profile's Reflector, DeltaFIFO, Indexer and a handler, tracing on), and the
UI's feeder: ``InformerApp.drain`` moves every trace event into every pane's
state 30 times a second, as the live UI does between frames (nothing is
drawn: rendering has its own bench, bench/tui.py). A writer thread changes
pods in the simulator at ``SOAK_RATE`` writes/s (default 2,000: 80% updates,
10% creates, 10% deletes, so the number of pods stays level), each one a
watch event for the informer.

RSS is printed every 30 s. At the end the writer stops, and the informer's
cache must equal the server's pods (same keys, same resourceVersions).

Targets (issue 12): RSS growth under 10% after the first minute, zero
disagreements, no history over its bound. ``SOAK_SECONDS`` (default 300)
sets the length; the baseline RSS is taken at 60 s, or at a third of a
shorter run.

    python bench/soak.py                 # 300 s
    SOAK_SECONDS=90 python bench/soak.py
    BENCH_SMOKE=1 python bench/soak.py   # 1.5 s at 400 writes/s: the test suite's smoke run

At the end it also prints what the UI's histories hold against their bounds
(events, deltas and objects in the Inspector, the Explain panel's records,
the Deltas rows): 200 new pod names a second fill any per-key ring in
seconds, so only the totals across keys keep these flat.

The last line is ``bench soak: rss_growth=F disagreements=N events=N held_over_bound=N``
(rss_growth a fraction, 0.10 = 10%; events: the writes the informer had to follow;
held_over_bound: histories holding more than their bound, 0 expected).
"""

from __future__ import annotations

import os
import random
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from kubectl_informer.cache.keys import meta_namespace_key_func
from kubectl_informer.clock.testing import wait_for
from kubectl_informer.core.trace import TraceBuffer, Tracer
from kubectl_informer.run.config import RunConfig
from kubectl_informer.run.runner import Run
from kubectl_informer.sim.objects import make_pod
from kubectl_informer.tui.app import InformerApp

# BENCH_SMOKE=1: 1.5 s at a low rate, the same code path (the test suite runs it): the
# same 600 writes as 3 s at 200/s, enough churn to fill the bounded histories.
SMOKE = os.environ.get("BENCH_SMOKE") == "1"
SECONDS = float(os.environ.get("SOAK_SECONDS", "1.5" if SMOKE else "300"))
RATE = float(os.environ.get("SOAK_RATE", "400" if SMOKE else "2000"))
SAMPLE_EVERY = 30.0
FRAME = 1 / 30
TARGET_RSS = 0.10
NAMESPACE = "soak"
PODS = 500


def rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


class Writer(threading.Thread):
    """Pod writes at ``rate`` per second, in batches every 10 ms."""

    def __init__(self, store, rate: float) -> None:
        super().__init__(daemon=True, name="soak-writer")
        self.store = store
        self.rate = rate
        self.stop = threading.Event()
        self.writes = 0
        self.rng = random.Random(12)
        self.live: list[str] = []
        self.n = 0

    def create(self) -> None:
        name = f"soak-{self.n}"
        self.store.create("pods", make_pod(NAMESPACE, name, index=self.n), namespace=NAMESPACE)
        self.live.append(name)
        self.n += 1

    def one(self) -> None:
        r = self.rng.random()
        if r < 0.1 or len(self.live) < PODS // 2:
            self.create()
        elif r < 0.2:
            name = self.live.pop(self.rng.randrange(len(self.live)))
            self.store.delete("pods", NAMESPACE, name)
        else:
            name = self.rng.choice(self.live)
            self.store.patch("pods", NAMESPACE, name, {"metadata": {"labels": {"gen": str(self.writes)}}})
        self.writes += 1

    def run(self) -> None:
        start = time.monotonic()
        while not self.stop.is_set():
            due = int((time.monotonic() - start) * self.rate)
            while self.writes < due and not self.stop.is_set():
                self.one()
            self.stop.wait(0.01)


def feed_like_the_ui(app: InformerApp, stop: threading.Event) -> None:
    """The live UI's per-frame drain, without drawing."""
    while not stop.wait(FRAME):
        app.drain()


def agreement(store, informer) -> int:
    """Keys whose presence or resourceVersion differ between server and cache."""
    server = {meta_namespace_key_func(o): o["metadata"]["resourceVersion"] for o in store.list("pods", NAMESPACE)}
    cache = {meta_namespace_key_func(o): o["metadata"]["resourceVersion"] for o in informer.get_indexer().list()}
    return sum(1 for k in server.keys() | cache.keys() if server.get(k) != cache.get(k))


def main() -> None:
    if SMOKE:
        print("smoke mode (BENCH_SMOKE=1): the same code path for a few seconds; its figures measure nothing")
    tracer = Tracer()
    buffer = TraceBuffer()
    tracer.subscribe(buffer)
    run = Run(RunConfig.from_flags(resource="pods", namespace=NAMESPACE, demo="quiet"), tracer)
    info = run.prepare()
    store = run.demo.server.store
    store.create("namespaces", {"metadata": {"name": NAMESPACE}})
    writer = Writer(store, RATE)
    for _ in range(PODS):
        writer.create()
    app = InformerApp(buffer, info)
    stop_feed = threading.Event()
    feeder = threading.Thread(target=feed_like_the_ui, args=(app, stop_feed), daemon=True, name="soak-feeder")
    print(
        f"soak: {SECONDS:.0f}s at {RATE:.0f} writes/s on {PODS} pods; the pipeline of "
        f"`watch pods --demo` ({info.profile}, {info.fifo}) with the UI's feeder; target rss_growth < "
        f"{TARGET_RSS:.0%} after the first minute, 0 disagreements"
    )
    run.start()
    feeder.start()
    if not wait_for(run.informer.has_synced, 30):
        sys.exit("soak: the informer never synced")
    writer.start()
    start = time.monotonic()
    base_at = min(60.0, SECONDS / 3)
    base = None
    samples = []
    next_sample = SAMPLE_EVERY
    while True:
        t = time.monotonic() - start
        if base is None and t >= base_at:
            base = rss_bytes()
            print(f"  {t:5.0f}s baseline rss={base / 2**20:.1f} MiB")
        if t >= next_sample or t >= SECONDS:
            r = rss_bytes()
            samples.append(r)
            print(
                f"  {t:5.0f}s rss={r / 2**20:.1f} MiB writes={writer.writes} ({writer.writes / t:.0f}/s) "
                f"trace absorbed={app.feed_loop.absorbed} dropped={buffer.dropped}",
                flush=True,
            )
            next_sample += SAMPLE_EVERY
        if t >= SECONDS:
            break
        time.sleep(0.5)
    writer.stop.set()
    writer.join(10)
    elapsed = time.monotonic() - start
    settled = wait_for(lambda: agreement(store, run.informer) == 0, 60, interval=0.2)
    disagreements = agreement(store, run.informer)
    final = rss_bytes()
    growth = (final - base) / base if base else float("nan")
    stop_feed.set()
    feeder.join(5)
    run.stop()
    print(
        f"soak: {writer.writes} writes in {elapsed:.0f}s ({writer.writes / elapsed:.0f}/s; asked {RATE:.0f}/s), "
        f"cache {'agrees' if settled else 'DISAGREES'} with the server ({disagreements} keys differ), "
        f"rss {base / 2**20:.1f} -> {final / 2**20:.1f} MiB"
    )
    held = held_by_the_ui(app)
    print("soak: the UI holds " + ", ".join(f"{k}={v[0]:,} (bound {v[1]:,})" for k, v in held.items()))
    over = sum(1 for n, bound in held.values() if n > bound)
    print(
        f"bench soak: rss_growth={growth:.3f} disagreements={disagreements} events={writer.writes} "
        f"held_over_bound={over}"
    )


def held_by_the_ui(app: InformerApp) -> dict[str, tuple[int, int]]:
    """What the histories hold at the end, with their bounds: names churned
    all along (10% creates, 10% deletes), so per-key rings alone would be full
    of keys long gone."""
    insp = app.states["inspector"]
    objs, facts = insp.objects, app.states["explain"].facts.store
    return {
        "inspector_events": (insp.history.items, insp.history.max_items),
        "inspector_deltas": (objs.entries_held(), objs.max_entries),
        "objects_held": (objs.objects_held(), objs.max_objects),
        "explain_records": (facts.items, facts.max_items),
        "deltas_rows": (len(app.states["deltas"].rows), app.states["deltas"].rows.maxlen),
        "deltas_rows_with_objects": (app.states["deltas"].objects_held(), app.states["deltas"].keep_objects),
    }


if __name__ == "__main__":
    main()
