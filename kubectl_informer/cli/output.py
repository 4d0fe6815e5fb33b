"""Headless renderers for ``-o json`` and ``-o text``.

Both read the same TraceEvents the TUI reads. They write one line per event
and flush it at once, so ``| grep`` and ``| jq`` see each delta as it
happens; a closed pipe (``| head``) raises ``BrokenPipeError`` to the caller,
which ends the run quietly.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import IO, Protocol

from kubectl_informer.core.durations import format_short
from kubectl_informer.core.printable import json_escaped, printable
from kubectl_informer.core.trace import TraceEvent, informer_of
from kubectl_informer.core.trace_kinds import (
    CONTROLLER_WRITE,
    INFORMER_SYNCED,
    OWNER_DROP,
    QUEUE_ADD,
    QUEUE_DONE,
    QUEUE_DROPPED,
    QUEUE_RATE_LIMITED,
    QUEUE_STALE_SKIP,
    REFLECTOR_BACKOFF,
    RELIST,
    REQUEST_RETRY,
    SERVER_FORBIDDEN,
    STORE_ADD,
    STORE_DELETE,
    STORE_UPDATE,
    WATCH_END,
    WORKER_DONE,
)
from kubectl_informer.run.errors import RunError

OUTPUTS = ("tui", "json", "text")


class OutputError(RunError):
    """Writing to stdout (or stderr) failed for another reason than a reader
    that went away: a full disk, an I/O error. Names the stream."""


class TextOut(Protocol):
    """Where a renderer writes its lines: a text stream's ``write`` and
    ``flush``, all a renderer calls (``NamedOutput`` around stdout, or any
    text file)."""

    def write(self, text: str, /) -> int: ...

    def flush(self) -> None: ...


class NamedOutput:
    """A text stream whose failures name it, ``cannot write to stdout: No
    space left on device``; a closed pipe stays a BrokenPipeError (a normal
    end for ``| head``)."""

    def __init__(self, stream: IO[str], name: str) -> None:
        self.stream = stream
        self.name = name

    def _failed(self, e: OSError) -> OutputError:
        return OutputError(f"cannot write to {self.name}: {e.strerror or e}")

    def write(self, text: str) -> int:
        try:
            return self.stream.write(text)
        except BrokenPipeError:
            raise
        except OSError as e:
            raise self._failed(e) from None

    def flush(self) -> None:
        try:
            self.stream.flush()
        except BrokenPipeError:
            raise
        except OSError as e:
            raise self._failed(e) from None


def stdout() -> NamedOutput:
    import sys

    return NamedOutput(sys.stdout, "stdout")


def stderr() -> NamedOutput:
    import sys

    return NamedOutput(sys.stderr, "stderr")


class JsonRenderer:
    """Every TraceEvent as one NDJSON line (the recording format), with
    every character core/printable.py escapes written as a ``\\u`` escape."""

    def __init__(self, out: TextOut) -> None:
        self.out = out
        self.lines = 0

    def render(self, events: Iterable[TraceEvent]) -> int:
        n = 0
        for ev in events:
            # JSON's escapes for what a terminal could act on (C1, bidi): the same data for jq.
            self.out.write(json_escaped(ev.to_json()) + "\n")
            self.out.flush()
            n += 1
        self.lines += n
        return n


_STORE_DELTAS: dict[str, str] = {STORE_ADD: "Added", STORE_UPDATE: "Updated", STORE_DELETE: "Deleted"}


def format_store_event(ev: TraceEvent) -> str | None:
    """``Sync default/web-1 rv=1234 Running`` for a store.* event, else None.

    The first word is the delta that was applied (Added, Updated, Sync,
    Replaced, Deleted); updates add their diff, deletions say whether the
    object came as a DeletedFinalStateUnknown tombstone.
    """
    default_delta = _STORE_DELTAS.get(ev.kind)
    if default_delta is None:
        return None
    f = ev.fields
    delta = f.get("delta") or default_delta
    parts = [str(delta), ev.key or "-", f"rv={f.get('resource_version') or '-'}"]
    informer = informer_of(ev)
    if informer is not None:  # several informers: which resource, before the key
        parts.insert(1, informer)
    summary = f.get("summary")
    if summary:
        parts.append(str(summary))
    if ev.kind == STORE_UPDATE:
        diff = f.get("diff") or []
        if diff:
            parts.append("(" + ", ".join(str(d) for d in diff) + ")")
        elif f.get("old_resource_version") == f.get("resource_version"):
            # Same RV on both sides: a resync or relist handed the object back unchanged.
            parts.append("(no change)")
    elif ev.kind == STORE_DELETE and f.get("tombstone"):
        parts.append("(tombstone: DeletedFinalStateUnknown)")
    if f.get("is_in_initial_list"):
        parts.append("[initial list]")
    return " ".join(parts)


def format_worker_event(ev: TraceEvent) -> str | None:
    """Workqueue outcomes for ``queue -o text``: one line per finished item
    and per rate-limited requeue; with several informers also one per add
    (with the event that caused it and the handler that enqueued it) and per event
    the controller's handlers dropped."""
    f = ev.fields
    if (ev.kind == QUEUE_DONE and "worker" in f) or ev.kind == WORKER_DONE:  # worker.done: older recordings
        dur = f.get("worked", f.get("duration"))
        took = f" {format_short(dur)}" if isinstance(dur, (int, float)) else ""
        return f"Worked {ev.key} worker={f.get('worker')} {f.get('outcome')}{took}"
    if ev.kind == QUEUE_ADD and f.get("cause"):  # several informers: why the key was queued
        chain = " ← ".join(str(link) for link in f["cause"])
        via = f.get("via")  # a handler's name; a recording could hold anything
        via = f" by {via}" if isinstance(via, str) and via.isidentifier() else ""
        return f"Queued {ev.key} ← {chain}{via} ({f.get('outcome')})"
    if ev.kind == OWNER_DROP:
        owner = f" {f.get('owner')}" if f.get("owner") else ""
        return f"Dropped {f.get('informer')} {ev.key} {f.get('event')}: {f.get('reason')}{owner}"
    if ev.kind == QUEUE_STALE_SKIP:
        return (
            f"Skipped {ev.key}: stale {f.get('resource')} cache, read RV {f.get('actual')} < wrote "
            f"{f.get('expected')} (skips={f.get('skips')})"
        )
    if ev.kind == CONTROLLER_WRITE:
        dup = " DUPLICATE (stale cache)" if f.get("duplicate") else ""
        return (
            f"Wrote {f.get('verb')} {f.get('resource')} {f.get('name')} rv={f.get('resource_version')} "
            f"for {ev.key}{dup}"
        )
    if ev.kind == QUEUE_RATE_LIMITED:
        delay = f.get("delay")
        after = f" after {format_short(delay)}" if isinstance(delay, (int, float)) else ""
        return f"Requeue {ev.key}{after} requeues={f.get('requeues')}"
    if ev.kind == QUEUE_DROPPED:  # client-go's example logs "Dropping pod %q out of the queue"
        return f"Gave up {ev.key} after {f.get('requeues')} retries (--max-retries {f.get('max_retries')}): forgotten"
    return None


