"""Running.restart: a new pipeline on the same cluster, tracer and recorder;
the old run's threads joined; a failed restart leaves the old run running.
Against the simulated cluster over real HTTP."""

import json
import threading
from dataclasses import replace

import click
import pytest

from kubectl_informer.clock.testing import wait_for
from kubectl_informer.core.profiles import PROFILES
from kubectl_informer.core.scope import Scope
from kubectl_informer.core.trace_kinds import RUN_RESTART, STORE_ADD, STORE_UPDATE
from kubectl_informer.run.config import RunConfig
from kubectl_informer.run.lifecycle import running
from kubectl_informer.run.restart import restart_lock
from kubectl_informer.run.runner import RunError


def _keys_after_restart(buffer, seen: list, kinds=(STORE_ADD, STORE_UPDATE)) -> set[str]:
    seen += buffer.drain()
    marks = [i for i, ev in enumerate(seen) if ev.kind == RUN_RESTART]
    after = seen[marks[-1] :] if marks else []
    return {ev.key for ev in after if ev.kind in kinds}


def test_restart_switches_resource_and_profile_on_the_same_demo_and_joins_the_old_threads(tmp_path):
    before = set(threading.enumerate())
    record = tmp_path / "trace.ndjson"
    with running(RunConfig.from_flags(resource="pods", demo="steady"), ui=False, record=str(record)) as r:
        r.start()
        first = r.run
        demo = first.demo
        assert wait_for(lambda: first.informer.has_synced(), timeout=10)
        info = r.restart(r.config.switch_resource("deploy", Scope("shop")).with_profile(PROFILES["1.36"]))
        assert (info.resource, info.namespace, info.fifo, info.initial_list) == (
            "deployments.apps",
            "shop",
            "RealFIFO (atomic)",
            "WatchList stream",
        )
        assert first.alive_threads() == [] and first.stop_event.is_set()
        # The same simulated server and scenario go on, now owned by the new run.
        assert r.run is not first and r.run.demo is demo and r.run.owns_demo and not first.owns_demo
        assert demo.runner is not None and demo.server is not None
        seen: list = []
        assert wait_for(
            lambda: _keys_after_restart(r.buffer, seen) == {"shop/frontend", "shop/cart", "shop/payments"}, timeout=10
        )
        restart = next(ev for ev in seen if ev.kind == RUN_RESTART)
        assert restart.fields["resource"] == "deployments.apps" and restart.fields["restarts"] == 1
        assert restart.fields["fifo"] == "RealFIFO (atomic)" and restart.fields["watch_list"] is True
        # A second restart back to pods: the scenario's traffic still flows.
        r.restart(r.config.switch_resource("pods", Scope(all_namespaces=True)).with_profile(PROFILES["1.32"]))
        assert wait_for(lambda: any(k.startswith("batch/") for k in _keys_after_restart(r.buffer, seen)), timeout=10)
        assert r.restarts == 2
    assert r.run.alive_threads() == []
    assert wait_for(lambda: set(threading.enumerate()) <= before, timeout=10), sorted(
        t.name for t in set(threading.enumerate()) - before
    )
    # The recorder kept writing across both restarts.
    kinds = [json.loads(line)["kind"] for line in record.read_text().splitlines()]
    assert kinds.count("run.restart") == 2 and kinds.index("run.restart") < len(kinds) - 1


@pytest.mark.parametrize(
    "derive, message",
    [
        (lambda c: c.switch_resource("nosuch"), 'the server doesn\'t have a resource type "nosuch"'),
        (lambda c: replace(c, name="nosuch"), 'pods "nosuch" not found in namespace "default"'),
        (lambda c: c.switch_resource("namespaces", Scope("shop")), "is cluster-scoped"),
    ],
)
def test_a_failed_restart_leaves_the_old_run_running(derive, message):
    with running(RunConfig.from_flags(resource="pods", demo="steady"), ui=False) as r:
        r.start()
        old = r.run
        threads = set(old.threads)
        with pytest.raises((RunError, click.UsageError), match=message):
            r.restart(derive(r.config))
        assert r.run is old and not old.stop_event.is_set() and set(old.alive_threads()) == threads
        assert r.info.resource == "pods"
        # The old pipeline still gets the scenario's traffic.
        r.buffer.drain()
        assert wait_for(lambda: any(ev.kind == STORE_UPDATE for ev in r.buffer.drain()), timeout=10)


