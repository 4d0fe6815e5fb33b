"""List-and-sync N pods from the simulated API server: ours (full and
metadata-only) against the official Python informer, in the same run.

For each size (10,000 and 100,000 pods in one namespace) and each pod shape
the simulated API server runs in its own process, and each client runs in a
fresh subprocess, timed from the moment the process is spawned until its
cache holds all N pods; peak RSS is the child's VmHWM at that moment. Shapes:

  2k   a realistic pod without managedFields (about 2 KB of JSON)
  8k   the same pod with the managedFields of five managers (about 8 KB)

Clients:

  ours        new_informer, client-go 1.32 profile (paged LIST, DeltaFIFO,
              Indexer, one handler) over KubeListerWatcher, threads pinned to
              one CPU as the plugin runs them
  ours-wl     the same with the client-go 1.36 profile (a WatchList stream,
              RealFIFO)
  ours-meta   the same with --metadata-only (PartialObjectMetadata)
  theirs      kubernetes.informer.SharedInformer (kubernetes 37.0.2) over
              CoreV1Api.list_pod_for_all_namespaces (at 10,000 pods only,
              unless CLUSTER_BENCH_THEIRS_ALL=1: at 100,000 it takes minutes
              and gigabytes)

Both clients run from compiled bytecode, as installed packages do: the
bench compiles ours first (a checkout run with PYTHONDONTWRITEBYTECODE would
compile every module of ours in every client process; the kubernetes
client's bytecode was compiled when pip installed it).

Runs alternate between clients and the median is reported. Targets (2k pods):
at 10,000 ours >= 8x faster than theirs at <= 1/2 of its peak RSS; at
100,000 ours synced in <= 5 s with <= 1.2 GiB peak RSS; metadata-only <= 1/4
of the full peak RSS; the WatchList's peak RSS at 100,000 within 10% of the
paged LIST's. The last line is ``bench cluster: speedup_10k=F
rss_ratio_10k=F sync_100k_s=F rss_100k_mib=F meta_rss_ratio_100k=F
rss_watchlist_ratio_100k=F``. CLUSTER_BENCH_CLIENTS=ours-wl,... runs only
those clients besides ``ours``.

    python bench/cluster.py
    CLUSTER_BENCH_SIZES=10000 CLUSTER_BENCH_SHAPES=2k python bench/cluster.py
    CLUSTER_BENCH_REPEATS=5 python bench/cluster.py
    CLUSTER_BENCH_SIZES=100000 CLUSTER_BENCH_SHAPES=2k CLUSTER_BENCH_CLIENTS=ours,ours-wl python bench/cluster.py
    BENCH_SMOKE=1 python bench/cluster.py   # 300 pods, once each: the test suite's smoke run
"""

from __future__ import annotations

import json
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TARGET_SPEEDUP = 8.0
TARGET_RSS_RATIO = 2.0
TARGET_SYNC_100K = 5.0
TARGET_RSS_100K_MIB = 1.2 * 1024
TARGET_META_RATIO = 0.25
TARGET_WL_RATIO = 1.10
MANAGERS = ("kube-controller-manager", "kubelet", "kubectl-client-side-apply", "helm", "argocd-controller")


# --------------------------------------------------------------------------- pods


