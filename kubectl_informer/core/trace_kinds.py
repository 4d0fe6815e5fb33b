"""The trace contract: every event kind, its key and its fields, declared once.

Emitters pass these ``Kind`` constants to ``Tracer.emit``; ``output.py``, the
panes' dispatch, the recorder, ``replay`` and the tests' trace builders read
the same declaration, and ``docs/design-notes.md`` holds a table generated
from it (``python -m kubectl_informer.core.trace_kinds`` prints it).

A ``Kind`` is a ``str`` (its dotted name), so emitting costs what a string
constant costs and recorded JSON stays a plain name. Nothing is checked on
the hot path: ``check_event`` validates an event against its declaration, and
the tests (and ``KUBECTL_INFORMER_TRACE_CHECK=1``) run every emitted event
through it.

Recordings: lines written since this contract carry ``"v": 2``. Lines
without ``v`` (version 1) are upgraded on reading by ``upgrade_v1``: the only
fact version 1 left in prose, whether a watch ended because its
resourceVersion expired (410), is derived from that prose once, there.

Why this module is long: it is the contract, every kind with every field and
its meaning in one place, so that one file answers "what does this event say".
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

TRACE_VERSION = 2

# Field types: a name from _CHECKS; "?" after it: the value may be None.
_CHECKS: dict[str, Callable[[Any], bool]] = {
    "str": lambda v: isinstance(v, str),
    "int": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "float": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "bool": lambda v: isinstance(v, bool),
    "list[str]": lambda v: isinstance(v, (list, tuple)) and all(isinstance(x, str) for x in v),
    "dict[str,str]": lambda v: (
        isinstance(v, dict) and all(isinstance(k, str) and isinstance(x, str) for k, x in v.items())
    ),
    "object": lambda v: True,  # an in-process reference (a ``local`` field)
}


class Field:
    __slots__ = ("name", "type", "doc", "optional", "choices", "base", "test", "nullable")

    def __init__(
        self, name: str, type: str, doc: str, optional: bool = False, choices: tuple[str, ...] | None = None
    ) -> None:
        base = type.rstrip("?")
        if base not in _CHECKS:
            raise ValueError(f"field {name}: unknown type {type!r}")
        self.name, self.type, self.doc, self.optional, self.choices = name, type, doc, optional, choices
        self.base, self.test, self.nullable = base, _CHECKS[base], type.endswith("?")

    def check(self, value: Any) -> str | None:
        if value is None:
            return None if self.type.endswith("?") else f"{self.name} is None, declared {self.type}"
        if not _CHECKS[self.type.rstrip("?")](value):
            return f"{self.name}={value!r} is not {self.type}"
        if self.choices is not None and value not in self.choices:
            return f"{self.name}={value!r} is not one of {', '.join(self.choices)}"
        return None


class Kind(str):
    """An event kind: its dotted name, whether it is keyed by an object, its
    fields, fields derived lazily (``derive``: name -> function of the
    event's fields, computed when a reader asks), and local fields:
    references handed to readers in the process (the UI) and never written
    to JSON, so recordings and ``-o json`` stay small."""

    fields: dict[str, Field]
    keyed: str  # "yes" | "no" | "maybe"
    doc: str
    derive: dict[str, Callable[[dict[str, Any]], Any]]
    derived: tuple[str, ...]
    local: tuple[str, ...]
    required: tuple[str, ...]  # the fields every event of the kind carries (not optional, not local)

    def __new__(
        cls,
        name: str,
        doc: str,
        keyed: str,
        fields: Iterable[Field],
        derive: Mapping[str, Callable[[dict[str, Any]], Any]] | None = None,
        local: tuple[str, ...] = (),
    ) -> Kind:
        k = super().__new__(cls, name)
        k.doc, k.keyed, k.fields, k.local = doc, keyed, {f.name: f for f in fields}, local
        k.derive = dict(derive or {})
        k.derived = tuple(k.derive)
        k.required = tuple(f.name for f in k.fields.values() if not f.optional and f.name not in local)
        return k

    # A Kind is its name wherever a str is: dict keys, ==, JSON.
    __hash__ = str.__hash__
    __eq__ = str.__eq__

    def __reduce__(self) -> tuple[type[str], tuple[str]]:
        return str, (str(self),)


KINDS: dict[str, Kind] = {}


def _kind(
    name: str,
    doc: str,
    keyed: str = "no",
    *fields: Field,
    derive: Mapping[str, Callable[[dict[str, Any]], Any]] | None = None,
    local: tuple[str, ...] = (),
) -> Kind:
    if name in KINDS:  # two declarations of one kind: the second would hide the first
        raise ValueError(f"trace kind {name!r} is declared twice")
    k = Kind(name, doc, keyed, fields, derive, local)
    KINDS[name] = k
    return k


F = Field
_RV = "a resourceVersion"
DELTA_TYPES = ("Added", "Updated", "Deleted", "Replaced", "Sync", "ReplacedAll", "SyncAll", "Bookmark")
WATCH_TYPES = ("ADDED", "MODIFIED", "DELETED", "BOOKMARK")
_DELTA = F("type", "str", "the delta's type", choices=DELTA_TYPES)
_DEPTH = F("depth", "int", "keys (DeltaFIFO) or entries (RealFIFO) queued after this step")
_PENDING = F("pending", "int", "deltas now queued for the key")
_WATCH_LIST = F("watch_list", "bool", "the initial list is a WatchList stream")
_ERROR = F("error", "str", "the error, one line")
_LISTENER = F("listener", "str", "the handler's listener name")
# The object's labels (the decoded map itself, shared, never copied), for /label: filters.
_LABELS = F("labels", "dict[str,str]?", "the object's metadata.labels", optional=True)

# --- reflector --------------------------------------------------------------------------
LIST_START = _kind(
    "list.start",
    "a LIST (or WatchList stream) begins",
    "no",
    F("resource_version", "str", "the RV asked for"),
    _WATCH_LIST,
)
LIST_PAGE = _kind(
    "list.page",
    "one page of a paged LIST came back",
    "no",
    F("resource_version", "str", _RV),
    F("items", "int", "objects in the page"),
    F("continue", "str", "the continue token, empty on the last page"),
    F("duration", "float", "seconds the page took"),
    _WATCH_LIST,
    F("bytes", "int", "bytes read for the page, when the ListerWatcher reports them", optional=True),
    F(
        "full_list_if_expired",
        "bool",
        "the pager's full list at the requested RV after its continue token expired",
        optional=True,
    ),
)
LIST_PROGRESS = _kind(
    "list.progress",
    "a page is arriving: the list so far (at most every 100 ms)",
    "no",
    F("pages", "int", "pages done"),
    F("items", "int", "objects decoded so far"),
    F("bytes", "int", "bytes read so far"),
    F("elapsed", "float", "seconds since the list began"),
)
LIST_DONE = _kind(
    "list.done",
    "the initial list is complete, or failed",
    "no",
    F("resource_version", "str", "the list's RV, empty when it failed"),
    F("items", "int", "objects listed"),
    F("duration", "float", "seconds the list took"),
    _WATCH_LIST,
    F("continue", "str", "always empty", optional=True),
    F("error", "str", "why it failed or fell back to LIST", optional=True),
)
REFLECTOR_BACKOFF = _kind(
    "reflector.backoff",
    "the reflector waits out its back-off before trying again",
    "no",
    F("delay", "float", "seconds it waits"),
    F("error", "str", "the failure that caused it", optional=True),
)
REQUEST_RETRY = _kind(
    "request.retry",
    "the REST client got a 429 or 5xx answer with Retry-After and sends the "
    "request again after that many seconds, as client-go's rest client does (checkWait, at most "
    "10 retries); the caller sees only the last answer",
    "no",
    F("status", "int", "the answer's HTTP status"),
    F("attempt", "int", "which retry this is (1 to 10)"),
    F("delay", "float", "seconds it waits first (the Retry-After header)"),
    F("path", "str", "the request's path (no query)"),
    F("verb", "str", "list, watch or get", choices=("list", "watch", "get")),
    F("reason", "str", "the Status reason of the answer (empty when it had none)"),
)
RELIST = _kind(
    "relist",
    "the reflector lists again",
    "no",
    F("reason", "str", "why", choices=("expired", "too_large", "error", "watch_closed", "forgotten")),
)
# A watch event moves the last synced RV to its own RV: its ``watch.event``
# says so, and no rv.advance follows it (recordings made before say "event").
RV_ADVANCE = _kind(
    "rv.advance",
    "a list or a bookmark moved the last synced resourceVersion "
    "(a watch event moves it to the event's own: see watch.event)",
    "no",
    F("old", "str", "the previous RV"),
    F("new", "str", "the new RV"),
    F("source", "str", "what moved it", choices=("list", "event", "bookmark")),
)
WATCH_START = _kind("watch.start", "a watch opens", "no", F("resource_version", "str", "the RV it starts from"))
WATCH_END = _kind(
    "watch.end",
    "a watch ended",
    "no",
    F("resource_version", "str", "the last RV seen"),
    F("reason", "str", "a clean end", optional=True, choices=("stopped", "closed", "closed before initial-events-end")),
    F("error", "str", "the error that ended it", optional=True),
    F("expired", "bool", "410 Gone: the RV is too old; the reflector relists"),
    F("watch_list", "bool", "the watch was a WatchList stream", optional=True),
)
WATCH_EVENT = _kind(
    "watch.event",
    "an ADDED/MODIFIED/DELETED watch event arrived",
    "yes",
    F("type", "str", "the event type", choices=WATCH_TYPES),
    F("resource_version", "str", _RV),
)
WATCH_BOOKMARK = _kind("watch.bookmark", "a BOOKMARK watch event arrived", "no", F("resource_version", "str", _RV))
WATCH_SKIPPED = _kind(
    "watch.skipped",
    "a watch event the reflector could not understand (no metadata, an unknown "
    'type) was skipped, as client-go skips it after logging "unable to understand watch event"',
    "no",
    F("type", "str", "the event's type, as sent"),
    F("reason", "str", "why it was skipped", choices=("no metadata", "unknown type")),
)

# --- FIFOs -------------------------------------------------------------------------------
FIFO_QUEUE = _kind(
    "fifo.queue",
    "a delta queued for a key not yet queued (RealFIFO: every delta)",
    "maybe",
    _DELTA,
    _DEPTH,
    _PENDING,
    _LABELS,
    F("resource_version", "str", "RV of a keyless ReplacedAll or Bookmark entry", optional=True),
    F("objects", "int", "objects in a keyless ReplacedAll entry", optional=True),
)
FIFO_COALESCE = _kind(
    "fifo.coalesce", "a delta appended to a key already queued (DeltaFIFO)", "yes", _DELTA, _PENDING, _DEPTH, _LABELS
)
FIFO_DEDUP = _kind(
    "fifo.dedup",
    "two trailing deletions collapsed into one (DeltaFIFO dedupDeltas)",
    "yes",
    _DELTA,
    F("dropped", "str", "the deletion dropped", choices=("tombstone", "object")),
    F("kept", "str", "the deletion kept", choices=("tombstone", "object")),
    _PENDING,
    _DEPTH,
)
FIFO_SKIP = _kind(
    "fifo.skip",
    "a delta the FIFO did not queue",
    "yes",
    _DELTA,
    F("reason", "str", "why", choices=("unknown_delete", "resync_pending")),
)
FIFO_POP = _kind(
    "fifo.pop",
    "the oldest key's deltas handed to the informer",
    "maybe",
    F("types", "list[str]", "the deltas' types, oldest first"),
    F("is_in_initial_list", "bool", "part of the initial list"),
    F("waited", "float?", "seconds queued (None when not measured)"),
    _DEPTH,
)


# --- informer ---------------------------------------------------------------------------
# The store events carry the objects the informer holds (local fields); what
# a reader shows is derived from them when it asks, so the engine pays for
# none of it (the imports are deferred: this module declares, cache/ computes).
def _summary(f: dict[str, Any]) -> str:
    from kubectl_informer.core.diff import summarize

    return summarize(f.get("object"))


def _labels(f: dict[str, Any]) -> dict[str, Any] | None:
    from kubectl_informer.core.objects import labels_of

    return labels_of(f.get("object"))


def _diff(f: dict[str, Any]) -> list[str]:
    from kubectl_informer.core.diff import diff_summary

    return diff_summary(f.get("old"), f.get("object"))


def _predicates(f: dict[str, Any]) -> list[str]:
    from kubectl_informer.core.predicates import update_predicates

    return update_predicates(f.get("old"), f.get("object"))


_STORE = (
    F("resource_version", "str", "the object's RV"),
    F("delta", "str", "the delta applied", choices=DELTA_TYPES),
    F("summary", "str", "status in a word or two (phase, ready counts; derived: computed when read)"),
    F("is_in_initial_list", "bool", "part of the initial list"),
    F("object", "object?", "the object applied (local: in the process only, never in JSON)", optional=True),
    _LABELS,
)
_STORE_DERIVE = {"summary": _summary, "labels": _labels}
STORE_ADD = _kind(
    "store.add", "a delta added an object to the indexer", "yes", *_STORE, derive=_STORE_DERIVE, local=("object",)
)
STORE_UPDATE = _kind(
    "store.update",
    "a delta replaced an object in the indexer",
    "yes",
    *_STORE,
    F("old_resource_version", "str", "the replaced object's RV"),
    F("old", "object?", "the object replaced (local)", optional=True),
    F(
        "diff",
        "list[str]",
        "every changed path, status first, without resourceVersion/managedFields noise (derived: computed when read)",
    ),
    F(
        "predicates",
        "list[str]",
        "controller-runtime update predicates that would pass it (derived; see predicates.py)",
        optional=True,
    ),
    derive={**_STORE_DERIVE, "diff": _diff, "predicates": _predicates},
    local=("object", "old"),
)
STORE_DELETE = _kind(
    "store.delete",
    "a delta removed an object from the indexer",
    "yes",
    *_STORE,
    F("tombstone", "bool", "the object came as a DeletedFinalStateUnknown"),
    derive=_STORE_DERIVE,
    local=("object",),
)
INDEX_UPDATE = _kind(
    "index.update",
    "an object's values on one index changed (Indexer.updateSingleIndex): the "
    "key now sits under exactly these values; emitted on every add and when they change, never for "
    "the namespace index (its value is the key's namespace)",
    "yes",
    F("index", "str", 'the index\'s name (cache.NamespaceIndex is "namespace")'),
    F("values", "list[str]", "the key's values on it now (empty: under none, or deleted)"),
)
_SAMPLE = (
    F("bytes", "int", "bytes the object holds, as it enters the FIFO"),
    F("objects", "int", "objects the transform has seen"),
    F("every", "int", "one object in every this many is measured"),
)
TRANSFORM = _kind(
    "transform",
    "a sampled object before and after the transforms (SetTransform)",
    "yes",
    *_SAMPLE,
    F("bytes_before", "int", "bytes before the transforms"),
    F("transforms", "list[str]", "the transforms set"),
    F("applied", "list[str]", "those that changed it"),
)
OBJECT_SIZE = _kind("object.size", "a sampled object's size (no transform set)", "yes", *_SAMPLE)
INFORMER_START = _kind(
    "informer.start",
    "the informer runs",
    "no",
    F("fifo", "str", "the FIFO's label (DeltaFIFO, RealFIFO, RealFIFO (atomic))"),
    _WATCH_LIST,
    F("initial_list", "str", "the initial list's label", optional=True),
    F("resync_check_period", "float", "seconds between resync checks (0: none)"),
    F("indexers", "dict[str,str]", "the indexer's IndexFuncs: name -> what it reads", optional=True),
)
INFORMER_SYNCED = _kind(
    "informer.synced",
    "has_synced turned true",
    "no",
    F("items", "int", "objects in the cache"),
    F("duration", "float", "seconds since the informer started"),
    F("resource_version", "str", "the last synced resourceVersion then", optional=True),
)
INFORMER_ERROR = _kind("informer.error", "a delta could not be applied to the indexer", "no", _ERROR)
INFORMER_BOOKMARK = _kind(
    "informer.bookmark", "a Bookmark delta popped (atomic RealFIFO)", "no", F("resource_version", "str", _RV)
)
RESYNC_TICK = _kind(
    "resync.tick",
    "a resync check ran",
    "no",
    F("due", "list[str]", "listeners resynced"),
    F("check_period", "float", "seconds"),
)
HANDLER_REGISTER = _kind(
    "handler.register",
    "a handler was added",
    "no",
    _LISTENER,
    F("requested", "float", "the resync period asked for"),
    F("effective", "float", "the period it gets"),
    F("check_period", "float", "the informer's resync check period"),
    F("reason", "str?", "why effective differs from requested"),
)
_HANDLER = (
    _LISTENER,
    F("is_sync", "bool", "a resync (same RV on both sides)"),
    F("buffered", "int", "notifications waiting in the listener", optional=True),
    F("synthetic", "bool", "an add replayed for a handler added late", optional=True),
)
HANDLER_ADD = _kind("handler.add", "an add notification for a listener", "yes", *_HANDLER)
HANDLER_UPDATE = _kind("handler.update", "an update notification for a listener", "yes", *_HANDLER)
HANDLER_DELETE = _kind("handler.delete", "a delete notification for a listener", "yes", *_HANDLER)
HANDLER_ERROR = _kind("handler.error", "a handler raised", "no", _LISTENER, _ERROR)
HANDLER_SYNCED = _kind(
    "handler.synced",
    "a registration's HasSynced turned true: the informer has synced and "
    "this handler has handled every add of the initial list (or of the cache replayed to a "
    "handler added late)",
    "no",
    _LISTENER,
    F("initial", "int", "the initial-list adds it handled first"),
)

# --- handler lanes (each listener's buffer and pace) ---------------------------------------
HANDLER_LANE = _kind(
    "handler.lane",
    "a listener's handler finished notifications: its buffer and pace "
    "(at most every 0.25 s, after each slow call, and once when it goes idle)",
    "no",
    _LISTENER,
    F("pending", "int", "notifications still waiting in its buffer"),
    F("handled", "int", "notifications its handler has finished"),
    F("call", "float", "seconds the last handler call took"),
    F("slow", "bool", "more than 10 pending and the last call took 100 ms or more"),
)

# --- workqueue and the sample controller --------------------------------------------------
QUEUE_ADD = _kind(
    "queue.add",
    "add(item)",
    "yes",
    F("outcome", "str", "what add did", choices=("queued", "already_dirty", "dirty_while_processing")),
    F("depth", "int", "items queued"),
    F(
        "cause",
        "list[str]",
        "several informers: the event that led to this add, "
        '"<Kind> <namespace/name> <Added|Updated|Deleted|Sync>" (recordings before 2026-12-05 may '
        "hold a chain of links, newest first)",
        optional=True,
    ),
    F(
        "via",
        "str",
        "several informers: the upstream handler function that enqueued it "
        "(EnqueueRequestForOwner, addReplicaSet, deletePod...)",
        optional=True,
    ),
)
_WORKER = F(
    "worker", "int", "the sample controller's worker number (absent for a queue it does not drain)", optional=True
)
QUEUE_GET = _kind(
    "queue.get",
    "a worker got an item",
    "yes",
    F("waited", "float?", "seconds queued"),
    F("depth", "int", "items queued"),
    _WORKER,
)
QUEUE_DONE = _kind(
    "queue.done",
    "done(item)",
    "yes",
    F("worked", "float?", "seconds processing"),
    F("requeued", "bool", "dirty again while processing: queued again"),
    _WORKER,
    F(
        "outcome",
        "str",
        "the sample controller's verdict: ok, or error (rate-limited again)",
        optional=True,
        choices=("ok", "error"),
    ),
)
QUEUE_ADD_AFTER = _kind("queue.add_after", "add_after(item, delay)", "yes", F("delay", "float", "seconds"))
QUEUE_RATE_LIMITED = _kind(
    "queue.rate_limited",
    "add_rate_limited(item)",
    "yes",
    F("delay", "float", "the limiter's back-off, seconds"),
    F("requeues", "int", "failures so far"),
)
QUEUE_FORGET = _kind(
    "queue.forget",
    "forget(item) of an item that had failed: its back-off starts over "
    "(forgetting one with no failures changes nothing and is not traced)",
    "yes",
    F("requeues", "int", "failures before forgetting"),
)
QUEUE_DROPPED = _kind(
    "queue.dropped",
    "the sample controller gave up on an item: it failed with NumRequeues at "
    "--max-retries, so it was forgotten and the error reported (client-go's examples/workqueue "
    "handleErr), not requeued",
    "yes",
    F("requeues", "int", "NumRequeues when it gave up (the limit)"),
    F("max_retries", "int", "--max-retries"),
    _WORKER,
)
QUEUE_SHUTDOWN = _kind(
    "queue.shutdown", "shut_down() or shut_down_with_drain()", "no", F("drain", "bool", "shut_down_with_drain")
)
# Recordings made before 2026-11-25 carry these; the sample controller's
# queue.get and queue.done now say which worker, and how it went.
WORKER_START = _kind(
    "worker.start",
    "a worker starts on an item (older recordings; now queue.get's worker)",
    "yes",
    F("worker", "int", "worker number"),
)
WORKER_DONE = _kind(
    "worker.done",
    "a worker finished an item (older recordings; now queue.done's worker and outcome)",
    "yes",
    F("worker", "int", "worker number"),
    F("outcome", "str", "ok or error", choices=("ok", "error")),
    F("duration", "float", "seconds it worked"),
)

# --- owner mapping (several informers, one workqueue: run/owners.py) -----------------------
OWNER_DROP_REASONS = (
    "no_controller",
    "uid_mismatch",
    "owner_not_cached",
    "not_queue_kind",
    "bad_api_version",
    "resync",
    "no_match",
    "not_recreate",
    "pods_remain",
)
OWNER_DROP = _kind(
    "owner.drop",
    "an owned object's event enqueued nothing: the controller's handler found no "
    "key of the queue's resource for it, or skipped it (the reason says which rule)",
    "yes",
    F("informer", "str", "the informer the event came from"),
    F("event", "str", "the event", choices=("Added", "Updated", "Deleted", "Sync")),
    F("reason", "str", "why nothing was enqueued", choices=OWNER_DROP_REASONS),
    F("owner", "str", 'the owner that failed, "<Kind> <namespace/name>", or empty'),
)

# --- staleness (client-go 1.36 store RV; kube-controller-manager's ConsistencyStore) -------
STORE_RV_SOURCES = ("sim", "reflector")
INFORMER_STORE_RV = _kind(
    "informer.store_rv",
    "sampled: an informer store's last resource version "
    "(Store.LastStoreSyncResourceVersion) beside the newest RV known of the server",
    "no",
    F("store_rv", "str", 'the store\'s RV ("" before client-go 1.36 or before any event)'),
    F("server_rv", "str", 'the server\'s newest RV as known ("" if unknown)'),
    F("lag", "int?", "server_rv - store_rv in RV units, when both are numbers"),
    F(
        "source",
        "str",
        "where server_rv comes from: the simulator (exact), or the "
        "newest RV our reflectors hold (a real cluster: the lag is then our own backlog)",
        choices=STORE_RV_SOURCES,
    ),
)
QUEUE_STALE_SKIP = _kind(
    "queue.stale_skip",
    "the controller skipped a sync: its cache has not caught up with "
    "its own writes (ConsistencyStore.EnsureReady failed); the key is requeued rate-limited",
    "yes",
    F("group", "str", "the group of the resource behind"),
    F("resource", "str", "the resource whose store is behind"),
    F("expected", "str", "the RV the controller wrote at"),
    F("actual", "str", "the RV the store has read"),
    F("skips", "int", "stale-sync skips so far (stale_sync_skips_total)"),
)
CONTROLLER_WRITE = _kind(
    "controller.write",
    "the demo controller wrote to the simulator for this key (its ConsistencyStore.WroteAt records the RV)",
    "yes",
    F("verb", "str", "create, delete or update_status", choices=("create", "delete", "update_status")),
    F("resource", "str", "what it wrote"),
    F("name", "str", "the object written"),
    F("resource_version", "str", "the RV the server gave the write"),
    F(
        "duplicate",
        "bool",
        "a create the server did not need: it already had the replicas asked for (the cache was stale)",
    ),
    F("consistency", "bool", "whether the read-your-own-writes check was on"),
)
CONTROLLER_CONSISTENCY = _kind(
    "controller.consistency", "the read-your-own-writes check was turned on or off", "no", F("enabled", "bool", "on")
)

# --- experiments (key x in the UI) ----------------------------------------------------------
EXPERIMENT_NAMES = (
    "close-watch",
    "forget-rv",
    "pause-fifo",
    "resume-fifo",
    "pause-workers",
    "resume-workers",
    "fail-next",
    "add-handler",
    "expired-storm",
    "compaction",
    "drop-watches",
    "burst",
)
EXPERIMENT = _kind(
    "experiment",
    "the user ran an experiment from the UI (key x)",
    "maybe",
    F("name", "str", "which experiment", choices=EXPERIMENT_NAMES),
    F("detail", "str", "what it did, in a line"),
    F("count", "int", "how many: items to fail, 410s, updates", optional=True),
    F("period", "float", "the resync period asked for the new handler", optional=True),
)
EXPERIMENT_FAILED = _kind(
    "experiment.failed",
    "a worker failed its item on purpose (fail the next N)",
    "yes",
    F("worker", "int", "worker number"),
    F("left", "int", "failures still to come"),
)

# --- the run --------------------------------------------------------------------------------
RUN_ERROR = _kind(
    "run.error",
    "an engine thread died; the run ends and reports it",
    "no",
    F("thread", "str", "the thread's name"),
    _ERROR,
)
RUN_INFO = _kind(
    "run.info",
    "what the run is, once before it starts: the header of -o json and recordings",
    "no",
    F("resource", "str", "the resource watched"),
    F("namespace", "str?", "the namespace, None for all namespaces"),
    F("context", "str", "the kubeconfig context"),
    F("server", "str", "the API server"),
    F("profile", "str", "--client-go"),
    F("fifo", "str", "the FIFO's label"),
    F("initial_list", "str", "the initial list's label"),
    F("resync", "float", "--resync, seconds"),
    F("mode", "str", "watch or queue"),
    F("args", "list[str]", "the command line after `kubectl informer`"),
    F("wall_time", "float", "seconds since the epoch when this event was emitted"),
    F("version", "str", "the plugin's version"),
    F("label_selector", "str?", "-l", optional=True),
    F("field_selector", "str?", "--field-selector", optional=True),
    F("demo", "str?", "the --demo scenario", optional=True),
    F(
        "tls_verify",
        "bool",
        "False when the server's certificate is not verified (insecure-skip-tls-verify)",
        optional=True,
    ),
    F("informers", "list[str]", "several informers: their resources, the queue's first", optional=True),
    F("queue_resource", "str", "several informers: the resource whose keys the workqueue holds", optional=True),
)

# --- restarts within one UI (`:` commands, the profile switch) -----------------------------------
RUN_RESTART = _kind(
    "run.restart",
    "the pipeline restarted on the same cluster: the old run's threads "
    "are joined, the events after this belong to the new run",
    "no",
    F("resource", "str", "the resource now watched"),
    F("namespace", "str?", "its namespace (None: all namespaces)"),
    F("client_go", "str", "the profile's client-go version"),
    F("fifo", "str", "the FIFO's label"),
    _WATCH_LIST,
    F("restarts", "int", "restarts so far in this UI"),
    F("took", "float", "seconds from the request to the old run stopped"),
    F("informers", "list[str]", "several informers: the new run's, the queue's first (absent: one)", optional=True),
)


# Several informers in one run: each informer's pipeline says which it is
# (``trace.InformerTracer``), on every kind it emits. One-informer runs leave it out.
INFORMER_FIELD = F(
    "informer",
    "str",
    "several informers: the resource of the informer that emitted it (trace.informer_of)",
    optional=True,
)
PER_INFORMER = (
    LIST_START,
    LIST_PAGE,
    LIST_PROGRESS,
    LIST_DONE,
    REFLECTOR_BACKOFF,
    RELIST,
    RV_ADVANCE,
    WATCH_START,
    WATCH_END,
    WATCH_EVENT,
    WATCH_BOOKMARK,
    WATCH_SKIPPED,
    FIFO_QUEUE,
    FIFO_COALESCE,
    FIFO_DEDUP,
    FIFO_SKIP,
    FIFO_POP,
    STORE_ADD,
    STORE_UPDATE,
    STORE_DELETE,
    INDEX_UPDATE,
    TRANSFORM,
    OBJECT_SIZE,
    INFORMER_START,
    INFORMER_SYNCED,
    INFORMER_ERROR,
    INFORMER_BOOKMARK,
    RESYNC_TICK,
    HANDLER_REGISTER,
    HANDLER_ADD,
    HANDLER_UPDATE,
    HANDLER_DELETE,
    HANDLER_ERROR,
    HANDLER_LANE,
    HANDLER_SYNCED,
    INFORMER_STORE_RV,
)
for _k in PER_INFORMER:
    _k.fields["informer"] = INFORMER_FIELD
# --- the API server's side of the watch (the Server pane, key s) ----------------------------------
# From the simulator's watch cache (exact, read from its sim-only debug endpoint) or from a
# real API server's /metrics. Polled, never on the hot path; see run/server_poll.py.
_RESOURCE = F("resource", "str", "the resource watched, as the server names it (pods, deployments.apps)")
SERVER_WINDOW = _kind(
    "server.window",
    "the simulator's watch-cache window for the resource (exact; emitted when it changes, at most every 500 ms)",
    "no",
    F("source", "str", "where the figures come from", choices=("sim",)),
    _RESOURCE,
    F("oldest_rv", "str", "the oldest RV a watch may start from without 410"),
    F("newest_rv", "str", "the newest RV the cache holds"),
    F("capacity", "int", "the cyclic buffer's capacity (events)"),
    F("events", "int", "events held in the window"),
    F("turnover", "float", "events per second entering the window (over the last 10 s)"),
    F("initialisations", "int", "times the watch cache was (re)initialised"),
    F("bookmarks_sent", "int", "BOOKMARK events the cache sent to this resource's watchers"),
    F("watchers", "list[str]", "one per watcher: '<id> rv=<rv> sent=<n>', ' ours' on ours"),
    F("ours_rv", "str", "the position of the resource's informer's watcher (empty when it has no open watch)"),
    F(
        "ours_seconds_left",
        "float?",
        "recordings made before the window was dynamic: a countdown "
        "to a 410 computed from a fixed window (no longer emitted)",
        optional=True,
    ),
)
SERVER_METRICS = _kind(
    "server.metrics",
    "a scrape of a real API server's /metrics, for one informer's resource (one event per informer per scrape)",
    "no",
    F("source", "str", "where the figures come from", choices=("metrics",)),
    _RESOURCE,
    F("cache_rv", "str", "apiserver_watch_cache_resource_version (empty when absent: before 1.31)"),
    F("ours_rv", "str", "the resource's informer's last synced RV at the scrape", optional=True),
    F(
        "rv_behind",
        "int?",
        "the cache's RV minus ours, in etcd revisions (global across "
        "resources, not this resource's events), when both are numbers",
        optional=True,
    ),
    F("lag", "int?", "recordings before rv_behind: the same figure", optional=True),
    F(
        "events_received_per_s",
        "float?",
        "apiserver_watch_cache_events_received_total, per second between the last two scrapes",
    ),
    F(
        "events_dispatched_per_s",
        "float?",
        "apiserver_watch_cache_events_dispatched_total, per second between the last two scrapes",
    ),
    F("initialisations", "int?", "apiserver_watch_cache_initializations_total"),
    F(
        "consistent_reads_cache",
        "int?",
        "apiserver_watch_cache_consistent_read_total, served from the cache (success=true, fallback=false)",
    ),
    F(
        "consistent_reads_fallback",
        "int?",
        "the same, answered by etcd after the cache did not catch up (fallback=true, success=true)",
    ),
    F("consistent_reads_failed", "int?", "the same, failed (success=false)", optional=True),
    F(
        "read_wait_p99",
        "float?",
        "apiserver_watch_cache_read_wait_seconds' p99, seconds, estimated from the histogram's buckets",
    ),
    F("read_wait_p99_estimated", "bool", "always true: a p99 from buckets is an estimate"),
    F("read_wait_bucket", "str", "the bucket the p99 falls in, as 'lo-le' seconds"),
    F("open_watches", "int?", "apiserver_longrunning_requests{verb=WATCH} on the resource"),
    F("objects", "int?", "apiserver_resource_objects (or apiserver_storage_objects)"),
    F("capacity", "int?", "watch_cache_capacity: the window's capacity now (events)", optional=True),
    F(
        "terminated_watchers",
        "int?",
        "apiserver_terminated_watchers_total: watchers the cache closed because they did not keep up",
        optional=True,
    ),
    F(
        "series",
        "str",
        "the watch-cache series' label shape: 'group' (group and resource "
        "labels, 1.34+), 'qualified' (resource=deployments.apps, 1.30-1.33), '' (none found)",
        optional=True,
    ),
    INFORMER_FIELD,
)
SERVER_FORBIDDEN = _kind(
    "server.forbidden",
    "the API server refused /metrics (said once; the scraper backs off)",
    "no",
    F("source", "str", "what was refused", choices=("metrics",)),
    F("status", "int", "the HTTP status (401 or 403)"),
    F("rule", "str", "the RBAC rule that would allow it"),
    F("message", "str", "the server's message, one line"),
)
SERVER_REINIT = _kind(
    "server.reinit",
    "the simulator's watch cache re-initialised: every watch on the resource ended",
    "no",
    _RESOURCE,
    F("initialisations", "int", "times the watch cache was (re)initialised"),
)
SERVER_TOO_LARGE = _kind(
    "server.too_large",
    'a list or watch was answered "Too large resource version" (504, cause ResourceVersionTooLarge)',
    "no",
    F("requested_rv", "str", "the RV asked for"),
    F("current_rv", "str", "the server's current RV, as its message says (empty if not)"),
)


def check_event(kind: str, key: Any, fields: dict[str, Any]) -> list[str]:
    """What is wrong with an event against the contract (empty: nothing)."""
    k = KINDS.get(kind)
    if k is None:
        return [f"undeclared kind {kind!r}"]
    problems = []
    if k.keyed == "yes" and not isinstance(key, str):
        problems.append(f"{kind}: key {key!r} must be a str")
    elif k.keyed == "no" and key is not None:
        problems.append(f"{kind}: key {key!r} must be None")
    elif key is not None and not isinstance(key, str):
        problems.append(f"{kind}: key {key!r} must be a str or None")
    for name in fields:
        if name not in k.fields:
            problems.append(f"{kind}: undeclared field {name!r}")
    for f in k.fields.values():
        if f.name not in fields:
            if not f.optional and f.name not in k.derive:
                problems.append(f"{kind}: missing field {f.name!r}")
            continue
        if f.name in k.derived:
            continue  # checked where it is computed
        p = f.check(fields[f.name])
        if p:
            problems.append(f"{kind}: {p}")
    return problems


_ZERO = {"str": "", "int": 0, "float": 0.0, "bool": False, "list[str]": []}


def with_defaults(kind: str, fields: dict[str, Any], first_choice: bool = True) -> dict[str, Any]:
    """``fields`` with every required field it leaves out set to its type's
    zero value (None where None is allowed; a field with choices gets its
    first, unless ``first_choice`` is False): hand-written traces name only
    the facts they are about and still have the engine's shape."""
    k = KINDS.get(kind)
    if k is None:
        return fields
    out = dict(fields)
    for f in k.fields.values():
        if f.name not in out and not f.optional:
            out[f.name] = (
                None if f.type.endswith("?") else (f.choices[0] if f.choices and first_choice else _ZERO[f.type])
            )
    return out


class ContractError(ValueError):
    pass


def checked(kind: str, key: Any, fields: dict[str, Any]) -> None:
    problems = check_event(kind, key, fields)
    if problems:
        raise ContractError("; ".join(problems))


# --- recordings ---------------------------------------------------------------------------------


def _v1_expired(fields: dict[str, Any]) -> bool:
    # Version 1 said it only in prose: "410 Expired: too old resource version".
    text = f"{fields.get('reason') or ''} {fields.get('error') or ''}".lower()
    return any(word in text for word in ("expired", "410", "gone", "too old"))


def upgrade_v1(kind: str, fields: dict[str, Any]) -> dict[str, Any]:
    """A version-1 recording's fields in version 2's shape."""
    if kind == "watch.end" and "expired" not in fields:
        fields["expired"] = _v1_expired(fields)
    return fields


# --- docs -----------------------------------------------------------------------------------------


def markdown_table() -> str:
    """The table of event kinds in docs/design-notes.md."""
    key = {"yes": "object", "no": "-", "maybe": "object or -"}
    rows = ["| kind | key | fields | what happened |", "| --- | --- | --- | --- |"]
    for k in KINDS.values():
        fields = ", ".join(f"`{f.name}`{'?' if f.optional else ''}: {f.type}" for f in k.fields.values())
        rows.append(f"| `{k}` | {key[k.keyed]} | {fields} | {k.doc} |")
    return "\n".join(rows)


if __name__ == "__main__":
    print(markdown_table())
