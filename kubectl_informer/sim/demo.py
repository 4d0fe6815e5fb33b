"""The built-in demo cluster: a simulated API server with seeded objects and
a churn scenario running, as ``--demo`` starts it in-process."""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from kubectl_informer.clock import Clock
from kubectl_informer.core.apierrors import ApiError
from kubectl_informer.sim.events import EventRecorder, pod_events
from kubectl_informer.sim.objects import (
    make_configmap,
    make_deployment,
    make_pod,
    make_secret,
    make_widget,
    many_pods,
)
from kubectl_informer.sim.resources import widget_crd
from kubectl_informer.sim.scenarios import ScenarioRunner, get_scenario
from kubectl_informer.sim.server import SimServer

if TYPE_CHECKING:  # imported by a scenario that runs the controllers (rollout), not by every demo
    from kubectl_informer.sim.controllers.manager import ControllerManager
    from kubectl_informer.sim.store import Store

# namespace -> (app, replicas)
DEMO_LAYOUT: dict[str, list[tuple[str, int]]] = {
    "default": [("web", 5), ("api", 4)],
    "shop": [("frontend", 5), ("cart", 3), ("payments", 3)],
    "batch": [("worker", 8)],
}


def seed(store: Store, controllers: bool = False) -> int:
    """Fill ``store`` with the demo objects (through normal creates, so each
    has its own RV). Returns the number of pods. With ``controllers`` the
    Deployments' pods are left to the simulated controllers (which make a
    ReplicaSet and its pods for each), so none is created here."""
    pods = 0
    events = EventRecorder(store)
    store.create("customresourcedefinitions", widget_crd())
    for ns, apps in DEMO_LAYOUT.items():
        with contextlib.suppress(ApiError):  # already there (a reseed)
            store.create("namespaces", {"metadata": {"name": ns}})
        for app, replicas in apps:
            store.create("deployments", make_deployment(ns, app, replicas))
            store.create("configmaps", make_configmap(ns, f"{app}-config"))
            for r in range(0 if controllers else replicas):
                # batch has finished and waiting pods beside running ones.
                phase = "Running"
                if ns == "batch":
                    phase = ("Succeeded", "Running", "Pending", "Running", "Failed")[r % 5]
                made = store.create("pods", make_pod(ns, app=app, index=pods, phase=phase))
                pod_events(events, None, made)  # Scheduled
                if phase != "Pending":
                    pod_events(events, {**made, "status": {"phase": "Pending"}}, made)  # Started
                pods += 1
        store.create("secrets", make_secret(ns, f"{ns}-credentials"))
        store.create(
            "widgets", make_widget(ns, f"{ns}-widget", size=len(apps), color=("blue", "red", "green")[len(ns) % 3])
        )
    return pods


@dataclass
class Demo:
    """A running demo cluster: its server, kubeconfig, scenario and controllers."""

    server: SimServer
    kubeconfig_path: str
    runner: ScenarioRunner | None = None
    _tmpdir: str | None = field(default=None, repr=False)
    controllers: ControllerManager | None = None

    @property
    def url(self) -> str:
        return self.server.url

    @property
    def token(self) -> str:
        """The server's bearer token (also in its kubeconfig)."""
        return self.server.token

    def stop(self) -> None:
        if self.runner is not None:
            self.runner.stop()
        if self.controllers is not None:
            self.controllers.stop()
        self.server.stop()
        self.release_kubeconfig()

    def release_kubeconfig(self) -> None:
        """Remove the temporary kubeconfig (once loaded it is not needed), so
        that no exit path, a SIGKILL included, leaves its directory behind."""
        if self._tmpdir:
            shutil.rmtree(self._tmpdir, ignore_errors=True)
            self._tmpdir = None

    def __enter__(self) -> Demo:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def start_demo(
    scenario: str | None = None,
    *,
    rate: float | None = None,
    port: int = 0,
    tls: bool = False,
    kubeconfig_path: str | None = None,
    watch_cache_size: int | None = None,
    watch_list: bool = True,
    clock: Clock | None = None,
    seed_objects: bool = True,
    seed_value: int | None = None,
    bookmark_interval: float = 60.0,
    bulk_pods: int = 0,
    bulk_namespace: str = "bench",
    namespaces: list[str] | None = None,
    controllers: bool | None = None,
    pod_start_seconds: float = 1.0,
) -> Demo:
    """Start a seeded simulated cluster running ``scenario`` (default
    "steady"; "quiet" changes no object). Writes a kubeconfig (to a temp dir
    unless ``kubeconfig_path``). ``bulk_pods`` adds that many pods to
    namespace ``bulk_namespace``. ``namespaces``: where the scenario acts
    (None: every namespace), so the view it is watched in shows it.
    ``controllers``: run the simulated Deployment/ReplicaSet controllers and
    garbage collector (None: if the scenario needs them); their pods start
    ``pod_start_seconds`` after they are scheduled, on ``clock``.
    ValueError for an unknown scenario."""
    sc = get_scenario(scenario or "steady")
    controllers = sc.controllers if controllers is None else controllers
    server = SimServer(
        port=port,
        tls=tls,
        watch_cache_size=watch_cache_size,
        watch_list=watch_list,
        bookmark_interval=bookmark_interval,
    )
    server.start()
    tmpdir = None
    manager = None
    try:
        if seed_objects:
            seed(server.store, controllers=controllers)
        if controllers:
            manager = _start_controllers(server.store, clock, pod_start_seconds)
            manager.wait_idle(10.0)  # the seeded Deployments' ReplicaSets and pods made before clients come
        if bulk_pods:
            _load_bulk_pods(server.store, bulk_pods, bulk_namespace)
        if kubeconfig_path is None:
            tmpdir = tempfile.mkdtemp(prefix="kubectl-informer-demo-")
            kubeconfig_path = os.path.join(tmpdir, "kubeconfig")
        path = server.write_kubeconfig(kubeconfig_path)
        runner = ScenarioRunner(
            sc, server.store, server.faults, rate=rate, clock=clock, seed=seed_value, namespaces=namespaces
        ).start()
    except BaseException:
        _abandon(server, manager, tmpdir)
        raise
    return Demo(server, path, runner, tmpdir, manager)


def _start_controllers(store: Store, clock: Clock | None, pod_start_seconds: float) -> ControllerManager:
    """The simulated Deployment/ReplicaSet controllers and garbage collector, running."""
    from kubectl_informer.sim.controllers.manager import ControllerManager

    return ControllerManager(store, clock, pod_start_seconds).start()


def _load_bulk_pods(store: Store, n: int, namespace: str) -> None:
    """Many pods at once (benchmarks): bulk_load, in a namespace of their own."""
    if namespace not in store.keys("namespaces"):
        store.create("namespaces", {"metadata": {"name": namespace}})
    store.bulk_load("pods", many_pods(n, namespace))


def _abandon(server: SimServer, manager: ControllerManager | None, tmpdir: str | None) -> None:
    """Undo a demo that failed to start: what had started stops, its temp dir goes."""
    if manager is not None:
        manager.stop()
    server.stop()
    if tmpdir:
        shutil.rmtree(tmpdir, ignore_errors=True)
