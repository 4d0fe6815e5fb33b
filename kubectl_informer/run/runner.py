"""One run of the machinery: connect, build the pipeline, start and stop its threads.

``Run.prepare()`` does everything that can fail because of the user's input
(profile, rate limiter, kubeconfig, discovery, RBAC) *before* any thread or
UI starts, and turns each failure into a one-line ``RunError``. ``start()``
builds the informer (and the simulated controller for ``queue``) and runs
them on threads, as client-go runs them on goroutines; ``stop()`` closes the
stop event and joins every thread it started, so quitting leaves none behind.
"""

from __future__ import annotations

import contextlib
import functools
import threading
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import click

from kubectl_informer.clock import Clock
from kubectl_informer.core.redact import redact_url
from kubectl_informer.core.run_info import RunInfo
from kubectl_informer.core.scope import ClusterScopedError, Scope
from kubectl_informer.core.trace import Tracer
from kubectl_informer.core.trace_kinds import CONTROLLER_CONSISTENCY, RUN_ERROR
from kubectl_informer.run.config import RunConfig
from kubectl_informer.run.crash import crash_line, summary

# The failures the user can act on, each in one line; the CLI and tests import them from here.
from kubectl_informer.run.errors import (
    RunError,
    UsageRunError,
    _naming_a_bare_403,
    describe_error,
    verifies_tls,
)

if TYPE_CHECKING:
    from kubectl_informer.cache.factory import SharedInformerFactory
    from kubectl_informer.cache.informer_metrics import InformerName
    from kubectl_informer.cache.shared_informer import SharedIndexInformer
    from kubectl_informer.kube.config import KubeTarget
    from kubectl_informer.kube.discovery import Resource
    from kubectl_informer.run.consistency import SwitchableConsistency
    from kubectl_informer.run.experiments import Experiments
    from kubectl_informer.run.handler_lanes import HandlerSpec
    from kubectl_informer.run.informers import Watched
    from kubectl_informer.run.replica_sync import ReplicaSync
    from kubectl_informer.run.sample_controller import SimulatedController
    from kubectl_informer.sim.demo import Demo
    from kubectl_informer.workqueue.rate_limiters import RateLimiter

# How long stop() waits for each thread; threads are daemons, so a stuck one
# cannot keep the process alive, but tests assert none is left.
STOP_TIMEOUT = 5.0
# How long start() waits for the first list or watch to be answered before
# it lets the UI show whatever happens next (run/first_contact.py).
FIRST_CONTACT_WAIT = 30.0

# --- the run -------------------------------------------------------------------


