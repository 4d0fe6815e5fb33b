"""What the Explain panel knows about a run, kept from its trace.

``Facts`` is fed every TraceEvent (the app feeds it as it feeds the panes)
and keeps, bounded, the facts the texts quote: the informer's FIFO and
resync check period, handler registrations, lists and relists with their
reasons, watch ends, back-offs, resync ticks with the Syncs they queued, each
key's recent deltas with the listeners that got them, its pops, and the
workqueue's story per key (adds while queued or processed with their
causes, failures), and the owned objects whose events were dropped.
No UI here: ``match.py`` reads these facts, ``tui/explain.py`` draws.

Why this module is long: one ``Facts`` class is fed every event once and keeps
every fact a text may quote; split, each part would read the stream again.
"""

from __future__ import annotations

from collections import OrderedDict, deque
from collections.abc import Callable

from kubectl_informer.core.trace import TraceEvent
from kubectl_informer.core.trace_kinds import (
    CONTROLLER_WRITE,
    FIFO_COALESCE,
    FIFO_POP,
    FIFO_QUEUE,
    FIFO_SKIP,
    HANDLER_ADD,
    HANDLER_DELETE,
    HANDLER_REGISTER,
    HANDLER_UPDATE,
    INDEX_UPDATE,
    INFORMER_START,
    INFORMER_SYNCED,
    LIST_DONE,
    LIST_START,
    OWNER_DROP,
    QUEUE_ADD,
    QUEUE_DONE,
    QUEUE_FORGET,
    QUEUE_GET,
    QUEUE_RATE_LIMITED,
    QUEUE_STALE_SKIP,
    REFLECTOR_BACKOFF,
    RELIST,
    RESYNC_TICK,
    SERVER_METRICS,
    SERVER_REINIT,
    SERVER_TOO_LARGE,
    SERVER_WINDOW,
    STORE_ADD,
    STORE_DELETE,
    STORE_UPDATE,
    WATCH_BOOKMARK,
    WATCH_END,
    WATCH_START,
    WORKER_DONE,
    WORKER_START,
)
from kubectl_informer.panes.causes import Batch, is_mapped
from kubectl_informer.panes.explain.facts_summary import TALLIED, summarise
from kubectl_informer.panes.explain.records import StoreRec
from kubectl_informer.panes.indexes import IndexView
from kubectl_informer.panes.ring import KeyedHistory
from kubectl_informer.panes.state import Stretch

PER_KEY = 16  # recent records kept per key
MAX_KEYS = 5000  # keys remembered (the oldest forgotten first)
MAX_RECORDS = 8192  # records kept in all, across keys (deleted keys' forgotten first)
MARKS = 256  # RV marks, resync ticks and queue records kept
RATE_WINDOW = 5.0  # seconds over which queue add and drain rates are taken
# The fields of a delta's event its record leaves out: the objects (local, never in JSON).
_STORE_LOCAL = frozenset(STORE_ADD.local) | frozenset(STORE_UPDATE.local) | frozenset(STORE_DELETE.local)


class Rec:
    """One thing the panel can explain: a trace event, and what the panel
    learnt around it (``extra``). Slotted: one is made per delta applied."""

    __slots__ = ("seq", "time", "kind", "key", "fields", "extra")

    def __init__(self, seq: int, time: float, kind: str, key: str | None, fields: dict, extra: dict) -> None:
        self.seq, self.time, self.kind, self.key, self.fields, self.extra = seq, time, kind, key, fields, extra

    def __repr__(self) -> str:
        return f"Rec({self.seq}, {self.kind!r}, {self.key!r})"


