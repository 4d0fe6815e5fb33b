"""A reflector or an informer run on a thread of its own for a test, and the
fixtures' helper that stops each one a test started when it ends."""

from __future__ import annotations

import threading


class Runner:
    """``reflector.run`` on a thread; the watch errors it hands its handler in ``errors``."""

    def __init__(self, reflector):
        self.r = reflector
        self.stop = threading.Event()
        self.errors: list[BaseException] = []
        reflector.watch_error_handler = lambda r, err: self.errors.append(err)
        self.t = threading.Thread(target=reflector.run, args=(self.stop,), daemon=True)
        self.t.start()

    def close(self):
        self.stop.set()
        self.t.join(5)
        assert not self.t.is_alive()


class Running:
    """``informer.run`` on a thread."""

    def __init__(self, informer):
        self.inf = informer
        self.stop = threading.Event()
        self.t = threading.Thread(target=informer.run, args=(self.stop,), daemon=True)
        self.t.start()

    def close(self):
        self.stop.set()
        self.t.join(10)
        assert not self.t.is_alive()


def each_closed(run):
    """For a fixture to ``yield from``: a function that starts ``run(x)`` and
    returns it; every one it started is closed when the test ends."""
    made = []
    yield lambda x: made.append(run(x)) or made[-1]
    for r in made:
        r.close()
