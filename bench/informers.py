"""Three informers in one run against three single-resource runs, side by side.

The simulated API server (its own process) holds N objects of each of three
resources in one namespace: Deployments, ConfigMaps and Pods. Then, in fresh
processes, timed from spawn until synced:

  one-run   one Run of ``watch deployments,configmaps,pods``: three informers
            from one SharedInformerFactory in one process (the plugin's own
            Run: discovery, the engine tuning ``-o json`` uses)
  three     three Runs of one resource each (``watch deployments``, ``watch
            configmaps``, ``watch pods``), three processes started together:
            time until the last one synced, peak RSS summed over the three

Peak RSS is each process's VmHWM at the moment it synced (see bench/cluster.py
for why not ru_maxrss). Runs alternate between the two and the median is
reported. The last line is ``bench informers: one_run_s=F three_runs_s=F
one_run_rss_mib=F three_runs_rss_mib=F time_ratio=F rss_ratio=F`` (ratios:
the one run's over the three runs').

    python bench/informers.py                       # 10,000 objects each, 3 repeats
    INFORMERS_BENCH_N=2000 INFORMERS_BENCH_REPEATS=1 python bench/informers.py
    BENCH_SMOKE=1 python bench/informers.py         # 200 each, once: the test suite's smoke run
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESOURCES = ("deployments", "configmaps", "pods")


def serve(n: int, kubeconfig: str) -> None:
    from kubectl_informer.sim.objects import make_configmap, make_deployment, make_pod
    from kubectl_informer.sim.server import SimServer

    srv = SimServer().start()
    srv.store.create("namespaces", {"metadata": {"name": "default"}})
    srv.store.bulk_load("deployments", (make_deployment("default", f"app-{i:06d}") for i in range(n)))
    srv.store.bulk_load(
        "configmaps", (make_configmap("default", f"cm-{i:06d}", {"index": str(i), "app": "web"}) for i in range(n))
    )
    pods = (
        make_pod("default", f"app{i % 50}-{i:06d}", app=f"app{i % 50}", index=i, node=f"node-{i % 100}")
        for i in range(n)
    )
    srv.store.bulk_load(
        "pods", ({**p, "metadata": {k: v for k, v in p["metadata"].items() if k != "managedFields"}} for p in pods)
    )
    srv.write_kubeconfig(kubeconfig)
    print("ready", srv.url, flush=True)
    sys.stdin.read()  # until the parent closes our stdin
    srv.stop()


def client(kubeconfig: str, n: int, resources: list[str]) -> None:
    """One Run informing on ``resources``: print when every informer has all
    ``n`` objects of its resource, with this process's peak RSS, and exit."""
    from kubectl_informer.core.trace import Tracer
    from kubectl_informer.run.config import RunConfig
    from kubectl_informer.run.lifecycle import ENGINE, tuned
    from kubectl_informer.run.runner import Run

    config = RunConfig.from_flags(
        mode="watch", resource=resources[0], owns=tuple(resources[1:]), kubeconfig=kubeconfig, namespace="default"
    )
    with tuned(ENGINE):  # as -o json runs the engine: pinned, its GC thresholds
        run = Run(config, Tracer())
        run.prepare()
        run.start()
        informers = list(run.factory.informers.values())
        deadline = time.monotonic() + 900
        while not all(inf.has_synced() and len(inf.get_indexer()) >= n for inf in informers):
            if time.monotonic() > deadline:
                print(json.dumps({"error": "not synced"}), flush=True)
                os._exit(1)
            time.sleep(0.002)
        t = time.time()
        print(
            json.dumps(
                {"synced_at": t, "items": [len(inf.get_indexer()) for inf in informers], "hwm_kib": _vm_hwm_kib()}
            ),
            flush=True,
        )
    os._exit(0)


def _vm_hwm_kib() -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    raise RuntimeError("no VmHWM in /proc/self/status")


def spawn(kubeconfig: str, n: int, resources: list[str]) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, __file__, "--client", kubeconfig, str(n), ",".join(resources)],
        stdout=subprocess.PIPE,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": ROOT},
    )


