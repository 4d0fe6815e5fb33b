"""Reading a recording: the NDJSON lines of ``-o json`` / ``--record``.

A recording written since the header existed starts with a ``run.info``
event (resource, namespace, context, profile, the command line, the wall
clock); older ones do not, and their ``informer.start`` says what it can.
Lines without ``"v"`` (version 1) are upgraded as they are read. A last
line cut mid-write (the run was killed) is dropped with a warning, as is
the tail of a compressed recording that ends early; anything else that is
not a trace event is an error.

A recording is untrusted input (a bug report's attachment): every line is
checked against the trace contract as it is read (``contract.py``; times
finite and not running backwards), and an error names the file and line.
``read_recording`` holds the events (the UI, stdin) up to MAX_EVENTS and
MAX_BYTES; ``scan_recording`` and ``stream_recording`` read a file twice
holding none (``-o json|text``).
"""

from __future__ import annotations

import contextlib
import io
import math
import os
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

import orjson

from kubectl_informer.core.profiles import initial_list_label
from kubectl_informer.core.redact import redact_url
from kubectl_informer.core.run_info import RunInfo
from kubectl_informer.core.trace import TraceEvent
from kubectl_informer.core.trace_kinds import (
    INFORMER_START,
    KINDS,
    RELIST,
    RUN_INFO,
    STORE_DELETE,
    TRACE_VERSION,
    WATCH_END,
    upgrade_v1,
    with_defaults,
)
from kubectl_informer.replay.contract import recorded_problem, shown

# The longest line read: one trace event is a few hundred bytes (objects are
# never recorded), so a longer line is not a recording (``replay /dev/zero``
# would otherwise read until memory runs out). The same cap as one watch event.
MAX_LINE = 16 << 20
MAX_LINE_TEXT = "16 MiB"
# What a replay holds in memory (the UI, and a recording read from stdin):
# at most this many events and this many bytes of their lines, about 420
# bytes an event once read. A recording is ~7 events per delta, ~230 bytes a
# line: the caps hold an hour at 140 events/s, 20 pod changes a second
# (about 120 MiB of lines). Beyond either cap the replay plays the events
# before it and says so. ``-o json|text`` of a file streams it and holds
# nothing, so it has no cap.
MAX_EVENTS = 500_000
MAX_BYTES = 128 << 20
# Distinct label maps and lists shared between held events, at most.
_SHARED = 10_000

# A recorded time is a clock's seconds (monotonic, or the wall clock's since
# the epoch): beyond this it is no clock of ours.
MAX_TIME = 1e10
# Events come from several threads, each stamped before it is appended: one
# may land a thread switch after a later one. A step back longer than this
# is no such race but a recording whose time runs backwards.
MAX_STEP_BACK = 1.0


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
    header: dict | None = None  # run.info's fields, None in older recordings
    warnings: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        info = next((e for e in self.events if e.kind == RUN_INFO), None)
        if self.header is None and info is not None:  # its URLs already redacted as read (iter_events)
            self.header = dict(info.fields)

    @property
    def t0(self) -> float:
        return self.events[0].time

    @property
    def duration(self) -> float:
        return self.offsets()[-1]

    def offset(self, i: int) -> float:
        """Seconds from the recording's start to event ``i``."""
        return self.events[i].time - self.t0

    def offsets(self) -> list[float]:
        """Each event's offset, never before the one before it (see ``offsets``)."""
        return offsets(self.events, self.t0)

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


def offsets(events: Iterable[TraceEvent], t0: float) -> list[float]:
    """Seconds from ``t0`` to each event, never less than the one before:
    an event stamped a thread switch before the one written ahead of it
    (within MAX_STEP_BACK) plays right after it."""
    out, latest = [], 0.0
    for ev in events:
        latest = max(latest, ev.time - t0)
        out.append(latest)
    return out


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


class _LineReader(Protocol):
    """What a recording is read from: a file (bytes), a gzip stream on it, or stdin (text without a buffer)."""

    def readline(self, size: int, /) -> bytes | str: ...


def _open(path: str, files: contextlib.ExitStack) -> _LineReader:
    """The file, or stdin for ``-``; a gzip-compressed recording is read as
    is. What is opened is closed with ``files``: GzipFile leaves the file it
    is handed open."""
    if path == "-":
        return sys.stdin.buffer if hasattr(sys.stdin, "buffer") else sys.stdin
    return _uncompressed(files.enter_context(open(path, "rb")), files)


def _uncompressed(fh: io.BufferedReader, files: contextlib.ExitStack) -> _LineReader:
    """``fh`` itself, or a gzip stream on it when the file starts as gzip does."""
    if fh.peek(2)[:2] == b"\x1f\x8b":
        import gzip

        return files.enter_context(gzip.GzipFile(fileobj=fh))
    return fh


