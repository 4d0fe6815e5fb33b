"""One run's config: read once from the command line, never changed after.

``RunConfig.from_flags`` reads the flags as click hands them over (the
``--client-go``/``--fifo``/``--watch-list`` trio becomes one ``Profile``,
``-n``/``-A`` one ``Scope``); the run resolves the scope once discovery says
whether the resource is namespaced. A ``:`` command in the UI and a restart
derive a new config from the running one (``switch_resource``,
``with_profile``), as k9s refines its flags once into the config everything
else reads. Frozen: a run that needs another value derives another config.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from typing import Any

from kubectl_informer.core.names import escape_field_value
from kubectl_informer.core.profiles import DEFAULT_PROFILE, Profile, resolve_profile
from kubectl_informer.core.scope import Scope
from kubectl_informer.kube.overrides import ConfigOverrides


@dataclass(frozen=True)
class Workqueue:
    """``queue``'s controller: its workers and what each item costs."""

    workers: int = 2
    work_time: float = 0.2
    fail_rate: float = 0.0
    rate_limiter: str = "default"  # the spec; each run parses its own (a limiter holds state)
    seed: int | None = None
    consistency: bool = True  # --demo stale: the read-your-own-writes check (ConsistencyStore)
    max_retries: int = 0  # a failed key's requeues before it is dropped; 0: retry forever


# kube-controller-manager's controllers the queue can take the shape of: the
# resource its workqueue holds (every spelling kubectl accepts for it) and the
# informers NewDeploymentController is given after it.
CONTROLLERS = {
    "deployment": (
        (
            "deployments",
            "deployment",
            "deploy",
            "deployments.apps",
            "deployment.apps",
            "deploy.apps",
            "deployments.v1.apps",
        ),
        ("replicasets.apps", "pods"),
    )
}
# kube-controller-manager's --controllers takes a controller's name or its alias.
CONTROLLER_NAMES = {"deployment": "deployment", "deployment-controller": "deployment"}


def _controller_flags(mode: str, flags: dict) -> dict:
    """``--controller NAME``'s resource and informers; ValueError for what
    cannot go with it."""
    name = CONTROLLER_NAMES.get(flags["controller"])
    if name is None:
        raise ValueError(f"--controller {flags['controller']!r}: the shapes are {', '.join(CONTROLLER_NAMES)}")
    if mode != "queue":
        raise ValueError("--controller applies to queue only")
    spellings, informers = CONTROLLERS[name]
    if flags.get("owns"):
        raise ValueError(
            f"--controller {name} brings its own informers ({spellings[3]}, {', '.join(informers)}); "
            f"--owns is controller-runtime's shape: give one or the other"
        )
    if flags.get("metadata_only"):
        raise ValueError(f"--controller {name} reads the objects' spec (selectors, strategy): not with --metadata-only")
    resource = flags.get("resource") or spellings[0]
    if resource.lower() not in spellings:
        raise ValueError(f"--controller {name} reconciles {spellings[3]}, not {resource}")
    return {"resource": resource, "owns": informers, "controller": name}


