"""Key inspector: one key's whole life through the machinery, in order.

Every keyed event (watch.event → fifo.queue/coalesce → fifo.pop → store.* →
handler.* → queue.* → worker.*) goes into a ring per key, for the keys seen
most recently (an LRU), so any key still in view can be followed back through
every stage without memory growing with the run; a stage event is held as
one tuple (packed.py) and expanded into its event when read. Deltas applied (store.*)
also go to a longer ring with their objects (``objects.ObjectHistory``):
the timeline scrolls through all of them, and enter expands one into its
full diff and whatever ``DETAIL_SECTIONS`` others add. For a key of the
workqueue, ``stories`` (causes.py) keeps why it was queued and how many adds
its last reconcile took in, beyond what the key's ring holds. A stretch
the UI took in as a summary (feed.py) makes no row: its keyed events go to
``trail`` (trail.py: a fixed ring of columns, no object per event), which
``timeline`` expands for the key asked about, each row marked as from a
summary.
"""

from __future__ import annotations

from kubectl_informer.core.trace import TraceEvent
from kubectl_informer.core.trace_kinds import (
    FIFO_POP,
    QUEUE_ADD,
    QUEUE_GET,
    STORE_ADD,
    STORE_DELETE,
    STORE_UPDATE,
)
from kubectl_informer.panes.causes import CauseStories
from kubectl_informer.panes.filters import KeyFilter, parse_filter
from kubectl_informer.panes.objects import DeltaEntry, ObjectHistory
from kubectl_informer.panes.packed import pack, unpack
from kubectl_informer.panes.ring import KeyedHistory
from kubectl_informer.panes.state import PaneState
from kubectl_informer.panes.trail import SummaryTrail

# Stage of a kind prefix, in pipeline order, with its colour.
STAGES = (
    ("watch", "watch", "blue"),
    ("list", "list", "blue"),
    (FIFO_POP, "pop", "bold cyan"),
    ("fifo", "fifo", "cyan"),
    ("store", "store", "green"),
    ("handler", "handler", "yellow"),
    ("queue", "queue", "magenta"),
    ("worker", "worker", "bold magenta"),
    ("controller", "controller", "bold red"),
)


# Pipeline order for the ribbon (STAGES is in matching order: pop before fifo).
STAGE_ORDER = ("watch", "list", "fifo", "pop", "store", "handler", "queue", "worker", "controller")


def stage_of(kind: str) -> tuple[str, str]:
    for prefix, name, style in STAGES:
        if kind == prefix or kind.startswith(prefix + "."):
            return name, style
    return kind.partition(".")[0], "white"


# Events kept in all, across keys (a key's ring holds its last per_key).
MAX_EVENTS = 16384


STORE_KINDS = frozenset((STORE_ADD, STORE_UPDATE, STORE_DELETE))
STORY_KINDS = frozenset((QUEUE_ADD, QUEUE_GET))


def _event(x) -> TraceEvent:
    """A history item's event: a delta is held as its ``DeltaEntry``,
    another stage's event packed (packed.py: only a store event is derived
    or holds objects)."""
    return x.event if type(x) is DeltaEntry else unpack(x)


def _seq_kind(x) -> tuple[int, str]:
    """A history item's seq and kind, without expanding it."""
    if type(x) is DeltaEntry:
        return x.seq, x.kind
    return x[0], x[2]


