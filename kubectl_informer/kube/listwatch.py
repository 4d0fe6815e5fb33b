"""A ListerWatcher over a real API server: raw JSON in, dicts out.

Lists are decoded as their bytes arrive (``stream_decode``), item by item
with the GC paused (``decode.gc_pause``; the kubernetes client's model
classes would cost an order of magnitude more). Watches are decoded line by line as the
chunks arrive, so an event reaches the Reflector as soon as the server
flushes it.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import orjson

from kubectl_informer.cache.listwatch import (
    ADDED,
    BOOKMARK,
    ERROR,
    INITIAL_EVENTS_END_ANNOTATION,
    MODIFIED,
    ListOptions,
    WatchEvent,
)
from kubectl_informer.kube import rest
from kubectl_informer.kube.decode import gc_pause
from kubectl_informer.kube.discovery import Resource
from kubectl_informer.kube.errors import one_line
from kubectl_informer.kube.limits import MAX_FRAME, TooLargeError
from kubectl_informer.kube.stream_decode import StringInterner

# A watch asks the server to end it after timeoutSeconds; client-go's typed
# clients also give the request that long as a deadline, so a watch the
# server accepted but never answers (or trickles) ends on the client's side
# too. Ours ends this much after the server should have ended it, so that
# the server's own clean end normally comes first; the Reflector re-watches.
WATCH_READ_GRACE = 5.0
LIST_TIMEOUT = (30.0, 120.0)  # (connect, read) seconds
_CHUNK = 64 * 1024
# The GC stays paused through a WatchList's initial events (see decode.py)
# at most this long, in case the end bookmark never comes.
INITIAL_EVENTS_GC_PAUSE_MAX = 30.0
FREEZE_MIN_ITEMS = 1000
# What client-go's metadata client asks for: objects as PartialObjectMetadata.
ACCEPT_METADATA_LIST = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1"
ACCEPT_METADATA = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1"


class KubeListerWatcher:
    """client-go's ``NewFilteredListWatchFromClient`` for one resource.

    ``namespace=None`` lists and watches all namespaces (and is the only
    choice for cluster-scoped resources). The selectors given here override any
    in the options, as client-go's options modifier does. ``metadata_only``
    lists and watches as client-go's ``metadatainformer``: every object is a
    PartialObjectMetadata (kind, apiVersion, metadata).
    """

    def __init__(
        self,
        api_client: Any,
        resource: Resource,
        namespace: str | None = None,
        label_selector: str | None = None,
        field_selector: str | None = None,
        metadata_only: bool = False,
        watch_read_grace: float = WATCH_READ_GRACE,
    ):
        self.api_client = api_client
        self.resource = resource
        self.namespace = namespace if resource.namespaced else None
        self.label_selector = label_selector
        self.field_selector = field_selector
        self.path = resource.path(self.namespace)
        self.metadata_only = metadata_only
        self.watch_read_grace = watch_read_grace  # a test shows the cut in a second, not in five
        # Shared by every list of this resource: repeated values kept once.
        self.interner = StringInterner()
        # Set by the Reflector to trace a big list's progress: fn(bytes, items).
        self.list_progress = None

    def _selectors(self, options: ListOptions) -> list[tuple[str, Any]]:
        q: list[tuple[str, Any]] = []
        label = self.label_selector if self.label_selector is not None else options.label_selector
        field = self.field_selector if self.field_selector is not None else options.field_selector
        if label:
            q.append(("labelSelector", label))
        if field:
            q.append(("fieldSelector", field))
        return q

    def list(self, options: ListOptions) -> dict:
        q = self._selectors(options)
        if options.resource_version is not None:
            q.append(("resourceVersion", options.resource_version))
        if options.resource_version_match:
            q.append(("resourceVersionMatch", options.resource_version_match))
        if options.limit:
            q.append(("limit", int(options.limit)))
        if options.continue_:
            q.append(("continue", options.continue_))
        if options.timeout_seconds:
            q.append(("timeoutSeconds", int(options.timeout_seconds)))
        accept = ACCEPT_METADATA_LIST if self.metadata_only else rest.ACCEPT_JSON
        result = rest.get_list(
            self.api_client,
            self.path,
            q,
            timeout=LIST_TIMEOUT,
            accept=accept,
            interner=self.interner,
            progress=self.list_progress,
        )
        if not isinstance(result, dict):
            raise ConnectionError(f"{self.path}: expected a List object")
        items = result.get("items")
        if items is None:
            result["items"] = items = []
        # The server leaves kind/apiVersion off list items; client-go's
        # unstructured decoder fills them in, and so do we (kubectl does too).
        kind, api_version = self.resource.kind, self.resource.api_version
        if self.metadata_only:
            kind, api_version = "PartialObjectMetadata", "meta.k8s.io/v1"
        for item in items:
            if "kind" not in item:
                item["kind"] = kind
                item["apiVersion"] = api_version
        return result

    def watch(self, options: ListOptions) -> KubeWatch:
        q: list[tuple[str, Any]] = [("watch", "true")]
        q += self._selectors(options)
        if options.resource_version is not None:
            q.append(("resourceVersion", options.resource_version))
        if options.resource_version_match:
            q.append(("resourceVersionMatch", options.resource_version_match))
        if options.allow_watch_bookmarks:
            q.append(("allowWatchBookmarks", "true"))
        if options.send_initial_events is not None:
            q.append(("sendInitialEvents", "true" if options.send_initial_events else "false"))
        read_timeout = deadline = None
        if options.timeout_seconds:
            q.append(("timeoutSeconds", int(options.timeout_seconds)))
            read_timeout = float(options.timeout_seconds) + self.watch_read_grace
            deadline = time.monotonic() + read_timeout
        resp = rest.get(
            self.api_client,
            self.path,
            q,
            timeout=(30.0, read_timeout),
            accept=ACCEPT_METADATA if self.metadata_only else rest.ACCEPT_JSON,
            verb="watch",
        )
        return KubeWatch(
            resp, initial_events=bool(options.send_initial_events), interner=self.interner, deadline=deadline
        )

    def __repr__(self) -> str:
        return f"KubeListerWatcher({self.path!r})"


class KubeWatch:
    """One watch stream. Iterate for ``WatchEvent``s; ``stop()`` from any
    thread closes the response, which ends the iteration.

    Transport failures and the server closing the stream end the iteration
    quietly (client-go's StreamWatcher does the same for EOF and closed
    connections); a line that is not a watch event ends it with an ERROR event.
    """

    def __init__(
        self,
        resp: Any,
        initial_events: bool = False,
        interner: StringInterner | None = None,
        deadline: float | None = None,
    ):
        self._resp = resp
        self._interner = interner
        self._initial_events = initial_events
        self._deadline = deadline  # time.monotonic() after which the stream is cut
        self._lock = threading.Lock()
        self._stopped = False
        self._closed = False

    def __iter__(self) -> Iterator[WatchEvent]:
        return self._events()

    @property
    def stopped(self) -> bool:
        return self._stopped

    def stop(self) -> None:
        with self._lock:
            if self._stopped:
                return
            self._stopped = True
        with contextlib.suppress(Exception):  # a response already closed has nothing to unblock
            # shutdown() unblocks a read in progress on another thread.
            self._resp.shutdown()
        self._close()

    def _close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
        try:
            self._resp.close()
            self._resp.release_conn()
        except Exception:  # noqa: BLE001  closing a dead stream may fail any way
            pass

    def _chunks(self) -> Iterator[bytes]:
        """The stream's bytes as they arrive, at most _CHUNK at a time (an
        HTTP chunk's declared size is the server's word, not a bound), until
        it ends or its deadline passes."""
        resp = self._resp
        deadline = self._deadline
        if resp.chunked and resp.supports_chunked_reads():
            pieces = resp.read_chunked(_CHUNK, decode_content=True)
        else:
            # A close-delimited or sized body, or the light client's
            # (http.client undoes the chunking): whatever has arrived.
            pieces = iter(lambda: resp.read1(_CHUNK), b"")
        set_timeout = _read_timeout_setter(resp)
        for data in pieces:
            yield data
            if deadline is not None:
                left = deadline - time.monotonic()
                if left <= 0:
                    return  # the watch's own timeout, as a trickle never trips a read timeout
                if set_timeout is not None:
                    set_timeout(left)

    def _events(self) -> Iterator[WatchEvent]:
        # A WatchList's initial events are the whole collection: decode them
        # with the GC paused, as a big List (decode.py), until the end bookmark.
        paused = self._initial_events
        if paused:
            gc_pause.acquire()
            pause_until = time.monotonic() + INITIAL_EVENTS_GC_PAUSE_MAX
        pending = bytearray()  # a line split across chunks
        initial = 0
        try:
            for ev in self._decoded(pending):
                if paused:
                    if ev.type == ADDED and time.monotonic() <= pause_until:
                        initial += 1
                    else:
                        paused = False
                        # Freeze only a big collection, as a list's decode does.
                        gc_pause.release(
                            freeze=initial >= FREEZE_MIN_ITEMS
                            and ev.type == BOOKMARK
                            and _is_initial_events_end(ev.object)
                        )
                yield ev
        except _stream_ended():
            # Reset, timeout, or stop() closing the socket under us: the
            # stream is over; the Reflector decides what happens next.
            return
        finally:
            if paused:
                gc_pause.release()
            self._close()

    def _decoded(self, pending: bytearray) -> Iterator[WatchEvent]:
        for chunk in self._chunks():
            if self._stopped:
                return
            start = 0
            while True:
                nl = chunk.find(b"\n", start)
                if nl < 0:
                    if start < len(chunk):
                        pending += chunk[start:] if start else chunk
                        if len(pending) > MAX_FRAME:
                            yield _too_large()
                            return
                    break
                if pending:
                    pending += chunk[start:nl]
                    line: Any = bytes(pending)
                    pending.clear()
                else:
                    line = memoryview(chunk)[start:nl]  # no copy for the common case
                start = nl + 1
                if len(line) > MAX_FRAME:
                    yield _too_large()
                    return
                ev, bad = _decode(line)
                if ev is not None:
                    yield self._shared(ev)
                if bad:
                    return
        if pending and not self._stopped:
            # A final line without its newline: an event if complete; a
            # truncated one is an unexpected EOF, which ends quietly.
            ev, bad = _decode(pending)
            if ev is not None and not bad:
                yield self._shared(ev)

    def _shared(self, ev: WatchEvent) -> WatchEvent:
        """An object the cache will hold (ADDED, MODIFIED: a WatchList's initial
        events are the whole collection) shares its repeating parts with the
        listed ones, as a List's items do (stream_decode.StringInterner)."""
        if self._interner is not None and (ev.type == ADDED or ev.type == MODIFIED):
            self._interner.intern(ev.object)
        return ev


