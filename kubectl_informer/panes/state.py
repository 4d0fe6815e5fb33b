"""What every pane is made of: a state fed by TraceEvents, and a widget.

A pane never calls the engine. The app drains the tracer at a bounded frame
rate, ``feed``s each event to every pane state (cheap: counters, ring
buffers), then asks the panes whose state changed to ``refresh_view``.
A pane module holds one ``PaneState`` subclass and one ``Pane`` subclass, so
a pane can be tested alone by feeding its state a recorded trace.
"""

from __future__ import annotations

from kubectl_informer.core.run_info import RunInfo  # noqa: F401 - panes and tests name it from here
from kubectl_informer.core.trace import TraceEvent


class PaneState:
    """Fed every event in order; bumps ``version`` when it changed."""

    def __init__(self) -> None:
        self.version = 0

    def feed(self, ev: TraceEvent) -> None:  # pragma: no cover - interface
        raise NotImplementedError

    def feed_all(self, events) -> None:
        for ev in events:
            self.feed(ev)


class DispatchState(PaneState):
    """A state fed a few kinds, one method each: ``HANDLERS`` maps a
    ``trace_kinds`` kind to a method name. An event a method cannot use (a
    recording outside the contract) is counted in ``bad_events`` and skipped,
    never raised into the UI; a method returning False changed nothing."""

    HANDLERS: dict[str, str] = {}

    def __init__(self) -> None:
        super().__init__()
        self.bad_events = 0
        self.last_time: float | None = None
        self._handlers = {kind: getattr(self, name) for kind, name in self.HANDLERS.items()}

    def handle(self, handler, ev: TraceEvent):
        return handler(ev)

    def feed_all(self, events) -> None:
        # The hot path: ``feed``'s work in one loop, no call per event but
        # the handler's.
        get = self._handlers.get
        handle = self.handle
        for ev in events:
            h = get(ev[2])
            if h is None:
                continue
            try:
                if handle(h, ev) is False:
                    continue
            except (TypeError, ValueError, AttributeError, OverflowError):
                self.bad_events += 1
                continue
            self.last_time = ev[1]
            self.version += 1

    def feed(self, ev: TraceEvent) -> None:
        h = self._handlers.get(ev.kind)
        if h is None:
            return
        try:
            if self.handle(h, ev) is False:
                return
        except (TypeError, ValueError, AttributeError, OverflowError):
            self.bad_events += 1
            return
        self.last_time = ev.time
        self.version += 1
