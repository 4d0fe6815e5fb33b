"""Churn scenarios, the demo cluster and run_sim."""

import base64
import io
import json
import os
import threading
from pathlib import Path

import pytest

from kubectl_informer.clock.testing import FakeClock, wait_for
from kubectl_informer.sim.demo import DEMO_LAYOUT, seed, start_demo
from kubectl_informer.sim.run import run_sim
from kubectl_informer.sim.scenarios import SCENARIOS, ScenarioRunner, get_scenario
from kubectl_informer.sim.server import SimServer
from tests.sim._http import RawClient


@pytest.fixture
def demo_sim():
    s = SimServer().start()
    seed(s.store)
    yield s
    s.stop()


def pod_names(store, ns=None):
    return {p["metadata"]["name"] for p in store.list("pods", ns)}


def test_an_old_scenario_name_is_found_but_not_listed():
    assert "too-large-rv" in SCENARIOS and SCENARIOS["too-large-rv"].name == "etcd-restore"
    assert SCENARIOS.get("too-large-rv") is SCENARIOS["etcd-restore"]
    assert SCENARIOS.get("no-such", "fallback") == "fallback" and SCENARIOS.get("no-such") is None
    assert "too-large-rv" not in list(SCENARIOS.keys()) and "etcd-restore" in list(SCENARIOS)
    assert "too-large-rv" not in [name for name, _ in SCENARIOS.items()]
    assert get_scenario("too-large-rv").name == "etcd-restore"


def test_every_scenario_has_a_description_and_a_rate():
    assert {"steady", "burst", "disconnect", "mass-delete", "relist-storm", "flaky", "quiet"} <= set(SCENARIOS)
    for s in SCENARIOS.values():
        assert len(s.description) > 30 and s.rate > 0


def test_unknown_scenario_is_a_one_line_value_error():
    with pytest.raises(ValueError, match=r"unknown scenario 'nope' \(choose from: steady, burst"):
        get_scenario("nope")


def test_seed_is_realistic(demo_sim):
    store = demo_sim.store
    pods = store.list("pods")
    assert len(pods) == sum(r for apps in DEMO_LAYOUT.values() for _, r in apps) >= 24
    assert {p["metadata"]["namespace"] for p in pods} == set(DEMO_LAYOUT)
    p = pods[0]
    assert p["status"]["phase"] in ("Running", "Pending", "Succeeded", "Failed")
    assert p["metadata"]["ownerReferences"][0]["kind"] == "ReplicaSet"
    assert p["metadata"]["managedFields"] and p["metadata"]["labels"]["app"]
    assert {p["status"]["phase"] for p in store.list("pods", "batch")} >= {"Succeeded", "Pending", "Failed"}
    assert store.list("deployments") and store.list("configmaps") and store.list("widgets")
    assert store.get("crd", None, "widgets.example.com")["spec"]["names"]["shortNames"] == ["wd"]


def test_steady_changes_things_and_keeps_population(demo_sim):
    store = demo_sim.store
    n0, rv0 = store.count("pods"), store.current_rv()
    r = ScenarioRunner("steady", store, demo_sim.faults, seed=1)
    for _ in range(200):
        r.step()
    assert store.current_rv() > rv0 + 150
    assert 0.75 * n0 <= store.count("pods") <= 1.25 * n0


def test_steady_leaves_a_bare_pod_a_user_applied_alone(demo_sim):
    # The attach walkthrough applies a pod of its own (no owner) and attaches to
    # it by name: the default churn deletes and changes only pods a controller made.
    store = demo_sim.store
    ns = sorted(DEMO_LAYOUT)[0]
    mine = store.create(
        "pods",
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": "my-controller-0", "namespace": ns},
            "spec": {"containers": [{"name": "m", "image": "x"}]},
        },
    )
    rv0 = store.current_rv()
    r = ScenarioRunner("steady", store, demo_sim.faults, seed=5, namespaces=[ns])
    for _ in range(300):
        r.step()
    assert store.current_rv() > rv0 + 200  # the churn ran, in that very namespace
    still = store.get("pods", ns, "my-controller-0")
    assert still["metadata"]["resourceVersion"] == mine["metadata"]["resourceVersion"]


