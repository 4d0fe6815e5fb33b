"""``queue RESOURCE --owns RESOURCE`` and ``watch RESOURCE,RESOURCE``: what the
command line reads into the run's config, and bad input as kubectl answers
it (a malformed name: exit 2 before anything connects; a resource the server
does not have, an empty one in a list: exit 1, kubectl's words)."""

from __future__ import annotations

import pytest

from kubectl_informer.cli import execute as execute_mod
from kubectl_informer.run.config import RunConfig
from tests.cli.test_cli import assert_one_line_error, invoke

HEADLESS = ["-o", "text", "--duration", "30s"]


@pytest.fixture
def configs(monkeypatch):
    """The configs the commands would run (nothing runs)."""
    seen: list[RunConfig] = []
    monkeypatch.setattr(execute_mod, "execute", lambda config, *a, **kw: seen.append(config) or 0)
    return seen


@pytest.mark.parametrize(
    "args,resource,owns,mode",
    [
        (
            ["queue", "deployments", "--owns", "replicasets", "--owns", "pods"],
            "deployments",
            ("replicasets", "pods"),
            "queue",
        ),
        (["queue", "deploy", "--owns", "rs,po"], "deploy", ("rs", "po"), "queue"),
        (["queue", "widgets.example.com", "--owns", "pods"], "widgets.example.com", ("pods",), "queue"),
        (["queue"], "pods", (), "queue"),
        (["watch", "deploy,rs,pods"], "deploy", ("rs", "pods"), "watch"),
        (["watch", "pods"], "pods", (), "watch"),
        (["watch", "deploy,rs", "web", "-n", "team-a"], "deploy", ("rs",), "watch"),
    ],
)
def test_the_resources_named_reach_the_config(configs, args, resource, owns, mode):
    r = invoke(*args, *HEADLESS)
    assert r.exit_code == 0, r.stderr
    (config,) = configs
    assert (config.resource, config.owns, config.mode) == (resource, owns, mode)
    assert config.resources == (resource, *owns)


def test_a_ui_command_switches_to_one_informer(configs):
    invoke("queue", "deploy", "--owns", "pods", *HEADLESS)
    switched = configs[0].switch_resource("svc")
    assert switched.owns == () and switched.resources == ("svc",)
    assert configs[0].with_profile(configs[0].profile).owns == ("pods",)


@pytest.mark.parametrize(
    "args,expected",
    [
        (["queue", "deploy", "--owns", "pods/x"], "invalid resource \"pods/x\": [may not contain '/']"),
        (["queue", "deploy", "--owns", "rs,a%b"], 'invalid resource "a%b"'),
        (["watch", "deploy,..,pods"], "invalid resource \"..\": [may not be '..']"),
        (["watch", "pods,rs/x"], 'invalid resource "rs/x"'),
    ],
)
def test_a_malformed_resource_in_a_list_is_a_usage_error(args, expected):
    assert_one_line_error(invoke(*args, *HEADLESS), code=2, contains=[expected])


def test_queue_takes_one_resource_the_others_are_owned():
    assert_one_line_error(
        invoke("queue", "deploy,rs", *HEADLESS), code=2, contains=["names several resources", "--owns"]
    )


def test_an_owns_flag_without_a_value_is_a_usage_error():
    assert_one_line_error(invoke("queue", "deploy", "--owns"), code=2, contains=["'--owns' requires an argument"])


@pytest.mark.parametrize(
    "args,expected",
    [
        (["watch", "pods,", "--demo"], 'the server doesn\'t have a resource type ""'),
        (["watch", "pods,,deploy", "--demo"], 'the server doesn\'t have a resource type ""'),
        (["queue", "deploy", "--owns", "nosuch", "--demo"], 'the server doesn\'t have a resource type "nosuch"'),
        (["watch", "deploy,nosuch", "--demo"], 'the server doesn\'t have a resource type "nosuch"'),
    ],
)
def test_a_resource_the_server_does_not_have_is_a_runtime_error_as_kubectls(args, expected):
    # kubectl get pods, -> error: the server doesn't have a resource type "" (exit 1)
    assert_one_line_error(invoke(*args, *HEADLESS), code=1, contains=[expected])


