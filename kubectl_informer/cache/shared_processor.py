"""client-go's sharedProcessor and processorListener (``shared_informer.go``):
the handler side of a SharedIndexInformer. Each listener has its own thread
and an unbounded buffer, so a slow handler delays only itself; the processor
hands every notification to each listener and runs the resync check ticks.
Apart from ``shared_informer.py`` (which re-exports these names) so that each
file stays a size a reader takes in at once; client-go keeps both in one file.
"""

from __future__ import annotations

import inspect
import threading
import time
from collections.abc import Callable, Sequence
from queue import Empty, SimpleQueue
from typing import Any, Protocol

from kubectl_informer.clock import Clock, RealClock
from kubectl_informer.core.trace import NULL_TRACER, Tracer
from kubectl_informer.core.trace_kinds import (
    HANDLER_ADD,
    HANDLER_DELETE,
    HANDLER_ERROR,
    HANDLER_LANE,
    HANDLER_SYNCED,
    HANDLER_UPDATE,
    RESYNC_TICK,
)

MINIMUM_RESYNC_PERIOD = 1.0

# client-go flags no listener as slow; its FIFOs log "slow event handlers
# blocking the queue" when more than 10 items wait and one takes 100 ms or
# more. A listener is flagged on the same two figures, on its own buffer.
SLOW_PENDING = 10
SLOW_CALL = 0.1
# A listener reports its buffer and pace at most this often (clock seconds),
# besides after every slow call and once when it goes idle.
LANE_SAMPLE_EVERY = 0.25


def is_slow(pending: int, call_seconds: float) -> bool:
    """The slow-handler flag: a backlog, and calls too long to work it off."""
    return pending > SLOW_PENDING and call_seconds >= SLOW_CALL


# Notification kinds (small tuples travel through the listener buffers).
_ADD, _UPDATE, _DELETE = 0, 1, 2
# (_ADD, obj, is_in_initial_list), (_UPDATE, old, new) or (_DELETE, obj).
Notification = tuple[Any, ...]
_HANDLER_EVENTS = (HANDLER_ADD, HANDLER_UPDATE, HANDLER_DELETE)


class ResourceEventHandler(Protocol):
    """What a handler implements (client-go's ResourceEventHandler interface):
    any object with these three methods is one; a subclass inherits methods
    that do nothing."""

    def on_add(self, obj: Any, is_in_initial_list: bool) -> None:
        pass

    def on_update(self, old: Any, new: Any) -> None:
        pass

    def on_delete(self, obj: Any) -> None:
        pass


class ResourceEventHandlerFuncs(ResourceEventHandler):
    """A handler from up to three functions. ``add`` may take ``(obj)`` as
    client-go's AddFunc or ``(obj, is_in_initial_list)``."""

    def __init__(
        self,
        add: Callable[..., object] | None = None,
        update: Callable[[Any, Any], object] | None = None,
        delete: Callable[[Any], object] | None = None,
    ) -> None:
        self.add = add
        self.update = update
        self.delete = delete
        self._add_wants_initial = False
        if add is not None:
            try:
                params = [
                    p
                    for p in inspect.signature(add).parameters.values()
                    if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
                ]
                self._add_wants_initial = len(params) >= 2 or any(
                    p.kind == p.VAR_POSITIONAL for p in inspect.signature(add).parameters.values()
                )
            except (TypeError, ValueError):
                pass

    def on_add(self, obj: Any, is_in_initial_list: bool) -> None:
        if self.add is not None:
            if self._add_wants_initial:
                self.add(obj, is_in_initial_list)
            else:
                self.add(obj)

    def on_update(self, old: Any, new: Any) -> None:
        if self.update is not None:
            self.update(old, new)

    def on_delete(self, obj: Any) -> None:
        if self.delete is not None:
            self.delete(obj)


_STOP = ()  # put by stop() to wake a listener's thread


def determine_resync_period(desired: float, check: float) -> float:
    """client-go's determineResyncPeriod: 0 stays 0; no resync at all when
    the informer does not resync; never below the check period."""
    if desired == 0:
        return 0.0
    if check == 0:
        return 0.0
    return max(desired, check)


