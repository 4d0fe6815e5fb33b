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
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable

import click

from kubectl_informer.clock import Clock
from kubectl_informer.core.profiles import DEFAULT_CLIENT_GO
from kubectl_informer.core.run_info import RunInfo
from kubectl_informer.core.trace import Tracer
from kubectl_informer.core.trace_kinds import RUN_ERROR

# How long stop() waits for each thread; threads are daemons, so a stuck one
# cannot keep the process alive, but tests assert none is left.
STOP_TIMEOUT = 5.0

class RunError(Exception):
    """A failure caused by the user's input or environment: one line, no traceback."""


class UsageRunError(click.UsageError):
    """A flag that only the cluster's answer shows to be wrong (``-n`` with a
    cluster-scoped resource): still a usage error, exit 2."""

    def __init__(self, message: str) -> None:
        super().__init__(message)


@dataclass
class RunOptions:
    resource: str = "pods"
    name: str | None = None
    namespace: str | None = None
    all_namespaces: bool = False
    label_selector: str | None = None
    field_selector: str | None = None
    resync: float = 0.0
    late_handler_resync: float | None = None  # a second handler, added after start
    handlers: int | None = None          # handler lanes (queue: the first is the controller's)
    handler_resync: list[float] = field(default_factory=list)  # one for all, or one per lane
    handler_time: list[float] = field(default_factory=list)    # work per notification, likewise
    client_go: str = DEFAULT_CLIENT_GO
    fifo: str | None = None
    watch_list: bool | None = None
    context: str | None = None
    kubeconfig: str | None = None
    demo: str | None = None              # scenario name, or None for a real cluster
    show_secret_data: bool = False
    mode: str = "watch"                  # "watch" | "queue"
    workers: int = 2
    work_time: float = 0.2
    fail_rate: float = 0.0
    rate_limiter: str = "default"
    seed: int | None = None
    request_timeout: float | None = None  # kubectl's --request-timeout: one request's whole time
    metadata_only: bool = False          # list/watch PartialObjectMetadata (client-go's metadatainformer)
    strip_managed_fields: bool = False   # transforms, applied before the FIFO
    drop_paths: list[str] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)

    def field_selector_with_name(self) -> str | None:
        """``NAME`` narrows the watch to one object, as ``kubectl get pod NAME -w``
        does: a ``metadata.name`` field selector joined to any given one."""
        parts = [p for p in (self.field_selector, f"metadata.name={self.name}" if self.name else None) if p]
        return ",".join(parts) or None


# --- errors ------------------------------------------------------------------

def describe_error(err: BaseException, server: str = "") -> str | None:
    """A one-line message for failures the user can act on, or None."""
    from kubectl_informer.core.apierrors import ApiError

    if isinstance(err, ApiError):
        if err.status == 403:
            return err.message or "forbidden (HTTP 403): check your RBAC permissions to list and watch"
        if err.status == 401:
            return "unauthorized (HTTP 401): your credentials were rejected" + (f": {err.message}" if err.message else "")
        text = err.message or err.reason or "request failed"
        return f"the server answered {err.status}{' ' + err.reason if err.reason else ''}: {text}"
    where = f" at {server}" if server else ""
    from kubectl_informer.kube.errors import RedirectError
    if isinstance(err, RedirectError):
        return str(err)
    if isinstance(err, TimeoutError) and "--request-timeout" in str(err):
        return f"the API server{where} did not answer in time: {err}"
    try:
        import urllib3.exceptions as u3
        if isinstance(err, (u3.MaxRetryError, u3.NewConnectionError, u3.ProtocolError, u3.TimeoutError)):
            return f"cannot reach the API server{where}: {_short_reason(err)}"
        if isinstance(err, u3.SSLError):
            return f"TLS error talking to the API server{where}: {_short_reason(err)}"
    except ImportError:  # pragma: no cover - kubernetes depends on urllib3
        pass
    if isinstance(err, OSError):  # refused, reset, timed out (ConnectionError and TimeoutError are OSErrors)
        return f"cannot reach the API server{where}: {_short_reason(err)}"
    return None


def _short_reason(err: BaseException) -> str:
    reason = getattr(err, "reason", None)
    if isinstance(reason, BaseException):
        err = reason
    text = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
    for marker in ("Connection refused", "timed out", "Name or service not known", "No route to host",
                   "certificate verify failed"):
        if marker.lower() in text.lower():
            return marker.lower() if marker != "Connection refused" else "connection refused"
    return text[:200]


