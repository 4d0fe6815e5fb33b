"""How a signal ends the process, in one place: with kubectl's exit codes.

A Go program such as kubectl that a SIGINT or SIGTERM ends reports it to its
shell as 128 + the signal's number: 130 for Ctrl-C, 143 for SIGTERM (129 for
SIGHUP). Every state of ours ends the same way, however its own shutdown goes
(the UI closes, the headless loop says what is buffered, the simulated server
stops): the handlers note which signal came first, and the CLI's guard turns
that into the exit code (``exit_code``).

``install`` puts the handlers in place explicitly. A process started with
SIGINT ignored (a background job of a script: the shell hands it SIG_IGN)
would otherwise ignore Ctrl-C and ``kill -INT`` for ever, since Python only
installs its own SIGINT handler when SIGINT is not ignored.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable
from types import FrameType
from typing import NoReturn

# What the CLI asks for: SIGINT raises KeyboardInterrupt, as Python's own
# handler; SIGTERM and SIGHUP raise Terminated. A block that must do something
# else (the UI closes itself) installs its own for a while (``lifecycle.on_signals``).
HANDLED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


class Terminated(BaseException):
    """SIGTERM or SIGHUP arrived. A BaseException, as KeyboardInterrupt, so
    that the many ``except Exception`` that retry a request do not swallow it."""


class Interrupted(BaseException):
    """Ctrl-C on its way out of the command: carried past click, which would
    print a blank line for a KeyboardInterrupt (kubectl prints nothing)."""


_first: list[int] = []  # the first signal that arrived since install()
# Re-entrant: a second signal's handler can run on the main thread inside the
# first one's ``note`` (Python runs handlers between any two bytecodes), and
# would wait for ever on a plain Lock that its own thread holds.
_lock = threading.RLock()


def note(signum: int) -> None:
    """Remember ``signum`` if it is the first signal of this run."""
    with _lock:
        if not _first:
            _first.append(int(signum))


def received() -> int | None:
    """The first signal that arrived since ``install``, or None."""
    return _first[0] if _first else None


def exit_code(default: int) -> int:
    """128 + the first signal's number when one arrived, else ``default``."""
    sig = received()
    return 128 + sig if sig is not None else default


def _on_interrupt(signum: int, frame: FrameType | None) -> NoReturn:
    note(signum)
    raise KeyboardInterrupt


def _on_terminate(signum: int, frame: FrameType | None) -> NoReturn:
    note(signum)
    raise Terminated()


def install() -> Callable[[], None]:
    """Handle SIGINT, SIGTERM and SIGHUP from now on (main thread only) and
    forget any signal noted before; returns what puts the old handlers back
    (the CLI runs in-process in the tests)."""
    with _lock:
        _first.clear()
    if threading.current_thread() is not threading.main_thread():
        return lambda: None
    old = {sig: signal.signal(sig, _on_interrupt if sig == signal.SIGINT else _on_terminate) for sig in HANDLED}

    def restore() -> None:
        for sig, handler in old.items():
            signal.signal(sig, handler if handler is not None else signal.SIG_DFL)

    return restore
