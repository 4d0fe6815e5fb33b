"""What each scenario does at a tick: the steps of the named churn scenarios.

A ``ScenarioLogic`` gets a ``Context`` (the store, the faults, the tick, a
per-run state dict) once per tick; ``scenarios.py`` names them and runs them.
The rollout scenario (Deployments, run by the simulated controllers) lives in
``rollout_scenario``, the stale-cache one in ``stale_scenario``.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field

from kubectl_informer.core.apierrors import ApiError
from kubectl_informer.sim.events import EventRecorder, pod_events
from kubectl_informer.sim.faults import Faults
from kubectl_informer.sim.objects import make_pod, pod_status
from kubectl_informer.sim.store import Store


@dataclass
class Context:
    """What a scenario step works with."""

    store: Store
    faults: Faults | None
    rng: random.Random
    resource: str = "pods"
    namespaces: list[str] = field(default_factory=lambda: ["default"])
    tick: int = 0
    state: dict = field(default_factory=dict)
    events: EventRecorder | None = None  # Normal/Warning events for what the steps do

    _counter: int = 0

    def pod_keys(self) -> list[str]:
        """The pods of the namespaces the scenario acts in (the watched one, for a demo)."""
        if len(self.namespaces) == 1:
            return self.store.keys(self.resource, self.namespaces[0])
        wanted = set(self.namespaces)
        return [k for k in self.store.keys(self.resource) if k.partition("/")[0] in wanted]

    def random_pod(self) -> tuple[str, str] | None:
        keys = self.pod_keys()
        if not keys:
            return None
        ns, _, name = self.rng.choice(keys).partition("/")
        return ns, name

    def new_pod(self, namespace: str | None = None, phase: str = "Pending") -> dict:
        self._counter += 1
        ns = namespace or self.rng.choice(self.namespaces)
        app = self.rng.choice(("web", "api", "worker"))
        obj = make_pod(
            ns, app=app, index=100_000 + self.tick * 100 + self._counter + self.rng.randrange(10**6), phase=phase
        )
        try:
            made = self.store.create(self.resource, obj)
        except ApiError:
            return obj  # name clash or namespace gone: skip this one
        self._record(None, made)
        return made

    def delete(self, ns: str, name: str) -> bool:
        try:
            last = self.store.delete(self.resource, ns, name)
        except ApiError:
            return False
        self._record(last, None)
        return True

    def mutate(self, ns: str, name: str, fn: Callable[[dict], None]) -> bool:
        try:
            obj = self.store.get(self.resource, ns, name)
            before = self.store.get(self.resource, ns, name)
            fn(obj)
            after = self.store.update(self.resource, obj)
        except ApiError:
            return False  # deleted meanwhile
        self._record(before, after)
        return True

    def _record(self, before: dict | None, after: dict | None) -> None:
        if self.events is not None and self.resource == "pods":
            pod_events(self.events, before, after)


def _bump_annotation(obj: dict, key: str = "sim.kubectl-informer/touch") -> None:
    ann = obj["metadata"].setdefault("annotations", {})
    ann[key] = str(int(ann.get(key, "0")) + 1)


def _advance_phase(obj: dict) -> None:
    phase = (obj.get("status") or {}).get("phase", "Pending")
    nxt = {"Pending": "Running", "Running": "Running", "Succeeded": "Succeeded", "Failed": "Failed"}[phase]
    restarts = 0
    if phase == "Running":
        cs = (obj.get("status") or {}).get("containerStatuses") or [{}]
        restarts = int(cs[0].get("restartCount", 0)) + 1
    ip = (obj.get("status") or {}).get("podIP") or "10.244.0.9"
    app = obj["metadata"].get("labels", {}).get("app", "web")
    obj["status"] = pod_status(nxt, ip, app=app, restarts=restarts)


class ScenarioLogic:
    def step(self, ctx: Context) -> None:
        raise NotImplementedError


class Quiet(ScenarioLogic):
    """No object of the served resources changes. Each tick the rest of the
    cluster writes (a node's Lease renewed: etcd's revision moves, no served
    resource gets an event), etcd sends its progress notification (by default
    every 10 minutes; here each tick), which moves every watch cache's RV to
    that revision, and the server sends every watch a BOOKMARK at its cache's
    RV: newer than the watch's start, so it goes out (a bookmark at the RV a
    watch started from is never sent), and the last synced RV moves without
    any event."""

    def step(self, ctx: Context) -> None:
        ctx.store.bump_revision()
        ctx.store.progress_notify()
        for w in ctx.store.watchers(ctx.resource):
            if w.bookmarks:
                ctx.store.bookmark(w)


def _owned_pod(ctx: Context, keys: list[str], tries: int = 5) -> tuple[str, str] | None:
    """A random pod a controller made (it has ownerReferences), or None:
    the steady churn leaves alone a bare pod a user applied (the attach
    walkthrough's stand-in controller pod, say), as a cluster would."""
    for _ in range(tries if keys else 0):
        ns, _, name = ctx.rng.choice(keys).partition("/")
        try:
            meta = ctx.store.get(ctx.resource, ns, name)["metadata"]
        except ApiError:
            continue
        if meta.get("ownerReferences"):
            return ns, name
    return None


class Steady(ScenarioLogic):
    """A few changes a second: pods start, restart, get relabelled; now and
    then one is created or deleted, keeping the population near its start."""

    def step(self, ctx: Context) -> None:
        keys = ctx.pod_keys()
        target = ctx.state.setdefault("population", max(len(keys), 1))
        r = ctx.rng.random()
        if keys and (len(keys) > target * 1.2 or (r < 0.12 and len(keys) > target * 0.8)):
            picked = _owned_pod(ctx, keys)
            if picked is not None:
                ctx.delete(*picked)
        elif len(keys) < target * 0.8 or r < 0.24:
            ctx.new_pod()
        elif (picked := _owned_pod(ctx, keys)) is not None:
            ns, name = picked
            if r < 0.7:
                ctx.mutate(ns, name, _advance_phase)
            elif r < 0.85:
                ctx.mutate(
                    ns,
                    name,
                    lambda o: (
                        o["metadata"].setdefault("labels", {}).__setitem__("version", f"v{ctx.rng.randrange(1, 4)}")
                    ),
                )
            else:
                ctx.mutate(ns, name, _bump_annotation)


class Burst(ScenarioLogic):
    """Per tick, ``size`` updates to one pod back to back: faster than a
    consumer pops, so DeltaFIFO coalesces them under one key."""

    def __init__(self, size: int = 20):
        self.size = size

    def step(self, ctx: Context) -> None:
        target = ctx.random_pod()
        if target is None:
            ctx.new_pod()
            return
        ns, name = target
        for _ in range(self.size):
            if not ctx.mutate(ns, name, _bump_annotation):
                break


class DisconnectedDelete(ScenarioLogic):
    """Per tick, with every watch cut: delete a pod the clients know, create
    and delete one they never see, create one more; then the watch cache
    forgets those events so the clients' re-watch gets 410 and they relist.
    The relist no longer has the deleted pod: DeltaFIFO.Replace queues a
    Deleted(DeletedFinalStateUnknown) tombstone for it."""

    def step(self, ctx: Context) -> None:
        store = ctx.store
        # Under the store lock no watch can start in between, so the gap is certain.
        with store.lock:
            store.drop_watches(ctx.resource)
            target = ctx.random_pod()
            if target is not None:
                ctx.delete(*target)
            ghost = ctx.new_pod()
            ctx.delete(ghost["metadata"].get("namespace", "default"), ghost["metadata"]["name"])
            ctx.new_pod(phase="Running")
            store.expire_watch_cache(ctx.resource)


class MassDelete(ScenarioLogic):
    """Deletes every pod of one namespace in one burst, then (next tick)
    creates them again: a flood of Deleted then Added deltas."""

    def step(self, ctx: Context) -> None:
        deleted = ctx.state.pop("deleted", None)
        if deleted:
            for ns, _ in deleted:
                ctx.new_pod(ns)
            return
        ns = ctx.rng.choice(ctx.namespaces)
        keys = ctx.store.keys(ctx.resource, ns)
        for k in keys:
            ctx.delete(ns, k.partition("/")[2])
        ctx.state["deleted"] = [(ns, k) for k in keys]


class RelistStorm(ScenarioLogic):
    """Every tick a few updates, then every watch is cut and the watch cache
    expired: each client's re-watch gets 410 Expired and it relists (and a
    DeltaFIFO sees Replaced/Sync for every object)."""

    def step(self, ctx: Context) -> None:
        # Cut first, change, then forget: a client that re-watches from its
        # last RV is behind the window (an up-to-date client would not be).
        with ctx.store.lock:
            ctx.store.drop_watches(ctx.resource)
            for _ in range(3):
                t = ctx.random_pod()
                if t:
                    ctx.mutate(*t, _bump_annotation)
            ctx.store.expire_watch_cache(ctx.resource)


class Flaky(ScenarioLogic):
    """Steady churn on an unreliable server: in turn a watch is dropped, the
    next watch answers 429 (back off), the next list answers 500 after a 410
    on the watch (relist, fail, back off, list again), and a watch stream
    stalls for a second. Each fault waits until the clients have been
    watching again for ``healthy`` ticks, so every back-off is followed by
    a visible recovery, however long client-go's back-off has grown."""

    FAULTS = ("drop", "429", "500", "stall")

    def __init__(self, healthy: int = 6):
        self.steady = Steady()
        self.healthy = healthy

    def step(self, ctx: Context) -> None:
        self.steady.step(ctx)
        faults = ctx.faults
        if faults is None:
            return
        st = ctx.state
        ok = bool(ctx.store.watchers(ctx.resource)) and not faults.pending_failures()
        st["healthy"] = st.get("healthy", 0) + 1 if ok else 0
        if st["healthy"] < self.healthy:
            return
        st["healthy"] = 0
        n = st.get("faults", 0)
        st["faults"] = n + 1
        self.inject(faults, self.FAULTS[n % len(self.FAULTS)], ctx.resource)

    @staticmethod
    def inject(faults: Faults, fault: str, resource: str) -> None:
        if fault == "drop":
            faults.drop_watches(resource)
        elif fault == "429":
            faults.fail_next(429, verb="watch", resource=resource)
            faults.drop_watches(resource)
        elif fault == "500":
            faults.fail_next(500, verb="list", resource=resource)
            faults.fail_next(410, verb="watch", resource=resource)
            faults.drop_watches(resource)
        else:
            faults.stall_watches(1.0)


class SmallWindow(ScenarioLogic):
    """The API server's side: a watch cache of 8 events and a watcher too
    slow for it. Steady churn (a change a tick); every ``period`` ticks the
    watch streams stall for ``stall`` ticks while events keep coming, then
    the server ends every watcher that fell behind, dropping what it had
    queued, as the cacher ends an unresponsive one. The client's re-watch
    from its last RV is older than the window: 410, and it relists."""

    CAPACITY = 8
    HOLD = 60.0  # seconds at most a stall lasts, should its ending step never come

    def __init__(self, period: int = 32, stall: int = 12):
        self.steady = Steady()
        self.period, self.stall = period, stall

    def step(self, ctx: Context) -> None:
        if not ctx.state.get("sized"):
            ctx.store.set_watch_cache_size(self.CAPACITY, ctx.resource)
            ctx.state["sized"] = True
        self.steady.step(ctx)
        n = ctx.tick % self.period
        if n == self.period - self.stall and ctx.faults is not None:
            ctx.faults.stall_watches(self.HOLD)  # until the step below lifts it
        elif n == 0 and ctx.faults is not None and ctx.faults.stall_remaining() > 0:
            for w in ctx.store.watchers(ctx.resource):
                if w.pending():
                    w.close("slow", drop_pending=True)
            ctx.faults.stall_watches(0)


class EtcdRestore(ScenarioLogic):
    """etcd restored from a snapshot a few seconds old, without etcdutl's
    ``--bump-revision``: objects and the revision go back and the API server
    restarts (watches end, each cache re-lists at the restored revision).

    The reflector re-watches from the RV it saw, now ahead of the server. The
    cacher accepts that watch and sends only events newer than it
    (cacheWatcher.process), so every change made between the restore and that
    RV is skipped without a word: the informer's cache and the server disagree
    until it next lists. Every second restore the server also answers that
    re-watch with a 500, as a server in trouble may: the reflector lists at its
    last RV, the list waits 3 s for the cache and gets 504 "Too large resource
    version" (client-go's REST client sends it again ten times, Retry-After:
    1), then lists at "" (a consistent read) and its cache is whole again.
    Churn pauses meanwhile (at most ``hold`` ticks), so the server stays behind."""

    def __init__(self, period: int = 60, back: int = 16, hold: int = 320):
        self.steady = Steady()
        self.period, self.back, self.hold = period, back, hold

    def step(self, ctx: Context) -> None:
        store, st = ctx.store, ctx.state
        n = ctx.tick % self.period
        if n == 0 and "snapshot" in st:
            st["restores"] = st.get("restores", 0) + 1
            if st["restores"] % 2 == 0 and ctx.faults is not None:
                ctx.faults.fail_next(
                    500,
                    verb="watch",
                    resource=ctx.resource,
                    message="Internal error occurred: the demo fails this watch after the restore",
                )
                st["held"] = 0
            store.restore(st.pop("snapshot"))
            return
        if "held" in st:
            if st["held"] < self.hold and not self._caught_up(ctx):
                st["held"] += 1
                return
            del st["held"]
        self.steady.step(ctx)
        if n == self.period - self.back:
            st["snapshot"] = store.current_rv()

    @staticmethod
    def _caught_up(ctx: Context) -> bool:
        """Has the client listed again and watched from the server's RV?"""
        now = ctx.store.current_rv()
        return any(w.start_rv.isdigit() and 0 < int(w.start_rv) <= now for w in ctx.store.watchers(ctx.resource))


TooLargeRV = EtcdRestore  # the scenario's old name


class CacheReinit(ScenarioLogic):
    """The watch cache of the resource re-initialises every ``period`` ticks
    (its reflector lost etcd): every watch on it ends, bookmarks stop, and for
    ``down`` ticks a watch is answered 429 "storage is (re)initializing"
    while writes go on. Then the cache re-lists at the current RV: a client
    resuming from before it gets 410 and relists. Bookmarks go to every
    watch each ``bookmark_every`` ticks while the cache is up."""

    def __init__(self, period: int = 40, down: int = 8, bookmark_every: int = 8):
        self.steady = Steady()
        self.period, self.down, self.bookmark_every = period, down, bookmark_every

    def step(self, ctx: Context) -> None:
        store = ctx.store
        self.steady.step(ctx)
        n = ctx.tick % self.period
        if n == self.period - self.down:
            store.begin_reinit(ctx.resource)
            ctx.state["down"] = True
        elif n == 0 and ctx.state.pop("down", False):
            store.end_reinit(ctx.resource)
        if not ctx.state.get("down") and n % self.bookmark_every == 1:
            store.send_bookmarks(ctx.resource)
