"""Reading a recording: the NDJSON lines of ``-o json`` / ``--record``.

A recording written since the header existed starts with a ``run.info``
event (resource, namespace, context, profile, the command line, the wall
clock); older ones do not, and their ``informer.start`` says what it can.
Lines without ``"v"`` (version 1) are upgraded as they are read. A last
line cut mid-write (the run was killed) is dropped with a warning, as is
the tail of a compressed recording that ends early; anything else that is
not a trace event is an error.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from datetime import datetime
from typing import IO

from kubectl_informer.core.profiles import initial_list_label
from kubectl_informer.core.redact import redact_url
from kubectl_informer.core.run_info import RunInfo
from kubectl_informer.core.trace import TraceEvent
from kubectl_informer.core.trace_kinds import (
    INFORMER_START,
    RELIST,
    RUN_INFO,
    STORE_DELETE,
    WATCH_END,
)


# The longest line read: one trace event is a few hundred bytes (objects are
# never recorded), so a longer line is not a recording (``replay /dev/zero``
# would otherwise read until memory runs out). The same cap as one watch event.
MAX_LINE = 16 << 20
MAX_LINE_TEXT = "16 MiB"


def _redact_header(fields: dict) -> None:
    """A recording made elsewhere, or before URLs were redacted, may hold a
    user and password in its server URL or command line: never replayed."""
    if isinstance(fields.get("server"), str):
        fields["server"] = redact_url(fields["server"])
    if isinstance(fields.get("args"), list):
        fields["args"] = [redact_url(a) if isinstance(a, str) else a for a in fields["args"]]


class RecordingError(Exception):
    """The file cannot be replayed: one line for the user."""


@dataclass
class Recording:
    path: str
    events: list[TraceEvent]
    header: dict | None = None       # run.info's fields, None in older recordings
    warnings: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        info = next((e for e in self.events if e.kind == RUN_INFO), None)
        if info is not None:
            _redact_header(info.fields)
        if self.header is None and info is not None:
            self.header = dict(info.fields)

    @property
    def t0(self) -> float:
        return self.events[0].time

    @property
    def duration(self) -> float:
        return self.events[-1].time - self.t0

    def offset(self, i: int) -> float:
        """Seconds from the recording's start to event ``i``."""
        return self.events[i].time - self.t0

    def wall_clock(self, offset: float) -> str | None:
        """The wall-clock time (HH:MM:SS, local) at ``offset``, when the
        recording has a header to anchor it."""
        wall = self.wall_time(offset)
        return None if wall is None else datetime.fromtimestamp(wall).strftime("%H:%M:%S")

    def wall_time(self, offset: float) -> float | None:
        h = self.header
        if not h or not isinstance(h.get("wall_time"), (int, float)):
            return None
        anchor = next((e.time for e in self.events if e.kind == RUN_INFO), self.t0)
        return float(h["wall_time"]) + (self.t0 + offset - anchor)

    def marks(self) -> list[int]:
        """Indexes of the events worth seeking to: relists, watches that
        ended with 410 Gone, and deletions that came as tombstones."""
        return [i for i, ev in enumerate(self.events) if mark_of(ev)]


def mark_of(ev: TraceEvent) -> str | None:
    """What a seek stops at: "relist", "410" or "tombstone" (else None)."""
    kind = ev.kind
    if kind == RELIST:
        return "relist"
    if kind == WATCH_END and ev.fields.get("expired"):
        return "410"
    if kind == STORE_DELETE and ev.fields.get("tombstone"):
        return "tombstone"
    return None


def _open(path: str) -> IO[bytes]:
    """The file, or stdin for ``-``; a gzip-compressed recording is read as is."""
    if path == "-":
        return sys.stdin.buffer if hasattr(sys.stdin, "buffer") else sys.stdin
    fh = open(path, "rb")
    if fh.peek(2)[:2] == b"\x1f\x8b":
        import gzip
        return gzip.GzipFile(fileobj=fh)
    return fh