def no_resources_message(namespace: str | None) -> str:
    """kubectl get's line for an empty result (cluster-wide: no namespace)."""
    return f"No resources found in {namespace} namespace." if namespace else "No resources found"


def format_trouble(ev: TraceEvent, empty_message: str | None = None) -> str | None:
    """What ``-o text`` says on stderr besides the deltas: an empty result
    (as kubectl get), each failure the reflector backs off from, each relist."""
    f = ev.fields
    if ev.kind == INFORMER_SYNCED and not f.get("items") and informer_of(ev) is None:
        return empty_message  # several informers: TextRenderer says it once all synced empty
    if ev.kind == REFLECTOR_BACKOFF and f.get("error"):
        delay = f.get("delay")
        after = format_short(delay) if isinstance(delay, (int, float)) else "a while"
        return f"retrying in {after}: {f.get('error')}"
    if ev.kind == WATCH_END and f.get("error"):
        return f"watch ended: {f.get('error')}"
    if ev.kind == RELIST:
        return f"relisting ({f.get('reason')})"
    if ev.kind == REQUEST_RETRY:
        reason = f" {f.get('reason')}" if f.get("reason") else ""
        delay = f.get("delay")
        after = format_short(delay) if isinstance(delay, (int, float)) else "a while"
        return (
            f"the server answered {f.get('status')}{reason} to a {f.get('verb')} of {f.get('path')}: "
            f"sending it again in {after} (Retry-After; retry {f.get('attempt')} of 10)"
        )
    if ev.kind == SERVER_FORBIDDEN:
        return (
            f"cannot read the API server's /metrics (HTTP {f.get('status')}: {f.get('message')}); "
            f"an RBAC rule allowing {f.get('rule')} would (see --server-scrape)"
        )
    return None


class TextRenderer:
    """One line per delta applied to the cache (store.* events); with
    ``workers=True`` also one per worker outcome and requeue. An informer
    that synced with nothing says ``empty_message`` once on ``err``, where
    kubectl get says it, so a pipe reading deltas never sees it. Every line
    it writes, on either stream, goes through ``printable`` (a server's
    control characters shown escaped, core/printable.py)."""

    def __init__(
        self,
        out: TextOut,
        workers: bool = False,
        empty_message: str | None = None,
        err: TextOut | None = None,
        informers: int = 1,
    ) -> None:
        self.out = out
        self.workers = workers
        self.empty_message = empty_message
        self.err = err
        self.lines = 0
        self.informers = informers  # several: "No resources found" once every one synced with nothing
        self._synced: dict[str, int] = {}

    def _all_synced_empty(self, ev: TraceEvent) -> bool:
        informer = informer_of(ev)
        if ev.kind != INFORMER_SYNCED or informer is None:
            return False
        self._synced[informer] = int(ev.fields.get("items") or 0)
        return len(self._synced) == self.informers and not any(self._synced.values())

    def render(self, events: Iterable[TraceEvent]) -> int:
        n = 0
        for ev in events:
            line = format_store_event(ev)
            if self.err is not None:
                note = format_trouble(ev, self.empty_message)
                if note is None and self.informers > 1 and self._all_synced_empty(ev):
                    note = self.empty_message
                if note is not None:
                    self.err.write(printable(note) + "\n")
                    self.err.flush()
            if line is None and self.workers:
                line = format_worker_event(ev)
            if line is None:
                continue
            self.out.write(printable(line) + "\n")  # names, diffs, messages: the server's words
            self.out.flush()
            n += 1
        self.lines += n
        return n


def make_renderer(
    output: str,
    out: TextOut,
    workers: bool = False,
    informers: int = 1,
    empty_message: str | None = None,
    err: TextOut | None = None,
) -> JsonRenderer | TextRenderer:
    """The renderer for ``-o json`` or ``-o text``; what follows ``workers``
    is TextRenderer's (JSON writes every event as it is)."""
    if output == "json":
        return JsonRenderer(out)
    if output == "text":
        return TextRenderer(out, workers=workers, empty_message=empty_message, err=err, informers=max(1, informers))
    raise ValueError(f"no headless renderer for output {output!r}")
