"""List-and-sync N pods from the simulated API server: ours vs the official client.

For each size (1,000 / 10,000 / 50,000 pods in one namespace, about 2.8 KB of
JSON each, as real pods), the simulated API server runs in its own process
and each client runs in a fresh subprocess, timed from the moment the process
is spawned until its cache holds all N pods; peak RSS is the child's
VmHWM at that moment. Clients:

  ours        new_informer (client-go 1.32 profile: paged LIST, DeltaFIFO,
              Indexer, one handler) over KubeListerWatcher, orjson decoding
  ours-json   the same with json.loads instead of orjson (the decoder choice)
  ours-wl     the client-go 1.36 profile: WatchList stream, atomic RealFIFO
  theirs      kubernetes.informer.SharedInformer (kubernetes 37.0.2) over
              CoreV1Api.list_pod_for_all_namespaces

Runs alternate between clients and the median is reported. Target: at 10,000
pods ours is at least 4x faster than theirs with at most half its peak RSS.
The last line is ``bench cluster: speedup_10k=F rss_ratio_10k=F ours_10k_s=F``
(ratios are theirs/ours).

    python bench/cluster.py                       # 1000, 10000, 50000
    CLUSTER_BENCH_SIZES=1000,10000 python bench/cluster.py
    CLUSTER_BENCH_REPEATS=5 python bench/cluster.py
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CLIENTS = ("ours", "ours-json", "ours-wl", "theirs")
TARGET_SPEEDUP = 4.0
TARGET_RSS_RATIO = 2.0


# --------------------------------------------------------------------------- server process

def serve(n: int, kubeconfig: str) -> None:
    from kubectl_informer.sim.objects import make_pod
    from kubectl_informer.sim.server import SimServer

    srv = SimServer().start()
    srv.store.create("namespaces", {"metadata": {"name": "default"}})
    srv.store.bulk_load("pods", (make_pod("default", f"web-{i}", index=i) for i in range(n)))
    srv.write_kubeconfig(kubeconfig)
    print("ready", srv.url, flush=True)
    sys.stdin.read()  # until the parent closes our stdin
    srv.stop()


# --------------------------------------------------------------------------- client processes

def client(kind: str, kubeconfig: str, n: int) -> None:
    """Sync all ``n`` pods, print the wall time of that moment, exit at once."""
    import threading

    if kind == "theirs":
        from kubernetes import client as k8s, config
        from kubernetes.informer import SharedInformer

        api = config.new_client_from_config(config_file=kubeconfig)
        inf = SharedInformer(k8s.CoreV1Api(api).list_pod_for_all_namespaces)
        inf.start()
        size = lambda: len(inf.cache.list_keys())  # noqa: E731
        done = lambda: size() >= n  # noqa: E731
    else:
        from kubectl_informer.cache.shared_informer import ResourceEventHandlerFuncs
        from kubectl_informer.kube import rest
        from kubectl_informer.kube.config import load_kube
        from kubectl_informer.kube.discovery import resolve_resource
        from kubectl_informer.kube.listwatch import KubeListerWatcher
        from kubectl_informer.pipeline import new_informer, resolve_profile

        if kind == "ours-json":
            rest.loads = json.loads
        target = load_kube(kubeconfig=kubeconfig)
        res = resolve_resource(target.api_client, "pods")
        profile = resolve_profile("1.36" if kind == "ours-wl" else "1.32")
        inf = new_informer(KubeListerWatcher(target.api_client, res), profile)
        added = [0]

        def on_add(obj, is_in_initial_list):
            added[0] += 1

        inf.add_event_handler(ResourceEventHandlerFuncs(add=on_add))
        threading.Thread(target=inf.run, args=(threading.Event(),), daemon=True).start()
        size = lambda: len(inf.get_indexer().list_keys())  # noqa: E731
        done = lambda: inf.has_synced() and added[0] >= n  # noqa: E731
    deadline = time.monotonic() + 600
    while not done():
        if time.monotonic() > deadline:
            print(json.dumps({"error": f"not synced: {size()} of {n}"}), flush=True)
            os._exit(1)
        time.sleep(0.002)
    t = time.time()
    print(json.dumps({"synced_at": t, "items": size(), "hwm_kib": _vm_hwm_kib()}), flush=True)
    os._exit(0)


def _vm_hwm_kib() -> int:
    """This process's peak RSS. Not ru_maxrss: Linux carries the parent's
    high-water mark across fork+exec into it, so a big parent would inflate
    every child's figure."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    raise RuntimeError("no VmHWM in /proc/self/status")


def run_client(kind: str, kubeconfig: str, n: int) -> tuple[float, float]:
    """(seconds from spawn to synced, peak RSS MiB) of one fresh client process."""
    t0 = time.time()
    p = subprocess.Popen([sys.executable, __file__, "--client", kind, kubeconfig, str(n)], stdout=subprocess.PIPE,
                         cwd=ROOT, env={**os.environ, "PYTHONPATH": ROOT})
    out = p.stdout.read()
    p.wait()
    line = out.decode().strip().splitlines()[-1] if out.strip() else "{}"
    result = json.loads(line)
    if p.returncode != 0 or "synced_at" not in result:
        raise SystemExit(f"bench cluster: {kind} at {n} pods failed: {result.get('error', p.returncode)}")
    if result["items"] != n:
        raise SystemExit(f"bench cluster: {kind} synced {result['items']} of {n}")
    return result["synced_at"] - t0, result["hwm_kib"] / 1024.0