class PerKey(KeyedHistory):
    """The last ``per_key`` records of each of the last ``max_keys`` keys, at
    most ``max_records`` in all (``tui.ring.KeyedHistory``: past either bound
    a whole key goes, the one deleted longest ago first, else the least
    recent). With names churning, per-key rings alone fill with keys long gone."""

    def __init__(self, per_key: int = PER_KEY, max_keys: int = MAX_KEYS, max_records: int = MAX_RECORDS) -> None:
        super().__init__(max_keys, per_key, max_records)

    def last(self, key: str):
        ring = self._rings.get(key)
        return ring[-1] if ring else None


def before(records, seq: int):
    """The newest record of ``records`` (oldest first) at or before ``seq``."""
    for r in reversed(records):
        if r.seq <= seq:
            return r
    return None


def _batch_of(cause, via=None) -> Batch | None:
    """A key's causes since it was queued, begun with ``cause`` (None: none)."""
    if not cause:
        return None
    batch = Batch()
    batch.add(cause, via=via)
    return batch


class Facts:
    def __init__(self) -> None:
        self.mode: str | None = None  # "watch" | "queue": the run's, not in the trace
        self.profile = ""  # --client-go, the run's
        self.fifo = ""
        self.watch_list = False
        self.check_period = 0.0
        self.started = False
        self.registers: list[Rec] = []
        self.lists = self.watches = self.pops = self.appended = 0
        self.cache_count = 0
        self.asked_rv = ""
        self.list_dones: deque[Rec] = deque(maxlen=MARKS)
        self.relists: deque[Rec] = deque(maxlen=MARKS)
        self.unknown_deletes = 0  # watch deletions the FIFO dropped: neither queued nor known
        self.rv_marks: deque[Rec] = deque(maxlen=MARKS)
        self.watch_starts: deque[Rec] = deque(maxlen=MARKS)
        self.ticks: deque[Rec] = deque(maxlen=MARKS)
        self.store = PerKey()
        self._pop: tuple = (None, None)
        self.queue_marks: deque[Rec] = deque(maxlen=MARKS)  # the items with a story (and see queue_records)
        self._queue_last: tuple | None = None  # the newest plain get or done
        self.queue_depth: deque[tuple[float, int]] = deque(maxlen=4 * MARKS)
        self.queue_adds: deque[float] = deque(maxlen=4096)
        self.queue_gets: deque[float] = deque(maxlen=4096)
        self.latencies: deque[float] = deque(maxlen=1024)
        self._queued: dict[str, list] = {}  # key -> [adds, first add time, Batch of causes] while queued
        self.drops: OrderedDict[str, Rec] = OrderedDict()  # owned key -> its newest owner.drop
        # key -> [adds while processing, worker, get time, waited, Batch of their causes]
        self._processing: dict[str, list] = {}
        self._last_store: StoreRec | None = None
        self._last_end: Rec | None = None  # the last watch.end, or failed list.done
        self._tick: Rec | None = None
        # The API server's side: what it did to our watch (410s, too large, re-inits) and its latest figures.
        self.server_marks: deque[Rec] = deque(maxlen=MARKS)
        self.server_now: Rec | None = None  # the newest server.window or server.metrics
        self.consistent_lists = 0  # lists asked with RV "": consistent reads
        # --demo stale: stale-sync skips per key in a row (first time, count, last skip's fields), writes.
        self._skipping: dict[str, list] = {}
        self.stale_skips = self.creates = self.duplicates = 0
        self.version = 0
        self.indexes = IndexView()  # the indexes and their sizes: what an index costs (cache.index)
        self._handlers = self._dispatch_table()
        self.KINDS = frozenset(self._handlers)
        self._rest = self.KINDS - TALLIED  # what a summary still records

    def _dispatch_table(self) -> dict[str, Callable[[TraceEvent], None]]:
        """Each kind this reads, and the method that reads it."""
        return {
            INFORMER_START: self._informer_start,
            HANDLER_REGISTER: self._register,
            LIST_START: self._list_start,
            LIST_DONE: self._list_done,
            RELIST: self._relist,
            WATCH_START: self._watch_start,
            WATCH_END: self._watch_end,
            REFLECTOR_BACKOFF: self._mark,
            WATCH_BOOKMARK: self._mark,
            RESYNC_TICK: self._resync_tick,
            FIFO_QUEUE: self._fifo_queue,
            FIFO_COALESCE: self._fifo_coalesce,
            FIFO_SKIP: self._fifo_skip,
            FIFO_POP: self._fifo_pop,
            STORE_ADD: self._store,
            STORE_UPDATE: self._store,
            STORE_DELETE: self._store,
            INFORMER_SYNCED: self._synced,
            HANDLER_ADD: self._handler,
            HANDLER_UPDATE: self._handler,
            HANDLER_DELETE: self._handler,
            QUEUE_ADD: self._queue_add,
            QUEUE_GET: self._queue_get,
            WORKER_START: self._worker_start,
            QUEUE_DONE: self._queue_done,
            WORKER_DONE: self._worker_done,
            QUEUE_RATE_LIMITED: self._queue_mark,
            QUEUE_FORGET: self._queue_mark,
            SERVER_WINDOW: self._server_now,
            SERVER_METRICS: self._server_now,
            SERVER_REINIT: self._server_mark,
            SERVER_TOO_LARGE: self._server_mark,
            OWNER_DROP: self._owner_drop,
            QUEUE_STALE_SKIP: self._stale_skip,
            CONTROLLER_WRITE: self._write,
            INDEX_UPDATE: self._index_update,
        }

    def feed(self, ev) -> None:
        self.feed_all((ev,))

    def feed_all(self, events) -> None:
        # The hot path (every event the UI absorbs): one loop, one lookup each.
        get = self._handlers.get
        n = 0
        for ev in events:
            h = get(ev.kind)
            if h is None:
                continue
            try:
                h(ev)
            except (TypeError, ValueError, AttributeError, KeyError):
                continue  # an event outside the contract (an old recording): nothing to learn
            n += 1
        self.version += n

    def summarise(self, stretch: Stretch) -> None:
        """A stretch the UI could not take in event by event (feed.py):
        counted, not recorded (facts_summary.py)."""
        summarise(self, stretch)

    @staticmethod
    def _rec(ev, **extra) -> Rec:
        # raw_fields: a derived field (an update's diff) stays uncomputed.
        return Rec(ev.seq, ev.time, ev.kind, ev.key, ev.raw_fields, extra)

    # -- reflector and informer ------------------------------------------------------
    def _informer_start(self, ev) -> None:
        f = ev.raw_fields
        self.fifo, self.watch_list = f.get("fifo", ""), bool(f.get("watch_list"))
        self.check_period = float(f.get("resync_check_period") or 0.0)
        self.started = True
        self.indexes.feed(INFORMER_START, None, f)

    def _index_update(self, ev) -> None:
        self.indexes.feed(INDEX_UPDATE, ev.key, ev.raw_fields)

    def _register(self, ev) -> None:
        self.registers.append(self._rec(ev, after_start=self.started))
        self.check_period = float(ev.raw_fields.get("check_period") or self.check_period)

    def _list_start(self, ev) -> None:
        self.lists += 1
        self.asked_rv = ev.raw_fields.get("resource_version", "")
        if self.asked_rv == "":
            self.consistent_lists += 1

    def _list_done(self, ev) -> None:
        if ev.raw_fields.get("error") or not ev.raw_fields.get("resource_version"):
            self._last_end = self._rec(ev)  # failed: the back-off and relist that follow say why
            return
        rec = self._rec(ev, asked=self.asked_rv, first=not self.list_dones)
        self.list_dones.append(rec)
        self.rv_marks.append(rec)

    def _relist(self, ev) -> None:
        rec = self._rec(ev, last_end=self._last_end)
        self.relists.append(rec)
        self.rv_marks.append(rec)

    def _watch_start(self, ev) -> None:
        self.watches += 1
        self.watch_starts.append(self._rec(ev))

    def _watch_end(self, ev) -> None:
        f = ev.raw_fields
        if f.get("reason") == "stopped":
            return
        self._last_end = self._rec(ev)
        self.rv_marks.append(self._last_end)
        if f.get("expired"):  # a 410: the Server pane says what the server's window was then
            self.server_marks.append(self._rec(ev, window=self.server_now))

    def _mark(self, ev) -> None:
        self.rv_marks.append(self._rec(ev, last_end=self._last_end))

    # -- the API server's side ---------------------------------------------------------
    def _server_now(self, ev) -> None:
        self.server_now = self._rec(ev)

    def _server_mark(self, ev) -> None:
        self.server_marks.append(self._rec(ev))

    def server_records(self) -> list[Rec]:
        """What the Server pane can explain, oldest first: the 410s,
        too-large answers and re-inits, and its newest figures."""
        recs = list(self.server_marks)
        if self.server_now is not None:
            recs.append(self.server_now)
        return sorted(recs, key=lambda r: r.seq)

    def _synced(self, ev) -> None:
        self.cache_count = int(ev.raw_fields.get("items", self.cache_count))

    # -- resync and the FIFO ---------------------------------------------------------
    def _resync_tick(self, ev) -> None:
        self._tick = self._rec(ev, syncs=0, skipped=0, items=self.cache_count, lists=self.lists)
        self.ticks.append(self._tick)

    def _fifo_queue(self, ev) -> None:
        if ev.raw_fields.get("type") == "Sync" and self._tick is not None:
            self._tick.extra["syncs"] += 1

    def _fifo_coalesce(self, ev) -> None:
        self.appended += 1
        self._fifo_queue(ev)

    def _fifo_skip(self, ev) -> None:
        reason = ev.raw_fields.get("reason")
        if reason == "resync_pending" and self._tick is not None:
            self._tick.extra["skipped"] += 1
        elif reason == "unknown_delete":
            self.unknown_deletes += 1

    def _fifo_pop(self, ev) -> None:
        self.pops += 1
        self._pop = (ev.key, ev.raw_fields.get("types"))  # the deltas now applied came with this pop

    def _store(self, ev) -> None:
        kind = ev.kind
        if kind == STORE_ADD:
            self.cache_count += 1
        elif kind == STORE_DELETE and self.cache_count:
            self.cache_count -= 1
        key, popped = self._pop
        # A compact record (records.py), without the objects (the
        # informer's, or versions it let go): the texts quote the RVs and
        # the delta, never the objects.
        rec = self._last_store = StoreRec(
            ev.seq,
            ev.time,
            kind,
            ev.key,
            ev.raw_fields,
            _STORE_LOCAL,
            self.cache_count,
            popped if key == ev.key else None,
        )
        store = self.store
        store.add(ev.key, rec)
        if kind == STORE_DELETE:
            store.mark_dead(ev.key)
            self.indexes.feed(kind, ev.key, ev.raw_fields)
        elif kind == STORE_ADD:
            store.mark_live(ev.key)

    def _handler(self, ev) -> None:
        last = self._last_store
        if last is not None and last.key == ev.key:
            f = ev.raw_fields
            if not f.get("synthetic"):
                last.add_listener(f.get("listener", "?"))

    # -- the workqueue --------------------------------------------------------------------
    def _depth(self, ev) -> None:
        if "depth" in ev.raw_fields:
            self.queue_depth.append((ev.time, int(ev.raw_fields["depth"])))

    def _queue_add(self, ev) -> None:
        self._depth(ev)
        key, outcome = ev.key, ev.raw_fields.get("outcome")
        cause, via = ev.raw_fields.get("cause"), ev.raw_fields.get("via")
        if outcome == "queued":
            self.queue_adds.append(ev.time)
            self._queued[key] = [1, ev.time, _batch_of(cause, via)]
        elif outcome == "already_dirty" and key in self._queued:
            queued = self._queued[key]
            queued[0] += 1
            if cause:
                queued[2] = queued[2] or Batch()
                queued[2].add(cause, via=via)
        elif outcome == "already_dirty" and key in self._processing:
            self._while_processing(key, cause, via)  # dirty already, and a worker holds it
        elif outcome == "dirty_while_processing" and key in self._processing:
            self.queue_adds.append(ev.time)
            self._while_processing(key, cause, via)

    def _while_processing(self, key: str, cause, via=None) -> None:
        held = self._processing[key]
        held[0] += 1
        if cause:
            held[4] = held[4] or Batch()
            held[4].add(cause, via=via)

    def _queue_get(self, ev) -> None:
        self._depth(ev)
        self.queue_gets.append(ev.time)
        adds, first, causes = self._queued.pop(ev.key, [1, ev.time, None])
        waited = ev.time - first
        self.latencies.append(waited)
        self._processing[ev.key] = [0, ev.raw_fields.get("worker"), ev.time, waited, None]
        mapped = causes is not None and any(is_mapped(ev.key, c) for c in causes.causes)
        if adds > 1 or mapped:
            self.queue_marks.append(self._rec(ev, adds=adds, waited=waited, depth=self.depth(), causes=causes))
        else:  # an item like most: kept only as the newest, built into a record when asked
            self._queue_last = (ev, waited, ev.raw_fields.get("worker"), None, self.depth())

    def _worker_start(self, ev) -> None:
        p = self._processing.get(ev.key)
        if p is not None:
            p[1] = ev.raw_fields.get("worker")

    def _worker_done(self, ev) -> None:
        p = self._processing.get(ev.key)
        if p is not None and p[1] is None:
            p[1] = ev.raw_fields.get("worker")

    def _stale_skip(self, ev) -> None:
        self.stale_skips += 1
        run = self._skipping.setdefault(ev.key, [ev.time, 0, None])
        run[1] += 1
        run[2] = ev.raw_fields
        self.queue_marks.append(self._rec(ev, in_a_row=run[1]))

    def _write(self, ev) -> None:
        f = ev.raw_fields
        if f.get("verb") == "create":
            self.creates += 1
            if f.get("duplicate"):
                self.duplicates += 1
                self.queue_marks.append(self._rec(ev, duplicates=self.duplicates, creates=self.creates))

    def _queue_done(self, ev) -> None:
        run = self._skipping.pop(ev.key, None) if ev.raw_fields.get("outcome") == "ok" else None
        if run is not None:  # the first sync through after skips: the cache caught up
            self.queue_marks.append(self._rec(ev, caught_up=run[1], took=ev.time - run[0], skip=run[2]))
        adds, worker, got, waited, causes = self._processing.pop(ev.key, [0, None, ev.time, None, None])
        if ev.raw_fields.get("requeued"):
            self._queued[ev.key] = [1, ev.time, None]
        worked = ev.raw_fields.get("worked")
        if worked is None:
            worked = ev.time - got
        if adds:
            self.queue_marks.append(
                self._rec(ev, adds=adds, worker=worker, depth=self.depth(), worked=worked, causes=causes)
            )
        else:
            self._queue_last = (ev, waited, worker, worked, self.depth())

    def _owner_drop(self, ev) -> None:
        drops = self.drops
        kept = drops.get(ev.key)
        if ev.raw_fields.get("reason") == "resync" and kept is not None and kept.fields.get("reason") != "resync":
            return  # a resync skipped says less about the object than why its last change was dropped
        drops[ev.key] = self._rec(ev)
        drops.move_to_end(ev.key)
        if len(drops) > MAX_KEYS:
            drops.popitem(last=False)

    def _queue_mark(self, ev) -> None:
        if ev.kind == QUEUE_FORGET and not ev.raw_fields.get("requeues"):
            return  # Forget after every success: only one that ends a back-off has a story
        self.queue_marks.append(self._rec(ev))

    def __repr__(self) -> str:
        """By value (tests compare states fed in chunks and one by one)."""
        keyed = {k: [(r.seq, r.kind, r.listeners) for r in v] for k, v in self.store._rings.items()}
        return repr(
            {
                "fifo": self.fifo,
                "check": self.check_period,
                "counts": (self.lists, self.watches, self.pops, self.appended, self.cache_count),
                "marks": [(r.seq, r.kind) for r in self.rv_marks],
                "ticks": [(r.seq, r.extra.get("syncs"), r.extra.get("skipped")) for r in self.ticks],
                "queue": [(r.seq, r.kind, r.key, r.extra.get("adds")) for r in self.queue_marks],
                "registers": [r.seq for r in self.registers],
                "store": keyed,
            }
        )

    # -- readers ------------------------------------------------------------------------------
    def queue_records(self) -> list[Rec]:
        """The queue items with a story, oldest first, then the newest plain one."""
        out = list(self.queue_marks)
        last = self._queue_last
        if last is not None and (not out or last[0].seq > out[-1].seq):
            ev, waited, worker, worked, depth = last
            out.append(
                self._rec(
                    ev, adds=0 if ev.kind == QUEUE_DONE else 1, waited=waited, worker=worker, worked=worked, depth=depth
                )
            )
        return out

    def queue_rec(self, key: str) -> Rec | None:
        """What the workqueue is doing with ``key`` now (a worker holds it,
        or it waits in the queue), else its newest record kept: for the
        item under the Queue pane's cursor."""
        now = self.queue_depth[-1][0] if self.queue_depth else None
        p = self._processing.get(key)
        if p is not None:
            adds, worker, got, waited = p[:4]
            # Added again while held: Done will put it back (a done record tells that).
            kind = QUEUE_DONE if adds else QUEUE_GET
            return Rec(
                0,
                got,
                kind,
                key,
                {},
                {"adds": adds if adds else 1, "worker": worker, "waited": waited, "depth": self.depth()},
            )
        q = self._queued.get(key)
        if q is not None:
            adds, first = q[:2]
            waited = None if now is None else max(now - first, 0.0)
            ahead = next(i for i, k in enumerate(self._queued) if k == key)  # queued in first-add order
            return Rec(
                0, first, QUEUE_ADD, key, {}, {"adds": adds, "waited": waited, "depth": self.depth(), "ahead": ahead}
            )
        return next((r for r in reversed(self.queue_records()) if r.key == key), None)

    def depth(self) -> int:
        return self.queue_depth[-1][1] if self.queue_depth else 0

    def depth_at(self, t: float) -> int:
        """Queue depth at time ``t`` (the first sample after it, if older ones are gone)."""
        d = self.queue_depth[0][1] if self.queue_depth else 0
        for when, depth in self.queue_depth:
            if when > t:
                break
            d = depth
        return d

    def rate(self, times: deque, now: float, window: float = RATE_WINDOW) -> float:
        """Per second over the ``window`` seconds up to ``now``."""
        return sum(1 for t in times if now - window < t <= now) / window

    def relist_before(self, seq: int) -> Rec | None:
        return before(self.relists, seq)

    def list_before(self, seq: int) -> Rec | None:
        return before(self.list_dones, seq)

    def list_after(self, seq: int) -> Rec | None:
        return next((r for r in self.list_dones if r.seq > seq), None)

    def tick_before(self, seq: int) -> Rec | None:
        return before(self.ticks, seq)

    def store_rec(self, key: str, seq: int | None = None) -> StoreRec | None:
        recs = self.store.get(key)
        if not recs:
            return None
        if seq is None:
            return recs[-1]
        return next((r for r in recs if r.seq == seq), None)

    def next_watch_after(self, seq: int) -> Rec | None:
        return next((w for w in self.watch_starts if w.seq > seq), None)