def _lines(fh: _LineReader, path: str) -> Iterator[tuple[int, bytes | str]]:
    """(number, line) of each line, none longer than MAX_LINE."""
    n = 0
    while True:
        line = fh.readline(MAX_LINE + 1)
        if not line:
            return
        n += 1
        if len(line) > MAX_LINE:
            raise RecordingError(
                f"{path} line {n}: longer than {MAX_LINE_TEXT}, the limit for one trace "
                f"event (expected the NDJSON lines of -o json)"
            )
        yield n, line


def _event_of(d: object) -> TraceEvent | str:
    """The event a decoded line holds, or what is wrong with it."""
    if not isinstance(d, dict):
        return "not a trace event (expected the NDJSON lines of -o json)"
    # A decoded line's members are anything until the check below: the
    # expression is their check (no isinstance call per member per line).
    get: Callable[[str], Any] = d.get
    seq, t, kind, key, fields, v = get("seq"), get("time"), get("kind"), get("key"), get("fields"), get("v")
    # The common case in one expression (a recording has millions of lines);
    # _envelope_problem says what is wrong otherwise. NaN fails every comparison.
    if not (
        type(seq) is int
        and seq >= 0
        and type(t) in (float, int)
        and -MAX_TIME <= t <= MAX_TIME
        and type(kind) is str
        and (key is None or type(key) is str)
        and type(fields) is dict
        and (v == TRACE_VERSION and type(v) is int or v is None)
        and d.keys() <= _MEMBERS
    ):
        problem = _envelope_problem(d)
        if problem:
            return problem
        fields = fields or {}
    if v is None:
        fields = upgrade_v1(kind, fields)
    problem = recorded_problem(kind, key, fields)
    if problem:
        return problem
    k = KINDS[kind]
    for f in k.required:
        if f not in fields:
            fields = with_defaults(kind, fields, first_choice=False)
            break
    return TraceEvent(seq, float(t), k, None if key is None else sys.intern(key), fields)


def _envelope_problem(d: dict) -> str | None:
    for name in d:
        if name not in _ENVELOPE:
            return f"unknown member {shown(name)} (expected {', '.join(_ENVELOPE)})"
    for name, (check, expected) in _ENVELOPE.items():
        value = d.get(name)
        if not check(value):
            return f"{name}={shown(value)} is not {expected}"
    return None


def _is_int(v: object) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_time(v: object) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and abs(v) <= MAX_TIME


# Each member of a line: its check and what it should be, in words.
_ENVELOPE = {
    "seq": (lambda v: _is_int(v) and v >= 0, "a whole number"),
    "time": (_is_time, f"a time in seconds (a finite number within ±{MAX_TIME:.0e})"),
    "kind": (lambda v: isinstance(v, str), "a string"),
    "key": (lambda v: v is None or isinstance(v, str), "a string or null"),
    "fields": (lambda v: v is None or isinstance(v, dict), "an object"),
    "v": (
        lambda v: v is None or (_is_int(v) and 1 <= v <= TRACE_VERSION),
        f"a trace format this version reads (1 to {TRACE_VERSION}; a newer plugin wrote it?)",
    ),
}

_MEMBERS = frozenset(_ENVELOPE)


def _header_problem(ev: TraceEvent) -> str | None:
    wall = ev.fields.get("wall_time")
    if not (0 <= wall <= MAX_TIME):
        return f"run.info: wall_time={shown(wall)} is not seconds since the epoch (0 to {MAX_TIME:.0e})"
    return None


def iter_events(fh: _LineReader, path: str, warnings: list[str]) -> Iterator[tuple[int, int, TraceEvent]]:
    """(line number, the line's length, event) of each event of the open recording, each
    checked against the trace contract as it is read; RecordingError names
    the first line that is wrong. A bad last line without its newline (a
    run killed mid-write) is dropped with a warning in ``warnings``."""
    pending: tuple[int, bytes | str, str] | None = None  # a bad line: an error unless it was the last one
    latest = -math.inf
    for n, line in _lines(fh, path):
        if pending is not None:
            raise RecordingError(f"{path} line {pending[0]}: {pending[2]}")
        if not line.strip():
            continue
        try:
            ev = _event_of(orjson.loads(line))
        except orjson.JSONDecodeError:
            ev = "not a trace event (expected the NDJSON lines of -o json)"
        if isinstance(ev, str):
            pending = (n, line, ev)
            continue
        t = ev[1]
        if t < latest - MAX_STEP_BACK:
            raise RecordingError(f"{path} line {n}: time runs backwards: {t:g}s, after {latest:g}s on an earlier line")
        if t > latest:
            latest = t
        if ev[2] == RUN_INFO:
            problem = _header_problem(ev)
            if problem:
                raise RecordingError(f"{path} line {n}: {problem}")
            _redact_header(ev[4])  # every reader: held, scanned or streamed
        yield n, len(line), ev
    if pending is not None:
        n, line, problem = pending
        if line.endswith(b"\n") if isinstance(line, bytes) else line.endswith("\n"):
            raise RecordingError(f"{path} line {n}: {problem}")
        warnings.append(
            f"{path} line {n}: the last line is cut mid-event (the recording was interrupted); "
            "replaying the events before it"
        )


