"""The crash log: what an unexpected exception (a bug of ours) leaves behind.

The user gets one ``error:`` line naming the file; the file holds the
traceback, as Python formats it: the code and the exception's message, never
a local variable (Textual and Rich print those by default, and a local may
hold a token). What could still carry a credential -- an exception's message
quoting an ``Authorization`` header, a ``--token`` on the command line -- is
scrubbed before it is written. The file is created with mode 0600 in
``$XDG_STATE_HOME/kubectl-informer`` (``~/.local/state`` by default, as the
XDG base directory specification puts logs), else in the temporary
directory; the newest ``KEEP`` are kept.
"""

from __future__ import annotations

import _thread
import contextlib
import os
import platform
import re
import signal
import sys
import threading
import time
import traceback
from collections.abc import Callable
from typing import TextIO

from kubectl_informer import __version__
from kubectl_informer.core.printable import printable_lines
from kubectl_informer.core.private_files import create_new
from kubectl_informer.core.redact import redact
from kubectl_informer.run import signals

KEEP = 20  # crash logs kept in the directory, the newest
_PREFIX = "crash-"

# A credential quoted in a message: an Authorization header's value (any
# scheme: Bearer, Basic...), a token: or password: field, a --token flag.
# Compiled (and cached by re) by the first scrub, not by every start.
_SCRUBS = (
    (r"(?i)\b(bearer|basic)(\s+|%20)[^\s'\",;)\]}]+", r"\1\2<redacted>"),
    (r"(?i)(authorization['\"]?\s*[:=]\s*['\"]?)(?!<redacted>)[^'\",;)\]}\r\n]+", r"\1<redacted>"),
    (r"(?i)((?:token|password|client-key-data)['\"]?\s*[:=]\s*['\"]?)[^\s'\",;)\]}]+", r"\1<redacted>"),
)
_SECRET_FLAGS = ("--token", "--password")


_pending: list[BaseException] = []  # a thread's crash, for the CLI's guard


def watch_threads() -> Callable[[], None]:
    """From now on a thread that dies of an exception (one no engine guard
    caught) ends the process as a crash: Python would print its traceback
    and carry on without it. The main thread is told with a SIGTERM of its
    own, so that it stops as on any signal (the UI closes, the terminal is
    restored); the CLI's guard then reports the crash (``pending``), not the
    signal. Returns what puts Python's hook back."""
    _pending.clear()
    previous = threading.excepthook

    def hook(args: threading.ExceptHookArgs) -> None:
        if args.exc_type is SystemExit or args.exc_value is None:
            return
        if signals.received() is not None:
            return  # shutting down after a signal: a thread cut short is no bug
        first = not _pending
        _pending.append(args.exc_value)
        if first:
            _thread.interrupt_main(signal.SIGTERM)

    threading.excepthook = hook

    def restore() -> None:
        threading.excepthook = previous

    return restore


def pending() -> BaseException | None:
    """The first exception a thread died of since ``watch_threads``."""
    return _pending[0] if _pending else None


class UICrash(Exception):
    """The UI's own thread crashed outside any exception we were handed
    (Textual's input thread): ``details`` is the traceback it rendered."""

    def __init__(self, message: str, details: str) -> None:
        super().__init__(message)
        self.details = details


def scrub(text: str) -> str:
    """``text`` with every credential the run holds (core.redact) and every
    credential-looking value replaced by <redacted>."""
    text = redact(text)
    for pattern, repl in _SCRUBS:
        text = re.sub(pattern, repl, text)
    return text


def scrub_args(args: list[str]) -> list[str]:
    """The command line with the value of ``--token`` (and the like) hidden."""
    out: list[str] = []
    hide_next = False
    for a in args:
        if hide_next:
            out.append("<redacted>")
            hide_next = False
        elif a in _SECRET_FLAGS:
            out.append(a)
            hide_next = True
        elif a.split("=", 1)[0] in _SECRET_FLAGS and "=" in a:
            out.append(a.split("=", 1)[0] + "=<redacted>")
        else:
            out.append(scrub(a))
    return out


def summary(err: BaseException) -> str:
    """The exception's message in one short line, scrubbed; never its class."""
    text = str(err).strip()
    line = text.splitlines()[0] if text else "no message"
    return scrub(line)[:200]


def format_crash(err: BaseException, args: list[str] | None = None) -> str:
    """The crash log's text: what ran, then the traceback without locals."""
    head = [
        f"kubectl-informer v{__version__} crashed at {time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())}",
        f"python {platform.python_version()} on {platform.platform()}",
        "command: kubectl informer " + " ".join(scrub_args(list(args or ()))),
        "",
    ]
    body = "".join(traceback.format_exception(type(err), err, err.__traceback__))
    details = getattr(err, "details", None)
    if details:
        body += "\n" + str(details)
    # A message may quote a server (an error body, a name): shown as the terminal rule says.
    return printable_lines(scrub("\n".join(head) + body))


def crash_dir() -> str:
    state = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return os.path.join(state, "kubectl-informer")


def _open_private(directory: str) -> tuple[int, str]:
    os.makedirs(directory, mode=0o700, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
    path = os.path.join(directory, f"{_PREFIX}{stamp}-{os.getpid()}.log")
    return create_new(path), path  # O_EXCL|O_NOFOLLOW, 0600


def write_crash_log(err: BaseException, args: list[str] | None = None) -> str | None:
    """Write ``err``'s crash log; its path, or None when no file could be
    written anywhere (the error line then says so)."""
    text = format_crash(err, args)
    try:
        fd, path = _open_private(crash_dir())
        _prune(os.path.dirname(path))
    except OSError:
        try:
            import tempfile  # only a crash writes a log: no start pays for the import

            fd, path = tempfile.mkstemp(prefix="kubectl-informer-crash-", suffix=".log")  # mode 0600
        except OSError:
            return None
    try:
        with os.fdopen(fd, "w", encoding="utf-8", errors="replace") as f:
            f.write(text)
    except OSError:
        return None
    return path


def _prune(directory: str) -> None:
    """Keep the newest ``KEEP`` crash logs (a crash loop must not fill the disk)."""
    try:
        logs = sorted(n for n in os.listdir(directory) if n.startswith(_PREFIX) and n.endswith(".log"))
        for name in logs[:-KEEP]:
            os.unlink(os.path.join(directory, name))
    except OSError:
        pass


def crash_line(
    err: BaseException, args: list[str] | None = None, what: str = "kubectl informer failed unexpectedly"
) -> str:
    """The one line for an unexpected exception, its crash log written."""
    path = write_crash_log(err, args)
    where = f"the traceback is in {path}" if path else "no crash log could be written"
    return f"{what}: {summary(err)} ({where}; please report it)"


def print_crash(err: BaseException, args: list[str] | None = None, out: TextIO | None = None) -> None:
    """--debug: the crash log's text on stderr too (no locals, scrubbed)."""
    with contextlib.suppress(OSError, ValueError):  # a closed or broken stderr: the crash line still follows
        (out or sys.stderr).write(format_crash(err, args))
