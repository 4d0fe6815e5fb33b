"""Named churn scenarios: what the simulated cluster does while you watch.

Each scenario teaches one piece of the informer machinery (see its
description). A ``ScenarioRunner`` runs one in a thread: one ``step`` per tick,
``rate`` ticks per second on its clock (a FakeClock in tests), until its stop
event is set.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar, overload

from kubectl_informer.clock import Clock, RealClock
from kubectl_informer.core.apierrors import ApiError
from kubectl_informer.sim.events import EventRecorder
from kubectl_informer.sim.rollout_scenario import (
    Rollout,
    now_rfc3339_nano,
    rollout_complete,
    stray_objects,
    web_deployment,
)
from kubectl_informer.sim.scenario_steps import (
    Burst,
    CacheReinit,
    Context,
    DisconnectedDelete,
    EtcdRestore,
    Flaky,
    MassDelete,
    Quiet,
    RelistStorm,
    ScenarioLogic,
    SmallWindow,
    Steady,
    TooLargeRV,
)
from kubectl_informer.sim.stale_scenario import Stale

if TYPE_CHECKING:
    from kubectl_informer.sim.faults import Faults
    from kubectl_informer.sim.store import Store

# Names the scenarios' users import from here, wherever they are defined.
__all__ = [
    "ALIASES",
    "SCENARIOS",
    "Burst",
    "CacheReinit",
    "Context",
    "DisconnectedDelete",
    "EtcdRestore",
    "Flaky",
    "MassDelete",
    "Quiet",
    "RelistStorm",
    "Rollout",
    "Scenario",
    "ScenarioLogic",
    "ScenarioRunner",
    "ScenarioTable",
    "SmallWindow",
    "Stale",
    "Steady",
    "TooLargeRV",
    "get_scenario",
    "now_rfc3339_nano",
    "rollout_complete",
    "stray_objects",
    "web_deployment",
]


@dataclass(frozen=True)
class Scenario:
    """A named churn scenario: what it does and how often."""

    name: str
    description: str
    factory: Callable[[], ScenarioLogic]
    rate: float  # default ticks per second
    # Seconds before the first tick: a demo's client lists and watches first,
    # so the first burst or delete shows in the view instead of in the list.
    first_after: float = 0.0
    # Needs the simulated controllers (Deployments -> ReplicaSets -> Pods, garbage collection).
    controllers: bool = False


_T = TypeVar("_T")


class ScenarioTable(dict[str, Scenario]):
    """The scenarios by name. An old name is found too (``in``, ``[]``,
    ``get``), but listing it (keys, items, iteration) gives current names only."""

    def __init__(self, scenarios: Iterable[Scenario], aliases: dict[str, str]):
        super().__init__((s.name, s) for s in scenarios)
        self.aliases = aliases

    def __contains__(self, name: object) -> bool:
        return super().__contains__(self.aliases.get(name, name) if isinstance(name, str) else name)

    def __getitem__(self, name: str) -> Scenario:
        return super().__getitem__(self.aliases.get(name, name))

    @overload
    def get(self, name: str, default: None = None) -> Scenario | None: ...
    @overload
    def get(self, name: str, default: Scenario) -> Scenario: ...
    @overload
    def get(self, name: str, default: _T) -> Scenario | _T: ...
    def get(self, name: str, default: object = None) -> object:
        return super().get(self.aliases.get(name, name), default)


# Old names still accepted (not listed).
ALIASES = {"too-large-rv": "etcd-restore"}

SCENARIOS: dict[str, Scenario] = ScenarioTable(
    (
        Scenario(
            "steady",
            "Steady updates: pods start, restart and get relabelled, a few are created and deleted "
            "(about 4 changes a second); a bare pod you apply is left alone.",
            Steady,
            4.0,
            1.0,
        ),
        Scenario(
            "burst",
            "A burst on one key: 20 back-to-back updates to one pod every 3 s, so DeltaFIFO "
            "coalesces them into one queue slot.",
            Burst,
            1 / 3,
            2.5,
        ),
        Scenario(
            "disconnect",
            "Create-then-delete while disconnected: watches are cut, a known pod is deleted and "
            "a pod created and deleted in the gap, the watch cache forgets it; the client relists "
            "and sees a DeletedFinalStateUnknown tombstone. Every 8 s.",
            DisconnectedDelete,
            1 / 8,
            2.5,
        ),
        Scenario(
            "mass-delete",
            "Mass deletes: every pod of one namespace deleted at once, recreated 5 s later.",
            MassDelete,
            1 / 5,
            2.5,
        ),
        Scenario(
            "relist-storm",
            "Relist storm: every 4 s all watches are cut and the watch cache expired, so every "
            "client gets 410 Expired and relists.",
            RelistStorm,
            1 / 4,
            2.5,
        ),
        Scenario(
            "flaky",
            "Steady churn on a flaky server: dropped watches, 429 on watch (retried by the REST "
            "client after its Retry-After), 410 on watch whose relist gets 500, stalled streams, in turn; "
            "each fault once the client has been watching again for 3 s, so back-off then recovery "
            "shows every time.",
            Flaky,
            2.0,
        ),
        Scenario(
            "rollout",
            "Rollouts and scaling of Deployment web by the simulated controllers: a restart (new "
            "ReplicaSet, pods surged in and old ones terminated), a scale to 8, a restart, a scale "
            "back to 5, each once the last has completed; a storm of ReplicaSet and pod events.",
            Rollout,
            1.0,
            1.0,
            controllers=True,
        ),
        Scenario(
            "small-window",
            "The API server's window too small: a watch cache of 8 events, and every 8 s the "
            "watch streams stall for 3 s while pods change; the server ends the watcher that fell "
            "behind, its re-watch is older than the window: 410 Expired, relist.",
            SmallWindow,
            4.0,
            1.0,
        ),
        Scenario(
            "etcd-restore",
            "etcd restored from a snapshot 4 s old, every 15 s: objects and the RV go back and "
            "the API server restarts. The client re-watches from the RV it saw, ahead of the "
            "server: the watch is accepted and every change up to that RV is skipped without a "
            "word. Every second restore the re-watch also fails (500): the relist at that RV "
            'waits 3 s, gets 504 "Too large resource version" (retried ten times by the REST '
            'client), then the reflector lists from "".',
            EtcdRestore,
            4.0,
            1.0,
        ),
        Scenario(
            "cache-reinit",
            "The API server's watch cache re-initialises every 10 s: every watch ends, bookmarks "
            "stop, watches get 429 for 2 s while pods change, then the cache restarts its window "
            "at the current RV and the client's re-watch gets 410: relist.",
            CacheReinit,
            4.0,
            1.0,
        ),
        Scenario(
            "stale",
            "A stale cache: ReplicaSet web is created, then scaled between 3 and 5 every 8 s, while "
            "pod watch events arrive 2 s late; run it as `queue replicasets --owns pods --client-go 1.36`: "
            "the controller creates the pods and, without the read-your-own-writes check "
            "(--consistency off), creates them again from its stale cache.",
            Stale,
            1 / 8,
            1.0,
        ),
        Scenario(
            "quiet",
            "Nothing changes: the objects sit still (good for exploring resync); a BOOKMARK to every watch each 10 s.",
            Quiet,
            1 / 10,
            10.0,
        ),
    ),
    ALIASES,
)


def _serves_events(store: Store) -> bool:
    try:
        store.resource("events")
        return True
    except ApiError:
        return False


def get_scenario(name: str) -> Scenario:
    """The scenario called ``name`` (or by an old name); ValueError (one line) if there is none."""
    try:
        return SCENARIOS[name]
    except KeyError:
        raise ValueError(f"unknown scenario {name!r} (choose from: {', '.join(SCENARIOS)})") from None


class ScenarioRunner:
    """Runs a scenario's steps on a clock: ``start()``/``stop()`` in a thread,
    or ``step()`` by hand."""

    def __init__(
        self,
        scenario: str | Scenario,
        store: Store,
        faults: Faults | None = None,
        rate: float | None = None,
        clock: Clock | None = None,
        seed: int | None = None,
        resource: str = "pods",
        namespaces: list[str] | None = None,
    ):
        self.scenario = get_scenario(scenario) if isinstance(scenario, str) else scenario
        self.rate = float(rate if rate is not None else self.scenario.rate)
        if self.rate <= 0:
            raise ValueError(f"scenario rate must be > 0, got {self.rate}")
        self.clock = clock or RealClock()
        self.logic = self.scenario.factory()
        if namespaces is None:
            namespaces = sorted({k.partition("/")[0] for k in store.keys(resource) if "/" in k}) or ["default"]
        recorder = EventRecorder(store) if _serves_events(store) else None
        self.ctx = Context(store, faults, random.Random(seed), resource, list(namespaces), events=recorder)
        self.stop_event = threading.Event()
        self._thread: threading.Thread | None = None
        self.errors = 0

    @property
    def ticks(self) -> int:
        return self.ctx.tick

    def step(self) -> None:
        self.ctx.tick += 1
        self.logic.step(self.ctx)

    def run(self, stop_event: threading.Event) -> None:
        interval = 1.0 / self.rate
        if self.scenario.first_after and self.clock.wait_event(stop_event, self.scenario.first_after):
            return
        while not stop_event.is_set():
            try:
                self.step()
            except ApiError:
                self.errors += 1  # a race with kubectl (object gone): the next tick goes on
            if self.clock.wait_event(stop_event, interval):
                return

    def start(self) -> ScenarioRunner:
        self._thread = threading.Thread(
            target=self.run, args=(self.stop_event,), name=f"sim-scenario-{self.scenario.name}", daemon=True
        )
        self._thread.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        self.stop_event.set()
        if self._thread is not None:
            self._thread.join(timeout)