def decode_figures(url: str) -> dict[str, float]:
    """Decoders on the server's own list body, best of 3, GC paused as our
    list decoding pauses it: json.loads, orjson.loads, and loads_list (orjson
    item by item, what KubeListerWatcher uses). Run in a child process so the
    parent stays small."""
    code = f"""
import gc, json, sys, time, urllib.request
import orjson
from kubectl_informer.kube.decode import loads_list
body = urllib.request.urlopen({url!r} + "/api/v1/pods?resourceVersion=0").read()
out = {{"bytes": len(body)}}
for name, fn in (("json", json.loads), ("orjson", orjson.loads), ("loads_list", loads_list)):
    best = None
    for _ in range(3):
        gc.disable()
        t = time.perf_counter()
        x = fn(body)
        d = time.perf_counter() - t
        del x
        gc.enable()
        gc.unfreeze()
        best = d if best is None else min(best, d)
    out[name] = best
print(json.dumps(out))
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, cwd=ROOT,
                         env={**os.environ, "PYTHONPATH": ROOT}, timeout=600)
    if out.returncode != 0:
        raise SystemExit(f"bench cluster: decode figures failed: {out.stderr.decode()[-300:]}")
    return json.loads(out.stdout)


def main() -> None:
    sizes = [int(s) for s in os.environ.get("CLUSTER_BENCH_SIZES", "1000,10000,50000").split(",") if s.strip()]
    repeats_env = os.environ.get("CLUSTER_BENCH_REPEATS")
    print(f"bench cluster: list-and-sync N pods from the simulated API server (separate process); "
          f"each client in a fresh process, time from spawn to synced; python {sys.version.split()[0]}, "
          f"{os.cpu_count()} cpus")
    print(f"target: at 10,000 pods ours >= {TARGET_SPEEDUP:g}x faster than kubernetes.informer.SharedInformer "
          f"with <= 1/{TARGET_RSS_RATIO:g} of its peak RSS")
    results: dict[int, dict[str, tuple[float, float]]] = {}
    tmp = tempfile.mkdtemp(prefix="bench-cluster-")
    for n in sizes:
        repeats = int(repeats_env) if repeats_env else (3 if n <= 10_000 else 1)
        kubeconfig = os.path.join(tmp, f"kubeconfig-{n}")
        server = subprocess.Popen([sys.executable, __file__, "--serve", str(n), kubeconfig], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, cwd=ROOT, env={**os.environ, "PYTHONPATH": ROOT})
        try:
            ready = server.stdout.readline().decode().split()
            if not ready or ready[0] != "ready":
                raise SystemExit("bench cluster: the simulated server did not start")
            d = decode_figures(ready[1])
            print(f"\n{n:,} pods, {d['bytes'] / 1e6:.1f} MB of JSON as listed; decode (GC paused): "
                  f"json.loads {d['json']:.3f} s, orjson.loads {d['orjson']:.3f} s "
                  f"({d['json'] / d['orjson']:.1f}x), loads_list {d['loads_list']:.3f} s")
            runs: dict[str, list[tuple[float, float]]] = {c: [] for c in CLIENTS}
            for r in range(repeats):
                order = CLIENTS if r % 2 == 0 else tuple(reversed(CLIENTS))
                for c in order:
                    runs[c].append(run_client(c, kubeconfig, n))
            med = {c: (statistics.median(t for t, _ in v), statistics.median(m for _, m in v))
                   for c, v in runs.items()}
            results[n] = med
            for c in CLIENTS:
                t, m = med[c]
                all_t = ", ".join(f"{x:.2f}" for x, _ in runs[c])
                print(f"  {c:<10} {t:7.2f} s  peak RSS {m:7.0f} MiB   (runs: {all_t})")
            theirs, ours = med["theirs"], med["ours"]
            print(f"  theirs/ours: time {theirs[0] / ours[0]:.2f}x, peak RSS {theirs[1] / ours[1]:.2f}x; "
                  f"json/orjson in our pipeline: {med['ours-json'][0] / ours[0]:.2f}x; "
                  f"WatchList/LIST: {med['ours-wl'][0] / ours[0]:.2f}x")
        finally:
            server.stdin.close()
            server.wait(30)
    if 10_000 in results:
        theirs, ours = results[10_000]["theirs"], results[10_000]["ours"]
        speedup, rss_ratio = theirs[0] / ours[0], theirs[1] / ours[1]
        met = speedup >= TARGET_SPEEDUP and rss_ratio >= TARGET_RSS_RATIO
        print(f"\n10,000 pods: speedup {speedup:.2f}x (target >= {TARGET_SPEEDUP:g}), RSS ratio {rss_ratio:.2f}x "
              f"(target >= {TARGET_RSS_RATIO:g}): {'met' if met else 'NOT met'}")
        print(f"bench cluster: speedup_10k={speedup:.2f} rss_ratio_10k={rss_ratio:.2f} ours_10k_s={ours[0]:.2f}")
    else:
        print("\n10,000 is not in CLUSTER_BENCH_SIZES: no 10k figures")
        print("bench cluster: speedup_10k=nan rss_ratio_10k=nan ours_10k_s=nan")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--serve":
        serve(int(sys.argv[2]), sys.argv[3])
    elif len(sys.argv) > 1 and sys.argv[1] == "--client":
        client(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    else:
        main()
