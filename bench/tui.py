"""Benchmark: how fast the UI absorbs trace events, and whether it still answers keys.

A producer thread keeps the app's TraceBuffer topped up with a realistic mix
of events (watch → FIFO → store → handler → workqueue → worker, over 5,000
keys, every store update carrying its old and new ~1 KB pod) as fast as it
can, building each event as ``Tracer.emit`` does; the app runs headless (``run_test``) at 160x50 with every pane visible
in the grid, draining at its normal frame rate. Every half second the bench
presses a key (tab) and times how long until the app has acted on it. RSS is
sampled every second.

Then a big initial list: the simulated API server (its own process) holds
``TUI_BENCH_BIG_LIST`` pods (default 100,000; 0 skips it). The same sync is
measured twice in this run: headless (a child process runs the real pipeline,
``runner.Run`` as ``kubectl informer watch pods`` does, with nobody reading
the trace, until the informer has synced) and under the app (the same Run,
its trace drained by the UI; a key pressed every 250 ms; synced when the
header says so: the informer's ``informer.synced``, which a UI behind reads
among the newest events waiting). ``big_list_ratio`` is the second time over
the first; the time until every pane has taken in the list is printed too.

Targets (issue 21): >= 100,000 events/s absorbed, a key answered within 50 ms
(p99) during the flood, RSS flat (growth < 10% after warm-up); the big list
under the UI within 1.5x of headless, keys within 100 ms (p99) during it.
The machine's load average is printed with each phase: on shared cores the
absolute figures follow it; ``events_per_cpu_s`` (events absorbed per CPU
second the process used) and the ratio do much less.

    python bench/tui.py            # 300 s, then the 100,000-pod sync
    TUI_BENCH_SECONDS=30 python bench/tui.py
    TUI_BENCH_SECONDS=0 TUI_BENCH_BIG_LIST=100000 python bench/tui.py   # the sync only
    BENCH_SMOKE=1 python bench/tui.py   # 1.5 s, then 1,500 pods: the test suite's smoke run

The last line is ``bench tui: events_per_s=N events_per_cpu_s=N key_p99_ms=F
rss_growth=F rss_mib=F big_list_ratio=F big_list_key_p99_ms=F
big_list_rss_mib=F young_gc_cpu_s_per_mev=F young_gc_longest_ms=F
young_per_frame=F`` (rss_growth: a fraction, 0.10 = 10%; young_gc_*: the
flood's young collections, their CPU seconds per million events absorbed
and the longest one's wall time; young_per_frame: the young collections of
``TUI_BENCH_FRAMES`` fixed frames (default 300; 0 skips), each taking in
the same events and redrawing every pane, so that two runs compare whatever
the load; nan for a phase not run).
"""

from __future__ import annotations

import asyncio
import gc
import os
import statistics
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from textual import events

from kubectl_informer.core.run_info import RunInfo
from kubectl_informer.core.trace import DerivedTraceEvent, TraceBuffer, TraceEvent
from kubectl_informer.core.trace_kinds import KINDS
from kubectl_informer.run.lifecycle import UI, tuned
from kubectl_informer.tui.app import InformerApp

KEYS = 5000
BUFFER_HIGH = 20_000  # producer waits when this many events wait: always a backlog, never empty
SIZE = (160, 50)
TARGET_EPS = 100_000
TARGET_KEY_MS = 50.0  # during the flood
TARGET_RSS = 0.10
TARGET_BIG_RATIO = 1.5  # the big list under the UI / headless
TARGET_BIG_KEY_MS = 100.0  # during the big list

