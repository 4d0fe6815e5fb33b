"""The command's own code run in the test's process, for the tests that try
many inputs against one path (hostile namespaces, kubeconfig values, exec
plugin configs, credentials): the same ``cli.main`` the ``kubectl-informer``
script calls, through its error guard and ``sys.exit``, with stdout, stderr
and the environment of the call captured and put back.

A child process costs ~0.25 s of CPU to start (Python, click, the kubernetes
client); here each case costs only its own work. What is about the process
itself (an exit on a signal, a full stdout, a terminal, kubectl finding the
plugin) stays with ``conftest.run_cli`` and ``cli_process`` in at least one
test per behaviour.

What the process would not carry from one run to the next is reset here:
the credentials ``core.redact`` remembers (else one run's token would hide a
leak in the next), the noted signal and thread crash (``install`` and
``watch_threads`` clear them). Threads a run starts must have ended when it
returns, as they would have with the process (the simulated server's
own connection threads aside).
"""

from __future__ import annotations

import contextlib
import subprocess
import threading
import time

from click.testing import CliRunner

from kubectl_informer.cli.main import PROG, cli
from kubectl_informer.core import redact

# A run's threads (reflector, exec plugin readers, the simulated stream's
# client) are joined by the run; a few ms more for the interpreter to reap them.
THREADS_END_WITHIN = 10.0


def run_in_process(
    *args: str, env: dict | None = None, cwd: str | None = None, keep_kubeconfig: bool = False
) -> subprocess.CompletedProcess:
    """``kubectl-informer ARGS`` as ``conftest.run_cli`` runs it (KUBECONFIG
    unset unless ``env`` or ``keep_kubeconfig`` says otherwise, no terminal,
    empty stdin), in this process. Returns a CompletedProcess (returncode,
    stdout, stderr) so that the same assertions read both, and ``ended``:
    the time.monotonic() at which the process would have exited (main had
    returned and the run's non-daemon threads, which Python's exit waits
    for, had ended)."""
    overrides: dict[str, str | None] = {} if keep_kubeconfig else {"KUBECONFIG": None}
    overrides.update(env or {})
    before = set(threading.enumerate())
    redact.forget_all()
    try:
        with contextlib.chdir(cwd) if cwd else contextlib.nullcontext():
            result = CliRunner().invoke(cli, list(args), prog_name=PROG, env=overrides, catch_exceptions=False)
    finally:
        redact.forget_all()
    ended = _threads_ended(before, args, daemon_too=False)
    _threads_ended(before, args, daemon_too=True)
    done = subprocess.CompletedProcess(["kubectl-informer", *args], result.exit_code, result.stdout, result.stderr)
    done.ended = ended
    return done


def _serving(thread: threading.Thread) -> bool:
    """A thread of the simulated server in this process, answering a
    connection the client may keep open until it is collected."""
    return "process_request_thread" in thread.name


def _threads_ended(before: set[threading.Thread], args, daemon_too: bool) -> float:
    """When the threads the run started had ended (the non-daemon ones only
    unless ``daemon_too``); fails if some are still running after the bound."""
    deadline = time.monotonic() + THREADS_END_WITHIN
    while True:
        left = [
            t
            for t in threading.enumerate()
            if t not in before and t.is_alive() and not _serving(t) and (daemon_too or not t.daemon)
        ]
        if not left:
            return time.monotonic()
        if time.monotonic() > deadline:
            raise AssertionError(f"the run {list(args)} left threads running: {[t.name for t in left]}")
        left[0].join(0.05)