def _read_timeout_setter(resp: Any) -> Callable[[float], None] | None:
    """A way to bound the next read of ``resp`` (the light client's own, or
    the socket under a urllib3 response), or None."""
    setter = getattr(resp, "set_read_timeout", None)
    if setter is not None:
        return setter
    sock = getattr(getattr(resp, "connection", None), "sock", None)
    if sock is None:
        return None

    def set_timeout(seconds: float) -> None:
        with contextlib.suppress(OSError):
            sock.settimeout(max(seconds, 0.001))

    return set_timeout


def _is_initial_events_end(obj: Any) -> bool:
    try:
        return obj["metadata"]["annotations"][INITIAL_EVENTS_END_ANNOTATION] == "true"
    except (KeyError, TypeError):
        return False


def _error_event(message: str) -> WatchEvent:
    return WatchEvent(
        ERROR,
        {
            "kind": "Status",
            "apiVersion": "v1",
            "status": "Failure",
            "code": 500,
            "reason": "InternalError",
            "message": message,
        },
    )


def _too_large() -> WatchEvent:
    """What client-go's StreamWatcher sends when its decoder refuses a frame
    beyond 16 MiB: an ERROR event ending the watch (the Reflector relists
    after its back-off)."""
    err = TooLargeError("an event (one line of the stream)", MAX_FRAME)
    return _error_event(f"unable to decode an event from the watch stream: {err}")


def _decode(line: Any) -> tuple[WatchEvent | None, bool]:
    """(event, undecodable); blank lines give (None, False)."""
    try:
        ev = orjson.loads(line)
        return WatchEvent(ev["type"], ev.get("object")), False
    except (orjson.JSONDecodeError, KeyError, TypeError) as e:
        text = bytes(line[:80]).decode("utf-8", "replace")
        if not text.strip():
            return None, False
        return _error_event(f"unable to decode watch event: {one_line(e, 120)}: {text!r}"), True


def _stream_ended() -> tuple[type[BaseException], ...]:
    """What reading a watch's stream raises when it is over (looked up as it
    ends: urllib3 is imported only with the kubernetes client)."""
    return (*rest._broken_body_errors(), OSError, ValueError, AttributeError)