# One object's trip through the pipeline (an update coalesced with a second).
TEMPLATE = [
    ("watch.event", {"type": "MODIFIED"}),
    ("fifo.queue", {"type": "Updated", "depth": 3, "pending": ["Updated"]}),
    ("watch.event", {"type": "MODIFIED"}),
    ("fifo.coalesce", {"type": "Updated", "depth": 3, "pending": ["Updated", "Updated"]}),
    ("fifo.pop", {"types": ["Updated", "Updated"], "is_in_initial_list": False, "waited": 0.002}),
    # As the informer emits it: the objects, summary/diff/predicates derived when read.
    ("store.update", {"delta": "Updated", "is_in_initial_list": False}),
    ("handler.update", {"listener": "handler-1", "is_sync": False}),
    ("queue.add", {"outcome": "queued", "depth": 1}),
    ("queue.get", {"waited": 0.001, "depth": 0, "worker": 0}),
    ("queue.done", {"worked": 0.01, "requeued": False, "worker": 0, "outcome": "ok"}),
]


_PODS: dict[tuple[str, int], tuple[dict, dict]] = {}


def pod_versions(key: str, rv: int) -> tuple[dict, dict]:
    """Two versions of ``key``'s pod (~1 KB each), the older one first; built
    once per key and parity, so the producer stays cheap beside the UI."""
    got = _PODS.get((key, rv % 2))
    if got is None:
        got = _PODS[(key, rv % 2)] = _pod_versions(key, rv)
    return got


def _pod_versions(key: str, rv: int) -> tuple[dict, dict]:
    ns, name = key.split("/")
    phases = ("Pending", "Running") if rv % 2 else ("Running", "Pending")

    def pod(version: int, phase: str) -> dict:
        return {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {
                "name": name,
                "namespace": ns,
                "resourceVersion": str(version),
                "labels": {"app": "web", "pod-template-hash": "5887b1109c"},
            },
            "spec": {"nodeName": "node-1", "containers": [{"name": "web", "image": "nginx:1.27"}]},
            "status": {"phase": phase, "podIP": "10.0.0.1"},
        }

    return pod(rv - 1, phases[0]), pod(rv, phases[1])


class Collections:
    """The collector's pauses while it is entered (``gc.callbacks``): full
    (oldest-generation) collections, the pauses a key press may wait for,
    and young ones (generations 0 and 1), counted with the CPU time they
    took (``time.thread_time`` in the thread that ran them: on shared cores
    the wall time of a pause follows the load, its CPU time much less) and
    the longest wall time."""

    def __init__(self) -> None:
        self.pauses: list[float] = []
        self.young = [0, 0]  # collections of generation 0 and 1
        self.young_cpu = [0.0, 0.0]  # their CPU seconds
        self.young_longest = [0.0, 0.0]  # their longest, wall ms
        self.young_longest_cpu = [0.0, 0.0]  # and CPU ms (a wall time far above it: the process was off the CPU)
        self._start = self._start_cpu = 0.0

    def _hook(self, phase: str, info: dict) -> None:
        gen = info["generation"]
        if phase == "start":
            self._start, self._start_cpu = time.perf_counter(), time.thread_time()
            return
        wall = (time.perf_counter() - self._start) * 1000
        if gen == 2:
            self.pauses.append(wall)
            return
        self.young[gen] += 1
        cpu = time.thread_time() - self._start_cpu
        self.young_cpu[gen] += cpu
        self.young_longest_cpu[gen] = max(self.young_longest_cpu[gen], cpu * 1000)
        self.young_longest[gen] = max(self.young_longest[gen], wall)

    def __enter__(self) -> Collections:
        gc.callbacks.append(self._hook)
        return self

    def __exit__(self, *exc) -> None:
        gc.callbacks.remove(self._hook)

    def line(self) -> str:
        longest = f", longest {max(self.pauses):.0f} ms" if self.pauses else ""
        return f"full collections: {len(self.pauses)}{longest}"

    def young_line(self, events: int) -> str:
        per = 1e6 / events if events else float("nan")
        parts = [
            f"generation {g}: {self.young[g]:,} ({self.young[g] * per:,.0f} per million events), "
            f"CPU {self.young_cpu[g]:.2f} s, longest {self.young_longest[g]:.1f} ms "
            f"(CPU {self.young_longest_cpu[g]:.1f} ms)"
            for g in (0, 1)
        ]
        return (
            f"young collections: {'; '.join(parts)}; CPU per million events absorbed "
            f"{self.young_cpu_per_mev(events):.2f} s"
        )

    def young_cpu_per_mev(self, events: int) -> float:
        return sum(self.young_cpu) / events * 1e6 if events else float("nan")


def rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def event_batches(trips: int, clock=None):
    """Batches of the flood's events, ``trips`` objects' trips (the
    template) each, keys in turn, built as ``Tracer.emit`` builds an event
    (one C call for the tuple, a fresh fields dict). ``clock()``: the
    events' time (None: their seq, 10 µs apart)."""
    new = tuple.__new__
    keys = [f"ns-{j % 40}/pod-{j % KEYS}" for j in range(KEYS)]  # KEYS is a multiple of 40
    # (class, kind, fields, carries an RV, is a store update)
    # The kinds as the engine emits them (trace_kinds' constants, not plain str).
    steps = [
        (
            DerivedTraceEvent if k == "store.update" else TraceEvent,
            KINDS[k],
            f,
            k in ("watch.event", "store.update"),
            k == "store.update",
        )
        for k, f in TEMPLATE
    ]
    seq = 0
    rv = 1000
    j = 0  # one object's trip (the template) per key, keys in turn
    while True:
        batch = []
        append = batch.append
        t = clock() if clock is not None else seq * 1e-5
        for _ in range(trips):
            key = keys[j % KEYS]
            j += 1
            for cls, kind, fields, has_rv, is_store in steps:
                f = fields.copy()
                if has_rv:
                    rv += 1
                    f["resource_version"] = str(rv)
                    if is_store:
                        # A pod going Pending → Running and back: a real diff.
                        old, obj = pod_versions(key, rv)
                        f["old_resource_version"] = str(rv - 1)
                        f["object"] = obj
                        f["old"] = old
                seq += 1
                append(new(cls, (seq, t, kind, key, f)))
        yield batch


class Producer(threading.Thread):
    """Emits new TraceEvents into the buffer as fast as it is drained.

    The producer stands in for the engine, and the bench measures what the
    UI costs, so its own Python work per event is kept to what the tracer
    does (``event_batches``: keys and templates made once)."""

    def __init__(self, buffer: TraceBuffer) -> None:
        super().__init__(daemon=True, name="producer")
        self.buffer = buffer
        self.stop = threading.Event()
        self.produced = 0
        self.waits = 0

    def run(self) -> None:
        buf = self.buffer
        t0 = time.monotonic()
        batches = event_batches(20, lambda: time.monotonic() - t0)
        while not self.stop.is_set():
            if len(buf) >= BUFFER_HIGH:
                self.waits += 1
                time.sleep(0.002)
                continue
            batch = next(batches)
            buf.extend(batch)
            self.produced += len(batch)


def prime(buffer: TraceBuffer) -> None:
    """Start of a run: informer start, a list, sync, a watch."""
    evs = [
        ("informer.start", None, {"fifo": "DeltaFIFO", "watch_list": False, "resync_check_period": 0.0}),
        ("list.start", None, {"resource_version": "0"}),
        ("list.done", None, {"resource_version": "1000", "items": 0, "duration": 0.01}),
        ("informer.synced", None, {"items": 0, "duration": 0.01}),
        ("watch.start", None, {"resource_version": "1000"}),
    ]
    buffer.extend(TraceEvent(-i, 0.0, k, key, f) for i, (k, key, f) in enumerate(evs))


