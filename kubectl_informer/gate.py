"""A gate a loop passes between two items: open unless someone paused it.

The pause-workers experiment (key ``x`` in the UI) pauses the controller's
workers through one. ``wait`` reads one attribute when the gate is open, so
an unused gate costs nothing.
``release`` opens it for good: a stopping run must never leave a thread
parked behind a pause.
"""

from __future__ import annotations

import threading


class Gate:
    def __init__(self) -> None:
        self._cond = threading.Condition(threading.Lock())
        self.paused = False
        self._released = False

    def pause(self) -> bool:
        """Close the gate; False when it was already paused (or released)."""
        with self._cond:
            if self.paused or self._released:
                return False
            self.paused = True
            return True

    def resume(self) -> bool:
        """Open the gate; False when it was not paused."""
        with self._cond:
            if not self.paused:
                return False
            self.paused = False
            self._cond.notify_all()
            return True

    def release(self) -> None:
        """Open the gate for good (the run is stopping)."""
        with self._cond:
            self._released = True
            self.paused = False
            self._cond.notify_all()

    def wait(self, stop_event: threading.Event | None = None) -> bool:
        """Block while paused; True once open, False when ``stop_event`` is
        set meanwhile (whoever sets it must ``release`` the gate too)."""
        if not self.paused:
            return True
        with self._cond:
            while self.paused:
                if stop_event is not None and stop_event.is_set():
                    return False
                self._cond.wait()
        return not (stop_event is not None and stop_event.is_set())