class ProcessorListener:
    """Relays notifications to one handler on its own thread through an
    unbounded buffer (client-go's processorListener; its two goroutines and
    ring buffer become one thread and a C queue). Also the registration
    handle ``add_event_handler`` returns."""

    def __init__(
        self,
        name: str,
        handler: ResourceEventHandler,
        requested_resync_period: float,
        resync_period: float,
        now: float,
        upstream_has_synced: Callable[[], bool],
        tracer: Tracer = NULL_TRACER,
        clock: Clock | None = None,
    ):
        self.name = name
        self.handler = handler
        self.requested_resync_period = requested_resync_period
        self.resync_period = resync_period
        self.next_resync = now + resync_period
        self._upstream_has_synced = upstream_has_synced
        self._tracer = tracer
        # client-go's unbounded ring buffer between its two goroutines: a C
        # queue, so adding and taking a notification cost no Python-level
        # lock or Condition.
        self._buf: SimpleQueue[Notification] = SimpleQueue()
        self._stopped = False
        # Initial-list adds given and handled: each counter has one writer
        # (the informer's thread, the listener's), so neither needs a lock.
        self._initial_added = 0
        self._initial_handled = 0
        self._thread: threading.Thread | None = None
        self.delivered = 0
        self.errors = 0
        # The lane's pace, measured only while someone reads the trace.
        self._clock = clock or RealClock()
        # Read twice per notification while traced: no Python frame for the real clock.
        self._now = time.monotonic if type(self._clock) is RealClock else self._clock.now
        self.last_call = 0.0
        self._next_sample = 0.0
        self._unreported = False  # calls finished since the last handler.lane
        self._synced_said = False  # handler.synced emitted (note_synced)
        self._synced_lock = threading.Lock()

    # --- registration ---
    def has_synced(self) -> bool:
        """The informer has synced and every initial-list add was handled."""
        return self._initial_added == self._initial_handled and self._upstream_has_synced()

    def note_synced(self) -> None:
        """``handler.synced`` once, when has_synced first reads true: called after
        an initial add is handled, at the informer's sync and at a late
        registration, since either side may come last."""
        if self._synced_said or not self.has_synced():
            return
        with self._synced_lock:
            if self._synced_said:
                return
            self._synced_said = True
        self._tracer.emit(HANDLER_SYNCED, None, listener=self.name, initial=self._initial_handled)

    def buffered(self) -> int:
        return self._buf.qsize()

    # --- producer side ---
    def add(self, notification: Notification) -> None:
        if notification[0] == _ADD and notification[2]:
            self._initial_added += 1
        self._buf.put(notification)

    # --- resync bookkeeping (under the processor's lock) ---
    def should_resync(self, now: float) -> bool:
        return self.resync_period != 0 and now >= self.next_resync

    def determine_next_resync(self, now: float) -> None:
        self.next_resync = now + self.resync_period

    # --- thread ---
    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name=f"listener-{self.name}", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        self._stopped = True
        self._buf.put(_STOP)  # wakes the thread if it waits

    def join(self, timeout: float | None = None) -> None:
        if self._thread is not None:
            self._thread.join(timeout)

    def stats(self) -> dict[str, Any]:
        """The lane as the Handlers pane shows it (experiments, tests)."""
        pending = self._buf.qsize()
        return dict(
            listener=self.name,
            requested=self.requested_resync_period,
            effective=self.resync_period,
            pending=pending,
            handled=self.delivered,
            call=self.last_call,
            errors=self.errors,
            slow=is_slow(pending, self.last_call),
        )

    def _sample(self, call: float, now: float) -> None:
        """Report the lane after a call: at most every LANE_SAMPLE_EVERY,
        but after every slow call; what is left unreported is reported
        when the listener goes idle (``_wait``). ``_run`` inlines the
        common case (a quick call, not yet time)."""
        self.last_call = call
        self._next_sample = now + LANE_SAMPLE_EVERY
        self._report(call)

    def _report(self, call: float) -> None:
        self._unreported = False
        pending = self._buf.qsize()
        self._tracer.emit(
            HANDLER_LANE,
            None,
            listener=self.name,
            pending=pending,
            handled=self.delivered,
            call=round(call, 6),
            slow=is_slow(pending, call),
        )

    def _wait(self) -> Notification:
        """The next notification, the buffer being empty. With calls left
        unreported, wait a sample period first and report the idle lane,
        so the last figures shown are never a stale backlog."""
        if self._unreported and self._tracer.enabled:
            rest = min(max(self._next_sample - self._now(), 0.0), LANE_SAMPLE_EVERY)
            if rest:
                try:
                    return self._buf.get(timeout=rest)
                except Empty:
                    pass
            if not self._stopped:
                self._report(self.last_call)
        return self._buf.get()

    def _run(self) -> None:
        buf = self._buf
        get, qsize = buf.get, buf.qsize
        handler = self.handler
        on_add, on_update, on_delete = handler.on_add, handler.on_update, handler.on_delete
        tracer = self._tracer
        now = self._now
        while not self._stopped:
            # Idle with a lane report owed (traced runs only): _wait.
            n = get() if not self._unreported or qsize() else self._wait()
            if self._stopped or n is _STOP:
                return
            kind = n[0]
            started = now() if tracer.enabled else None
            try:
                if kind == _UPDATE:
                    on_update(n[1], n[2])
                elif kind == _ADD:
                    on_add(n[1], n[2])
                else:
                    on_delete(n[1])
            except Exception as err:  # noqa: BLE001 - client-go skips the item and goes on
                self.errors += 1
                self._tracer.emit(HANDLER_ERROR, None, listener=self.name, error=f"{type(err).__name__}: {err}")
            finally:
                if kind == _ADD and n[2]:
                    self._initial_handled += 1
                    if self._initial_handled == self._initial_added:
                        self.note_synced()
            self.delivered += 1
            if started is not None:
                ended = now()
                if ended < self._next_sample and ended - started < SLOW_CALL:
                    self.last_call = ended - started
                    self._unreported = True  # the idle report carries it
                else:
                    self._sample(ended - started, ended)

    def __repr__(self) -> str:
        return f"ProcessorListener({self.name!r}, resync_period={self.resync_period})"