async def run(seconds: float) -> dict:
    buffer = TraceBuffer(maxlen=BUFFER_HIGH * 2)
    prime(buffer)
    info = RunInfo(resource="pods", namespace=None, context="bench", profile="1.32")
    app = InformerApp(buffer, info, start_pane="deltas", frame_rate=15.0)
    producer = Producer(buffer)
    latencies: list[float] = []
    # (t, absorbed, frames, rss, cpu, blocks, held): blocks, Python's allocated memory blocks (objects
    # and their buffers, cheap to count), say whether objects pile up where the RSS alone may be pages;
    # held, what the panes' per-key histories hold (``histories_held``).
    samples: list[tuple[float, int, int, int, float, int, tuple[int, ...]]] = []
    async with app.run_test(size=SIZE):
        assert app.layout_mode == "grid"
        producer.start()
        start = time.monotonic()
        next_key = start + 0.5
        next_sample = start
        # Past its seconds until one key is timed (bounded): a smoke run starved of CPU may not
        # reach its first press within 1.5 s, and its key figures would be empty.
        while (now := time.monotonic()) - start < seconds or (not latencies and now - start < seconds + 60):
            if now >= next_sample:
                samples.append(
                    (
                        now - start,
                        app.feed_loop.absorbed,
                        app.feed_loop.frames,
                        rss_bytes(),
                        time.process_time(),
                        sys.getallocatedblocks(),
                        histories_held(app),
                    )
                )
                next_sample += 1.0
            if now >= next_key:
                latencies.append(await press_and_time(app))
                next_key += 0.5
            await asyncio.sleep(0.01)
        elapsed = time.monotonic() - start
        samples.append(
            (
                elapsed,
                app.feed_loop.absorbed,
                app.feed_loop.frames,
                rss_bytes(),
                time.process_time(),
                sys.getallocatedblocks(),
                histories_held(app),
            )
        )
        producer.stop.set()
    producer.join(2)
    return {
        "elapsed": elapsed,
        "samples": samples,
        "latencies": latencies,
        "app": app,
        "absorbed": app.feed_loop.absorbed,
        "frames": app.feed_loop.frames,
        "produced": producer.produced,
        "backlog": len(buffer),
        "dropped": buffer.dropped,
        "producer_waits": producer.waits,
        "summarised": app.feed_loop.pressure.summarised,
        "events_summarised": app.feed_loop.pressure.events_summarised,
    }


# The panes' bounded histories that fill from the rows fed in full (a few chunks a frame, so over
# the flood's first minute when it is behind): what grows then, until each reaches its bound.
HISTORIES = (
    ("Explain delta records", "explain", lambda st: (st.facts.store.items, st.facts.store.max_items)),
    ("Inspector events", "inspector", lambda st: (st.history.items, st.history.max_items)),
    ("Inspector deltas", "inspector", lambda st: (st.objects.entries_held(), st.objects.max_entries)),
    ("Deltas rows", "deltas", lambda st: (len(st.rows), st.rows.maxlen)),
)


def histories_held(app) -> tuple[int, ...]:
    """Items each of ``HISTORIES`` holds now (cheap: counters, read once a second)."""
    states = app.feed_loop.states
    return tuple(held(states[name])[0] if name in states else 0 for _, name, held in HISTORIES)


def histories_line(app, warm: tuple, last: tuple) -> str:
    states = app.feed_loop.states
    bounds = [held(states[name])[1] if name in states else 0 for _, name, held in HISTORIES]
    return "; ".join(
        f"{label} {a:,} -> {b:,} of {bound:,}"
        for (label, _, _), a, b, bound in zip(HISTORIES, warm, last, bounds, strict=True)
    )


async def press_and_time(app) -> float:
    """Press tab as a terminal would (the driver queues the key; no waiting
    for idle as Pilot.press does); ms until the app acted on it."""
    before = app.active
    t0 = time.perf_counter()
    app._driver.send_message(events.Key("tab", None))
    while app.active == before:
        await asyncio.sleep(0.0005)
    return (time.perf_counter() - t0) * 1000