class Run:
    """``Run(config, tracer, clock)``; ``successor(config)`` is the next Run on the
    same cluster (and the same simulated one), for a restart within one UI.
    ``config`` is never changed; ``prepare`` resolves its scope into
    ``scope`` once the resource's is known (``resolved_config``). ``clock``
    (a real one unless given) is the pipeline's: the reflector's back-off and
    watch lengths, resync periods, handler and worker time, as client-go
    threads a clock.Clock through; tests pass a FakeClock."""

    def __init__(self, config: RunConfig, tracer: Tracer | None = None, clock: Clock | None = None) -> None:
        self.config = config
        self.tracer = tracer or Tracer()
        self.clock = clock
        self.stop_event = threading.Event()
        self.threads: list[threading.Thread] = []
        self.demo: Demo | None = None
        self.owns_demo = True  # stop() stops the demo; a successor borrows it until handed over
        self.target: KubeTarget | None = None
        self._connection: KubeTarget | None = None  # a predecessor's target: the same cluster, a fresh client
        self.resource: Resource | None = None
        self.scope: Scope | None = None  # config.scope resolved for the resource
        self.lw: Any = None  # the queue resource's lister-watcher (a FirstContact on a fresh run)
        self.watched: list[Watched] = []  # per distinct resource, the queue's first
        self.factory: SharedInformerFactory | None = None  # once started
        self.rate_limiter: RateLimiter | None = None
        self.informer: SharedIndexInformer | None = None  # the queue resource's informer (the first)
        self.controller: SimulatedController | None = None
        self.consistency: SwitchableConsistency | None = None  # --demo stale: the controller's
        self.replica_sync: ReplicaSync | None = None
        self.informer_name: InformerName | None = None  # client-go 1.36's, held while the run runs
        self.info: RunInfo | None = None
        self.errors: list[tuple[str, BaseException]] = []  # (thread, exception) of crashed engine threads
        self.on_failure: Callable[[], None] | None = None  # e.g. close the UI
        self._stopped = False
        self.probe_first = False  # a restart's run probes before it replaces the running one
        self.first_contact_wait = FIRST_CONTACT_WAIT  # --duration bounds it (lifecycle.running)

    @functools.cached_property
    def experiments(self) -> Experiments:
        """The UI's key x acts on this run through it: made when the UI asks
        (a headless run imports none of the experiments)."""
        from kubectl_informer.run.experiments import Experiments

        return Experiments(self)

    # Everything that can fail on user input, before any thread starts.
    def _check_options(self) -> None:
        """The flags' values, before anything connects: one line each."""
        o = self.config
        if o.resync < 0:
            raise RunError("--resync must not be negative")
        if o.server_scrape < 0:
            raise RunError("--server-scrape must not be negative")
        if o.demo is not None and (o.kubeconfig or o.context):
            raise RunError("--demo runs its own simulated cluster: drop --kubeconfig/--context, or drop --demo")
        q = o.queue
        if q is not None:
            from kubectl_informer.workqueue.rate_limiters import parse_rate_limiter

            try:
                self.rate_limiter = parse_rate_limiter(q.rate_limiter)
            except ValueError as e:
                raise RunError(str(e)) from None
            if q.workers < 1:
                raise RunError(f"--workers must be at least 1, got {q.workers}")
            if not 0.0 <= q.fail_rate <= 1.0:
                raise RunError(f"--fail-rate must be between 0 and 1, got {q.fail_rate}")
            if q.work_time < 0:
                raise RunError("--work-time must not be negative")
        self.handler_specs()

    def prepare(self) -> RunInfo:
        self._check_options()
        o = self.config
        kubeconfig, context = o.kubeconfig, o.context
        if o.demo is not None and self.demo is None:
            demo = self.demo = self._start_demo(o.demo)
            kubeconfig, context = demo.kubeconfig_path, None
        try:
            if self._connection is not None:
                target = self._reconnect(self._connection)
            else:
                target = self._load_target(kubeconfig, context)
            scope = self._resolve(target)
        except BaseException:
            self.stop()
            raise
        self.info = self._run_info(scope)
        return self.info

    def _resolve(self, target: KubeTarget) -> Scope:
        """Discovery, the scope and the lister-watcher: each failure the user
        can act on is one line. A fresh run sends nothing more: its first
        real list or watch is checked in ``start`` (``first_contact``); a
        restart within the UI still probes first, so that a 403 leaves the
        run it replaces untouched. Returns the queue resource's scope."""
        from kubectl_informer.kube.discovery import resolve_resource
        from kubectl_informer.kube.listwatch import KubeListerWatcher
        from kubectl_informer.kube.retry import retry_transient
        from kubectl_informer.run.informers import Watched, distinct

        o = self.config
        try:
            watched = []
            for name in o.resources:
                # The demo's server lives for one run: no cache is read or kept for it.
                resource = retry_transient(
                    functools.partial(resolve_resource, target.api_client, name, disk_cache=o.demo is None)
                )
                self._check_resource(resource)
                scope = self._resolve_scope(resource)
                watched.append(
                    Watched(
                        resource,
                        scope,
                        self._lister_watcher(
                            KubeListerWatcher(
                                target.api_client,
                                resource,
                                namespace=scope.namespace,
                                label_selector=o.label_selector,
                                field_selector=o.field_selector_with_name(),
                                metadata_only=o.metadata_only,
                            )
                        ),
                    )
                )
            self.watched = distinct(watched)
            first = self.watched[0]
            self.resource, self.scope, self.lw = first.resource, first.scope, first.lw
            if self.probe_first:
                for w in self.watched:
                    retry_transient(functools.partial(self._preflight, w))
        except Exception as e:  # noqa: BLE001  every failure becomes one user-facing line
            raise self._user_error(e) from None
        return first.scope

    def _lister_watcher(self, lw: Any) -> Any:
        """A fresh run's lister-watchers note their first answer (first_contact)."""
        if self.probe_first:
            return lw
        from kubectl_informer.run.first_contact import FirstContact

        return FirstContact(lw)

    def _user_error(self, e: BaseException) -> BaseException:
        """``e`` as the one line the user sees, or ``e`` itself if it is a bug."""
        from kubectl_informer.kube.errors import KubeError

        if isinstance(e, KubeError):
            return RunError(str(e))
        if isinstance(e, (RunError, click.ClickException)):
            return e
        msg = describe_error(e, getattr(self.target, "server", "") or "")  # network and API failures
        return e if msg is None else RunError(msg)

    def _resolve_scope(self, resource: Resource) -> Scope:
        try:
            return self.config.scope.resolve(resource.namespaced, getattr(self.target, "namespace", None))
        except ClusterScopedError:
            raise UsageRunError(f'"{self._resource_name(resource)}" is cluster-scoped: drop -n/--namespace') from None

    @property
    def resolved_config(self) -> RunConfig:
        """The config with its scope resolved (after ``prepare``): what a
        restart derives the next run's config from."""
        return self.config if self.scope is None else replace(self.config, scope=self.scope)

    def _run_info(self, scope: Scope) -> RunInfo:
        o, profile = self.config, self.config.profile
        return RunInfo(
            resource=self._resource_name(),
            namespace=scope.namespace,
            context=getattr(self.target, "context", "") or "",
            # Shown and recorded: a user and password in it never are (core.redact).
            server=redact_url(getattr(self.target, "server", "") or ""),
            profile=profile.client_go,
            fifo=profile.fifo_label,
            initial_list=profile.initial_list_label,
            resync_period=o.resync,
            label_selector=o.label_selector,
            field_selector=o.field_selector_with_name(),
            demo_scenario=o.demo,
            mode=o.mode,
            tls_verify=verifies_tls(self.target, getattr(self.target, "server", "") or ""),
            workers=o.queue.workers if o.queue is not None else 0,
            metadata_only=o.metadata_only,
            show_secret_data=o.show_secret_data,
            args=o.args,
            **self._informers_info(),
        )

    def _informers_info(self) -> dict[str, Any]:
        """RunInfo's several informers (none for one: it stays as it was)."""
        if len(self.watched) < 2:
            return {}
        return {
            "informers": tuple(w.id for w in self.watched),
            "queue_resource": self.watched[0].id if self.config.queue is not None else None,
        }

    def _load_target(self, kubeconfig: str | None, context: str | None) -> KubeTarget:
        from kubectl_informer.kube.config import load_kube
        from kubectl_informer.kube.errors import KubeError

        try:
            target = self.target = load_kube(kubeconfig=kubeconfig, context=context, overrides=self.config.overrides)
        except KubeError as e:
            raise RunError(str(e)) from None
        finally:
            if self.demo is not None:  # loaded: no exit path may leave it behind
                self.demo.release_kubeconfig()
        self._client_settings(target)
        return target

    def _client_settings(self, target: KubeTarget) -> None:
        """--request-timeout, and where the REST client's Retry-After retries
        wait (the run's clock) and are told (its tracer)."""
        from kubectl_informer.kube.request_limits import set_request_timeout, set_retries

        set_request_timeout(target.api_client, self.config.request_timeout)
        set_retries(target.api_client, clock=self.clock, tracer=self.tracer)

    def _reconnect(self, old: KubeTarget) -> KubeTarget:
        """A predecessor's cluster (``old``) through a client of our own:
        stopping a run aborts its client's requests for good."""
        from kubectl_informer.kube.config import KubeTarget, fresh_client

        target = self.target = KubeTarget(
            fresh_client(old.api_client), old.context, old.namespace, old.server, old.simulator
        )
        self._client_settings(target)
        return target

    def successor(self, config: RunConfig) -> Run:
        """A Run for ``config`` on this run's cluster and tracer, not yet
        prepared. It borrows the demo (this run still owns it) until
        ``take_over(self)`` once it is prepared."""
        nxt = Run(config, self.tracer, self.clock)
        nxt.demo, nxt.owns_demo = self.demo, False
        # Another context is another cluster or user: connect anew (``:ctx``).
        nxt._connection = self.target if config.context == self.config.context else None
        nxt.probe_first = True
        nxt.on_failure = self.on_failure
        return nxt

    def take_over(self, predecessor: Run) -> None:
        """Own the demo from now on: stopping ``predecessor`` leaves it running."""
        if predecessor.demo is self.demo:
            self.owns_demo, predecessor.owns_demo = predecessor.owns_demo, False

    def _check_resource(self, resource: Resource) -> None:
        verbs = set(getattr(resource, "verbs", None) or ())
        if verbs and not {"list", "watch"} <= verbs:
            raise RunError(f'the server does not support list and watch on "{self._resource_name(resource)}"')

    def _start_demo(self, scenario: str) -> Demo:
        from kubectl_informer.sim.scenarios import SCENARIOS

        if scenario not in SCENARIOS:
            known = ", ".join(sorted(SCENARIOS))
            raise RunError(
                f'unknown scenario "{scenario}" (known: {known}); put --demo after RESOURCE or write --demo=SCENARIO'
            )
        from kubectl_informer.sim.demo import start_demo

        # The scenario acts where the view looks: the namespace watched, or all
        # with -A (the demo's kubeconfig names no namespace of its own).
        watched = self.config.scope.resolve(namespaced=True).namespace
        return start_demo(scenario, namespaces=None if watched is None else [watched])

    def _resource_name(self, resource: Resource | None = None) -> str:
        from kubectl_informer.run.informers import resource_id

        r = resource if resource is not None else self.resource
        return self.config.resource if r is None else resource_id(r)

    def _preflight(self, watched: Watched) -> None:
        """A list with limit=1, then a watch opened and closed at once, prove
        we may list and watch before the UI starts: an RBAC 403 (a role with
        list but no watch is a common one) or a dead server becomes one line
        instead of a reflector retrying in a loop behind the UI. The API server
        answers a watch's status before any event, so the probe does not wait."""
        from kubectl_informer.cache.listwatch import ListOptions

        lw, name = watched.lw, self._resource_name(watched.resource)
        with _naming_a_bare_403("list", name, lw.namespace):
            listed = lw.list(ListOptions(limit=1))
        rv = ((listed or {}).get("metadata") or {}).get("resourceVersion") or None
        if self.config.name and not (listed or {}).get("items"):
            where = f' in namespace "{lw.namespace}"' if lw.namespace else ""
            raise RunError(f'{name} "{self.config.name}" not found{where}')
        with _naming_a_bare_403("watch", name, lw.namespace):
            w = lw.watch(ListOptions(resource_version=rv, timeout_seconds=1))
        w.stop()

    def start(self) -> None:
        """Build the pipeline and start its threads (run/start.py); prepare() first."""
        if self.lw is None or self.target is None:
            raise RuntimeError("Run.prepare() must succeed before start()")
        from kubectl_informer.run.start import start_pipeline

        start_pipeline(self, self.target)

    def informers(self) -> dict[str, SharedIndexInformer]:
        """The started factory's informers, by resource id (the steps that
        run once the pipeline is built read them here)."""
        if self.factory is None:
            raise RuntimeError("the run's informers are read before its pipeline was built")
        return self.factory.informers

    def set_consistency(self, enabled: bool) -> bool:
        """``:consistency on|off``: the demo controller's check, switched live;
        False when this run has no controller that writes."""
        if self.consistency is None:
            return False
        self.consistency.set_enabled(enabled)
        self.tracer.emit(CONTROLLER_CONSISTENCY, None, enabled=bool(enabled))
        return True

    def first_contact_error(self, watched: Watched, verb: str, err: BaseException) -> RunError:
        """The one line a refused first list or watch of ``watched`` ends the run with."""
        try:
            with _naming_a_bare_403(verb, self._resource_name(watched.resource), watched.lw.namespace):
                raise err
        except Exception as e:  # noqa: BLE001 - the one line the probe used to print
            failure = self._user_error(e)
            return failure if isinstance(failure, RunError) else RunError(summary(e))

    def handler_specs(self) -> list[HandlerSpec]:
        """The handler lanes the flags ask for (one line if they cannot be)."""
        from kubectl_informer.run.handler_lanes import plan_handlers

        o = self.config
        try:
            return plan_handlers(
                o.handlers,
                list(o.handler_resync),
                list(o.handler_time),
                first_name="controller" if o.mode == "queue" else "handler-1",
            )
        except ValueError as e:
            raise RunError(str(e)) from None

    def spawn(self, name: str, target: Callable[[threading.Event], Any]) -> None:
        """Run ``target(stop_event)`` on a daemon thread ``stop`` joins."""

        def guarded(stop_event: threading.Event) -> None:
            # A crashed engine thread ends the run (and is reported) instead of
            # leaving a UI or a stream that silently stops moving.
            try:
                target(stop_event)
            except BaseException as e:  # noqa: BLE001 - reported by the CLI
                if not stop_event.is_set():
                    self.fail(name, e)

        t = threading.Thread(target=guarded, args=(self.stop_event,), name=f"kubectl-informer-{name}", daemon=True)
        self.threads.append(t)
        t.start()

    def fail(self, name: str, err: BaseException) -> None:
        """End the run because ``name`` (an engine thread, the recorder)
        failed with ``err``: traced, the run stopped, the UI closed; the CLI
        then reports ``failure()``."""
        self.errors.append((name, err))
        self.tracer.emit(RUN_ERROR, None, thread=name, error=describe_error(err) or summary(err))
        running = not self.stop_event.is_set()
        self.stop_event.set()
        if running and self.on_failure is not None:
            self.on_failure()

    def failure(self) -> str | None:
        """One line about the first engine thread that crashed, if any: a
        RunError says itself, a failure we know is described, anything else
        is a bug and gets a crash log."""
        if not self.errors:
            return None
        name, err = self.errors[0]
        if isinstance(err, RunError):
            return str(err)
        known = describe_error(err)
        if known:
            return f"the {name} thread stopped: {known}"
        return crash_line(err, list(self.config.args), what=f"the {name} thread stopped unexpectedly")

    def alive_threads(self) -> list[threading.Thread]:
        return [t for t in self.threads if t.is_alive()]

    def stop(self, timeout: float = STOP_TIMEOUT) -> list[threading.Thread]:
        """Close the stop event, join threads, stop the demo (if this run owns it).
        Returns the threads still alive after ``timeout`` (none, normally)."""
        if self._stopped:
            return self.alive_threads()
        self._stopped = True
        # The controller shuts its own queue when the stop event closes.
        self.stop_event.set()
        if self.target is not None:  # a list that trickles or stalls must not hold the stop up
            from kubectl_informer.kube.request_limits import abort_requests

            abort_requests(self.target.api_client)
        for t in self.threads:
            t.join(timeout)
        if self.informer_name is not None:
            self.informer_name.release()
        if self.demo is not None and self.owns_demo:
            with contextlib.suppress(Exception):  # stopping must go on: the threads are already joined
                self.demo.stop()
        return self.alive_threads()

    def __enter__(self) -> Run:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
