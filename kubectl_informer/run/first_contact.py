"""The first real list or watch stands in for a probe.

client-go's informers send nothing before their first list (or WatchList
watch): a 403, a 401 or a dead server shows up there and the reflector
backs off and tries again, for ever. The plugin used to send a one-item
list and a one-second watch first, to say such a failure in one line
before the UI started. Now the informer starts at once and ``FirstContact``,
wrapped around its lister-watcher, notes how the first request ended: an
answer (the list's first bytes, an open watch), or an error. ``Run.start``
waits for that (``wait``): an error the user must act on ends the run
with the line the probe used to print, before the UI or the stream begins;
one that comes once the UI is up (the watch after a long list) ends it
with the same line.

A transient failure (429, 5xx, a reset), an answer too large or a status
the reflector handles itself (a 410, a WatchList the server refuses) ends
the wait without ending the run: the reflector backs off and tries again,
as client-go's does, in the open; a 403 or 401 that follows still ends it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from kubectl_informer.kube.retry import is_transient

if TYPE_CHECKING:
    from kubectl_informer.run.runner import Run

# Statuses of a first request that end the run: no retry makes them pass.
FATAL_STATUS = frozenset((401, 403, 404))
# A first LIST the server calls a bad request (a field selector it does not
# support, a label selector it cannot parse) is the user's to fix, as kubectl
# says at once; a 400 on a watch is left to the reflector (a WatchList the
# server refuses falls back to LIST there).
FATAL_LIST_STATUS = FATAL_STATUS | {400}


def is_fatal(err: BaseException, verb: str = "watch") -> bool:
    """Whether ``err`` on the first list or watch should end the run."""
    status = getattr(err, "status", None)
    if isinstance(status, int):
        return status in (FATAL_LIST_STATUS if verb == "list" else FATAL_STATUS)
    if isinstance(err, ConnectionAbortedError):
        return False  # our own stop aborting the request
    # A server that cannot be reached (refused, DNS, TLS, a redirect, no
    # answer in time); an answer too large or malformed is the reflector's
    # to back off from, as after any start.
    return isinstance(err, OSError) and not is_transient(err)


class FirstContact:
    """A lister-watcher that remembers how its first list and first watch went.

    ``wait`` returns once a watch is open (so both verbs are allowed), a
    fatal error came, the reflector is backing off from another, or a list has been arriving for ``reading_grace``
    seconds (a big list is shown arriving in the UI rather than waited for:
    its watch comes after it, and a failure of that watch is then handed to
    ``after``'s callback, which ends the run with the same line)."""

    def __init__(self, lw: Any, clock: Callable[[], float] = time.monotonic) -> None:
        self._lw = lw
        self._clock = clock
        self._lock = threading.Lock()  # the reflector's reports against after(); wait() polls
        self.listing_since: float | None = None  # when the first list's first bytes came
        self.watched = False
        self.troubled = False  # a failure the reflector backs off from (a 5xx, a reset)
        self.error: BaseException | None = None
        self.verb = ""  # "list" or "watch": the request that failed
        self._on_fatal: Callable[[str, BaseException], None] | None = None

    def __getattr__(self, name: str) -> Any:  # namespace, resource, path...: the wrapped one's
        return getattr(self._lw, name)

    @property
    def list_progress(self) -> Callable[[int, int], None] | None:
        return self._lw.list_progress

    @list_progress.setter
    def list_progress(self, fn: Callable[[int, int], None] | None) -> None:
        def progress(nbytes: int, items: int) -> None:
            if self.listing_since is None:
                self._note("list", None)
            if fn is not None:
                fn(nbytes, items)

        self._lw.list_progress = progress

    def list(self, options: Any) -> Any:
        return self._call("list", self._lw.list, options)

    def watch(self, options: Any) -> Any:
        return self._call("watch", self._lw.watch, options)

    def _call(self, verb: str, fn: Callable[[Any], Any], options: Any) -> Any:
        try:
            result = fn(options)
        except BaseException as e:
            self._note(verb, e)
            raise
        self._note(verb, None)
        return result

    def _note(self, verb: str, err: BaseException | None) -> None:
        if self.watched or self.error is not None:
            return  # settled: nothing more to learn
        if err is not None and not is_fatal(err, verb):
            with self._lock:  # the reflector backs off and says so: nothing to wait for
                self.troubled = True
            return
        with self._lock:
            if err is not None:
                self.verb, self.error = verb, err
            elif verb == "watch":
                self.watched = True
            elif self.listing_since is None:
                self.listing_since = self._clock()
            callback = self._on_fatal if err is not None else None
        if callback is not None and err is not None:  # a callback only for an error
            callback(verb, err)

    def wait(self, stop: threading.Event, timeout: float, reading_grace: float = 1.0) -> None:
        """Until a watch is open, a fatal error, a failure the reflector backs
        off from (shown as it happens, as after any start), a list arriving
        for ``reading_grace`` seconds, ``stop``, or ``timeout``."""
        deadline = self._clock() + timeout
        # Polled without taking a lock: this runs on the main thread, where a
        # Ctrl-C's KeyboardInterrupt can land inside a lock's __enter__ after
        # the lock was taken and before a ``with`` would release it; the
        # reflector reporting here would then wait for that lock for ever.
        while not (self.watched or self.troubled or self.error is not None or stop.is_set()):
            now = self._clock()
            if now >= deadline or (self.listing_since is not None and now - self.listing_since >= reading_grace):
                return
            time.sleep(0.02)

    def after(self, callback: Callable[[str, BaseException], None]) -> None:
        """From now on a fatal error of the first list or watch calls
        ``callback(verb, err)`` (at once if one came already)."""
        with self._lock:
            self._on_fatal = callback
            err, verb = self.error, self.verb
        if err is not None:
            callback(verb, err)


def check(run: Run, timeout: float, run_error: Callable[[str], Exception]) -> None:
    """What the probe used to say, said by the first real list and watch of
    each of ``run``'s informers (``run.watched``, whose lister-watchers are
    FirstContacts): a 403, 401 or unreachable server ends the run with one
    line (``run.first_contact_error``) before the UI or the stream starts,
    or, for a watch that follows a long list, closes the UI with that line;
    so does a named object that is not there. A server silent for
    ``timeout`` is left to the UI. ``run_error(message)`` is the run's
    one-line error."""
    deadline = time.monotonic() + timeout
    for w in run.watched:
        w.lw.wait(run.stop_event, max(0.0, deadline - time.monotonic()))
        if w.lw.error is not None:
            failure = run.first_contact_error(w, w.lw.verb, w.lw.error)
            run.stop()
            raise failure
    for w in run.watched:

        def failed_later(verb: str, err: BaseException, w: Any = w) -> None:
            if not run.stop_event.is_set():  # the UI is up: close it with the line
                run.fail("informer", run.first_contact_error(w, verb, err))

        w.lw.after(failed_later)
    if run.config.name:
        for w in run.watched:
            _check_named_object(run, w, run.informers()[w.id], deadline, run_error)


def _check_named_object(
    run: Run, w: Any, informer: Any, deadline: float, run_error: Callable[[str], Exception]
) -> None:
    """``watch pods NAME``: the object must be there once the list is in."""
    while not informer.has_synced() and not run.stop_event.is_set() and time.monotonic() < deadline:
        time.sleep(0.02)  # not stop_event.wait: a Ctrl-C here must not leave its lock held (see FirstContact.wait)
    if informer.has_synced() and not informer.get_store().list_keys():
        where = f' in namespace "{w.lw.namespace}"' if w.lw.namespace else ""
        run.stop()
        raise run_error(f'{run._resource_name(w.resource)} "{run.config.name}" not found{where}')
