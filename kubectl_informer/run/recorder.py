"""Recording a run: its ``run.info`` header and ``--record FILE``."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from kubectl_informer import __version__
from kubectl_informer.core.private_files import open_private
from kubectl_informer.core.redact import redact_url
from kubectl_informer.core.run_info import RunInfo
from kubectl_informer.core.trace import TraceBuffer, Tracer
from kubectl_informer.core.trace_kinds import RUN_INFO


def emit_run_info(tracer: Tracer, info: RunInfo) -> None:
    """The run's header (``run.info``): the first line of ``-o json`` and of
    a recording, so a replay can say what was recorded, where and when.
    ``info`` is the run's RunInfo; its ``args`` are the command line."""
    tracer.emit(
        RUN_INFO,
        None,
        resource=info.resource,
        namespace=info.namespace,
        context=info.context,
        server=info.server,
        profile=info.profile,
        fifo=info.fifo,
        initial_list=info.initial_list,
        resync=float(info.resync_period or 0.0),
        mode=info.mode,
        args=[redact_url(str(a)) for a in info.args],
        wall_time=time.time(),
        version=__version__,
        label_selector=info.label_selector,
        field_selector=info.field_selector,
        demo=info.demo_scenario,
        tls_verify=info.tls_verify,
        **_informers(info),
    )


def _informers(info: RunInfo) -> dict[str, Any]:
    """The several informers' fields of run.info: absent for one informer,
    so one-informer recordings stay as they were."""
    informers = tuple(getattr(info, "informers", ()) or ())
    if len(informers) < 2:
        return {}
    out: dict[str, Any] = {"informers": list(informers)}
    if info.queue_resource:
        out["queue_resource"] = info.queue_resource
    return out


class Recorder:
    """``--record FILE``: every TraceEvent of the run written as NDJSON (the
    format ``replay`` reads, ``"v": 2``, the ``run.info`` header first) by a
    thread of its own, so the engine never waits on the disk; ``stop()``
    writes what is left and closes the file. A write that fails (a full disk)
    stops the recording and calls ``on_error`` with one line naming the file."""

    def __init__(
        self, path: str, tracer: Tracer, interval: float = 0.2, on_error: Callable[[str], None] | None = None
    ) -> None:
        self.path = path
        # A private file (0600), never through a symbolic link nor into another
        # user's file (core.private_files); OSError: the caller reports it.
        self.file = open_private(path)
        self.buffer = TraceBuffer()
        self.written = 0
        self.error: str | None = None
        self.on_error = on_error
        self._interval = interval
        self._stop = threading.Event()
        self._unsubscribe = tracer.subscribe(self.buffer)
        self._thread = threading.Thread(target=self._loop, name="kubectl-informer-recorder", daemon=True)
        self._thread.start()

    def _flush(self) -> None:
        events = self.buffer.drain()
        if not events or self.error is not None:
            return
        try:
            self.file.write("".join(ev.to_json() + "\n" for ev in events))
            self.file.flush()
        except OSError as e:
            self._failed(e)
            return
        self.written += len(events)

    def _failed(self, e: OSError) -> None:
        self.error = f"cannot write the recording to {self.path}: {e.strerror or e}"
        self._unsubscribe()
        if self.on_error is not None:
            self.on_error(self.error)

    def _loop(self) -> None:
        while not self._stop.wait(self._interval) and self.error is None:
            self._flush()

    def stop(self) -> None:
        if self._stop.is_set():
            return
        self._unsubscribe()
        self._stop.set()
        self._thread.join(5)
        self._flush()
        try:
            self.file.close()  # flushes what the failed write left in its buffer
        except OSError as e:
            if self.error is None:
                self._failed(e)
