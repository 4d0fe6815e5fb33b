"""The Deployment-controller shape's queue adds against the real controller's.

One rollout (create, set image, scale, rollout undo, rollout restart, delete:
the steps of test_rollout_vs_sim.py) runs on the lab and on the simulator.
Against the simulator runs ``kubectl informer queue deployments --controller
deployment`` with kube-controller-manager's five workers
(``--concurrent-deployment-syncs``); its ``workqueue_adds_total`` (an Add of a
key that is not dirty: client-go's ``Typed.Add`` counts ``metrics.add`` only
after the dirty check) is compared with the rise of the lab's
``workqueue_adds_total{name="deployment"}`` over the same steps.

The same shape runs against the lab too, so a difference splits in two: the
events the two clusters' controllers wrote (the shape's handler calls, lab
against simulator) and how the queue collapsed them (the shape's adds against
the real controller's, on the same events).

How many events a queue collapses depends on how far apart they come: the
simulated controllers reconcile in 5 ms here (sides.SYNC_SECONDS), not at once.

The lab's counter covers every namespace: the test waits until it stands
still, watches the Deployments and ReplicaSets of every other namespace during
the steps and measures again when any of them moved."""

from __future__ import annotations

import json
import os
import re
import ssl
import subprocess
import sys
import threading
import time
import urllib.request
from collections import Counter

import pytest

from tests.lab.sides import Side
from tests.lab.test_rollout_vs_sim import STEPS, wait_settled
from tests.ports import free_port

pytestmark = [pytest.mark.lab, pytest.mark.long_wait]

NAMES = ("create", "set image", "scale", "undo", "restart", "delete")
WORKERS = 5  # kube-controller-manager's --concurrent-deployment-syncs default
# How long one simulated reconcile holds its key: the real deployment queue's mean work
# duration on the lab was 5 to 11 ms a rollout (workqueue_work_duration_seconds), 10 ms over
# its life.
WORK_TIME = "10ms"
# |sim - real| / real allowed. Ten runs (simulated reconciles of 5 ms, tests/lab/sides.py's
# SYNC_SECONDS) gave simulator/real 108/112, 114/109, 114/119, 117/115, 104/119, 121/111,
# 113/131, 108/103, 116/115, 113/112: 14% apart at most, 6% on average. Each side alone
# moves about 12% from run to run (pods' Ready times, the real syncs' speed on a shared
# machine and the conflicts it retries), and a Deployment rolled out in the ten minutes
# before adds one more when its progress check (requeueStuckDeployment's AddAfter) comes due.
# With the simulated controllers reconciling at once (SIM_SYNC_SECONDS=0): 45 against 116.
TOLERANCE = 0.20
SAMPLE = re.compile(r'^(workqueue_[a-z_]+)\{name="deployment"\} (\S+)$', re.M)


def rollout_steps(name: str) -> list[tuple[str, list[str]]]:
    """The six steps, for a Deployment called ``name``."""
    steps = dict(STEPS)
    return [(step, [a.replace("web", name) for a in steps[step]]) for step in NAMES]


def kcm_counters() -> dict[str, float]:
    """The lab controller manager's deployment workqueue series (its /metrics needs no token)."""
    ctx = ssl.create_default_context()
    ctx.check_hostname, ctx.verify_mode = False, ssl.CERT_NONE  # the lab's self-signed serving cert
    with urllib.request.urlopen(os.environ["LAB_KCM_METRICS"], context=ctx, timeout=10) as r:
        page = r.read().decode()
    return {m.group(1): float(m.group(2)) for m in SAMPLE.finditer(page)}


def wait_still(read, still_s: float, deadline_s: float) -> bool:
    """True once ``read()`` gave one value for ``still_s`` seconds; False at the deadline."""
    deadline = time.monotonic() + deadline_s
    last, since = read(), time.monotonic()
    while time.monotonic() < deadline:
        time.sleep(0.25)
        now = read()
        if now != last:
            last, since = now, time.monotonic()
        elif time.monotonic() - since >= still_s:
            return True
    return False


class Shape:
    """``queue deployments --controller deployment`` against one side, NDJSON read by a thread."""

    def __init__(self, side: Side, kubeconfig: str):
        self.port = free_port()
        self.events: list[dict] = []
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "kubectl_informer",
                "queue",
                "deployments",
                "--controller",
                "deployment",
                "--kubeconfig",
                kubeconfig,
                "-n",
                side.namespace,
                "-o",
                "json",
                "--workers",
                str(WORKERS),
                "--work-time",
                WORK_TIME,
                "--metrics-addr",
                f"127.0.0.1:{self.port}",
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        for line in self.proc.stdout:
            self.events.append(json.loads(line))

    def wait_synced(self, deadline_s: float = 30.0) -> None:
        deadline = time.monotonic() + deadline_s
        while time.monotonic() < deadline:
            if sum(1 for e in list(self.events) if e["kind"] == "informer.synced") == 3:
                return
            assert self.proc.poll() is None, f"queue exited: {self.proc.stderr.read()}"
            time.sleep(0.1)
        pytest.fail(f"queue --controller deployment: not synced in {deadline_s:.0f}s")

    def metrics(self) -> dict[str, float]:
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/metrics", timeout=5) as r:
            page = r.read().decode()
        return {m.group(1): float(m.group(2)) for m in SAMPLE.finditer(page)}

    def idle(self) -> tuple:
        """What must stand still before the count is read: adds, depth and reconciles done."""
        m = self.metrics()
        done = sum(1 for e in list(self.events) if e["kind"] == "queue.done")
        return m.get("workqueue_adds_total"), m.get("workqueue_depth"), done

    def calls(self) -> Counter:
        """Handler calls that enqueued, by handler (``via``)."""
        return Counter(e["fields"].get("via") for e in list(self.events) if e["kind"] == "queue.add")

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(10)