def start_big_server(n: int, tmp: str):
    """bench/cluster.py's server process with ``n`` ~2 KB pods; (process, kubeconfig)."""
    import subprocess

    kubeconfig = os.path.join(tmp, "kubeconfig")
    cluster = str(Path(__file__).resolve().parent / "cluster.py")
    root = str(Path(__file__).resolve().parent.parent)
    proc = subprocess.Popen(
        [sys.executable, cluster, "--serve", str(n), "2k", kubeconfig],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        cwd=root,
        env={**os.environ, "PYTHONPATH": root},
    )
    if proc.stdout.readline().split()[:1] != [b"ready"]:
        raise SystemExit("bench tui: the simulated server did not start")
    return proc, kubeconfig


def new_run(kubeconfig: str, tracer):
    from kubectl_informer.run.config import RunConfig
    from kubectl_informer.run.runner import Run

    return Run(RunConfig.from_flags(resource="pods", kubeconfig=kubeconfig, namespace="default"), tracer)


def headless_sync(kubeconfig: str) -> None:
    """The child's side of ``headless_seconds``: the same Run, nobody reading
    its trace; prints the seconds from start to the informer synced."""
    from kubectl_informer.core.trace import Tracer

    run = new_run(kubeconfig, Tracer())
    run.prepare()
    with tuned(UI):  # the process as the UI run's, without the UI
        start = time.monotonic()
        run.start()
        while not run.informer.has_synced():
            time.sleep(0.002)
        took = time.monotonic() - start
    print(f"synced {took:.3f} {rss_bytes()}", flush=True)
    os._exit(0)


def headless_seconds(kubeconfig: str) -> tuple[float, int]:
    """(seconds to synced, RSS bytes then) of the sync without the UI, in a
    fresh process (this one's memory would skew the UI run's)."""
    import subprocess

    r = subprocess.run(
        [sys.executable, __file__, "--headless-sync", kubeconfig],
        capture_output=True,
        text=True,
        timeout=900,
        cwd=str(Path(__file__).resolve().parent.parent),
    )
    words = r.stdout.split() or ["?"]
    if r.returncode != 0 or words[0] != "synced":
        raise SystemExit(f"bench tui: the headless sync failed: {r.stdout[-500:]} {r.stderr[-1500:]}")
    return float(words[1]), int(words[2])


async def run_big_list(kubeconfig: str, n: int) -> dict:
    from kubectl_informer.core.trace import Tracer

    tracer, buffer = Tracer(), TraceBuffer()
    tracer.subscribe(buffer)
    run = new_run(kubeconfig, tracer)
    app = InformerApp(buffer, run.prepare(), start_pane="cache")
    latencies: list[float] = []
    progress: list[str] = []
    try:
        async with app.run_test(size=SIZE) as pilot:
            start = time.monotonic()
            run.start()
            next_key = start + 0.25
            shown = None  # when the header first said synced (the informer's sync, maybe ahead of the panes)
            synced = None  # when every pane had it (the header's synced)
            # Until synced, and one key timed (a small list may sync before the first press).
            while (synced is None or not latencies) and time.monotonic() - start < 300:
                if shown is None and app.header_state.synced_ahead is not None:
                    shown = time.monotonic() - start
                if synced is None and app.header_state.synced:
                    synced = time.monotonic() - start
                line = app.header_state.progress.line(app._now() or 0.0)
                if line is not None and (not progress or progress[-1] != line.plain):
                    progress.append(line.plain)
                if time.monotonic() >= next_key:
                    latencies.append(await press_and_time(app))
                    next_key += 0.25
                await asyncio.sleep(0.01)
            synced = time.monotonic() - start if synced is None else synced
            shown = synced if shown is None else shown
            await pilot.pause()
            cache_lines = app.panes["cache"].draw_lines(SIZE[0], 10)
    finally:
        run.stop()
    return {
        "synced": shown,
        "caught_up": synced,
        "latencies": latencies,
        "progress": progress,
        "cache": [t.plain for t in cache_lines[:4]],
        "rss": rss_bytes(),
    }


