"""One run of the machinery: connect, build the pipeline, start and stop its threads.

``Run.prepare()`` does everything that can fail because of the user's input
(profile, rate limiter, kubeconfig, discovery, RBAC) *before* any thread or
UI starts, and turns each failure into a one-line ``RunError``. ``start()``
builds the informer (and the simulated controller for ``queue``) and runs
them on threads, as client-go runs them on goroutines; ``stop()`` closes the
stop event and joins every thread it started, so quitting leaves none behind.
"""

from __future__ import annotations

import functools
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

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
from kubectl_informer.run.errors import (  # noqa: F401
    RunError,
    UsageRunError,
    _naming_a_bare_403,
    describe_error,
    verifies_tls,
)

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
        self.demo = None
        self.owns_demo = True  # stop() stops the demo; a successor borrows it until handed over
        self.target = None
        self._connection = None  # a predecessor's target: the same cluster, a fresh client
        self.resource = None
        self.scope: Scope | None = None  # config.scope resolved for the resource
        self.lw = None
        self.watched: list = []  # informers.Watched per distinct resource, the queue's first
        self.factory = None  # the SharedInformerFactory, once started
        self.rate_limiter = None
        self.informer = None  # the queue resource's informer (the first)
        self.controller = None
        self.consistency = None  # --demo stale: the controller's SwitchableConsistency
        self.replica_sync = None
        self.informer_name = None  # client-go 1.36's InformerName, held while the run runs
        self.info: RunInfo | None = None
        self.errors: list[tuple[str, BaseException]] = []  # (thread, exception) of crashed engine threads
        self.on_failure: Callable[[], None] | None = None  # e.g. close the UI
        self._stopped = False
        self.probe_first = False  # a restart's run probes before it replaces the running one
        self.first_contact_wait = FIRST_CONTACT_WAIT  # --duration bounds it (lifecycle.running)

    @functools.cached_property
    def experiments(self):
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
        self._handler_specs()

    def prepare(self) -> RunInfo:
        self._check_options()
        o = self.config
        kubeconfig, context = o.kubeconfig, o.context
        if o.demo is not None and self.demo is None:
            self._start_demo(o.demo)
            kubeconfig, context = self.demo.kubeconfig_path, None
        try:
            if self._connection is not None:
                self._reconnect()
            else:
                self._load_target(kubeconfig, context)
            self._resolve()
        except BaseException:
            self.stop()
            raise
        self.info = self._run_info()
        return self.info

    def _resolve(self) -> None:
        """Discovery, the scope and the lister-watcher: each failure the user
        can act on is one line. A fresh run sends nothing more: its first
        real list or watch is checked in ``start`` (``first_contact``); a
        restart within the UI still probes first, so that a 403 leaves the
        run it replaces untouched."""
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
                    lambda name=name: resolve_resource(self.target.api_client, name, disk_cache=o.demo is None)
                )
                self._check_resource(resource)
                scope = self._resolve_scope(resource)
                watched.append(
                    Watched(
                        resource,
                        scope,
                        self._lister_watcher(
                            KubeListerWatcher(
                                self.target.api_client,
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
                    retry_transient(lambda w=w: self._preflight(w))
        except Exception as e:
            raise self._user_error(e) from None

    def _lister_watcher(self, lw):
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

    def _resolve_scope(self, resource) -> Scope:
        try:
            return self.config.scope.resolve(resource.namespaced, getattr(self.target, "namespace", None))
        except ClusterScopedError:
            raise UsageRunError(f'"{self._resource_name(resource)}" is cluster-scoped: drop -n/--namespace') from None

    @property
    def resolved_config(self) -> RunConfig:
        """The config with its scope resolved (after ``prepare``): what a
        restart derives the next run's config from."""
        return self.config if self.scope is None else replace(self.config, scope=self.scope)

    def _run_info(self) -> RunInfo:
        o, profile = self.config, self.config.profile
        return RunInfo(
            resource=self._resource_name(),
            namespace=self.scope.namespace,
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

    def _informers_info(self) -> dict:
        """RunInfo's several informers (none for one: it stays as it was)."""
        if len(self.watched) < 2:
            return {}
        return {
            "informers": tuple(w.id for w in self.watched),
            "queue_resource": self.watched[0].id if self.config.queue is not None else None,
        }

    def _load_target(self, kubeconfig: str | None, context: str | None) -> None:
        from kubectl_informer.kube.config import load_kube
        from kubectl_informer.kube.errors import KubeError

        try:
            self.target = load_kube(kubeconfig=kubeconfig, context=context, overrides=self.config.overrides)
        except KubeError as e:
            raise RunError(str(e)) from None
        finally:
            if self.demo is not None:  # loaded: no exit path may leave it behind
                self.demo.release_kubeconfig()
        self._client_settings()

    def _client_settings(self) -> None:
        """--request-timeout, and where the REST client's Retry-After retries
        wait (the run's clock) and are told (its tracer)."""
        from kubectl_informer.kube.rest import set_request_timeout, set_retries

        set_request_timeout(self.target.api_client, self.config.request_timeout)
        set_retries(self.target.api_client, clock=self.clock, tracer=self.tracer)

    def _reconnect(self) -> None:
        """A predecessor's cluster through a client of our own: stopping a run
        aborts its client's requests for good."""
        from kubectl_informer.kube.config import KubeTarget, fresh_client

        old = self._connection
        self.target = KubeTarget(fresh_client(old.api_client), old.context, old.namespace, old.server, old.simulator)
        self._client_settings()

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

    def _check_resource(self, resource) -> None:
        verbs = set(getattr(resource, "verbs", None) or ())
        if verbs and not {"list", "watch"} <= verbs:
            raise RunError(f'the server does not support list and watch on "{self._resource_name(resource)}"')

    def _start_demo(self, scenario: str) -> None:
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
        self.demo = start_demo(scenario, namespaces=None if watched is None else [watched])

    def _resource_name(self, resource=None) -> str:
        from kubectl_informer.run.informers import resource_id

        r = resource if resource is not None else self.resource
        return self.config.resource if r is None else resource_id(r)

    def _preflight(self, watched) -> None:
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
        """Build the pipeline and start its threads; prepare() first."""
        if self.lw is None:
            raise RuntimeError("Run.prepare() must succeed before start()")
        o = self.config
        from kubectl_informer.run import informers as wiring
        from kubectl_informer.run.handler_lanes import add_handler

        self.factory = wiring.build_factory(
            self.watched, o.profile, o.resync, self.tracer, self.clock, self._transform, o.indexes
        )
        every = self.factory.informers
        self.informer = every[self.watched[0].id]
        from kubectl_informer.run.staleness import name_informers, store_rv_sampler

        self.informer_name = name_informers(self.watched, every)
        lanes = self._handler_specs()
        if o.queue is not None:
            first, lanes = lanes[0], lanes[1:]
            self._start_controller(first, wiring)
        for informer in every.values():
            for lane in lanes:
                add_handler(informer, lane.name, lane.resync, lane.work_time, stop_event=self.stop_event)
        poller = self._server_poller()  # before the informers: it watches for our first watch
        self.factory.start(self.stop_event, spawn=self._spawn)
        if poller is not None:
            self._spawn("server", poller.run)
        if self.controller is not None:
            self._spawn("controller", self.controller.run)
        self._spawn("store-rv", store_rv_sampler(self).run)
        if o.late_handler_resync is not None:
            self._add_late_handler(o.late_handler_resync)
        if not self.probe_first:
            from kubectl_informer.run.first_contact import check

            check(self, self.first_contact_wait, RunError)

    def set_consistency(self, enabled: bool) -> bool:
        """``:consistency on|off``: the demo controller's check, switched live;
        False when this run has no controller that writes."""
        if self.consistency is None:
            return False
        self.consistency.set_enabled(enabled)
        self.tracer.emit(CONTROLLER_CONSISTENCY, None, enabled=bool(enabled))
        return True

    def first_contact_error(self, watched, verb: str, err: BaseException) -> RunError:
        """The one line a refused first list or watch of ``watched`` ends the run with."""
        try:
            with _naming_a_bare_403(verb, self._resource_name(watched.resource), watched.lw.namespace):
                raise err
        except Exception as e:  # noqa: BLE001 - the one line the probe used to print
            failure = self._user_error(e)
            return failure if isinstance(failure, RunError) else RunError(summary(e))

    def _start_controller(self, lane, wiring) -> None:
        """The sample controller on the queue resource's informer, its lane
        (``lane``) on each other informer with the controller shape's handler."""
        from kubectl_informer.run.sample_controller import SimulatedController
        from kubectl_informer.run.staleness import stale_reconcile

        q = self.config.queue
        shape = None
        if len(self.watched) > 1:
            try:
                shape = wiring.ControllerShape(self.watched, self.factory, self.config.controller, self.tracer)
            except ValueError as e:
                raise RunError(str(e)) from None
        queue = wiring.shape_queue(self.config.controller, self.rate_limiter, self.informer.clock, self.tracer)
        self.controller = SimulatedController(
            self.informer,
            queue,
            workers=q.workers,
            work_time=q.work_time,
            fail_rate=q.fail_rate,
            rate_limiter=self.rate_limiter,
            tracer=self.tracer,
            seed=q.seed,
            resync_period=lane.resync,
            handler_time=lane.work_time,
            stop_event=self.stop_event,
            clock=self.informer.clock,
            handler=wiring.controller_handler(shape),
            reconcile=stale_reconcile(self),
            max_retries=q.max_retries,
        )
        if shape is not None:
            wiring.wire_owned(self.watched, self.factory, shape, self.controller.queue, lane, self.stop_event)

    def _server_poller(self):
        """The Server pane's poller (run/server_poll.py): the simulator's
        watch cache on a --demo or a kubeconfig that names the simulator,
        the API server's /metrics elsewhere; none with --server-scrape 0.
        One target per informer, the queue's first: each has its own "ours"."""
        if not self.config.server_scrape:
            return None
        from kubectl_informer.run.server_poll import ServerPoller, Target

        sim = self.demo is not None or bool(getattr(self.target, "simulator", False))
        several = len(self.watched) > 1
        targets = [
            Target(
                getattr(w.resource, "group", "") or "",
                w.resource.resource,
                w.id if several else None,
                self.factory.informers[w.id].last_sync_resource_version,
            )
            for w in self.watched
        ]
        return ServerPoller(
            self.target.api_client,
            self.tracer,
            mode="sim" if sim else "metrics",
            interval=None if sim else self.config.server_scrape,
            clock=self.clock,
            targets=targets,
        )

    def _handler_specs(self):
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

    def _transform(self, resource, tracer):
        """The chain ``resource``'s FIFO applies (client-go's SetTransform),
        measured on a sample (traced through ``tracer``, its informer's) so
        the Cache pane can show bytes held and saved."""
        from kubectl_informer.run.transforms import MeasuredTransform, build_steps

        o = self.config
        is_secret = getattr(resource, "resource", "") == "secrets" and not getattr(resource, "group", "")
        steps = build_steps(o.strip_managed_fields, list(o.drop_paths), is_secret, o.show_secret_data)
        return MeasuredTransform(steps, tracer)

    def _add_late_handler(self, period: float) -> None:
        """Register a handler once the informer runs, as a controller that
        starts late does: client-go raises a period below the check period."""
        deadline = time.monotonic() + 10.0
        while not (self.informer.has_started() or self.stop_event.is_set()):
            if time.monotonic() >= deadline:
                raise RunError("the informer did not start within 10s")
            self.stop_event.wait(0.005)
        if not self.stop_event.is_set():
            from kubectl_informer.run.handler_lanes import add_handler

            add_handler(self.informer, "late-handler", period, stop_event=self.stop_event)

    def _spawn(self, name: str, target: Callable[[threading.Event], Any]) -> None:
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
            from kubectl_informer.kube.rest import abort_requests

            abort_requests(self.target.api_client)
        for t in self.threads:
            t.join(timeout)
        if self.informer_name is not None:
            self.informer_name.release()
        if self.demo is not None and self.owns_demo:
            try:
                self.demo.stop()
            except Exception:
                pass
        return self.alive_threads()

    def __enter__(self) -> Run:
        return self

    def __exit__(self, *exc) -> None:
        self.stop()