def test_burst_sends_many_updates_to_one_key(demo_sim):
    store = demo_sim.store
    rv = store.current_rv()
    w = RawClient(demo_sim.url, token=demo_sim.token).watch("/api/v1/pods", resourceVersion=str(rv))
    assert wait_for(lambda: store.watchers("pods"))
    ScenarioRunner("burst", store, seed=2).step()
    evs = w.take(20)
    assert {e["type"] for e in evs} == {"MODIFIED"}
    assert len({(e["object"]["metadata"]["namespace"], e["object"]["metadata"]["name"]) for e in evs}) == 1
    w.close()


def test_disconnect_deletes_in_a_gap_and_forces_a_relist(demo_sim):
    store = demo_sim.store
    client = RawClient(demo_sim.url, token=demo_sim.token)
    _, before = client.get("/api/v1/pods")
    rv = before["metadata"]["resourceVersion"]
    w = client.watch("/api/v1/pods", resourceVersion=rv)
    assert wait_for(lambda: store.watchers("pods"))
    ScenarioRunner("disconnect", store, demo_sim.faults, seed=3).step()
    assert w.rest() == []  # the watch was cut with no event delivered
    evs = client.watch("/api/v1/pods", resourceVersion=rv).rest()
    assert evs[0]["type"] == "ERROR" and evs[0]["object"]["code"] == 410  # the client must relist
    _, after = client.get("/api/v1/pods")
    old = {i["metadata"]["name"] for i in before["items"]}
    new = {i["metadata"]["name"] for i in after["items"]}
    assert len(old - new) == 1 and len(new - old) == 1  # one known pod gone, one new; the ghost never listed


def test_mass_delete_empties_a_namespace_then_refills_it(demo_sim):
    store = demo_sim.store
    r = ScenarioRunner("mass-delete", store, seed=4)
    before = {ns: len(store.list("pods", ns)) for ns in DEMO_LAYOUT}
    r.step()
    emptied = [ns for ns in DEMO_LAYOUT if not store.list("pods", ns)]
    assert len(emptied) == 1 and len(r.ctx.state["deleted"]) == before[emptied[0]]
    r.step()
    assert len(store.list("pods", emptied[0])) == before[emptied[0]]


def test_relist_storm_expires_every_watch(demo_sim):
    store = demo_sim.store
    client = RawClient(demo_sim.url, token=demo_sim.token)
    rv = str(store.current_rv())
    w = client.watch("/api/v1/pods", resourceVersion=rv)
    assert wait_for(lambda: store.watchers("pods"))
    ScenarioRunner("relist-storm", store, seed=5).step()
    w.rest()
    assert client.watch("/api/v1/pods", resourceVersion=rv).rest()[0]["object"]["code"] == 410


def test_flaky_injects_each_fault_once_the_clients_watch_again(demo_sim):
    store, faults = demo_sim.store, demo_sim.faults
    r = ScenarioRunner("flaky", store, faults, seed=6)
    for _ in range(10):
        r.step()
    assert r.ctx.state.get("faults", 0) == 0  # nobody watches: nothing to recover from yet
    client = RawClient(demo_sim.url, token=demo_sim.token)

    def watch_healthily():
        w = client.watch("/api/v1/pods", resourceVersion=str(store.current_rv()))
        assert wait_for(lambda: store.watchers("pods"))
        for _ in range(6):
            r.step()
        return w

    watch_healthily().rest()  # 3 s of watching, then the first fault: the watch is dropped
    assert r.ctx.state["faults"] == 1 and faults.pending_failures() == 0
    watch_healthily().rest()  # the second: dropped, and the next watch will get 429
    assert r.ctx.state["faults"] == 2 and faults.pending_failures() == 1
    for _ in range(12):
        r.step()
    assert r.ctx.state["faults"] == 2  # no new fault while the client has not recovered