def finish(p: subprocess.Popen, n: int, what: str) -> dict:
    out = p.stdout.read()
    p.wait()
    line = out.decode().strip().splitlines()[-1] if out.strip() else "{}"
    result = json.loads(line)
    if p.returncode != 0 or "synced_at" not in result:
        raise SystemExit(f"bench informers: {what} failed: {result.get('error', p.returncode)}")
    if any(items != n for items in result["items"]):
        raise SystemExit(f"bench informers: {what} synced {result['items']}, not {n} each")
    return result


def one_run(kubeconfig: str, n: int) -> tuple[float, float]:
    t0 = time.time()
    r = finish(spawn(kubeconfig, n, list(RESOURCES)), n, "the three-informer run")
    return r["synced_at"] - t0, r["hwm_kib"] / 1024.0


def three_runs(kubeconfig: str, n: int) -> tuple[float, float]:
    t0 = time.time()
    procs = [spawn(kubeconfig, n, [r]) for r in RESOURCES]
    results = [finish(p, n, f"the {r} run") for p, r in zip(procs, RESOURCES, strict=True)]
    return max(r["synced_at"] for r in results) - t0, sum(r["hwm_kib"] for r in results) / 1024.0


def main() -> None:
    import tempfile

    smoke = os.environ.get("BENCH_SMOKE") == "1"
    if smoke:
        print("smoke mode (BENCH_SMOKE=1): the same code path for a few seconds; its figures measure nothing")
    n = int(os.environ.get("INFORMERS_BENCH_N", "200" if smoke else "10000"))
    repeats = int(os.environ.get("INFORMERS_BENCH_REPEATS", "1" if smoke else "3"))
    print(
        f"bench informers: {n:,} each of {', '.join(RESOURCES)} from the simulated API server (separate "
        f"process); python {sys.version.split()[0]}, {os.cpu_count()} cpus, load average "
        f"{os.getloadavg()[0]:.1f} at start"
    )
    import compileall

    compileall.compile_dir(os.path.join(ROOT, "kubectl_informer"), quiet=1)  # as an installed package runs
    kubeconfig = os.path.join(tempfile.mkdtemp(prefix="bench-informers-"), "kubeconfig")
    server = subprocess.Popen(
        [sys.executable, __file__, "--serve", str(n), kubeconfig],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": ROOT},
    )
    runs: dict[str, list[tuple[float, float]]] = {"one-run": [], "three": []}
    try:
        if server.stdout.readline().decode().split()[:1] != ["ready"]:
            raise SystemExit("bench informers: the simulated server did not start")
        for i in range(repeats):
            order = ("one-run", "three") if i % 2 == 0 else ("three", "one-run")
            for what in order:
                runs[what].append(one_run(kubeconfig, n) if what == "one-run" else three_runs(kubeconfig, n))
    finally:
        server.stdin.close()
        server.wait(60)
    med = {w: (statistics.median(r[0] for r in v), statistics.median(r[1] for r in v)) for w, v in runs.items()}
    for w, (t, m) in med.items():
        all_t = ", ".join(f"{r[0]:.2f}" for r in runs[w])
        print(f"  {w:<8} {t:7.2f} s to synced, peak RSS {m:7.0f} MiB   (runs: {all_t} s)")
    (t1, m1), (t3, m3) = med["one-run"], med["three"]
    print(f"load average {os.getloadavg()[0]:.1f} at the end (other jobs share this machine)")
    print(
        f"bench informers: one_run_s={t1:.2f} three_runs_s={t3:.2f} one_run_rss_mib={m1:.0f} "
        f"three_runs_rss_mib={m3:.0f} time_ratio={t1 / t3:.2f} rss_ratio={m1 / m3:.2f}"
    )


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--serve":
        serve(int(sys.argv[2]), sys.argv[3])
    elif len(sys.argv) > 1 and sys.argv[1] == "--client":
        client(sys.argv[2], int(sys.argv[3]), sys.argv[4].split(","))
    else:
        main()