def p99(values: list[float]) -> float:
    lat = sorted(values) or [float("nan")]
    return lat[min(len(lat) - 1, int(0.99 * len(lat)))]


def big_list(n: int) -> dict:
    """The sync headless, then under the UI: its figures (nan when skipped)."""
    import tempfile

    nan = float("nan")
    if n <= 0:
        return {"ratio": nan, "key_p99": nan, "rss_mib": nan}
    proc, kubeconfig = start_big_server(n, tempfile.mkdtemp(prefix="bench-tui-"))
    try:
        load0 = os.getloadavg()[0]
        alone, alone_rss = headless_seconds(kubeconfig)
        load1 = os.getloadavg()[0]
        with tuned(UI), Collections() as fulls:  # as the CLI runs with the UI: pin, GC setting, switch interval
            r = asyncio.run(run_big_list(kubeconfig, n))
    finally:
        proc.stdin.close()
        proc.wait(60)
    lat = sorted(r["latencies"]) or [nan]
    ratio = r["synced"] / alone
    print(
        f"\nbig initial list: {n:,} pods synced headless in {alone:.2f} s (load average {load0:.1f}; "
        f"RSS {alone_rss / 2**20:.0f} MiB), under the UI in {r['synced']:.2f} s (load average {load1:.1f}; "
        f"RSS {r['rss'] / 2**20:.0f} MiB)"
    )
    print(
        f"  (synced under the UI: when the header said so; every pane had taken in the list at {r['caught_up']:.2f} s)"
    )
    print(f"big_list_ratio (under the UI / headless): {ratio:.2f}   target <= {TARGET_BIG_RATIO:g}")
    print(f"progress lines drawn: {len(r['progress'])}; e.g.")
    for line in r["progress"][:: max(1, len(r["progress"]) // 4)][:5]:
        print(f"  {line}")
    print("Cache pane after sync:")
    for line in r["cache"]:
        print(f"  {line}")
    key_p99 = p99(lat)
    print(f"under the UI, {fulls.line()}")
    print(
        f"key latency during the sync over {len(r['latencies'])} presses: p50 {statistics.median(lat):.1f} ms, "
        f"p99 {key_p99:.1f} ms, max {lat[-1]:.1f} ms   target p99 <= {TARGET_BIG_KEY_MS:.0f} ms"
    )
    return {"ratio": ratio, "key_p99": key_p99, "rss_mib": r["rss"] / 2**20}


def flood(seconds: float, warm_up: bool = True) -> dict:
    """The flood phase: its figures, printed as it goes (``warm_up`` False: the
    rates over the whole run, as the smoke run takes them)."""
    print(
        f"tui bench: {seconds:g}s headless at {SIZE[0]}x{SIZE[1]}, every pane in the grid, "
        f"{KEYS} keys, frame rate 15 Hz"
    )
    load0 = os.getloadavg()[0]
    with tuned(UI), Collections() as fulls:  # the process tuning the CLI gives a run with the UI
        r = asyncio.run(run(seconds))
    print(
        f"machine: {os.cpu_count()} cores, load average {load0:.1f} at start, {os.getloadavg()[0]:.1f} at end "
        "(other processes share the cores: absolute figures and latency tails follow the load)"
    )
    el, samples = r["elapsed"], r["samples"]
    print(f"{'t(s)':>6} {'events/s':>10} {'frames/s':>9} {'rss MiB':>8} {'blocks':>10}")
    step = max(1, len(samples) // 15)
    prev = samples[0]
    for s in samples[step::step]:
        dt = s[0] - prev[0] or 1.0
        print(f"{s[0]:6.0f} {(s[1] - prev[1]) / dt:10,.0f} {(s[2] - prev[2]) / dt:9.1f} {s[3] / 2**20:8.1f} {s[5]:10,}")
        prev = s
    # Skip the first fifth (imports, first frames, rings filling) for rates and RSS: the
    # first sample past it, but never the last (a starved smoke run may sample only at
    # its start and its end: the rates are then over the whole run, not zero).
    # A smoke run skips nothing: under a loaded suite its 1.5 s may absorb nothing between
    # its one-second sample and its end, and a rate of zero says nothing about the code path.
    warm = next((s for s in samples[:-1] if warm_up and s[0] >= min(max(2.0, 0.2 * el), el / 2)), samples[0])
    last = samples[-1]
    span = (last[0] - warm[0]) or 1.0
    eps = (last[1] - warm[1]) / span
    per_cpu = (last[1] - warm[1]) / ((last[4] - warm[4]) or 1e-9)
    fps = (last[2] - warm[2]) / span
    growth = (last[3] - warm[3]) / warm[3]
    lat = sorted(r["latencies"]) or [float("nan")]
    key_p99 = p99(lat)
    print(
        f"events absorbed {r['absorbed']:,} of {r['produced']:,} produced; backlog at end {r['backlog']:,}; "
        f"producer waited on a full buffer {r['producer_waits']} times; dropped {r['dropped']}; "
        f"rows summarised while behind {r['summarised']:,}; events taken in as summaries "
        f"{r['events_summarised']:,}"
    )
    print(f"events/s absorbed (after warm-up at {warm[0]:.0f}s): {eps:,.0f}   target >= {TARGET_EPS:,}")
    print(f"events per CPU second of the process (producer included): {per_cpu:,.0f}")
    print(f"frames/s: {fps:.1f}   (timer at 15 Hz)")
    print(fulls.line())
    print(fulls.young_line(r["absorbed"]))
    print(
        f"key latency over {len(r['latencies'])} presses: p50 {statistics.median(lat):.1f} ms, p99 {key_p99:.1f} "
        f"ms, max {lat[-1]:.1f} ms   target p99 <= {TARGET_KEY_MS:.0f} ms"
    )
    print(
        f"rss {warm[3] / 2**20:.1f} MiB at {warm[0]:.0f}s -> {last[3] / 2**20:.1f} MiB at {last[0]:.0f}s: "
        f"growth {growth * 100:.1f}%   target < {TARGET_RSS * 100:.0f}%"
    )
    print(f"pane histories at {warm[0]:.0f}s -> {last[0]:.0f}s: {histories_line(r['app'], warm[6], last[6])}")
    # The rings fill from the chunks fed in full, so a short run's warm-up may end before they are
    # full: the second half's growth says whether the RSS still rises once they are.
    half = next((s for s in samples if s[0] >= el / 2), warm)
    print(
        f"rss over the second half ({half[0]:.0f}s -> {last[0]:.0f}s, {last[1] - half[1]:,} events): "
        f"growth {(last[3] - half[3]) / half[3] * 100:.1f}%; Python's allocated blocks {half[5]:,} -> "
        f"{last[5]:,} ({(last[5] - half[5]) / half[5] * 100:+.1f}%)"
    )
    return {
        "eps": eps,
        "per_cpu": per_cpu,
        "key_p99": key_p99,
        "growth": growth,
        "rss_mib": last[3] / 2**20,
        "young_cpu_per_mev": fulls.young_cpu_per_mev(r["absorbed"]),
        "young_longest": max(fulls.young_longest),
    }


FRAME_EVENTS = 512  # events a fixed frame takes in: the newest chunks a frame feeds in full while behind


async def run_frames(frames: int, collections: Collections) -> float:
    """``frames`` frames made by hand, each ``FRAME_EVENTS`` new events of
    the flood's mix drained in full and every shown pane redrawn; no
    producer thread and no timer, so every run does the same work whatever
    the load (``collections`` counts theirs, after 20 frames of warm-up).
    Returns the process's CPU seconds for them."""
    buffer = TraceBuffer(maxlen=BUFFER_HIGH * 2)
    prime(buffer)
    info = RunInfo(resource="pods", namespace=None, context="bench", profile="1.32")
    app = InformerApp(buffer, info, start_pane="deltas", frame_rate=15.0)
    batches = event_batches(FRAME_EVENTS // len(TEMPLATE) + 1)
    for j in range(KEYS):  # every pod the events carry, made first: the same frames whether a flood ran before
        for rv in (1, 2):
            pod_versions(f"ns-{j % 40}/pod-{j}", rv)

    async def frame() -> None:
        buffer.extend(next(batches))
        app.drain()
        app.paused = False
        app._redraw(True, True)  # every shown pane and the header
        app.paused = True  # the timer's own frames do nothing meanwhile
        await pilot.pause()

    async with app.run_test(size=SIZE) as pilot:
        for _ in range(20):
            await frame()
        gc.collect()
        cpu = time.process_time()
        with collections:
            for _ in range(frames):
                await frame()
        return time.process_time() - cpu


def fixed_frames(frames: int) -> float:
    """The fixed frames' young collections per frame, printed (nan: none run)."""
    if frames <= 0:
        return float("nan")
    young = Collections()
    with tuned(UI):
        cpu = asyncio.run(run_frames(frames, young))
    per_frame = sum(young.young) / frames
    print(
        f"\nfixed frames: {frames} of {FRAME_EVENTS}+ events each, every pane redrawn (the same work in every run): "
        f"young collections {young.young[0]:,} + {young.young[1]:,} ({per_frame:.2f} a frame), their CPU "
        f"{sum(young.young_cpu):.2f} s of the process's {cpu:.2f} s (load average {os.getloadavg()[0]:.1f})"
    )
    return per_frame


def main() -> None:
    if sys.argv[1:2] == ["--headless-sync"]:
        headless_sync(sys.argv[2])
        return
    smoke = os.environ.get("BENCH_SMOKE") == "1"  # the test suite's run: same code, 1.5 s and 1,500 pods
    if smoke:
        print("smoke mode (BENCH_SMOKE=1): the same code path for a few seconds; its figures measure nothing")
    # 1.5 s of flood still samples after a warm-up and times two key presses;
    # the big list stays at 1,500 pods: at 500 the sync ends before a key is pressed.
    seconds = float(os.environ.get("TUI_BENCH_SECONDS", "1.5" if smoke else "300"))
    big_n = int(os.environ.get("TUI_BENCH_BIG_LIST", "1500" if smoke else "100000"))
    nan = float("nan")
    not_run = dict.fromkeys(
        ("eps", "per_cpu", "key_p99", "growth", "rss_mib", "young_cpu_per_mev", "young_longest"), nan
    )
    f = flood(seconds, warm_up=not smoke) if seconds > 0 else not_run
    frames = int(os.environ.get("TUI_BENCH_FRAMES", "20" if smoke else "300"))
    young_per_frame = fixed_frames(frames)
    b = big_list(big_n)
    ok = (
        f["eps"] >= TARGET_EPS
        and f["key_p99"] <= TARGET_KEY_MS
        and f["growth"] < TARGET_RSS
        and b["ratio"] <= TARGET_BIG_RATIO
        and b["key_p99"] <= TARGET_BIG_KEY_MS
    )
    print("targets met" if ok else "targets NOT met (a phase not run counts as not met)")
    print(
        f"bench tui: events_per_s={f['eps']:.0f} events_per_cpu_s={f['per_cpu']:.0f} key_p99_ms={f['key_p99']:.1f} "
        f"rss_growth={f['growth']:.3f} rss_mib={f['rss_mib']:.0f} big_list_ratio={b['ratio']:.2f} "
        f"big_list_key_p99_ms={b['key_p99']:.1f} big_list_rss_mib={b['rss_mib']:.0f} "
        f"young_gc_cpu_s_per_mev={f['young_cpu_per_mev']:.2f} young_gc_longest_ms={f['young_longest']:.1f} "
        f"young_per_frame={young_per_frame:.2f}"
    )


if __name__ == "__main__":
    main()
