"""Drive a demo scenario through the real pipeline (real HTTP to the sim
server), step the scenario by hand, and say which explain texts the panes'
selections reached along the way."""

from __future__ import annotations

import threading
import time

from kubectl_informer.clock import Clock
from kubectl_informer.clock.testing import wait_for
from kubectl_informer.core.trace import Tracer
from kubectl_informer.panes.explain import Facts, explain, render, subject_for
from kubectl_informer.panes.explain.match import marks_for
from kubectl_informer.run.config import RunConfig
from kubectl_informer.run.runner import Run


class SteppedClock(Clock):
    """Real time that the test can move ahead: ``now()`` is the monotonic
    clock plus every ``step`` taken. The scenarios act in real time (workers
    working, resyncs ticking), but a span the test only has to let pass is
    stepped, not slept. Waits wake at least every ``POLL`` real seconds to
    see a step."""

    POLL = 0.01

    def __init__(self) -> None:
        self._offset = 0.0

    def now(self) -> float:
        return time.monotonic() + self._offset

    def step(self, seconds: float) -> None:
        self._offset += seconds

    def sleep(self, seconds: float) -> None:
        self.wait_event(threading.Event(), seconds)

    def wait_on(self, cond: threading.Condition, timeout: float | None) -> None:
        cond.wait(None if timeout is None else min(max(0.0, timeout), self.POLL))

    def wait_event(self, event: threading.Event, timeout: float | None) -> bool:
        if timeout is None:
            return event.wait()
        deadline = self.now() + timeout
        while not event.is_set():
            left = deadline - self.now()
            if left <= 0:
                return False
            event.wait(min(left, self.POLL))
        return True


class Driven:
    """A run of one scenario with its trace, stepped by hand."""

    def __init__(self, scenario: str, **opts) -> None:
        self.clock = SteppedClock()
        self.tracer = Tracer(self.clock)
        self.events: list = []
        self._lock = threading.Lock()
        self.tracer.subscribe(self._collect)
        self.run = Run(RunConfig.from_flags(demo=scenario, **opts), self.tracer, self.clock)
        self.mode = opts.get("mode", "watch")

    def _collect(self, ev) -> None:
        with self._lock:
            self.events.append(ev)

    def seen(self, kind: str, **fields) -> int:
        with self._lock:
            evs = list(self.events)
        return sum(1 for e in evs if e.kind == kind and all(e.fields.get(k) == v for k, v in fields.items()))

    def wait(self, kind: str, n: int = 1, timeout: float = 15.0, advance: float = 0.0, **fields) -> None:
        """Until ``n`` events of ``kind`` with ``fields`` were traced. With
        ``advance``, the run's clock is stepped that much every real
        hundredth of a second meanwhile: a back-off the run waits out on its
        clock passes at once, as a span the test only has to let pass."""

        def reached() -> bool:
            if self.seen(kind, **fields) >= n:
                return True
            if advance:
                self.clock.step(advance)
            return False

        assert wait_for(reached, timeout=timeout, interval=0.01 if advance else 0.001), (kind, fields, n)

    def __enter__(self) -> Driven:
        self.run.prepare()
        self.runner = self.run.demo.runner
        self.runner.stop()  # its steps are taken by hand below
        self.runner.ctx.rng.seed(8)
        self.run.start()
        self.wait("informer.synced")
        return self

    def settle(self) -> None:
        """Let the informer's watch run past a second, as it has when a
        demo's first step comes: a watch cut sooner is a very short watch.
        The run's clock is stepped past it instead of waited out."""
        self.wait("watch.start")
        self.clock.step(1.1)

    def step(self, n: int = 1, pause: float = 0.0) -> None:
        for _ in range(n):
            self.runner.step()
            if pause:
                time.sleep(pause)

    def __exit__(self, *exc) -> None:
        assert self.run.stop() == []

    def reached(self) -> dict[str, list[str]]:
        """Text id -> rendered texts, over every selection a pane could make
        while the trace was fed: each delta, each FIFO key's slot, and each
        new RV mark, resync tick and queue record (the newest, as the panes
        without a cursor show)."""
        with self._lock:
            events = list(self.events)
        return reached_by(events, self.mode)


def reached_by(events, mode: str) -> dict[str, list[str]]:
    facts = Facts()
    facts.mode = mode
    out: dict[str, list[str]] = {}
    pending: dict[str, list[str]] = {}

    def take(subject) -> None:
        for text_id, values in explain(subject, facts):
            out.setdefault(text_id, []).append(render(text_id, values, strict=True))

    take(subject_for("queue", facts))
    take(subject_for("resync", facts))
    stored: list = []
    for ev in events:
        facts.feed(ev)
        kind = str(ev.kind)
        if kind.startswith("store."):
            stored.append((ev.key, ev.seq))
        elif kind in ("fifo.queue", "fifo.coalesce") and ev.key is not None:
            # A FIFO slot is seen as it is at that moment.
            pending.setdefault(ev.key, []).append(ev.fields["type"])
            take(subject_for("fifo", facts, key=ev.key, pending=pending[ev.key]))
        elif kind == "fifo.pop" and ev.key is not None:
            pending.pop(ev.key, None)
        elif kind == "queue.add" and ev.key is not None:
            # The Queue pane's cursor on an item as it is added (j/k select it).
            take(subject_for("queue", facts, key=ev.key))
        elif kind == "queue.get":
            # The Queue pane shows its newest item live: one a worker holds now.
            take(subject_for("queue", facts))
        elif kind == "server.window":
            # So does the Server pane: the window as it is now, ours perhaps behind.
            take(subject_for("server", facts))
    # Records are explained once what followed them is known, as a pane
    # showing them later does: each delta, and every RV mark, tick and queue record.
    for key, seq in stored:
        take(subject_for("deltas", facts, key=key, seq=seq))
    for key in {k for k, _ in stored}:
        take(subject_for("inspector", facts, key=key))
    for pane in ("rv", "resync", "queue", "server"):
        n = len(marks_for(pane, facts))
        for back in range(n):
            take(subject_for(pane, facts, back=back))
    take(subject_for("cache", facts))
    take(subject_for("fifo", facts))
    return out