def _events(path: str, warnings: list[str]) -> Iterator[tuple[int, int, TraceEvent]]:
    """``iter_events`` of the recording at ``path``, opened and closed;
    RecordingError if the file cannot be read."""
    with contextlib.ExitStack() as files:
        try:
            fh = _open(path, files)
        except OSError as e:
            raise RecordingError(f"cannot read {path}: {e.strerror or e}") from None
        try:
            yield from iter_events(fh, path, warnings)
        except EOFError:
            warnings.append(
                f"{path}: the compressed recording ends early (interrupted?); replaying the events before the cut"
            )
        except OSError as e:
            raise RecordingError(f"cannot read {path}: {getattr(e, 'strerror', None) or e}") from None


@dataclass
class Scan:
    """A first pass over a recording, holding none of its events: what a
    headless replay needs before it prints the first line."""

    path: str
    t0: float = 0.0
    duration: float = 0.0
    events: int = 0
    header: dict | None = None
    workers: bool = False  # worker.* events: a queue run of an older version
    warnings: list[str] = field(default_factory=list)


def scan_recording(path: str) -> Scan:
    """Every line of the file at ``path`` read and checked once (in constant
    memory); RecordingError names the first bad one."""
    scan = Scan(path)
    latest = 0.0
    for _, _, ev in _events(path, scan.warnings):
        if not scan.events:
            scan.t0 = latest = ev.time
        scan.events += 1
        latest = max(latest, ev.time)
        if scan.header is None and ev.kind == RUN_INFO:
            scan.header = dict(ev.fields)
        scan.workers = scan.workers or ev.kind.startswith("worker.")
    if not scan.events:
        raise RecordingError(f"{path}: no trace events in it")
    scan.duration = latest - scan.t0
    return scan


def stream_recording(path: str) -> Iterator[TraceEvent]:
    """The events of a file already scanned, read (and checked) again one
    at a time."""
    for _, _, ev in _events(path, []):
        yield ev


def _compact(fields: dict, shared: dict) -> None:
    """Held events share what repeats (short strings, label maps, lists of
    paths), as the live engine shares an object's labels: a held event costs
    half what it would."""
    for name, v in fields.items():
        if type(v) is str:
            if len(v) <= 64:
                fields[name] = sys.intern(v)
        elif type(v) in (list, dict):
            try:
                ident = (name, tuple(v.items()) if type(v) is dict else tuple(v))
            except TypeError:  # not hashable: kept as it is
                continue
            got = shared.get(ident)
            if got is None and len(shared) < _SHARED:
                got = shared[ident] = v
            if got is not None:
                fields[name] = got


def read_recording(path: str, max_events: int | None = None, max_bytes: int | None = None) -> Recording:
    """The recording at ``path`` (``-``: stdin), its first ``max_events``
    events at most (and ``max_bytes`` of their lines; default MAX_EVENTS
    and MAX_BYTES), with a warning when it holds more; RecordingError if it
    cannot be replayed."""
    max_events = MAX_EVENTS if max_events is None else max_events
    max_bytes = MAX_BYTES if max_bytes is None else max_bytes
    rec = Recording(path, [])
    held = [0]
    shared: dict = {}

    def keep(n: int, size: int, ev: TraceEvent) -> bool:
        if len(rec.events) >= max_events or held[0] + size > max_bytes:
            rec.warnings.append(
                f"{path} line {n}: the replay's cap is reached (it holds {max_events:,} events "
                f"and {max_bytes >> 20} MiB of lines at most); replaying the {len(rec.events):,} "
                "events before it (-o json and -o text of a file read it all)"
            )
            return False
        _compact(ev.fields, shared)
        rec.events.append(ev)
        held[0] += size
        return True

    for n, size, ev in _events(path, rec.warnings):
        if not keep(n, size, ev):
            break
    if not rec.events:
        raise RecordingError(f"{path}: no trace events in it")
    rec.__post_init__()  # the header, now that the events are read
    return rec


def info_from_recording(rec: Recording) -> RunInfo:
    """What the header shows: the recorded run.info, else what informer.start says."""
    events, path = rec.events, rec.path
    mode = "queue" if any(e.kind.startswith("worker.") for e in events) else "watch"
    info = RunInfo(
        resource="(replay)", namespace=None, context=f"replay of {os.path.basename(path)}", mode=mode, replay=path
    )
    h = rec.header
    if h:
        info.resource = str(h.get("resource") or info.resource)
        info.namespace = h.get("namespace")
        # The file is named once, on the replay's own line (tui/replay.py), which 80 columns show.
        info.context = str(h.get("context") or "-")
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