def _fields(prefix: str, names: tuple[str, ...], depth: int) -> dict:
    """A managedFields fieldsV1 tree: every field a manager owns, as the API
    server writes it ("f:name" keys, "." for the node itself, empty leaves)."""
    if depth == 0:
        return {}
    tree: dict = {".": {}}
    for n in names:
        tree[f"f:{prefix}{n}"] = _fields(prefix, names[: max(1, len(names) // 2)], depth - 1)
    return tree


def big_managed_fields(ts: str, app: str) -> list[dict]:
    spec = (
        "containers",
        "dnsPolicy",
        "enableServiceLinks",
        "nodeSelector",
        "restartPolicy",
        "schedulerName",
        "securityContext",
        "serviceAccountName",
        "terminationGracePeriodSeconds",
        "tolerations",
    )
    status = ("conditions", "containerStatuses", "hostIP", "hostIPs", "phase", "podIP", "podIPs", "startTime")
    out = []
    for i, manager in enumerate(MANAGERS):
        tree = {
            "f:metadata": {
                "f:labels": {".": {}, "f:app": {}, "f:pod-template-hash": {}, f"f:{app}-{i}": {}},
                "f:annotations": {".": {}, f"f:{manager}/revision": {}},
            }
        }
        if manager == "kubelet":
            tree = {"f:status": _fields("", status, 2)}
        else:
            tree["f:spec"] = _fields("", (spec[i:] + spec[:i])[:9], 2)
        entry = {
            "manager": manager,
            "operation": "Update" if i < 2 else "Apply",
            "apiVersion": "v1",
            "time": ts,
            "fieldsType": "FieldsV1",
            "fieldsV1": tree,
        }
        if manager == "kubelet":
            entry["subresource"] = "status"
        out.append(entry)
    return out


def make_pods(n: int, shape: str):
    from kubectl_informer.sim.objects import make_pod

    for i in range(n):
        app = f"app{i % 50}"
        pod = make_pod("default", f"{app}-{i:06d}", app=app, index=i, node=f"node-{i % 100}")
        meta = pod["metadata"]
        if shape == "8k":
            meta["managedFields"] = big_managed_fields(meta["annotations"]["kubectl.kubernetes.io/restartedAt"], app)
        else:
            meta.pop("managedFields")
        yield pod


# --------------------------------------------------------------------------- server process


def serve(n: int, shape: str, kubeconfig: str) -> None:
    from kubectl_informer.sim.server import SimServer

    srv = SimServer().start()
    srv.store.create("namespaces", {"metadata": {"name": "default"}})
    srv.store.bulk_load("pods", make_pods(n, shape))
    srv.write_kubeconfig(kubeconfig)
    # The sim converts each object to PartialObjectMetadata once and keeps it:
    # convert now, so the metadata-only runs time the client, not that.
    from kubectl_informer.sim import metadata

    for e in srv.store.list_entries("pods")[0]:
        metadata.partial(e.raw)
    print("ready", srv.url, flush=True)
    sys.stdin.read()  # until the parent closes our stdin
    srv.stop()


# --------------------------------------------------------------------------- client processes


def client(kind: str, kubeconfig: str, n: int) -> None:
    """Sync all ``n`` pods, print the wall time of that moment, exit at once."""
    import threading

    if kind == "theirs":
        from kubernetes import client as k8s
        from kubernetes import config
        from kubernetes.informer import SharedInformer

        api = config.new_client_from_config(config_file=kubeconfig)
        inf = SharedInformer(k8s.CoreV1Api(api).list_pod_for_all_namespaces)
        inf.start()

        def size() -> int:
            return len(inf.cache.list_keys())

        def done() -> bool:
            return size() >= n

    else:
        from kubectl_informer.cache.shared_informer import ResourceEventHandlerFuncs
        from kubectl_informer.core.profiles import resolve_profile
        from kubectl_informer.kube.config import load_kube
        from kubectl_informer.kube.discovery import resolve_resource
        from kubectl_informer.kube.listwatch import KubeListerWatcher
        from kubectl_informer.run.lifecycle import pin_to_one_cpu
        from kubectl_informer.run.pipeline import new_informer

        pin_to_one_cpu()  # as the CLI does before its threads start
        target = load_kube(kubeconfig=kubeconfig)
        res = resolve_resource(target.api_client, "pods")
        lw = KubeListerWatcher(target.api_client, res, metadata_only=kind == "ours-meta")
        inf = new_informer(lw, resolve_profile("1.36" if kind == "ours-wl" else "1.32"))
        added = [0]

        def on_add(obj, is_in_initial_list):
            added[0] += 1

        inf.add_event_handler(ResourceEventHandlerFuncs(add=on_add))
        threading.Thread(target=inf.run, args=(threading.Event(),), daemon=True).start()

        def size() -> int:
            return len(inf.get_indexer().list_keys())

        def done() -> bool:
            return inf.has_synced() and added[0] >= n

    deadline = time.monotonic() + 900
    while not done():
        if time.monotonic() > deadline:
            print(json.dumps({"error": f"not synced: {size()} of {n}"}), flush=True)
            os._exit(1)
        time.sleep(0.002)
    t = time.time()
    cpu = os.times()
    print(
        json.dumps({"synced_at": t, "items": size(), "hwm_kib": _vm_hwm_kib(), "cpu_s": cpu.user + cpu.system}),
        flush=True,
    )
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


def run_client(kind: str, kubeconfig: str, n: int) -> tuple[float, float, float]:
    """(seconds from spawn to synced, peak RSS MiB, CPU seconds by then) of one
    fresh client process."""
    import subprocess

    t0 = time.time()
    p = subprocess.Popen(
        [sys.executable, __file__, "--client", kind, kubeconfig, str(n)],
        stdout=subprocess.PIPE,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": ROOT},
    )
    out = p.stdout.read()
    p.wait()
    line = out.decode().strip().splitlines()[-1] if out.strip() else "{}"
    result = json.loads(line)
    if p.returncode != 0 or "synced_at" not in result:
        raise SystemExit(f"bench cluster: {kind} at {n} pods failed: {result.get('error', p.returncode)}")
    if result["items"] != n:
        raise SystemExit(f"bench cluster: {kind} synced {result['items']} of {n}")
    return result["synced_at"] - t0, result["hwm_kib"] / 1024.0, result["cpu_s"]


def list_bytes(url: str, kubeconfig: str) -> int:
    import urllib.request

    with open(kubeconfig) as f:  # the server's token (it answers nothing without one)
        token = json.load(f)["users"][0]["user"]["token"]
    request = urllib.request.Request(
        url + "/api/v1/namespaces/default/pods?limit=1", headers={"Authorization": f"Bearer {token}"}
    )
    with urllib.request.urlopen(request) as r:
        one = json.loads(r.read())["items"][0]
    return len(json.dumps(one, separators=(",", ":")))


def measure(n: int, shape: str, clients: tuple[str, ...], repeats: int, tmp: str) -> dict[str, tuple[float, float]]:
    import statistics
    import subprocess

    kubeconfig = os.path.join(tmp, f"kubeconfig-{n}-{shape}")
    server = subprocess.Popen(
        [sys.executable, __file__, "--serve", str(n), shape, kubeconfig],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": ROOT},
    )
    try:
        ready = server.stdout.readline().decode().split()
        if not ready or ready[0] != "ready":
            raise SystemExit("bench cluster: the simulated server did not start")
        print(f"\n{n:,} pods of {list_bytes(ready[1], kubeconfig):,} bytes of JSON each ({shape}):")
        runs: dict[str, list[tuple[float, float, float]]] = {c: [] for c in clients}
        for r in range(repeats):
            for c in clients if r % 2 == 0 else tuple(reversed(clients)):
                runs[c].append(run_client(c, kubeconfig, n))
    finally:
        server.stdin.close()
        server.wait(60)
    med = {c: (statistics.median(r[0] for r in v), statistics.median(r[1] for r in v)) for c, v in runs.items()}
    cpu = {c: statistics.median(r[2] for r in v) for c, v in runs.items()}
    for c in clients:
        t, m = med[c]
        all_t = ", ".join(f"{r[0]:.2f}" for r in runs[c])
        print(
            f"  {c:<10} {t:7.2f} s  peak RSS {m:7.0f} MiB  {m * 1024 * 1024 / n:7,.0f} B/object  CPU {cpu[c]:6.2f} s"
            f"   (runs: {all_t} s)"
        )
    if "theirs" in med:
        theirs, ours = med["theirs"], med["ours"]
        # CPU seconds move less with the machine's load than wall time does.
        print(
            f"  theirs/ours: time {theirs[0] / ours[0]:.2f}x, peak RSS {theirs[1] / ours[1]:.2f}x, "
            f"CPU {cpu['theirs'] / cpu['ours']:.2f}x"
        )
    if "ours-meta" in med:
        print(f"  metadata-only/full peak RSS: {med['ours-meta'][1] / med['ours'][1]:.2f}")
    if "ours-wl" in med:
        print(
            f"  WatchList/LIST peak RSS: {med['ours-wl'][1] / med['ours'][1]:.2f}, "
            f"time {med['ours-wl'][0] / med['ours'][0]:.2f}"
        )
    return med


def compile_ours() -> None:
    """Compile our modules' bytecode, as installing the package does (pip
    compiles every module of a wheel; the kubernetes client's was compiled
    when it was installed). From a source checkout with
    PYTHONDONTWRITEBYTECODE set, each client process would otherwise compile
    every module of ours again: about 50 ms before the first request."""
    import compileall

    if not compileall.compile_dir(os.path.join(ROOT, "kubectl_informer"), quiet=1):
        raise SystemExit("bench cluster: cannot compile kubectl_informer")


def main() -> None:
    import tempfile

    # BENCH_SMOKE=1 (the test suite's run): one small size stands for both, once each.
    smoke = os.environ.get("BENCH_SMOKE") == "1"
    if smoke:
        print("smoke mode (BENCH_SMOKE=1): the same code path for a few seconds; its figures measure nothing")
    sizes = [
        int(s)
        for s in os.environ.get("CLUSTER_BENCH_SIZES", "300" if smoke else "10000,100000").split(",")
        if s.strip()
    ]
    shapes = [
        s.strip() for s in os.environ.get("CLUSTER_BENCH_SHAPES", "2k" if smoke else "2k,8k").split(",") if s.strip()
    ]
    repeats_env = os.environ.get("CLUSTER_BENCH_REPEATS", "1" if smoke else None)
    theirs_all = os.environ.get("CLUSTER_BENCH_THEIRS_ALL") == "1"
    # CLUSTER_BENCH_CLIENTS narrows the clients (ours always runs: the others are measured against it).
    only = {c.strip() for c in os.environ.get("CLUSTER_BENCH_CLIENTS", "").split(",") if c.strip()}
    load = os.getloadavg()[0]
    print(
        f"bench cluster: list-and-sync N pods from the simulated API server (separate process); each client in a "
        f"fresh process, time from spawn to synced; python {sys.version.split()[0]}, {os.cpu_count()} cpus, "
        f"load average {load:.1f} at start"
    )
    print(
        f"targets (2k pods): at 10,000 >= {TARGET_SPEEDUP:g}x faster than kubernetes.informer.SharedInformer at "
        f"<= 1/{TARGET_RSS_RATIO:g} of its peak RSS; at 100,000 synced in <= {TARGET_SYNC_100K:g} s with <= "
        f"{TARGET_RSS_100K_MIB:.0f} MiB peak RSS; metadata-only <= {TARGET_META_RATIO:g} of the full peak RSS"
    )
    compile_ours()
    results: dict[tuple[int, str], dict[str, tuple[float, float]]] = {}
    tmp = tempfile.mkdtemp(prefix="bench-cluster-")
    for n in sizes:
        for shape in shapes:
            clients = ("ours", "ours-wl", "ours-meta") + (("theirs",) if n <= 10_000 or theirs_all else ())
            if only:
                clients = tuple(c for c in clients if c in only | {"ours"})
            repeats = int(repeats_env) if repeats_env else (3 if shape == "2k" else 1)
            results[(n, shape)] = measure(n, shape, clients, repeats, tmp)
    print(f"\nload average {os.getloadavg()[0]:.1f} at the end (other jobs share this machine)")
    summary(results, *((sizes[0], sizes[-1]) if smoke else (10_000, 100_000)))


def summary(results, small_n: int = 10_000, big_n: int = 100_000) -> None:
    """The figures at ``small_n`` and ``big_n`` pods (2k shape); the smoke
    run passes its one small size for both."""
    nan = float("nan")
    speedup = rss_ratio = sync_100k = rss_100k = meta_ratio = wl_ratio = nan
    small, big = results.get((small_n, "2k")), results.get((big_n, "2k"))
    if small and "theirs" in small:
        speedup = small["theirs"][0] / small["ours"][0]
        rss_ratio = small["theirs"][1] / small["ours"][1]
        print(
            f"10,000 pods: speedup {speedup:.2f}x (target >= {TARGET_SPEEDUP:g}), RSS ratio {rss_ratio:.2f}x "
            f"(target >= {TARGET_RSS_RATIO:g}): "
            f"{'met' if speedup >= TARGET_SPEEDUP and rss_ratio >= TARGET_RSS_RATIO else 'NOT met'}"
        )
    if big and "ours-wl" in big:
        wl_ratio = big["ours-wl"][1] / big["ours"][1]
        print(
            f"100,000 pods: WatchList peak RSS {big['ours-wl'][1]:.0f} MiB, {wl_ratio:.2f}x the paged LIST's "
            f"(target <= {TARGET_WL_RATIO:g}): {'met' if wl_ratio <= TARGET_WL_RATIO else 'NOT met'}"
        )
    if big:
        sync_100k, rss_100k = big["ours"]
        ok = sync_100k <= TARGET_SYNC_100K and rss_100k <= TARGET_RSS_100K_MIB
        print(
            f"100,000 pods: synced in {sync_100k:.2f} s (target <= {TARGET_SYNC_100K:g}), peak RSS {rss_100k:.0f} "
            f"MiB (target <= {TARGET_RSS_100K_MIB:.0f}): {'met' if ok else 'NOT met'}"
        )
    if big and "ours-meta" in big:
        meta_ratio = big["ours-meta"][1] / rss_100k
        print(
            f"100,000 pods: metadata-only/full {meta_ratio:.2f} (target <= {TARGET_META_RATIO:g}): "
            f"{'met' if meta_ratio <= TARGET_META_RATIO else 'NOT met'}"
        )
    print(
        f"bench cluster: speedup_10k={speedup:.2f} rss_ratio_10k={rss_ratio:.2f} sync_100k_s={sync_100k:.2f} "
        f"rss_100k_mib={rss_100k:.0f} meta_rss_ratio_100k={meta_ratio:.2f} rss_watchlist_ratio_100k={wl_ratio:.2f}"
    )


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--serve":
        serve(int(sys.argv[2]), sys.argv[3], sys.argv[4])
    elif len(sys.argv) > 1 and sys.argv[1] == "--client":
        client(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    else:
        main()