def test_a_cluster_scoped_owned_resource_with_a_namespace_is_a_usage_error():
    assert_one_line_error(
        invoke("watch", "pods,namespaces", "-n", "default", "--demo", *HEADLESS),
        code=2,
        contains=['"namespaces" is cluster-scoped: drop -n/--namespace'],
    )


def test_watch_deploy_and_pods_in_text_names_each_informer():
    r = invoke("watch", "deploy,po,pods", "--demo", "quiet", "-o", "text", "--duration", "4s")
    assert r.exit_code == 0, r.stderr
    lines = r.stdout.splitlines()
    informers = {line.split()[1] for line in lines}
    assert informers == {"deployments.apps", "pods"}  # po and pods: one informer
    keys = [line.split()[2] for line in lines if line.split()[1] == "pods"]
    assert len(keys) == len(set(keys))  # one pods informer: each pod listed once


def test_queue_owns_in_text_prints_each_add_and_its_cause():
    r = invoke(
        "queue", "deploy", "--owns", "pods", "--demo", "quiet", "--work-time", "0", "-o", "text", "--duration", "4s"
    )
    assert r.exit_code == 0, r.stderr
    assert any(line.startswith("Queued default/") and "← Deployment default/" in line for line in r.stdout.splitlines())
    # The demo's pods are owned by ReplicaSets, which this run does not watch.
    assert any(
        line.startswith("Dropped pods default/") and "not_queue_kind ReplicaSet default/" in line
        for line in r.stdout.splitlines()
    )


def test_text_says_no_resources_found_once_every_informer_synced_empty():
    import io

    from kubectl_informer.cli.output import TextRenderer
    from kubectl_informer.core.trace import TraceEvent

    def synced(seq, informer, items):
        return TraceEvent.build(seq, 0.0, "informer.synced", items=items, informer=informer)

    for events, said in ((["pods", 0, "deployments.apps", 0], 1), (["pods", 0, "deployments.apps", 2], 0)):
        out, err = io.StringIO(), io.StringIO()
        r = TextRenderer(out, empty_message="No resources found in default namespace.", err=err)
        r.informers = 2
        r.render([synced(1, events[0], events[1])])
        assert err.getvalue() == ""  # one of two synced: nothing to say yet
        r.render([synced(2, events[2], events[3])])
        assert err.getvalue().count("No resources found") == said


@pytest.mark.parametrize(
    "args,resource",
    [
        (["queue", "--controller", "deployment"], "deployments"),
        (["queue", "deploy", "--controller", "deployment"], "deploy"),
        (["queue", "deployments.apps", "--controller", "deployment"], "deployments.apps"),
        (["queue", "--controller", "deployment-controller"], "deployments"),
    ],
)
def test_controller_deployment_brings_its_informers(configs, args, resource):
    r = invoke(*args, *HEADLESS)
    assert r.exit_code == 0, r.stderr
    (config,) = configs
    assert (config.resource, config.owns, config.controller) == (resource, ("replicasets.apps", "pods"), "deployment")


@pytest.mark.parametrize(
    "args,words",
    [
        (["queue", "--controller", "deployment", "--owns", "pods"], "--owns is controller-runtime's shape"),
        (
            ["queue", "pods", "--controller", "deployment"],
            "--controller deployment reconciles deployments.apps, not pods",
        ),
        (["queue", "--controller", "replicaset"], "'replicaset' is not one of 'deployment', 'deployment-controller'"),
        (["watch", "deploy", "--controller", "deployment"], "--controller"),
    ],
)
def test_controller_usage_errors_are_one_line(args, words):
    assert_one_line_error(invoke(*args, *HEADLESS), code=2, contains=[words])


def test_queue_controller_deployment_in_text_names_each_handler():
    r = invoke(
        "queue", "--controller", "deployment", "--demo", "rollout", "--work-time", "0", "-o", "text", "--duration", "4s"
    )
    assert r.exit_code == 0, r.stderr
    queued = [line for line in r.stdout.splitlines() if line.startswith("Queued ")]
    assert any(" by addDeployment (" in line for line in queued)
    assert any(" by addReplicaSet (" in line or " by updateReplicaSet (" in line for line in queued)
    # One event per add: no chain, and no pod's event but deletePod's.
    assert all(line.count(" ← ") == 1 for line in queued)
    assert all(" by deletePod (" in line for line in queued if " ← Pod " in line)
