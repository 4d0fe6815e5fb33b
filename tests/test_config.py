"""The run's config: read once from the flags, its scope resolved by one
rule, its profile resolved once and handed to the informer as is, and a
restart deriving a new config from the running one. The runs go against the
simulated API server over real HTTP."""

import dataclasses

import pytest
from click.testing import CliRunner

from kubectl_informer.cli.main import cli
from kubectl_informer.core import profiles
from kubectl_informer.core.profiles import PROFILES, Profile
from kubectl_informer.core.scope import ClusterScopedError, Scope
from kubectl_informer.run.config import RunConfig
from kubectl_informer.run.lifecycle import running
from kubectl_informer.run.runner import Run, UsageRunError
from kubectl_informer.sim.server import SimServer

CLUSTER = "cluster-scoped"


# -n, the kubeconfig context's namespace, -A, whether the resource is namespaced,
# whether -n was carried over by a `:` switch -> the namespace watched (None: all
# namespaces, or none for a cluster-scoped resource), or the error.
@pytest.mark.parametrize(
    "flag, kubeconfig_ns, all_ns, namespaced, inherited, watched",
    [
        (None, None, False, True, False, "default"),  # nothing said anywhere: default
        (None, "dev", False, True, False, "dev"),  # the context's namespace
        ("shop", "dev", False, True, False, "shop"),  # -n wins over the context
        (None, "dev", True, True, False, None),  # -A: every namespace
        (None, "dev", False, False, False, None),  # a cluster-scoped resource: none
        (None, None, True, False, False, None),  # -A on a cluster-scoped one: still none
        ("shop", "dev", False, False, False, CLUSTER),  # -n typed for a cluster-scoped one: refused
        ("shop", "dev", False, False, True, None),  # -n carried over to it: dropped
        ("shop", "dev", False, True, True, "shop"),  # carried over to a namespaced one: kept
    ],
)
def test_the_namespace_rule(flag, kubeconfig_ns, all_ns, namespaced, inherited, watched):
    config = RunConfig.from_flags(namespace=flag, all_namespaces=all_ns)
    scope = config.scope.carried_over() if inherited else config.scope
    if watched == CLUSTER:
        with pytest.raises(ClusterScopedError):
            scope.resolve(namespaced, kubeconfig_ns)
        return
    resolved = scope.resolve(namespaced, kubeconfig_ns)
    assert resolved.namespace == watched
    assert resolved.resolve(namespaced, kubeconfig_ns) == resolved  # resolving again changes nothing
    assert config.scope == Scope(flag, all_ns)  # derived, not changed


def test_a_namespace_and_all_namespaces_cannot_make_one_scope():
    with pytest.raises(ValueError):
        Scope("shop", all_namespaces=True)
    r = CliRunner().invoke(cli, ["watch", "pods", "-n", "shop", "-A", "--demo"])
    assert r.exit_code == 2 and "cannot be used together" in r.stderr


@pytest.mark.parametrize(
    "flags, namespace", [({}, "dev"), ({"namespace": "shop"}, "shop"), ({"all_namespaces": True}, None)]
)
def test_a_run_watches_where_the_rule_says_with_the_kubeconfigs_namespace(tmp_path, flags, namespace):
    with SimServer() as srv:
        kc = srv.write_kubeconfig(str(tmp_path / "kubeconfig"), namespace="dev")
        config = RunConfig.from_flags(kubeconfig=kc, **flags)
        with Run(config) as run:
            info = run.prepare()
            assert info.namespace == run.lw.namespace == run.scope.namespace == namespace
            assert run.config is config  # the run resolves into run.scope, never into its config
            with pytest.raises(UsageRunError, match='"namespaces" is cluster-scoped: drop -n'):
                Run(dataclasses.replace(config, resource="namespaces", scope=Scope("dev"))).prepare()


def test_the_profile_is_resolved_once_and_reaches_the_informer_as_is(monkeypatch):
    config = RunConfig.from_flags(demo="quiet", client_go="1.36", fifo="real", watch_list=False)
    assert config.profile == Profile("1.36", "real", False, True)

    def no_more(*a, **kw):
        raise AssertionError("the profile was resolved again from strings")

    monkeypatch.setattr(profiles, "resolve_profile", no_more)
    monkeypatch.setattr(profiles, "_profile_for_version", no_more)
    with Run(config) as run:
        info = run.prepare()
        run.start()
        assert run.informer.profile is config.profile
        assert (info.profile, info.fifo, info.initial_list) == ("1.36", "RealFIFO (atomic)", "paged LIST")


def test_a_restart_derives_a_new_config_and_leaves_the_old_one_as_it_was():
    first = RunConfig.from_flags(resource="pods", namespace="shop", demo="quiet", resync=2.0, client_go="1.32")
    with running(first, ui=False) as r:
        r.start()
        old_run = r.run
        assert r.config.scope == Scope("shop") and r.config.resync == 2.0
        wanted = r.config.switch_resource("deploy").with_profile(PROFILES["1.35"])
        info = r.restart(wanted)
        assert r.run is not old_run and r.run.config is wanted
        assert (info.resource, info.namespace, info.profile, info.resync_period) == (
            "deployments.apps",
            "shop",
            "1.35",
            2.0,
        )
        assert r.run.informer.profile is PROFILES["1.35"]
        # The old run's config is untouched (and cannot be touched).
        assert old_run.config is first and first.resource == "pods" and first.profile == PROFILES["1.32"]
        with pytest.raises(dataclasses.FrozenInstanceError):
            first.resource = "deploy"
        # What the command line set and a restart may not change stays refused.
        with pytest.raises(ValueError, match="cannot change demo"):
            r.restart(dataclasses.replace(r.config, demo="steady"))


def test_controller_deployment_is_read_once_and_dropped_on_another_resource():
    c = RunConfig.from_flags(mode="queue", controller="deployment")
    assert (c.resource, c.owns, c.controller) == ("deployments", ("replicasets.apps", "pods"), "deployment")
    other = c.switch_resource("cm")
    assert (other.resource, other.owns, other.controller) == ("cm", (), None)
    with pytest.raises(ValueError, match="not with --metadata-only"):
        RunConfig.from_flags(mode="queue", controller="deployment", metadata_only=True)
    with pytest.raises(ValueError, match="applies to queue only"):
        RunConfig.from_flags(mode="watch", resource="deploy", controller="deployment")