class SharedProcessor:
    """Fans notifications out to listeners; tracks which are due a resync."""

    def __init__(self, clock: Clock, tracer: Tracer):
        self.clock = clock
        self.tracer = tracer
        self._lock = threading.Lock()
        # listener -> whether it is due the current resync's Sync updates
        self.listeners: dict[ProcessorListener, bool] = {}
        # Every listener, for the common non-sync distribution (a tuple
        # rebuilt on change, read without the lock).
        self._all: tuple[ProcessorListener, ...] = ()
        self.started = False
        self.check_period = 0.0

    def add_listener(self, listener: ProcessorListener) -> None:
        with self._lock:
            self.listeners[listener] = True
            self._all = tuple(self.listeners)
            if self.started:
                listener.start()

    def remove_listener(self, listener: ProcessorListener) -> None:
        """client-go's removeListener: a listener this processor does not
        hold (removed already, another informer's) is no error."""
        with self._lock:
            if listener not in self.listeners:
                return
            del self.listeners[listener]
            self._all = tuple(self.listeners)
            started = self.started
        if started:
            listener.stop()  # its thread ends; what its buffer still held is never delivered

    def run(self) -> None:
        with self._lock:
            for listener in self.listeners:
                listener.start()
            self.started = True

    def stop(self) -> None:
        with self._lock:
            listeners = list(self.listeners)
            self.listeners = {}
            self._all = ()
            self.started = False
        for listener in listeners:
            listener.stop()
        for listener in listeners:
            listener.join(5.0)

    def distribute(self, notification: Notification, sync: bool) -> Sequence[ProcessorListener]:
        """Give ``notification`` to every listener, or for a sync only to
        the listeners due a resync. Returns who got it."""
        if not sync:
            got = self._all
            for listener in got:
                listener.add(notification)
            return got
        due = [listener for listener, syncing in self.listeners.copy().items() if syncing]
        for listener in due:
            listener.add(notification)
        return due

    def should_resync(self) -> bool:
        """Called by the reflector every check period: mark the listeners
        whose period has come, and say whether any did."""
        with self._lock:
            now = self.clock.now()
            due = []
            for listener in self.listeners:
                s = listener.should_resync(now)
                self.listeners[listener] = s
                if s:
                    due.append(listener.name)
                    listener.determine_next_resync(now)
        self.tracer.emit(RESYNC_TICK, None, due=due, check_period=self.check_period)
        return bool(due)

    def resync_check_period_changed(self, check: float) -> None:
        with self._lock:
            self.check_period = check
            for listener in self.listeners:
                listener.resync_period = determine_resync_period(listener.requested_resync_period, check)