class InspectorState(PaneState):
    """Per-key rings of keyed events, for the most recently active keys, and
    per key its deltas with their objects (``ObjectHistory``)."""

    # A key's ring holds its events of every stage, deltas included: 96 keep
    # a burst of 20 updates whole (20 watch events, 20 FIFO events, a pop,
    # 20 store updates, 20 handler calls); the total bounds the memory.
    def __init__(self, max_keys: int = 2000, per_key: int = 96, max_events: int = MAX_EVENTS) -> None:
        super().__init__()
        # Per key: its deltas' entries and its other stages' events, packed (packed.py).
        self.history: KeyedHistory[str, DeltaEntry | tuple] = KeyedHistory(max_keys, per_key, max_events)
        self.objects = ObjectHistory(max_keys)
        self.stories = CauseStories(max_keys)
        self.trail = SummaryTrail()
        self._trail_rows: tuple = (None, -1, [])  # (key, trail version, its rows): draws ask often
        self._timeline: tuple = (None, -1, [])  # (key, version, its rows): a draw asks several times
        self.t0: float | None = None

    @property
    def pressure(self):
        return self.objects.pressure

    @pressure.setter
    def pressure(self, pressure) -> None:
        self.objects.pressure = pressure

    def feed(self, ev: TraceEvent) -> None:
        self.feed_all((ev,))

    def feed_all(self, events) -> None:
        if self.t0 is None and events:
            self.t0 = events[0].time
        # A batch holds a few events of each of a few keys: one ring
        # operation per key, keys in the order of their last event (the LRU
        # order one add per event leaves). Deltas go to the objects' history
        # in the batch's order (its newest entries hold their objects).
        by_key: dict[str, list] = {}
        pop = by_key.pop
        add_delta = self.objects.add
        store = STORE_KINDS
        story = STORY_KINDS
        born: dict[str, str] = {}  # key -> its last store.add or store.delete in the batch
        for ev in events:
            key = ev[3]
            if key:
                got = pop(key, None)
                by_key[key] = got = [] if got is None else got
                kind = ev[2]
                if kind in store:
                    # Both rings hold a delta's entry, which lets go of its
                    # objects once it is older than the newest few.
                    got.append(add_delta(ev))
                    if kind != STORE_UPDATE:
                        born[key] = kind
                else:
                    got.append(pack(ev, ev[4]))
                    if kind in story:
                        if kind == QUEUE_ADD:
                            self.stories.add(key, ev[4].get("cause"), ev[4].get("via"))
                        else:
                            self.stories.get(key)
        if not by_key:
            return
        history = self.history
        for key, items in by_key.items():
            history.extend(key, items)
            kind = born.get(key)
            if kind == STORE_DELETE:
                history.mark_dead(key)  # its events go first
            elif kind == STORE_ADD:
                history.mark_live(key)
        self.version += 1

    def summarise(self, stretch) -> None:
        """A stretch the UI could not take in event by event (feed.py): no
        row per event; its keyed events go to the compact ``trail``, which
        ``timeline`` expands for one key on demand."""
        if self.t0 is None and stretch.events:
            self.t0 = stretch.events[0][1]
        if self.trail.add(stretch.events):
            self.version += 1

    def summarised(self, key: str) -> list[TraceEvent]:
        """``key``'s events from summaries still in the trail (its newest
        ``history.per_key``), oldest first, each with ``FROM_SUMMARY`` set."""
        cached_key, version, rows = self._trail_rows
        if cached_key != key or version != self.trail.version:
            rows = self.trail.rows(key, newest=self.history.per_key)
            self._trail_rows = (key, self.trail.version, rows)
        return rows

    def recent_keys(self, limit: int, accept=None) -> list[tuple[str, str, bool]]:
        """Up to ``limit`` keys ``accept`` passes, the most recently active
        first: (key, its newest event's kind, known only from summaries).
        A key the UI took in only as summaries has no ring but is in the
        trail; listed too, so that enter can follow it (``timeline``). A
        key's newest event is its ring's or the trail's, whichever is newer."""
        history = self.history
        newest: dict[str, list] = {}  # key -> [seq, kind, only from summaries]
        for key in history.keys_newest_first():
            if len(newest) >= limit:
                break
            if accept is None or accept(key):
                seq, kind = _seq_kind(history.ring(key)[-1])
                newest[key] = [seq, kind, False]
        for key, seq, kind in self.trail.newest_keys(limit, accept):
            got = newest.get(key)
            if got is None:
                newest[key] = [seq, kind, key not in history]
            elif seq > got[0]:
                got[0], got[1] = seq, kind
        ranked = sorted(newest.items(), key=lambda item: item[1][0], reverse=True)[:limit]
        return [(key, kind, only) for key, (_, kind, only) in ranked]

    def life(self, key: str) -> list[TraceEvent]:
        return [_event(x) for x in self.history.get(key)]

    def timeline(self, key: str) -> list[tuple[TraceEvent, DeltaEntry | None]]:
        """The key's rows oldest first: every delta kept (ObjectHistory's
        longer ring), the other stages' recent events and what summaries
        kept of it (``summarised``: kind and RV, no delta entry). The same
        list until the state changes (read it, don't change it): the rows
        are expanded from their compact forms, and a draw asks several times."""
        cached_key, version, rows = self._timeline
        if cached_key == key and version == self.version:
            return rows
        rows = [(e.event, e) for e in self.objects.entries(key)]
        rows += [(_event(x), None) for x in self.history.get(key) if type(x) is not DeltaEntry]
        rows += [(x, None) for x in self.summarised(key)]
        rows.sort(key=lambda r: r[0].seq)
        self._timeline = (key, self.version, rows)
        return rows

    def find(self, text: str) -> str | None:
        """The key to inspect for a filter: exact, else the newest it matches."""
        if text in self.history or self.trail.has(text):
            return text
        f = parse_filter(text)
        for key in self.history.keys_newest_first():
            if self.matches(f, key):
                return key
        return None

    def matches(self, f: KeyFilter, key: str) -> bool:
        """Whether ``f`` passes ``key``: its deltas are every delta type in its
        history, its labels the newest an event carried."""
        if not f:
            return True
        types: set[str] = set()
        labels = None
        if f.uses_types or f.uses_labels:
            for item in self.history.ring(key) if key in self.history else ():  # a summaries-only key: none
                ev = _event(item)
                fields = ev.raw_fields
                typ = fields.get("delta") or fields.get("type")
                if typ:
                    types.add(str(typ))
                if "labels" in fields or ev.kind in STORE_KINDS:
                    labels = ev.field("labels")
        return f.matches(key, types, labels)
