"""Handler lanes: the event handlers a run registers on its informer.

Each lane is one ``add_event_handler`` call, client-go's
``AddEventHandlerWithResyncPeriod``, with its own resync period and an
optional work time: a handler that takes that long per notification, on its
own listener thread, so its pending-notification buffer grows while the
other lanes keep up. ``add_handler`` is the one way to register a lane, for
the CLI's ``--handlers`` and for adding one to a running informer.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kubectl_informer.cache.shared_informer import SharedIndexInformer
    from kubectl_informer.cache.shared_processor import ProcessorListener, ResourceEventHandler
    from kubectl_informer.clock import Clock

MAX_HANDLERS = 16


@dataclass(frozen=True)
class HandlerSpec:
    """One handler lane: its name, resync period and work per notification."""

    name: str
    resync: float | None = None  # None: the informer's default (AddEventHandler)
    work_time: float = 0.0  # seconds each notification takes


class NoopHandler:
    """A handler with nothing to do: it still makes the informer deliver
    notifications and resyncs, as any real user's handler would."""

    def on_add(self, obj: Any, is_in_initial_list: bool = False) -> None:
        pass

    def on_update(self, old: Any, new: Any) -> None:
        pass

    def on_delete(self, obj: Any) -> None:
        pass


class WorkingHandler:
    """``inner``'s callbacks, each followed by ``work_time`` of work on the
    clock (a wait that the run's stop event cuts short)."""

    def __init__(
        self, inner: ResourceEventHandler, work_time: float, clock: Clock, stop_event: threading.Event | None = None
    ) -> None:
        self.inner = inner
        self.work_time = float(work_time)
        self.clock = clock
        self.stop_event = stop_event or threading.Event()

    def _work(self) -> None:
        if self.work_time > 0 and not self.stop_event.is_set():
            self.clock.wait_event(self.stop_event, self.work_time)

    def on_add(self, obj: Any, is_in_initial_list: bool = False) -> None:
        self.inner.on_add(obj, is_in_initial_list)
        self._work()

    def on_update(self, old: Any, new: Any) -> None:
        self.inner.on_update(old, new)
        self._work()

    def on_delete(self, obj: Any) -> None:
        self.inner.on_delete(obj)
        self._work()


def add_handler(
    informer: SharedIndexInformer,
    name: str,
    resync_period: float | None = None,
    handler_time: float = 0.0,
    inner: ResourceEventHandler | None = None,
    stop_event: threading.Event | None = None,
) -> ProcessorListener:
    """Register a lane on ``informer`` (before or after it runs) and return
    its listener (``stats()``, ``resync_period``, ``has_synced()``)."""
    if resync_period is not None and resync_period < 0:
        raise ValueError(f"a resync period must not be negative, got {resync_period!r}")
    if handler_time < 0:
        raise ValueError(f"a handler time must not be negative, got {handler_time!r}")
    handler = inner if inner is not None else NoopHandler()
    if handler_time > 0:
        handler = WorkingHandler(handler, handler_time, informer.clock, stop_event)
    return informer.add_event_handler(handler, resync_period=resync_period, name=name)


def _spread(values: list[float], count: int, flag: str) -> list[float | None]:
    """One value per lane: none given, one for all, or exactly one each."""
    if not values:
        return [None] * count
    if len(values) == 1:
        return [values[0]] * count
    if len(values) != count:
        raise ValueError(
            f"{flag} has {len(values)} values for {count} handlers: give one value for all, or one per handler"
        )
    return list(values)


def plan_handlers(
    count: int | None, resyncs: list[float], times: list[float], first_name: str = "handler-1"
) -> list[HandlerSpec]:
    """The lanes the flags ask for. ``count`` defaults to the longest list
    (at least 1); a list of one value applies to every lane. ``first_name``
    names lane 1 (``queue`` gives it to the controller's handler)."""
    if count is None:
        count = max(1, len(resyncs), len(times))
    if not 1 <= count <= MAX_HANDLERS:
        raise ValueError(f"--handlers must be between 1 and {MAX_HANDLERS}, got {count}")
    rs = _spread(list(resyncs), count, "--handler-resync")
    ts = _spread(list(times), count, "--handler-time")
    return [HandlerSpec(first_name if i == 0 else f"handler-{i + 1}", rs[i], ts[i] or 0.0) for i in range(count)]