def test_an_inherited_namespace_is_dropped_for_a_cluster_scoped_resource():
    with running(RunConfig.from_flags(resource="pods", namespace="shop", demo="quiet"), ui=False) as r:
        r.start()
        info = r.restart(r.config.switch_resource("namespaces"))
        assert info.resource == "namespaces" and info.namespace is None
        seen: list = []
        assert wait_for(lambda: {"shop", "batch", "default"} <= _keys_after_restart(r.buffer, seen), timeout=10)


def test_one_restart_at_a_time_and_only_restartable_options():
    with running(RunConfig.from_flags(resource="pods", demo="quiet"), ui=False) as r:
        r.start()
        with pytest.raises(ValueError, match="cannot change resync"):
            r.restart(replace(r.config, resync=3.0))
        with restart_lock(r), pytest.raises(RunError, match="already under way"):  # a restart under way
            r.restart(r.config.switch_resource("deploy"))
        assert r.restart(r.config.switch_resource("deploy")).resource == "deployments.apps"


def test_a_queue_restart_serves_the_new_controllers_metrics():
    import urllib.request

    from kubectl_informer.attach.exporter import MetricsExporter

    opts = RunConfig.from_flags(resource="pods", demo="steady", mode="queue", work_time=0.0)
    with running(opts, ui=False, exporter=lambda o: MetricsExporter("127.0.0.1:0")) as r:
        r.start()
        first = r.run.controller
        r.restart(r.config.switch_resource("deploy", Scope(all_namespaces=True)))
        assert r.run.controller is not first and first is not None

        def adds() -> float:
            body = urllib.request.urlopen(r.exporter.url, timeout=5).read().decode()
            return sum(float(line.split()[-1]) for line in body.splitlines() if line.startswith("workqueue_adds_total"))

        # Six deployments listed: the new controller's queue is the one served.
        assert wait_for(lambda: adds() >= 6, timeout=10)
        assert r.run.controller.queue is not first.queue


@pytest.mark.parametrize("verb", ["list", "watch"])
def test_an_rbac_403_in_a_restart_is_one_line_and_the_old_run_goes_on(verb):
    message = f'deployments.apps is forbidden: User "dev" cannot {verb} resource "deployments" in API group "apps"'
    with running(RunConfig.from_flags(resource="pods", demo="quiet"), ui=False) as r:
        r.start()
        old = r.run
        old.demo.server.faults.fail_next(403, verb=verb, resource="deployments", message=message)
        with pytest.raises(RunError) as e:
            r.restart(r.config.switch_resource("deploy"))
        assert str(e.value) == message
        assert r.run is old and old.alive_threads() and not old.stop_event.is_set()
        # Once allowed, the same restart goes through on the same server.
        assert r.restart(r.config.switch_resource("deploy")).resource == "deployments.apps"


def test_a_fresh_client_has_the_same_server_and_credentials_on_either_transport():
    from kubernetes import client as k8s_client

    from kubectl_informer.kube import light, request_limits
    from kubectl_informer.kube.config import USER_AGENT, fresh_client, new_api_client

    cfg = light.LightConfig("https://127.0.0.1:6443")
    cfg.authorization = "Bearer t"
    old = light.LightClient(cfg, USER_AGENT)
    request_limits.abort_requests(old)  # what stopping a run does to its client
    new = fresh_client(old)
    assert type(new) is light.LightClient and new is not old and not request_limits.limits(new).aborted
    assert new.configuration is cfg and new.user_agent == USER_AGENT
    kcfg = k8s_client.Configuration(host="https://127.0.0.1:6443")
    old = new_api_client(kcfg)
    new = fresh_client(old)
    assert type(new) is type(old) and new is not old and new.configuration.host == "https://127.0.0.1:6443"
    assert new.user_agent == USER_AGENT


def test_a_several_informer_run_restarts_on_another_profile_with_them_all_and_to_one_on_a_resource():
    with running(
        RunConfig.from_flags(mode="queue", resource="deploy", owns=("pods",), demo="quiet", work_time=0.0), ui=False
    ) as r:
        r.start()
        first = r.run
        assert wait_for(lambda: all(i.has_synced() for i in first.factory.informers.values()), timeout=20)
        info = r.restart(r.config.with_profile(PROFILES["1.36"]))
        assert info.informers == ("deployments.apps", "pods") and info.fifo == "RealFIFO (atomic)"
        assert list(r.run.factory.informers) == ["deployments.apps", "pods"] and first.alive_threads() == []
        info = r.restart(r.config.switch_resource("cm"))
        assert (
            info.informers == () and info.resource == "configmaps" and list(r.run.factory.informers) == ["configmaps"]
        )
    assert r.run.alive_threads() == []