def _lines(fh, path: str):
    """(number, line) of each line, none longer than MAX_LINE."""
    n = 0
    while True:
        line = fh.readline(MAX_LINE + 1)
        if not line:
            return
        n += 1
        if len(line) > MAX_LINE:
            raise RecordingError(f"{path}:{n}: a line longer than {MAX_LINE_TEXT}, the limit for one trace "
                                 f"event (expected the NDJSON lines of -o json)")
        yield n, line


def _parse_lines(fh, path: str, rec: Recording) -> None:
    pending: tuple[int, bytes | str] | None = None  # a bad line: an error unless it was the last one
    for n, line in _lines(fh, path):
        if pending is not None:
            raise RecordingError(f"{path}:{pending[0]}: not a trace event (expected the NDJSON lines of -o json)")
        if not line.strip():
            continue
        try:
            ev = TraceEvent.from_json(line)
        except Exception:
            pending = (n, line)
            continue
        rec.events.append(ev)
    if pending is not None:
        n, line = pending
        if line.endswith(b"\n" if isinstance(line, bytes) else "\n"):
            raise RecordingError(f"{path}:{n}: not a trace event (expected the NDJSON lines of -o json)")
        rec.warnings.append(f"{path}:{n}: the last line is cut mid-event (the recording was interrupted); "
                            "replaying the events before it")


def read_recording(path: str) -> Recording:
    """The recording at ``path`` (``-``: stdin); RecordingError if it cannot be replayed."""
    try:
        fh = _open(path)
    except OSError as e:
        raise RecordingError(f"cannot read {path}: {e.strerror or e}") from None
    rec = Recording(path, [])
    try:
        _parse_lines(fh, path, rec)
    except EOFError:
        rec.warnings.append(f"{path}: the compressed recording ends early (interrupted?); "
                            "replaying the events before the cut")
    except OSError as e:
        raise RecordingError(f"cannot read {path}: {getattr(e, 'strerror', None) or e}") from None
    finally:
        if path != "-":
            fh.close()
    if not rec.events:
        raise RecordingError(f"{path}: no trace events in it")
    rec.__post_init__()  # the header, now that the events are read
    return rec


def info_from_recording(rec: Recording) -> RunInfo:
    """What the header shows: the recorded run.info, else what informer.start says."""
    events, path = rec.events, rec.path
    mode = "queue" if any(e.kind.startswith("worker.") for e in events) else "watch"
    info = RunInfo(resource="(replay)", namespace=None, context=f"replay of {os.path.basename(path)}",
                   mode=mode, replay=path)
    h = rec.header
    if h:
        info.resource = str(h.get("resource") or info.resource)
        info.namespace = h.get("namespace")
        info.context = f"{h.get('context') or '-'} (replay of {os.path.basename(path)})"
        info.server = str(h.get("server") or "")
        info.profile = str(h.get("profile") or info.profile)
        info.fifo = str(h.get("fifo") or info.fifo)
        info.initial_list = str(h.get("initial_list") or info.initial_list)
        info.resync_period = float(h.get("resync") or 0.0)
        info.label_selector = h.get("label_selector")
        info.field_selector = h.get("field_selector")
        info.demo_scenario = h.get("demo")
        info.mode = str(h.get("mode") or mode)
        info.tls_verify = h.get("tls_verify") is not False
        info.args = tuple(str(a) for a in h.get("args") or ())
        info.informers = tuple(str(r) for r in h.get("informers") or ())
        info.queue_resource = h.get("queue_resource") or None
    for ev in events:
        if ev.kind == INFORMER_START:
            f = ev.fields
            info.fifo = str(f.get("fifo") or info.fifo)
            if "watch_list" in f:
                info.initial_list = initial_list_label(bool(f.get("watch_list")))
            if not h:
                info.resync_period = float(f.get("resync_check_period") or 0.0)
            break
    return info