@dataclass(frozen=True)
class RunConfig:
    """The flags of one run, parsed and checked (see the module's docstring)."""

    resource: str = "pods"
    name: str | None = None  # one object, as `kubectl get pod NAME -w`
    scope: Scope = field(default_factory=Scope)
    label_selector: str | None = None
    field_selector: str | None = None
    profile: Profile = DEFAULT_PROFILE
    resync: float = 0.0
    late_handler_resync: float | None = None  # a second handler, added after start
    handlers: int | None = None  # handler lanes (queue: the first is the controller's)
    handler_resync: tuple[float, ...] = ()  # one for all, or one per lane
    handler_time: tuple[float, ...] = ()  # work per notification, likewise
    context: str | None = None
    kubeconfig: str | None = None
    overrides: ConfigOverrides | None = None  # kubectl's connection flags (--server, --token, --as...)
    demo: str | None = None  # scenario name, or None for a real cluster
    request_timeout: float | None = None  # kubectl's --request-timeout: one request's whole time
    server_scrape: float = 10.0  # seconds between /metrics scrapes for the Server pane (0: none)
    queue: Workqueue | None = None  # None: `watch`, no controller
    metadata_only: bool = False  # list/watch PartialObjectMetadata (client-go's metadatainformer)
    strip_managed_fields: bool = False  # transforms, applied before the FIFO
    drop_paths: tuple[str, ...] = ()
    indexes: tuple = ()  # --index: core.jsonpath.IndexSpec, added to every informer's indexer
    show_secret_data: bool = False
    metrics_addr: str | None = None  # queue --metrics-addr
    # Further informers in the run, as typed: queue's --owns, or the rest of
    # watch's comma list (deploy,rs,pods). The workqueue, if any, holds keys
    # of ``resource``; events of these map to them through ownerReferences.
    owns: tuple[str, ...] = ()
    # The controller's shape with several informers: None is controller-runtime's
    # For/Owns (run/owners.py); "deployment" kube-controller-manager's Deployment
    # controller, whose informers it brings (run/deployment_controller.py).
    controller: str | None = None
    args: tuple[str, ...] = ()  # the command line, for the recording's header

    @classmethod
    def from_flags(
        cls,
        *,
        mode: str = "watch",
        namespace: str | None = None,
        all_namespaces: bool = False,
        client_go: str | None = None,
        fifo: str | None = None,
        watch_list: bool | None = None,
        fifo_known_objects: bool | None = None,
        workers: int = 2,
        work_time: float = 0.2,
        fail_rate: float = 0.0,
        rate_limiter: str = "default",
        seed: int | None = None,
        consistency: bool = True,
        max_retries: int = 0,
        **flags: Any,
    ) -> RunConfig:
        """The config the flags ask for, named as the command line names them.
        ValueError for values that cannot go together (-n with -A, a bad
        --client-go or --fifo)."""
        if mode not in ("watch", "queue"):
            raise ValueError(f"mode must be watch or queue, not {mode!r}")
        queue = (
            Workqueue(workers, work_time, fail_rate, rate_limiter, seed, consistency, max_retries=max_retries)
            if mode == "queue"
            else None
        )
        for name in ("handler_resync", "handler_time", "drop_paths", "args", "owns"):
            if name in flags:
                flags[name] = tuple(flags[name] or ())
        if flags.get("controller") is not None:
            flags.update(_controller_flags(mode, flags))
        return cls(
            scope=Scope(namespace or None, bool(all_namespaces)),
            profile=resolve_profile(client_go, fifo=fifo, watch_list=watch_list, known_objects=fifo_known_objects),
            queue=queue,
            **flags,
        )

    @property
    def resources(self) -> tuple[str, ...]:
        """Every resource the run informs on, as typed, the queue's first."""
        return (self.resource, *self.owns)

    @property
    def mode(self) -> str:
        return "watch" if self.queue is None else "queue"

    def field_selector_with_name(self) -> str | None:
        """``NAME`` narrows the watch to one object, as ``kubectl get pod NAME -w``
        does: a ``metadata.name`` field selector joined to any given one."""
        by_name = f"metadata.name={escape_field_value(self.name)}" if self.name else None
        parts = [p for p in (self.field_selector, by_name) if p]
        return ",".join(parts) or None

    # --- what a `:` command or a restart derives ----------------------------------

    def switch_resource(self, resource: str, scope: Scope | None = None) -> RunConfig:
        """Another resource (``:deploy``, ``:svc -A``): the whole of it, no NAME,
        one informer; without a scope of its own it keeps this one's, carried over."""
        return replace(
            self,
            resource=resource,
            name=None,
            owns=(),
            controller=None,
            scope=self.scope.carried_over() if scope is None else scope,
        )

    def with_scope(self, scope: Scope) -> RunConfig:
        """The same resource and informers in other namespaces (``:ns NAME``, ``:ns -A``)."""
        return replace(self, scope=scope)

    def with_context(self, context: str) -> RunConfig:
        """The same resource in another kubeconfig context (``:ctx NAME``): the
        namespace given with -n carries over, else the new context's."""
        return replace(self, context=context)

    def with_profile(self, profile: Profile) -> RunConfig:
        """Another client-go's machinery (``:profile``, ``:fifo``, ``:watchlist``)."""
        return replace(self, profile=profile)

    def changed_fields(self, other: RunConfig) -> set[str]:
        """The fields where ``other`` differs from this config."""
        return {f.name for f in fields(self) if getattr(self, f.name) != getattr(other, f.name)}
