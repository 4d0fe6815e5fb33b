"""The informer's indexer converges to what the real ``kubectl`` lists.

Through real HTTP to the simulated API server, with the real kubernetes
client (kube/) and the real /usr/bin/kubectl as the judge: after churn and
each fault (410, 429, 500, dropped, cut and stalled watches, an expired watch
cache, WatchList on and off), the cache holds exactly the objects kubectl
lists, at the same resourceVersions.
"""

from __future__ import annotations

import random
import shutil
import subprocess
import threading
from contextlib import contextmanager

import orjson
import pytest
import yaml

from kubectl_informer.cache import reflector as reflector_module
from kubectl_informer.cache.keys import meta_namespace_key_func
from kubectl_informer.clock import RealClock
from kubectl_informer.clock.testing import wait_for
from kubectl_informer.core.trace import TraceBuffer, Tracer
from kubectl_informer.kube.config import load_kube
from kubectl_informer.kube.discovery import resolve_resource
from kubectl_informer.kube.listwatch import KubeListerWatcher
from kubectl_informer.run.pipeline import new_informer, resolve_profile
from kubectl_informer.sim.demo import seed
from kubectl_informer.sim.objects import make_pod
from kubectl_informer.sim.scenarios import SCENARIOS, ScenarioRunner
from kubectl_informer.sim.server import SimServer

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(60)]

KUBECTL = shutil.which("kubectl") or "/usr/bin/kubectl"
NAMESPACES = ("default", "team-a")


@pytest.fixture(autouse=True)
def quick_backoff(monkeypatch):
    """Back-offs from 50 ms (cap 0.8 s) instead of client-go's 800 ms (cap 30 s).

    The subject here is agreement after faults, not how long the reflector
    waits: the same BackoffManager still doubles with jitter between retries,
    and its real figures are tests/cache/test_reflector.py's (on a FakeClock).
    With the real 0.8-1.6 s first wait these runs spent most of their 84 s
    asleep; a reflector's retry path is unchanged, only shorter."""
    init = reflector_module.BackoffManager.__init__

    def quick(self, clock, initial=0.05, cap=0.8, **kw):
        init(self, clock, initial=initial, cap=cap, **kw)

    monkeypatch.setattr(reflector_module.BackoffManager, "__init__", quick)


def kubectl_state(srv, *args: str) -> dict[str, str]:
    """``kubectl get ... -o json`` as {key: resourceVersion}."""
    out = subprocess.run(
        [KUBECTL, "--kubeconfig", srv.kubeconfig, "get", *args, "-o", "json"], capture_output=True, timeout=30
    )
    assert out.returncode == 0, out.stderr.decode()
    doc = orjson.loads(out.stdout)
    return {meta_namespace_key_func(o): o["metadata"]["resourceVersion"] for o in doc["items"]}


def cache_state(informer) -> dict[str, str]:
    return {meta_namespace_key_func(o): o["metadata"]["resourceVersion"] for o in informer.get_indexer().list()}


@contextmanager
def running(
    srv,
    profile="1.32",
    resource="pods",
    namespace=None,
    label_selector=None,
    page_size=None,
    tracer=None,
    lw_class=KubeListerWatcher,
    metadata_only=False,
    **prof,
):
    target = load_kube(kubeconfig=srv.kubeconfig)
    res = resolve_resource(target.api_client, resource)
    lw = lw_class(target.api_client, res, namespace, label_selector=label_selector, metadata_only=metadata_only)
    tr = None
    if tracer is not None:
        tr = Tracer(RealClock())
        tr.subscribe(tracer)
    informer = new_informer(lw, resolve_profile(profile, **prof), page_size=page_size, tracer=tr)
    stop = threading.Event()
    t = threading.Thread(target=informer.run, args=(stop,), daemon=True)
    t.start()
    try:
        assert wait_for(informer.has_synced, 15), "informer never synced"
        yield informer
    finally:
        stop.set()
        t.join(10)
        assert not t.is_alive(), "informer did not stop"
        target.api_client.close()


def assert_converges(srv, informer, *kubectl_args, timeout=15.0):
    want = kubectl_state(srv, *(kubectl_args or ("pods", "-A")))
    ok = wait_for(lambda: cache_state(informer) == want, timeout, interval=0.02)
    if not ok:
        got = cache_state(informer)
        missing = sorted(set(want) - set(got))[:5]
        extra = sorted(set(got) - set(want))[:5]
        stale = sorted(k for k in set(want) & set(got) if want[k] != got[k])[:5]
        pytest.fail(f"cache != kubectl: missing {missing} extra {extra} stale {stale}")
    return want