class Others:
    """Deployment and ReplicaSet events of every other namespace of the lab (whatever
    other users do there moves the shared counter too)."""

    def __init__(self, side: Side):
        self.ns, self.seen = side.namespace, Counter()
        self.watches = [side.raw_watch(f"/apis/apps/v1/{r}") for r in ("deployments", "replicasets")]
        for w in self.watches:
            threading.Thread(target=self._read, args=(w,), daemon=True).start()

    def _read(self, watch: subprocess.Popen) -> None:
        for line in watch.stdout:
            meta = json.loads(line)["object"].get("metadata") or {}
            if meta.get("namespace") != self.ns:
                self.seen[meta.get("namespace")] += 1

    def stop(self) -> None:
        for w in self.watches:
            w.terminate()
            w.wait(10)


def measure(lab: Side, sim: Side, name: str) -> dict:
    """One rollout on both sides; the figures compared and those that explain them."""
    shapes = {"sim": Shape(sim, sim.base[2]), "lab": Shape(lab, lab.base[2])}
    others = Others(lab)
    try:
        for s in shapes.values():
            s.wait_synced()
        if not wait_still(kcm_counters, 5.0, 120.0):
            pytest.fail("the lab's deployment workqueue did not stand still for 5s in 120s: busy lab")
        before = kcm_counters()
        for step, args in rollout_steps(name):
            for side in (lab, sim):
                side.run(*args)
            for side in (lab, sim):
                wait_settled(side, step)
        for s in shapes.values():
            assert wait_still(s.idle, 2.0, 30.0), "the shape's queue did not settle"
        assert wait_still(kcm_counters, 3.0, 30.0), "the lab's deployment workqueue did not settle"
        after = kcm_counters()
        adds = {k: s.metrics()["workqueue_adds_total"] for k, s in shapes.items()}
        calls = {k: s.calls() for k, s in shapes.items()}
        if os.environ.get("KCM_ADDS_DUMP"):  # both shapes' traces, for a closer look
            fd = os.open(os.environ["KCM_ADDS_DUMP"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
            with os.fdopen(fd, "w") as f:
                json.dump({k: s.events for k, s in shapes.items()}, f)
    finally:
        others.stop()
        for s in shapes.values():
            s.stop()
    rise = {k.removeprefix("workqueue_"): after[k] - before.get(k, 0.0) for k in after}
    syncs = rise.get("work_duration_seconds_count", 0.0)
    return {
        "sim_adds": adds["sim"],
        "kcm_adds": rise["adds_total"],
        "lab_shape_adds": adds["lab"],
        "kcm_retries": rise.get("retries_total", 0.0),
        "kcm_syncs": syncs,
        "kcm_sync_ms": 1000 * rise.get("work_duration_seconds_sum", 0.0) / syncs if syncs else 0.0,
        "sim_calls": sum(calls["sim"].values()),
        "lab_calls": sum(calls["lab"].values()),
        "sim_by_handler": dict(calls["sim"]),
        "lab_by_handler": dict(calls["lab"]),
        "others": dict(others.seen),
    }


def test_the_shapes_adds_on_the_simulator_match_the_real_controllers(lab_side, sim_side):
    for name in ("web", "web-again"):  # a second rollout only if others moved the counter
        m = measure(lab_side, sim_side, name)
        print(
            "deployment queue adds for one rollout: simulator shape {sim_adds:.0f}, real controller {kcm_adds:.0f} "
            "(its retries {kcm_retries:.0f}, mean sync {kcm_sync_ms:.1f} ms); shape on the lab {lab_shape_adds:.0f}; "
            "handler calls sim {sim_calls}, lab {lab_calls}; other namespaces {others}".format(**m)
        )
        print(f"  handler calls by handler: sim {m['sim_by_handler']}, lab {m['lab_by_handler']}")  # shown with -s
        if not m["others"]:
            break
    else:
        pytest.fail(f"other namespaces' Deployments or ReplicaSets changed during both measurements: {m['others']}")
    off = abs(m["sim_adds"] - m["kcm_adds"]) / m["kcm_adds"]
    assert off <= TOLERANCE, (
        f"simulator shape {m['sim_adds']:.0f} adds, real controller {m['kcm_adds']:.0f}: "
        f"{off:.0%} apart (> {TOLERANCE:.0%})"
    )
