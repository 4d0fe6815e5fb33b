"""The headless loop of ``-o text`` / ``-o json``: what happened before a
signal is still printed."""

import threading

from kubectl_informer.core.trace import TraceEvent
from kubectl_informer.run.lifecycle import Terminated, stream_headless


class _Buffer:
    """Empty on the first drain, which a signal then interrupts; the events
    the pipeline traced meanwhile are there for the next drain."""

    def __init__(self, events):
        self.events = list(events)
        self.calls = 0

    def drain(self):
        self.calls += 1
        if self.calls == 1:
            raise Terminated()
        out, self.events = self.events, []
        return out


class _Renderer:
    def __init__(self):
        self.seen = []
        self.lines = 0

    def render(self, events):
        for ev in events:
            self.seen.append(ev.kind)
            self.lines += 1


def _events(n):
    return [TraceEvent(i, 0.0, "relist", None, {"reason": "error"}) for i in range(n)]


def test_events_buffered_when_the_signal_comes_are_still_rendered():
    r = _Renderer()
    stream_headless(_Buffer(_events(2)), r, threading.Event())
    assert r.seen == ["relist", "relist"]


def test_the_final_flush_keeps_max_events():
    r = _Renderer()
    stream_headless(_Buffer(_events(5)), r, threading.Event(), max_events=3)
    assert r.lines == 3