class Churn:
    """Creates, updates and deletes pods in the sim's store, deterministically."""

    def __init__(self, srv, seed=1):
        self.store = srv.store
        self.rng = random.Random(seed)
        self.n = 0
        self.live: list[tuple[str, str]] = []

    def create(self, count=1):
        for _ in range(count):
            ns = NAMESPACES[self.n % 2]
            name = f"pod-{self.n}"
            self.store.create("pods", make_pod(ns, name, index=self.n), namespace=ns)
            self.live.append((ns, name))
            self.n += 1

    def step(self, count=20):
        for _ in range(count):
            r = self.rng.random()
            if r < 0.4 or len(self.live) < 3:
                self.create()
            elif r < 0.8:
                ns, name = self.rng.choice(self.live)
                self.store.patch("pods", ns, name, {"metadata": {"labels": {"gen": str(self.rng.randrange(1000))}}})
            else:
                ns, name = self.live.pop(self.rng.randrange(len(self.live)))
                self.store.delete("pods", ns, name)


def delete_while_away(sim, churn, n: int) -> list[tuple[str, str]]:
    """Delete ``n`` pods while the informer reconnects (its next watch is
    held server-side), so its watch never sees those deletions."""
    sim.faults.delay(0.3, verb="watch")
    sim.faults.drop_watches()
    gone, churn.live = churn.live[:n], churn.live[n:]
    for ns, name in gone:
        sim.store.delete("pods", ns, name)
    return gone


def force_relist(sim) -> None:
    """End the watch and answer the re-watch with 410 Expired: the informer relists."""
    sim.faults.fail_next(410, verb="watch")
    sim.faults.drop_watches()


PROFILES = ["1.32", "1.36"]  # paged LIST + DeltaFIFO; WatchList + atomic RealFIFO


@pytest.mark.parametrize("profile", PROFILES + ["1.35"])
def test_churn_while_watching(sim, profile):
    churn = Churn(sim)
    churn.create(30)
    with running(sim, profile) as inf:
        churn.step(60)
        assert_converges(sim, inf)


# With WatchList (1.36) the initial list is itself a watch, so only watch faults reach it.
API_FAULTS = [("1.32", st, verb) for st in (410, 429, 500) for verb in ("list", "watch")] + [
    ("1.36", st, "watch") for st in (410, 429, 500)
]


@pytest.mark.parametrize("profile, status, verb", API_FAULTS)
def test_api_errors(sim, profile, status, verb):
    churn = Churn(sim)
    churn.create(20)
    sim.faults.fail_next(status, verb=verb)  # met by the initial list (or watch-list) or first watch
    with running(sim, profile) as inf:
        churn.step(20)
        assert wait_for(lambda: sim.faults.pending_failures() == 0, 10), "the informer never met the fault"
        assert_converges(sim, inf)


@pytest.mark.parametrize("profile", PROFILES)
def test_fault_on_relist(sim, profile):
    churn = Churn(sim)
    churn.create(20)
    with running(sim, profile) as inf:
        churn.step(10)
        # 410 on the re-watch, then 500 on the relist (a LIST, or a watch-list for 1.36)
        sim.faults.fail_next(500, verb="watch" if profile == "1.36" else "list")
        force_relist(sim)
        churn.step(10)
        assert wait_for(lambda: sim.faults.pending_failures() == 0, 10), "the informer never relisted"
        assert_converges(sim, inf)


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("abrupt", [False, True])
def test_dropped_watches(sim, profile, abrupt):
    churn = Churn(sim)
    churn.create(20)
    with running(sim, profile) as inf:
        for _ in range(3):
            sim.faults.drop_watches(abrupt=abrupt)
            churn.step(15)
        assert_converges(sim, inf)


@pytest.mark.parametrize("profile", PROFILES)
def test_expired_watch_cache_relists_with_tombstones(sim, profile):
    churn = Churn(sim)
    churn.create(20)
    trace = TraceBuffer()
    with running(sim, profile, tracer=trace) as inf:
        # Deleted while the informer is reconnecting (its next watch is held
        # server-side), then the watch window moves past its resourceVersion:
        # the re-watch answers 410, and the relist's Replace must turn the
        # missing objects into deletions with DeletedFinalStateUnknown.
        deleted = delete_while_away(sim, churn, 5)
        churn.step(10)
        sim.store.expire_watch_cache("pods")
        assert_converges(sim, inf)
        tombstoned = {e.key for e in trace.drain() if e.kind == "store.delete" and e.fields.get("tombstone")}
        assert {f"{ns}/{name}" for ns, name in deleted} <= tombstoned


