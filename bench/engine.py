"""Engine benchmark: deltas per second through reflector → FIFO → indexer →
handler → workqueue, and resident memory per cached object.

    python bench/engine.py [--objects 10000] [--updates 20] [--profile 1.32] [--reps 3]
    python bench/engine.py --only staleness [--pairs 30] [--rate 60000]   # the 1.36 store RV + metrics figure alone
    BENCH_SMOKE=1 python bench/engine.py   # 300 objects x 4 updates, once: the test suite's smoke run

Each measurement runs in a fresh subprocess (so peak RSS and warm-up do not
leak between runs). The ListerWatcher is scripted: its LIST answers the
objects, its watch replays pre-built MODIFIED events (``updates`` per
object) once the informer has synced, so the figure is the pipeline's own
cost, not a producer's. The child pins its threads to one CPU as the CLI
does (``lifecycle.tuned(ENGINE)``, which also sets the GC); ``ENGINE_BENCH_UNPINNED=1`` measures
them free to roam, where GIL hand-offs across cores halve the figure. The handler is SimulatedController's (enqueue the
key on a RateLimitingQueue) with 2 workers doing zero-time work.

Figures:
- deltas/s with a tracer subscriber draining (a TraceBuffer emptied every
  50 ms, as the UI does) and with no subscriber;
- tracer-off overhead: no-subscriber run against a baseline whose tracer
  is replaced by a stub that is never enabled and whose ``emit`` is the
  cheapest C call (``"".format``), i.e. what the tracing calls themselves
  cost when nobody listens; plus the count of ``emit`` calls made per
  delta with no subscriber;
- index overhead: the subscriber-draining run again with two indexes (the
  built-in namespace index and ``--index byNode=spec.nodeName``'s JSONPath
  IndexFunc): CPU per delta with them over without, minus one. Each update
  runs both IndexFuncs on the old and the new object;
- RSS per cached object beyond its JSON size: (peak RSS after the cache
  holds every object − RSS before the objects were decoded) / objects −
  JSON bytes per object.

- client-go 1.36's store-RV tracking and informer metrics (issue 34): profile
  1.36, no subscriber, the watch replayed at ``--rate`` deltas/s (60,000, the
  throughput target; 0 replays as fast as the pipeline takes them), the
  informer named and publishing ``informer_*`` to a registry (the store's RV
  kept at every add/update/delete, queued items and processing latency at
  every pop) against an informer whose store has the RV bookkeeping taken out
  and no identity (no metrics). Both run in one child process, their events
  cut into segments, one informer's segment at a time, alternating (10
  segment pairs per child, ``--pairs`` in all): CPU per delta with over
  without, minus one, per pair; the figure is the pairs' median, printed with
  its quartiles and range (one pair on a shared machine can be off by more
  than the target), and the parts alone (the store's add, the RealFIFO's add
  and pop) timed in-process. ``--only staleness`` measures only this and ends with
  ``bench engine-staleness: overhead_pct=... q1_pct=... q3_pct=... min_pct=...
  max_pct=... pairs=... rate=... achieved_rate=... delta_ns=... parts_ns=...``
  (percentages, the deltas/s asked and the median reached, CPU-ns per delta
  with the bookkeeping, and the parts' extra ns per delta).

Targets (issues 2, 13, 33 and 34): ≥ 60,000 deltas/s with a subscriber draining; tracer
with no subscriber costs < 5 %; store RV + informer metrics cost < 5 %; two indexes
cost < 10 %; < 3 KiB
RSS per cached small object beyond its JSON size. The last line is the
machine-readable summary.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import threading
import time
from dataclasses import replace

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

TARGET_DELTAS = 60_000
TARGET_OVERHEAD = 0.05
TARGET_STALENESS_OVERHEAD = 0.05
TARGET_INDEX_OVERHEAD = 0.10
TARGET_RSS_KIB = 3.0


def small_object(i: int) -> dict:
    """A small pod, about 500 bytes of JSON."""
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": f"web-{i:05d}",
            "namespace": "default",
            "uid": f"5f1c2a7e-0000-4000-8000-{i:012d}",
            "resourceVersion": str(i + 1),
            "labels": {"app": "web", "tier": "frontend"},
            "creationTimestamp": "2026-01-01T00:00:00Z",
        },
        "spec": {"nodeName": f"node-{i % 50}", "containers": [{"name": "web", "image": "nginx:1.27"}]},
        "status": {"phase": "Pending", "podIP": f"10.0.{i // 250}.{i % 250}"},
    }


class ScriptedLW:
    """LIST answers ``objects``; the first plain watch replays ``events``
    once ``gate`` is set (at ``rate`` events per second, or as fast as the
    pipeline takes them with 0), then stays open until stopped."""

    def __init__(self, objects: list, rv: str, events: list, gate: threading.Event, rate: float = 0.0):
        self.objects = objects
        self.rv = rv
        self.events = events
        self.gate = gate
        self.rate = rate
        self.watches = 0

    def list(self, options):
        return {"metadata": {"resourceVersion": self.rv}, "items": self.objects}

    def watch(self, options):
        self.watches += 1
        if options.send_initial_events:
            from kubectl_informer.cache.listwatch import WatchEvent

            end = {"metadata": {"resourceVersion": self.rv, "annotations": {"k8s.io/initial-events-end": "true"}}}
            initial = [WatchEvent("ADDED", o) for o in self.objects] + [WatchEvent("BOOKMARK", end)]
            return _Replay(initial + [None] + self.events, self.gate, self.rate)
        return _Replay([None] + (self.events if self.watches == 1 else []), self.gate, self.rate)


class _Replay:
    """Yields events; a None entry waits for the gate (an Event: until it is
    set, the informer having synced; a Semaphore: one ``release`` per None,
    a segment of the staleness figure), and the events after a gate come at
    ``rate`` per second (0: unpaced): a slice of a millisecond's worth at a
    time, each no earlier than due, so a pipeline that keeps up idles
    between slices as it would behind a server sending that many."""

    def __init__(self, events, gate, rate: float = 0.0):
        self.events = events
        self.gate = gate
        self.rate = rate
        self._stop = threading.Event()

    def __iter__(self):
        return self._gen()

    def _gen(self):
        events = self.events
        # Where the gates are, found before any segment runs (a scan per segment would count in it).
        ends = [i for i, ev in enumerate(events) if ev is None] + [len(events)]
        start, gated = 0, False
        for end in ends:
            yield from self._paced(events[start:end]) if gated else events[start:end]
            if end == len(events) or not self._await_gate():
                break
            start, gated = end + 1, True
        self._stop.wait()

    def _await_gate(self) -> bool:
        gate, stop = self.gate, self._stop
        if isinstance(gate, threading.Event):
            while not gate.is_set() and not stop.is_set():
                gate.wait(0.05)
        else:
            while not gate.acquire(timeout=0.05):
                if stop.is_set():
                    return False
        return not stop.is_set()

    def _paced(self, events):
        if not self.rate:
            yield from events
            return
        step = max(1, int(self.rate // 1000))
        t0 = time.perf_counter()
        for start in range(0, len(events), step):
            ahead = t0 + start / self.rate - time.perf_counter()
            if ahead > 0:
                time.sleep(ahead)
            yield from events[start : start + step]

    def stop(self):
        self._stop.set()


class _StubTracer:
    """Baseline for the tracer-off overhead: never enabled, and emit is the
    cheapest C callable that accepts emit's arguments."""

    enabled = False
    emit = staticmethod("".format)

    def subscribe(self, cb):  # pragma: no cover - never subscribed
        raise RuntimeError("stub")