def test_runner_ticks_on_its_clock():
    store_sim = SimServer()
    seed(store_sim.store)
    clock = FakeClock()
    r = ScenarioRunner("steady", store_sim.store, rate=2.0, clock=clock, seed=7).start()
    try:
        # First it waits first_after (a demo's client lists meanwhile), then ticks.
        assert wait_for(lambda: clock.has_waiters()) and r.ticks == 0
        clock.step(r.scenario.first_after)
        assert wait_for(lambda: r.ticks == 1 and clock.has_waiters())
        clock.step(0.5)
        assert wait_for(lambda: r.ticks == 2 and clock.has_waiters())
        clock.step(0.2)  # not yet due
        assert not wait_for(lambda: r.ticks == 3, timeout=0.05)
        clock.step(0.3)
        assert wait_for(lambda: r.ticks == 3)
    finally:
        r.stop()
    assert not r._thread.is_alive()


def test_runner_rejects_bad_rate():
    with pytest.raises(ValueError):
        ScenarioRunner("steady", SimServer().store, rate=0)


def test_start_demo_serves_seeded_objects_and_writes_kubeconfig():
    import yaml

    with start_demo("quiet") as demo:
        cfg = yaml.safe_load(Path(demo.kubeconfig_path).read_text())
        assert cfg["clusters"][0]["cluster"]["server"] == demo.url
        status, lst = RawClient(demo.url, token=demo.token).get("/api/v1/pods")
        assert status == 200 and len(lst["items"]) >= 24
        assert demo.runner.scenario.name == "quiet"
        path = demo.kubeconfig_path
    import os

    assert not os.path.exists(path)


def test_start_demo_default_scenario_is_steady_and_runs():
    demo = start_demo(rate=50)
    try:
        assert demo.runner.scenario.name == "steady"
        rv = demo.server.store.current_rv()
        assert wait_for(lambda: demo.server.store.current_rv() > rv)
    finally:
        demo.stop()
    assert not demo.runner._thread.is_alive()


def test_run_sim_prints_how_to_connect_and_stops(tmp_path):
    out = io.StringIO()
    stop = threading.Event()
    kc = str(tmp_path / "kc")
    t = threading.Thread(target=run_sim, kwargs=dict(write_kubeconfig=kc, scenario="quiet", out=out, stop_event=stop))
    t.start()
    try:
        assert wait_for(lambda: "Ctrl-C" in out.getvalue())
        text = out.getvalue()
        assert "https://127.0.0.1:" in text and f"kubectl --kubeconfig {kc} get pods" in text
        url = text.split("listening on ")[1].split()[0]
        config = json.loads(Path(kc).read_text())
        token, ca = config["users"][0]["user"]["token"], config["clusters"][0]["cluster"]["certificate-authority-data"]
        ca = base64.b64decode(ca)
        assert RawClient(url, ca_pem=ca).get("/version")[0] == 401  # the token is in the kubeconfig only
        assert RawClient(url, ca_pem=ca, token=token).get("/version")[0] == 200
        assert oct(os.stat(kc).st_mode & 0o777) == "0o600"
    finally:
        stop.set()
        t.join(5)
    assert "stopped" in out.getvalue()


def test_run_sim_bad_input():
    with pytest.raises(ValueError, match="unknown scenario"):
        run_sim(scenario="bogus")
    s = SimServer().start()
    try:
        with pytest.raises(ValueError, match=f"cannot listen on 127.0.0.1:{s.port}"):
            run_sim(port=s.port, scenario="quiet")
    finally:
        s.stop()


def test_start_demo_bulk_pods():
    with start_demo("quiet", bulk_pods=300) as demo:
        status, lst = RawClient(demo.url, token=demo.token).get("/api/v1/namespaces/bench/pods", limit="100")
        assert status == 200 and lst["metadata"]["remainingItemCount"] == 200


def test_module_entry_point_bad_input_is_one_line():
    import subprocess
    import sys

    r = subprocess.run(
        [sys.executable, "-m", "kubectl_informer.sim", "--scenario", "nosuch"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 1 and r.stderr.startswith("error: unknown scenario 'nosuch'")
    assert len(r.stderr.strip().splitlines()) == 1