@pytest.mark.parametrize("profile", PROFILES)
def test_stalled_watch(sim, profile):
    churn = Churn(sim)
    churn.create(10)
    with running(sim, profile) as inf:
        sim.faults.stall_watches(1.0)
        churn.step(30)
        assert_converges(sim, inf)


def test_watch_list_off_falls_back_to_list(sim):
    churn = Churn(sim)
    churn.create(25)
    sim.faults.set_watch_list(False, "reject")  # a server with the WatchList feature off
    with running(sim, "1.36") as inf:
        churn.step(20)
        assert_converges(sim, inf)


def test_watch_list_forced_on_a_delta_fifo(sim):
    churn = Churn(sim)
    churn.create(25)
    with running(sim, "1.32", watch_list=True) as inf:
        churn.step(20)
        assert_converges(sim, inf)


def test_paged_list_namespace_and_selector(sim):
    churn = Churn(sim)
    churn.create(40)
    for i in range(0, 40, 3):
        ns = NAMESPACES[i % 2]
        sim.store.patch("pods", ns, f"pod-{i}", {"metadata": {"labels": {"tier": "db"}}})
    with running(sim, "1.32", namespace="team-a", label_selector="tier=db", page_size=3) as inf:
        sim.store.patch("pods", "team-a", "pod-1", {"metadata": {"labels": {"tier": "db"}}})  # enters the selection
        sim.store.patch("pods", "team-a", "pod-3", {"metadata": {"labels": {"tier": "web"}}})  # leaves it
        want = assert_converges(sim, inf, "pods", "-n", "team-a", "-l", "tier=db")
        assert "team-a/pod-1" in want and "team-a/pod-3" not in want and len(want) >= 5