def two_indexes() -> dict:
    """The namespace index every factory-built informer has, and what
    ``--index byNode=spec.nodeName`` adds."""
    from kubectl_informer.cache.store import NAMESPACE_INDEX, meta_namespace_index_func
    from kubectl_informer.core.jsonpath import parse_index

    return {NAMESPACE_INDEX: meta_namespace_index_func, "byNode": parse_index("byNode=spec.nodeName").index_func()}


def build_events(objects: list, updates: int) -> tuple[list, str]:
    from kubectl_informer.cache.listwatch import WatchEvent

    rv = len(objects)
    events = []
    phases = ("Running", "Pending", "Succeeded")
    for r in range(updates):
        for o in objects:
            rv += 1
            meta = dict(o["metadata"])
            meta["resourceVersion"] = str(rv)
            new = {
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": meta,
                "spec": o["spec"],
                "status": {"phase": phases[r % 3], "podIP": o["status"]["podIP"], "restarts": r},
            }
            events.append(WatchEvent("MODIFIED", new))
    return events, str(rv)


def _untracked_store(cls=None) -> None:
    """The store as before client-go 1.36: no resource-version bookkeeping
    (in ``cls``, by default the Indexer itself)."""
    from kubectl_informer.cache.store import Indexer

    def add_with_key(self, key, obj):
        with self._lock:
            items = self._items
            old = items.get(key)
            items[key] = obj
            if self._indexers:
                self._update_indices(old, obj, key)

    def delete(self, obj):
        key = self._key_func(obj)
        with self._lock:
            old = self._items.pop(key, None)
            if old is not None and self._indexers:
                self._update_indices(old, None, key)

    cls = cls or Indexer
    cls.add_with_key, cls.delete = add_with_key, delete