@contextlib.contextmanager
def _naming_a_bare_403(verb: str, resource: str, namespace: str | None):
    """A 403 without the API server's message (a proxy's) still says what was
    refused, as the API server's own message does."""
    from kubectl_informer.core.apierrors import ApiError
    try:
        yield
    except ApiError as e:
        if e.status != 403 or " cannot " in (e.message or ""):  # the API server names them itself
            raise
        where = f'in the namespace "{namespace}"' if namespace else "at the cluster scope"
        raise ApiError(403, "Forbidden", f'{resource} is forbidden: cannot {verb} resource "{resource}" {where}'
                       + (f" ({e.message})" if e.message else "")) from None


# --- the run -------------------------------------------------------------------

class Run:
    """``Run(opts, tracer, clock)``; ``successor(opts)`` is the next Run on the
    same cluster (and the same simulated one), for a restart within one UI.
    ``clock`` (a real one unless given) is the pipeline's: the reflector's
    back-off and watch lengths, resync periods, handler and worker time, as
    client-go threads a clock.Clock through; tests pass a FakeClock."""

    def __init__(self, opts: RunOptions, tracer: Tracer | None = None, clock: Clock | None = None) -> None:
        self.opts = opts
        self.tracer = tracer or Tracer()
        self.clock = clock
        self.stop_event = threading.Event()
        self.threads: list[threading.Thread] = []
        self.demo = None
        self.owns_demo = True  # stop() stops the demo; a successor borrows it until handed over
        self.target = None
        self._connection = None  # a predecessor's target: the same cluster, a fresh client
        self.namespace_optional = False  # an inherited -n is dropped for a cluster-scoped resource
        self.resource = None
        self.lw = None
        self.profile = None
        self.rate_limiter = None
        self.informer = None
        self.controller = None
        self.info: RunInfo | None = None
        self.errors: list[tuple[str, BaseException]] = []  # (thread, exception) of crashed engine threads
        self.on_failure: Callable[[], None] | None = None  # e.g. close the UI
        from kubectl_informer.run.experiments import Experiments
        self.experiments = Experiments(self)  # the UI's key x acts on this run through it
        self._stopped = False

    # Everything that can fail on user input, before any thread starts.
    def _check_options(self) -> None:
        """The flags' values, before anything connects: one line each."""
        o = self.opts
        if o.resync < 0:
            raise RunError("--resync must not be negative")
        if o.demo is not None and (o.kubeconfig or o.context):
            raise RunError("--demo runs its own simulated cluster: drop --kubeconfig/--context, or drop --demo")
        from kubectl_informer.core.profiles import resolve_profile

        try:
            self.profile = resolve_profile(o.client_go, fifo=o.fifo, watch_list=o.watch_list)
        except ValueError as e:
            raise RunError(str(e)) from None
        if o.mode == "queue":
            from kubectl_informer.workqueue.rate_limiters import parse_rate_limiter
            try:
                self.rate_limiter = parse_rate_limiter(o.rate_limiter)
            except ValueError as e:
                raise RunError(str(e)) from None
            if o.workers < 1:
                raise RunError(f"--workers must be at least 1, got {o.workers}")
            if not 0.0 <= o.fail_rate <= 1.0:
                raise RunError(f"--fail-rate must be between 0 and 1, got {o.fail_rate}")
            if o.work_time < 0:
                raise RunError("--work-time must not be negative")
        self._handler_specs()

    def prepare(self) -> RunInfo:
        self._check_options()
        o = self.opts
        kubeconfig, context = o.kubeconfig, o.context
        if o.demo is not None and self.demo is None:
            self._start_demo(o.demo)
            kubeconfig, context = self.demo.kubeconfig_path, None

        from kubectl_informer.kube.discovery import resolve_resource
        from kubectl_informer.kube.errors import KubeError
        from kubectl_informer.kube.listwatch import KubeListerWatcher
        from kubectl_informer.kube.retry import retry_transient

        try:
            if self._connection is not None:
                self._reconnect()
            else:
                self._load_target(kubeconfig, context)
            server = getattr(self.target, "server", "") or ""
            try:
                self.resource = retry_transient(lambda: resolve_resource(self.target.api_client, o.resource))
                self._check_resource()
                namespace = None
                if self.resource.namespaced and not o.all_namespaces:
                    namespace = o.namespace or getattr(self.target, "namespace", None) or "default"
                self.lw = KubeListerWatcher(self.target.api_client, self.resource, namespace=namespace,
                                            label_selector=o.label_selector,
                                            field_selector=o.field_selector_with_name(), metadata_only=o.metadata_only)
                retry_transient(self._preflight)
            except KubeError as e:
                raise RunError(str(e)) from None
            except (RunError, click.ClickException):
                raise
            except Exception as e:  # network and API failures: one line if we know them
                msg = describe_error(e, server)
                if msg is None:
                    raise
                raise RunError(msg) from None
        except BaseException:
            self.stop()
            raise

        self.info = RunInfo(
            resource=self._resource_name(),
            namespace=namespace,
            context=getattr(self.target, "context", "") or "",
            server=server,
            profile=self.profile.client_go,
            fifo=self.profile.fifo_label,
            initial_list=self.profile.initial_list_label,
            resync_period=o.resync,
            label_selector=o.label_selector,
            field_selector=o.field_selector_with_name(),
            demo_scenario=o.demo,
            mode=o.mode,
            extra={**o.extra, **({"metadata_only": True} if o.metadata_only else {})},
        )
        if o.mode == "queue":
            self.info.extra.update(workers=o.workers, work_time=o.work_time, fail_rate=o.fail_rate,
                                   rate_limiter=o.rate_limiter)
        return self.info

    def _load_target(self, kubeconfig: str | None, context: str | None) -> None:
        from kubectl_informer.kube.config import load_kube
        from kubectl_informer.kube.errors import KubeError
        from kubectl_informer.kube.rest import set_request_timeout
        try:
            self.target = load_kube(kubeconfig=kubeconfig, context=context)
        except KubeError as e:
            raise RunError(str(e)) from None
        finally:
            if self.demo is not None:  # loaded: no exit path may leave it behind
                self.demo.release_kubeconfig()
        set_request_timeout(self.target.api_client, self.opts.request_timeout)

    def _reconnect(self) -> None:
        """A predecessor's cluster through a client of our own: stopping a run
        aborts its client's requests for good."""
        from kubectl_informer.kube.config import KubeTarget, fresh_client
        from kubectl_informer.kube.rest import set_request_timeout
        old = self._connection
        self.target = KubeTarget(fresh_client(old.api_client), old.context, old.namespace, old.server)
        set_request_timeout(self.target.api_client, self.opts.request_timeout)

    def successor(self, opts: RunOptions) -> "Run":
        """A Run for ``opts`` on this run's cluster and tracer, not yet
        prepared. It borrows the demo (this run still owns it) until
        ``take_over(self)`` once it is prepared."""
        nxt = Run(opts, self.tracer, self.clock)
        nxt.demo, nxt.owns_demo = self.demo, False
        nxt._connection = self.target
        nxt.on_failure = self.on_failure
        return nxt

    def take_over(self, predecessor: "Run") -> None:
        """Own the demo from now on: stopping ``predecessor`` leaves it running."""
        if predecessor.demo is self.demo:
            self.owns_demo, predecessor.owns_demo = predecessor.owns_demo, False

    def _check_resource(self) -> None:
        verbs = set(getattr(self.resource, "verbs", None) or ())
        if verbs and not {"list", "watch"} <= verbs:
            raise RunError(f'the server does not support list and watch on "{self._resource_name()}"')
        if self.opts.namespace and not self.resource.namespaced and self.namespace_optional:
            self.opts.namespace = None
        if self.opts.namespace and not self.resource.namespaced:
            raise UsageRunError(f'"{self._resource_name()}" is cluster-scoped: drop -n/--namespace')

    def _start_demo(self, scenario: str) -> None:
        from kubectl_informer.sim.scenarios import SCENARIOS
        if scenario not in SCENARIOS:
            known = ", ".join(sorted(SCENARIOS))
            raise RunError(f'unknown scenario "{scenario}" (known: {known}); '
                           f'put --demo after RESOURCE or write --demo=SCENARIO')
        from kubectl_informer.sim.demo import start_demo
        # The scenario acts where the view looks: the namespace watched, or all with -A.
        where = None if self.opts.all_namespaces else [self.opts.namespace or "default"]
        self.demo = start_demo(scenario, namespaces=where)

    def _resource_name(self) -> str:
        r = self.resource
        if r is None:
            return self.opts.resource
        group = getattr(r, "group", "")
        return f"{r.resource}.{group}" if group else r.resource

    def _preflight(self) -> None:
        """A list with limit=1, then a watch opened and closed at once, prove
        we may list and watch before the UI starts: an RBAC 403 (a role with
        list but no watch is a common one) or a dead server becomes one line
        instead of a reflector retrying in a loop behind the UI. The API server
        answers a watch's status before any event, so the probe does not wait."""
        from kubectl_informer.cache.listwatch import ListOptions
        with _naming_a_bare_403("list", self._resource_name(), self.lw.namespace):
            listed = self.lw.list(ListOptions(limit=1))
        rv = ((listed or {}).get("metadata") or {}).get("resourceVersion") or None
        if self.opts.name and not (listed or {}).get("items"):
            where = f' in namespace "{self.lw.namespace}"' if self.lw.namespace else ""
            raise RunError(f'{self._resource_name()} "{self.opts.name}" not found{where}')
        with _naming_a_bare_403("watch", self._resource_name(), self.lw.namespace):
            w = self.lw.watch(ListOptions(resource_version=rv, timeout_seconds=1))
        w.stop()

    def start(self) -> None:
        """Build the pipeline and start its threads; prepare() first."""
        if self.lw is None:
            raise RuntimeError("Run.prepare() must succeed before start()")
        o = self.opts
        from kubectl_informer.run.pipeline import new_informer

        self.informer = new_informer(self.lw, self.profile, resync_period=o.resync, tracer=self.tracer,
                                     transform=self._transform(), clock=self.clock)
        from kubectl_informer.run.handler_lanes import add_handler
        lanes = self._handler_specs()
        if o.mode == "queue":
            from kubectl_informer.run.sample_controller import SimulatedController
            first, lanes = lanes[0], lanes[1:]
            self.controller = SimulatedController(self.informer, workers=o.workers, work_time=o.work_time,
                                                  fail_rate=o.fail_rate, rate_limiter=self.rate_limiter,
                                                  tracer=self.tracer, seed=o.seed, resync_period=first.resync,
                                                  handler_time=first.work_time, stop_event=self.stop_event,
                                                  clock=self.informer.clock)
        for lane in lanes:
            add_handler(self.informer, lane.name, lane.resync, lane.work_time, stop_event=self.stop_event)
        self._spawn("informer", self.informer.run)
        if self.controller is not None:
            self._spawn("controller", self.controller.run)
        if o.late_handler_resync is not None:
            self._add_late_handler(o.late_handler_resync)

    def _handler_specs(self):
        from kubectl_informer.run.handler_lanes import plan_handlers
        o = self.opts
        try:
            return plan_handlers(o.handlers, o.handler_resync, o.handler_time,
                                 first_name="controller" if o.mode == "queue" else "handler-1")
        except ValueError as e:
            raise RunError(str(e)) from None

    def _transform(self):
        """The chain the FIFO applies (client-go's SetTransform), measured on
        a sample so the Cache pane can show bytes held and saved."""
        from kubectl_informer.run.transforms import MeasuredTransform, build_steps

        o = self.opts
        is_secret = getattr(self.resource, "resource", "") == "secrets" and not getattr(self.resource, "group", "")
        steps = build_steps(o.strip_managed_fields, o.drop_paths, is_secret, o.show_secret_data)
        return MeasuredTransform(steps, self.tracer)

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
                    self.errors.append((name, e))
                    self.tracer.emit(RUN_ERROR, None, thread=name, error=f"{type(e).__name__}: {e}")
                    stop_event.set()
                    if self.on_failure is not None:
                        self.on_failure()

        t = threading.Thread(target=guarded, args=(self.stop_event,), name=f"kubectl-informer-{name}", daemon=True)
        self.threads.append(t)
        t.start()

    def failure(self) -> str | None:
        """One line about the first engine thread that crashed, if any."""
        if not self.errors:
            return None
        name, err = self.errors[0]
        return f"the {name} thread stopped: {describe_error(err) or f'{type(err).__name__}: {err}'}"

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
        if self.demo is not None and self.owns_demo:
            try:
                self.demo.stop()
            except Exception:
                pass
        return self.alive_threads()

    def __enter__(self) -> "Run":
        return self

    def __exit__(self, *exc) -> None:
        self.stop()