def test_kubectl_changes_reach_the_cache(sim):
    """The writes go through kubectl too: create, label, delete."""
    with running(sim, "1.36", resource="configmaps") as inf:
        manifests = yaml.safe_dump_all(
            {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": f"cm-{i}"}, "data": {"k": str(i)}}
            for i in range(3)
        ).encode()
        subprocess.run(
            [KUBECTL, "--kubeconfig", sim.kubeconfig, "create", "-f", "-"],
            input=manifests,
            check=True,
            capture_output=True,
            timeout=30,
        )
        subprocess.run(
            [KUBECTL, "--kubeconfig", sim.kubeconfig, "label", "configmap", "cm-0", "x=y"],
            check=True,
            capture_output=True,
            timeout=30,
        )
        subprocess.run(
            [KUBECTL, "--kubeconfig", sim.kubeconfig, "delete", "configmap", "cm-1"],
            check=True,
            capture_output=True,
            timeout=30,
        )
        want = assert_converges(sim, inf, "configmaps", "-A")
        assert {"default/cm-0", "default/cm-2"} <= set(want) and "default/cm-1" not in want
        assert inf.get_indexer().get_by_key("default/cm-0")[0]["metadata"]["labels"] == {"x": "y"}


@pytest.mark.parametrize("profile", PROFILES + ["1.35"])
@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_scenarios(sim, scenario, profile):
    """Every sim scenario, stepped by hand while the informer runs: after its
    faults are over, the cache is what kubectl lists."""
    seed(sim.store)
    runner = ScenarioRunner(scenario, sim.store, sim.faults, seed=7)
    with running(sim, profile) as inf:
        # Flaky cycles through all its faults in 8 ticks; each disconnect or
        # relist-storm tick costs a Reflector back-off, so fewer suffice.
        for _ in range(8 if scenario == "flaky" else 4):
            runner.step()
            # Give the informer a chance to see each tick (not required for
            # convergence, but it makes a disconnect happen while watching).
            wait_for(lambda: sim.store.watchers("pods"), 2)
        # A failure the informer had no reason to meet (a LIST fault under
        # WatchList) would otherwise be answered to kubectl.
        wait_for(lambda: sim.faults.pending_failures() == 0, 3)
        sim.faults.clear()
        assert_converges(sim, inf)


def test_over_tls(tmp_path):
    """HTTPS with the CA from the written kubeconfig, as with a real cluster."""
    srv = SimServer(tls=True).start()
    try:
        for ns in NAMESPACES:
            srv.store.create("namespaces", {"metadata": {"name": ns}})
        srv.kubeconfig = srv.write_kubeconfig(str(tmp_path / "kubeconfig"))
        assert srv.url.startswith("https://")
        churn = Churn(srv)
        churn.create(6)
        with running(srv, "1.36") as inf:
            churn.step(10)
            assert_converges(srv, inf)
    finally:
        srv.stop()


# --- every fault, every profile: the cache ends equal to the server, no delete lost ---


def _drop_every_n(sim, churn):
    for _ in range(4):
        churn.step(7)
        sim.faults.drop_watches()


def _storm_410(sim, churn):
    sim.faults.fail_next(410, count=2, verb="watch")
    sim.faults.drop_watches()
    churn.step(15)


def _restart(sim, churn):
    # The connection is cut and the new server's watch cache has forgotten
    # every resourceVersion the client knows: 410, relist.
    sim.faults.drop_watches(abrupt=True)
    churn.step(10)
    sim.store.expire_watch_cache("pods")


def _throttled_429(sim, churn):
    sim.faults.fail_next(429, count=2, verb="watch")  # the simulator's 429 carries Retry-After: 1
    sim.faults.drop_watches()
    churn.step(15)


def _stalled(sim, churn):
    sim.faults.stall_watches(1.0)
    churn.step(20)


def _failing_pagination(sim, churn):
    sim.failing_pages = 1  # the next continue request answers 410 (see _PagesFail)
    force_relist(sim)
    churn.step(10)


FAULTS = {
    "drop_every_n": _drop_every_n,
    "410_storm": _storm_410,
    "restart": _restart,
    "429": _throttled_429,
    "stalled": _stalled,
    "failing_pagination": _failing_pagination,
}


def _pages_fail(sim):
    class _PagesFail(KubeListerWatcher):
        """Makes the server answer 410 to a continue request when asked: a
        continue token that expired between two pages."""

        def list(self, options):
            if options.continue_ and getattr(sim, "failing_pages", 0) > 0:
                sim.failing_pages -= 1
                sim.faults.fail_next(410, verb="list")
            return super().list(options)

    return _PagesFail


def _one_fault_run(tmp_path, fault: str, profile: str) -> None:
    srv = SimServer(watch_cache_size=100, anonymous=True).start()  # for kubectl, as the sim fixture
    try:
        for ns in NAMESPACES:
            srv.store.create("namespaces", {"metadata": {"name": ns}})
        srv.kubeconfig = srv.write_kubeconfig(str(tmp_path / f"{fault}-{profile}.kubeconfig"))
        if fault == "failing_pagination":
            srv.faults.set_watch_list(False)  # every profile lists in pages then (WatchList falls back)
        churn = Churn(srv, seed=len(fault))
        churn.create(30)
        trace = TraceBuffer(maxlen=200_000)
        # Pages only where the fault needs them: with an explicit page size a
        # relist at the last RV is an exact-RV read (as in client-go), which the
        # simulator, like etcd before compaction, still serves at that RV.
        page_size = 7 if fault == "failing_pagination" else None
        with running(srv, profile, tracer=trace, page_size=page_size, lw_class=_pages_fail(srv)) as inf:
            seen = set(cache_state(inf))
            # Deleted while the informer is away, then the watch window moves
            # on: only a relist's Replace can notice, with tombstones.
            gone = delete_while_away(srv, churn, 3)
            srv.store.expire_watch_cache("pods")
            srv.faults.delay(0)
            FAULTS[fault](srv, churn)
            assert wait_for(lambda: srv.faults.pending_failures() == 0, 15), "the informer never met the fault"
            want = assert_converges(srv, inf, timeout=20)
            if fault == "failing_pagination":
                assert getattr(srv, "failing_pages", 0) == 0, "no continue request was made"
            events = trace.drain()
            deleted = {e.key for e in events if e.kind == "store.delete"}
            tombstoned = {e.key for e in events if e.kind == "store.delete" and e.fields.get("tombstone")}
            lost = {f"{ns}/{n}" for ns, n in gone} - tombstoned
            assert not lost, f"deletes missed by the watch without a tombstone: {sorted(lost)}"
            assert not (seen - set(want)) - deleted, "an object the informer had seen vanished without a delete"
    finally:
        srv.stop()


@pytest.mark.timeout(120)
def test_every_fault_and_profile_ends_in_agreement(tmp_path):
    """All 18 (fault, profile) runs at once, each against its own simulator:
    most of each run waits (back-offs, held watches), so they overlap well
    and the whole matrix costs about its slowest run."""
    failures: dict[str, str] = {}

    def one(fault, profile):
        try:
            _one_fault_run(tmp_path, fault, profile)
        except BaseException as e:  # noqa: BLE001 - collected and reported below
            failures[f"{fault}/{profile}"] = f"{type(e).__name__}: {e}"

    threads = [threading.Thread(target=one, args=(f, p), daemon=True) for f in FAULTS for p in ("1.32", "1.35", "1.36")]
    for t in threads:
        t.start()
    for t in threads:
        t.join(100)
    assert not [t for t in threads if t.is_alive()], "a run never ended"
    assert not failures, "\n".join(f"{k}: {v[:300]}" for k, v in sorted(failures.items()))