def _named(informer) -> None:
    """client-go 1.36's identity and metrics provider on the informer."""
    from kubectl_informer.cache.informer_metrics import (
        GroupVersionResource,
        InformerMetricsRegistry,
        new_informer_name,
    )

    informer.set_identifier(
        new_informer_name("bench").with_resource(GroupVersionResource("", "v1", "pods")), InformerMetricsRegistry()
    )


def child_staleness_micro(n: int, reps: int) -> dict:
    """ns per delta of the parts 1.36's bookkeeping touches, alone, best of
    ``reps``: the store's add (RV kept or not) and the atomic RealFIFO's add
    and pop (metrics on or off). Steadier than the pipeline's ratio on a
    shared machine, where a pair of pipeline runs differs by more than 5 %."""
    from kubectl_informer.cache import informer_metrics as im
    from kubectl_informer.cache import store as store_mod
    from kubectl_informer.cache.keys import meta_namespace_key_func as key_func
    from kubectl_informer.cache.real_fifo import RealFIFO

    objects = [small_object(i) for i in range(n)]
    tracked = (store_mod.Indexer.add_with_key, store_mod.Indexer.delete)

    def identity():
        im.reset_informer_names_for_testing()
        return im.new_informer_name("bench").with_resource(im.GroupVersionResource("", "v1", "pods"))

    def store_add(keep_rv: bool) -> float:
        store_mod.Indexer.add_with_key, store_mod.Indexer.delete = tracked
        if not keep_rv:
            _untracked_store()
        idx = store_mod.Indexer()
        add = idx.add_with_key
        t = time.process_time()
        # The key first, as the informer computes it right before: the object's
        # metadata is then in the CPU's cache, as it is in the pipeline.
        for o in objects:
            add(key_func(o), o)
        return time.process_time() - t

    def fifo(metrics: bool) -> float:
        reg = im.InformerMetricsRegistry()
        kw = {"identifier": identity(), "metrics_provider": reg} if metrics else {}
        f = RealFIFO(atomic_events=True, **kw)
        t = time.process_time()
        for o in objects:
            f.add(o)
        for _ in objects:
            f.pop(lambda d, i: None)
        reg.series()  # the latencies still held are bucketed too
        return time.process_time() - t

    best: dict[str, float] = {}
    for _ in range(reps):
        for name, run in (
            ("store", lambda: store_add(False)),
            ("store_rv", lambda: store_add(True)),
            ("fifo", lambda: fifo(False)),
            ("fifo_metrics", lambda: fifo(True)),
        ):
            best[name] = min(best.get(name, 1e9), run() / n * 1e9)
    store_mod.Indexer.add_with_key, store_mod.Indexer.delete = tracked
    return best


def child_staleness_pairs(n: int, updates: int, rate: float, segments: int, control: bool = False) -> dict:
    """Two 1.36 informers in this one process, each with its controller as
    the throughput child runs it and no subscriber: "untracked" (its store
    without the RV bookkeeping, no identity) and "tracked" (named, publishing
    ``informer_*``). Their watches replay the same events cut into
    ``segments`` segments at ``rate`` deltas/s, one informer's segment at a
    time, alternating (untracked first in even segments, tracked first in odd
    ones): while one runs the other waits with nothing to do, so the process
    CPU time of a segment is that informer's. Per segment pair: CPU per delta
    with over without, minus one. One process, one CPU, one memory layout:
    the pairs differ only in the code and in the moment. ``control``: both
    informers untracked (an A/A run: what the method reads where there is
    no difference)."""
    import gc

    from kubectl_informer.cache.store import Indexer
    from kubectl_informer.core.trace import Tracer
    from kubectl_informer.run.lifecycle import ENGINE, tuned
    from kubectl_informer.run.pipeline import new_informer, resolve_profile
    from kubectl_informer.run.sample_controller import SimulatedController

    class UntrackedIndexer(Indexer):
        pass

    _untracked_store(UntrackedIndexer)
    objects = [small_object(i) for i in range(n)]
    events, _ = build_events(objects, updates)
    # One more segment than measured: the first warms both informers up and is not counted
    # (whichever ran first paid for it: an A/A run read -15 % there).
    cuts = [len(events) * k // (segments + 1) for k in range(segments + 2)]
    gated: list = []
    for k in range(segments + 1):
        gated += [None, *events[cuts[k] : cuts[k + 1]]] if k else events[cuts[k] : cuts[k + 1]]
    setting = ENGINE if os.environ.get("ENGINE_BENCH_UNPINNED") is None else replace(ENGINE, pin=False)
    tuned(setting).__enter__()
    stop = threading.Event()
    gates, regs, threads = {}, {}, []
    for variant in ("untracked", "tracked"):
        gates[variant] = threading.Semaphore(0)
        lw = ScriptedLW(objects, str(n), gated, gates[variant], rate)
        tracer = Tracer()
        informer = new_informer(lw, resolve_profile("1.36"), tracer=tracer)
        if variant == "untracked" or control:
            informer.indexer.__class__ = UntrackedIndexer
        else:
            _named(informer)
        ctrl = SimulatedController(informer, workers=2, work_time=0.0, tracer=tracer)
        regs[variant] = (informer, ctrl.registration)
        threads += [
            threading.Thread(target=informer.run, args=(stop,), daemon=True),
            threading.Thread(target=ctrl.run, args=(stop,), daemon=True),
        ]
    gc.collect()
    gc.freeze()
    for t in threads:
        t.start()
    while not all(inf.has_synced() and reg.delivered >= n for inf, reg in regs.values()):
        time.sleep(0.002)
    pairs, rates, cpu = [], [], []
    for k in range(segments + 1):
        got = {}
        for variant in ("untracked", "tracked") if k % 2 == 0 else ("tracked", "untracked"):
            reg = regs[variant][1]
            target = n + cuts[k + 1]
            t0, c0 = time.perf_counter(), time.process_time()
            gates[variant].release()
            while reg.delivered < target:
                time.sleep(0.01)  # coarse: a busy poller would steal the GIL from the pipeline
            c, w = time.process_time() - c0, time.perf_counter() - t0
            got[variant] = c / (cuts[k + 1] - cuts[k])
            if k:
                rates.append((cuts[k + 1] - cuts[k]) / w)
        if k:
            pairs.append(got["tracked"] / got["untracked"] - 1.0)
            cpu.append(got["tracked"])
    stop.set()
    for t in threads:
        t.join(10)
    return {"pairs": pairs, "deltas_per_s": rates, "tracked_cpu_s_per_delta": cpu}


def child_throughput(n: int, updates: int, tracer_mode: str, profile_name: str) -> dict:
    import gc

    from kubectl_informer.core.trace import TraceBuffer, Tracer
    from kubectl_informer.run.lifecycle import ENGINE, tuned
    from kubectl_informer.run.pipeline import new_informer, resolve_profile
    from kubectl_informer.run.sample_controller import SimulatedController

    objects = [small_object(i) for i in range(n)]
    events, _ = build_events(objects, updates)
    gate = threading.Event()
    lw = ScriptedLW(objects, str(n), events, gate)

    emit_calls = [0]
    drainer_stop = threading.Event()
    buf = None
    if tracer_mode == "stub":
        tracer = _StubTracer()
    elif tracer_mode == "count":
        tracer = Tracer()
        real_emit = tracer.emit

        def counting_emit(kind, key=None, **fields):
            emit_calls[0] += 1
            return real_emit(kind, key, **fields)

        tracer.emit = counting_emit
    else:
        tracer = Tracer()
        if tracer_mode in ("sub", "idx"):
            buf = TraceBuffer(maxlen=2_000_000)
            tracer.subscribe(buf)

    # The process tuning the CLI gives a run without the UI: the GC setting
    # and, unless ENGINE_BENCH_UNPINNED, the one-CPU pin.
    setting = ENGINE if os.environ.get("ENGINE_BENCH_UNPINNED") is None else replace(ENGINE, pin=False)
    tuning = tuned(setting)
    tuning.__enter__()
    informer = new_informer(
        lw, resolve_profile(profile_name), tracer=tracer, indexers=two_indexes() if tracer_mode == "idx" else None
    )
    ctrl = SimulatedController(informer, workers=2, work_time=0.0, tracer=tracer if tracer_mode != "stub" else None)
    if tracer_mode == "stub":
        # Every engine component must see the stub, the queue included.
        ctrl.queue._tracer = tracer
        ctrl.tracer = tracer
    stop = threading.Event()
    drained = [0]

    def drainer():
        while not drainer_stop.wait(0.05):
            drained[0] += len(buf.drain())

    threads = [
        threading.Thread(target=informer.run, args=(stop,), daemon=True),
        threading.Thread(target=ctrl.run, args=(stop,), daemon=True),
    ]
    if buf is not None:
        threads.append(threading.Thread(target=drainer, daemon=True))
    # The pre-built watch events are the benchmark's scaffolding, not the
    # pipeline's: keep the cyclic GC from walking them on every full pass.
    gc.collect()
    gc.freeze()
    for t in threads:
        t.start()
    reg = ctrl.registration
    while not (informer.has_synced() and reg.delivered >= n):
        time.sleep(0.002)
    emit_calls[0] = 0
    total = n + len(events)
    t0 = time.perf_counter()
    c0 = time.process_time()
    gate.set()
    while reg.delivered < total:
        time.sleep(0.01)  # coarse: a busy poller would steal the GIL from the pipeline
    elapsed = time.perf_counter() - t0
    cpu = time.process_time() - c0
    calls = emit_calls[0]
    drainer_stop.set()
    stop.set()
    for t in threads:
        t.join(10)
    if buf is not None:
        drained[0] += len(buf.drain())
    return {
        "deltas": len(events),
        "seconds": elapsed,
        "deltas_per_s": len(events) / elapsed,
        "cpu_seconds": cpu,
        "deltas_per_cpu_s": len(events) / cpu,
        "emit_calls_per_delta": calls / len(events),
        "trace_events": drained[0],
    }


def _rss_kib() -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def child_rss(n: int, profile_name: str) -> dict:
    import gc

    import orjson

    from kubectl_informer.cache.shared_informer import ResourceEventHandlerFuncs
    from kubectl_informer.core.trace import Tracer
    from kubectl_informer.run.lifecycle import ENGINE, tuned
    from kubectl_informer.run.pipeline import new_informer, resolve_profile

    tuned(ENGINE).__enter__()  # as the CLI runs without the UI
    body = orjson.dumps(
        {
            "kind": "PodList",
            "apiVersion": "v1",
            "metadata": {"resourceVersion": str(n)},
            "items": [small_object(i) for i in range(n)],
        }
    )
    json_per_object = len(orjson.dumps(small_object(n // 2)))
    gc.collect()
    base = _rss_kib()
    peak_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss

    class DecodingLW:
        def list(self, options):
            # Decoded per LIST, as the HTTP client does; the body goes away.
            return orjson.loads(body)

        def watch(self, options):
            if options.send_initial_events:
                # WatchList profiles: the objects arrive as a decoded stream.
                from kubectl_informer.cache.listwatch import WatchEvent

                lst = orjson.loads(body)
                end = {"metadata": {"resourceVersion": str(n), "annotations": {"k8s.io/initial-events-end": "true"}}}
                return _Replay(
                    [WatchEvent("ADDED", o) for o in lst["items"]] + [WatchEvent("BOOKMARK", end)], threading.Event()
                )
            return _Replay([], threading.Event())

    informer = new_informer(DecodingLW(), resolve_profile(profile_name), tracer=Tracer())
    seen = [0]
    informer.add_event_handler(ResourceEventHandlerFuncs(add=lambda o: seen.__setitem__(0, seen[0] + 1)))
    stop = threading.Event()
    t = threading.Thread(target=informer.run, args=(stop,), daemon=True)
    t.start()
    while not (informer.has_synced() and seen[0] >= n):
        time.sleep(0.005)
    gc.collect()
    held = _rss_kib()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    stop.set()
    t.join(10)
    # The body was built before the baseline and is still alive: it is the
    # JSON the objects came from, not part of the cache.
    grown_peak = max(peak, peak_before) - base
    return {
        "objects": n,
        "json_bytes_per_object": json_per_object,
        "rss_held_kib_per_object": (held - base) / n,
        "rss_peak_kib_per_object": grown_peak / n,
        "rss_per_object_beyond_json_kib": grown_peak / n - json_per_object / 1024,
    }


def run_child(args: list[str]) -> dict:
    out = subprocess.run(
        [sys.executable, os.path.abspath(__file__), "--child", *args], capture_output=True, text=True, cwd=ROOT
    )
    if out.returncode != 0:
        raise SystemExit(f"bench child {args} failed: {out.stderr.strip().splitlines()[-1:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    smoke = os.environ.get("BENCH_SMOKE") == "1"  # the test suite's run: same code, few objects
    ap.add_argument("--objects", type=int, default=300 if smoke else 10_000)
    ap.add_argument("--updates", type=int, default=4 if smoke else 20)
    ap.add_argument("--profile", default="1.32")
    ap.add_argument("--reps", type=int, default=1 if smoke else 3)
    ap.add_argument(
        "--pairs",
        type=int,
        default=2 if smoke else 30,
        help="segment pairs with and without the 1.36 store RV + metrics (default 30)",
    )
    ap.add_argument(
        "--rate",
        type=float,
        default=TARGET_DELTAS,
        help=f"deltas/s the watch replays for the 1.36 figure (default {TARGET_DELTAS:,}; 0: unpaced)",
    )
    ap.add_argument("--child", nargs="+")
    ap.add_argument(
        "--control",
        action="store_true",
        help="with --only staleness: both informers without the 1.36 bookkeeping (A/A: the method's own reading)",
    )
    ap.add_argument("--only", choices=("staleness",), help="only the 1.36 store RV + informer metrics figure")
    a = ap.parse_args()
    if a.child:
        kind = a.child[0]
        if kind == "throughput":
            res = child_throughput(int(a.child[1]), int(a.child[2]), a.child[3], a.child[4])
        elif kind == "pairs":
            res = child_staleness_pairs(
                int(a.child[1]), int(a.child[2]), float(a.child[3]), int(a.child[4]), a.child[5:6] == ["control"]
            )
        elif kind == "micro":
            res = child_staleness_micro(int(a.child[1]), int(a.child[2]))
        else:
            res = child_rss(int(a.child[1]), a.child[2])
        print(json.dumps(res))
        return

    n, u, prof = a.objects, a.updates, a.profile
    if smoke:
        print("smoke mode (BENCH_SMOKE=1): the same code path for a few seconds; its figures measure nothing")
    what = (
        f"profile 1.36, {a.pairs} pairs"
        if a.only == "staleness"
        else f"profile {prof}, best of {a.reps}; the 1.36 figure: {a.pairs} pairs"
    )
    print(f"engine bench: {n} objects x {u} updates = {n * u} deltas, {what}, {os.cpu_count()} cpus")
    print(
        "pipeline threads pinned to one CPU, as the CLI runs them (lifecycle.tuned(ENGINE))"
        if os.environ.get("ENGINE_BENCH_UNPINNED") is None
        else "pipeline threads NOT pinned (ENGINE_BENCH_UNPINNED set): the GIL hands off across cores"
    )
    if a.only == "staleness":
        st = staleness_figures(n, u, a.pairs, a.rate, a.control)
        if a.control:
            print(
                "control run (--control): both informers without the 1.36 bookkeeping; the figure is the method's own"
            )
        print(staleness_summary(st, a.rate))
        print(f"machine: load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cpus during the run")
        print(staleness_line(st, a.rate))
        return
    best: dict[str, float] = {}
    best_cpu: dict[str, float] = {}
    for rep in range(a.reps):
        # Interleaved so that load from other processes hits every mode alike.
        for mode in ("off", "stub", "sub", "idx"):
            r = run_child(["throughput", str(n), str(u), mode, prof])
            best[mode] = max(best.get(mode, 0.0), r["deltas_per_s"])
            best_cpu[mode] = max(best_cpu.get(mode, 0.0), r["deltas_per_cpu_s"])
            extra = f", {r['trace_events']:,} trace events drained" if mode in ("sub", "idx") else ""
            print(
                f"  rep {rep + 1} tracer={mode:<4} {r['deltas_per_s']:>9,.0f} deltas/s wall, "
                f"{r['deltas_per_cpu_s']:>9,.0f} per CPU-second ({r['seconds']:.2f} s{extra})"
            )
    staleness = staleness_figures(n, u, a.pairs, a.rate)
    calls = run_child(["throughput", str(n), str(max(1, u // 4)), "count", prof])["emit_calls_per_delta"]
    rss = run_child(["rss", str(n), prof])

    # The overhead is a ratio of CPU time per delta: on a shared machine the
    # wall clock mostly measures the neighbours.
    raw_overhead = best_cpu["stub"] / best_cpu["off"] - 1.0
    overhead = max(0.0, raw_overhead)  # negative: the stub run was the slower one (noise)
    raw_index = best_cpu["sub"] / best_cpu["idx"] - 1.0
    index_overhead = max(0.0, raw_index)
    print(
        f"deltas/s, subscriber draining:  {best['sub']:>9,.0f} wall, {best_cpu['sub']:>9,.0f} per CPU-s"
        f"  (target >= {TARGET_DELTAS:,})  {'ok' if best['sub'] >= TARGET_DELTAS else 'MISSED'}"
    )
    print(f"deltas/s, no subscriber:        {best['off']:>9,.0f} wall, {best_cpu['off']:>9,.0f} per CPU-s")
    print(f"deltas/s, tracer stubbed out:   {best['stub']:>9,.0f} wall, {best_cpu['stub']:>9,.0f} per CPU-s")
    print(
        f"tracer-off overhead (CPU):      {overhead:>9.1%}  (raw {raw_overhead:+.1%}; target < {TARGET_OVERHEAD:.0%})"
        f"  {'ok' if overhead < TARGET_OVERHEAD else 'MISSED'}; emit calls per delta with no subscriber: {calls:.3f}"
    )
    print(f"deltas/s, two indexes:          {best['idx']:>9,.0f} wall, {best_cpu['idx']:>9,.0f} per CPU-s")
    print(
        f"index overhead (CPU, 2 indexes): {index_overhead:>8.1%}  (raw {raw_index:+.1%}; target < "
        f"{TARGET_INDEX_OVERHEAD:.0%})  {'ok' if index_overhead < TARGET_INDEX_OVERHEAD else 'MISSED'}"
    )
    print(
        f"RSS per cached object:          {rss['rss_peak_kib_per_object']:.2f} KiB peak, "
        f"{rss['rss_held_kib_per_object']:.2f} KiB held; JSON {rss['json_bytes_per_object']} B/object"
    )
    beyond = rss["rss_per_object_beyond_json_kib"]
    print(
        f"RSS per object beyond JSON:     {beyond:>9.2f} KiB  "
        f"(target < {TARGET_RSS_KIB} KiB)  {'ok' if beyond < TARGET_RSS_KIB else 'MISSED'}"
    )
    st_over = max(0.0, staleness["median"])
    print(staleness_summary(staleness, a.rate))
    print(staleness_line(staleness, a.rate))
    load = os.getloadavg()[0]
    print(f"machine: load average {load:.1f} on {os.cpu_count()} cpus during the run")
    print(
        f"bench engine: deltas_per_s={best['sub']:.0f} tracer_off_overhead={overhead:.3f} "
        f"rss_per_object_kib={rss['rss_per_object_beyond_json_kib']:.2f} staleness_overhead={st_over:.3f} "
        f"index_overhead={index_overhead:.3f}"
    )


SEGMENTS_PER_CHILD = 10


def staleness_figures(n: int, u: int, pairs: int, rate: float, control: bool = False) -> dict[str, float]:
    """client-go 1.36's store-RV bookkeeping and informer metrics: ``pairs``
    segment pairs (``child_staleness_pairs``), up to SEGMENTS_PER_CHILD per
    child process, each child pinned to the CPU its pid picks (so the
    children spread over the CPUs and their neighbours). The figure is the
    median of the pairs' ratios; their quartiles and range say how far one
    pair can be trusted on this machine."""
    paired, rates, cpu_ns = [], [], []
    left, child = pairs, 0
    while left > 0:
        child += 1
        segments = min(SEGMENTS_PER_CHILD, left)
        left -= segments
        r = run_child(["pairs", str(n), str(u), str(rate), str(segments), *(["control"] if control else [])])
        paired += r["pairs"]
        rates += r["deltas_per_s"]
        cpu_ns += [c * 1e9 for c in r["tracked_cpu_s_per_delta"]]
        print(
            f"  child {child}: {segments} segment pairs of "
            f"{n * u // (segments + 1):,} deltas, with / without - 1: {', '.join(f'{p:+.1%}' for p in r['pairs'])}; "
            f"{min(r['deltas_per_s']):,.0f} .. {max(r['deltas_per_s']):,.0f} deltas/s wall"
        )
    ratios = sorted(paired)
    out = {
        "median": _quantile(ratios, 0.5),
        "q1": _quantile(ratios, 0.25),
        "q3": _quantile(ratios, 0.75),
        "min": ratios[0],
        "max": ratios[-1],
        "pairs": float(pairs),
        "achieved_rate": _quantile(sorted(rates), 0.5),
        "delta_ns": _quantile(sorted(cpu_ns), 0.5),
    }
    print(
        f"  median {out['median']:+.1%}, quartiles {out['q1']:+.1%} .. {out['q3']:+.1%}, "
        f"range {out['min']:+.1%} .. {out['max']:+.1%} over {pairs} pairs"
    )
    micro_reps = min(20, max(5, pairs))
    m = run_child(["micro", str(min(n, 20_000)), str(micro_reps)])
    extra = (m["store_rv"] - m["store"]) + (m["fifo_metrics"] - m["fifo"])
    out["parts_ns"] = extra
    print(
        f"  parts alone, ns per delta (best of {micro_reps}): key + store add {m['store']:.0f} -> "
        f"{m['store_rv']:.0f} with its RV, RealFIFO add+pop {m['fifo']:.0f} -> {m['fifo_metrics']:.0f} with "
        f"metrics: +{extra:.0f} ns, {extra / out['delta_ns']:.1%} of the {out['delta_ns']:.0f} CPU-ns a 1.36 delta "
        f"costs the pipeline at this rate"
    )
    return out


def _quantile(xs: list[float], q: float) -> float:
    """The ``q`` quantile of sorted ``xs``, interpolated between neighbours."""
    pos = (len(xs) - 1) * q
    lo = int(pos)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


def staleness_summary(st: dict[str, float], rate: float) -> str:
    paced = f"at {rate:,.0f} deltas/s" if rate else "unpaced"
    ok = "ok" if st["median"] < TARGET_STALENESS_OVERHEAD else "MISSED"
    return (
        f"1.36 store RV + informer metrics ({paced}, {st['achieved_rate']:,.0f} reached): "
        f"{st['median']:+.1%} CPU per delta, median of {st['pairs']:.0f} pairs "
        f"(quartiles {st['q1']:+.1%} .. {st['q3']:+.1%}; target < {TARGET_STALENESS_OVERHEAD:.0%})  {ok}"
    )


def staleness_line(st: dict[str, float], rate: float) -> str:
    """The staleness figure's machine-readable summary (``--only staleness``)."""
    return (
        f"bench engine-staleness: overhead_pct={st['median'] * 100:.2f} q1_pct={st['q1'] * 100:.2f} "
        f"q3_pct={st['q3'] * 100:.2f} min_pct={st['min'] * 100:.2f} max_pct={st['max'] * 100:.2f} "
        f"pairs={st['pairs']:.0f} rate={rate:.0f} achieved_rate={st['achieved_rate']:.0f} "
        f"delta_ns={st['delta_ns']:.0f} parts_ns={st['parts_ns']:.0f}"
    )


if __name__ == "__main__":
    main()
