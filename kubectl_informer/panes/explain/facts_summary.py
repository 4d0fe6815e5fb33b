"""What the Explain panel keeps of a stretch the UI could not take in event
by event (the feed loop's summaries, panes/feed.py): the figures its texts
quote, counted at C speed where they can be, without a record per event.
Kept apart from facts.py, which records one event at a time.
"""

from __future__ import annotations

from kubectl_informer.core.trace_kinds import (
    FIFO_COALESCE,
    FIFO_POP,
    FIFO_QUEUE,
    HANDLER_ADD,
    HANDLER_DELETE,
    HANDLER_UPDATE,
    INFORMER_SYNCED,
    QUEUE_ADD,
    QUEUE_DONE,
    QUEUE_GET,
    RESYNC_TICK,
    STORE_ADD,
    STORE_DELETE,
    STORE_UPDATE,
    WORKER_DONE,
    WORKER_START,
)
from kubectl_informer.panes.state import Stretch, floored_walk

# What a summary (the UI behind: feed.py) counts instead of recording: the
# deltas applied, what the handlers got, the FIFO's adds and pops, and the
# workqueue's adds, gets and dones (their times and depths kept; each key's
# story replayed, without records or causes); the rest are rare and recorded. A
# FIFO add of a Sync is a resync tick's and is recorded.
_QUEUE_HOT = frozenset((QUEUE_ADD, QUEUE_GET, QUEUE_DONE, WORKER_START, WORKER_DONE))
TALLIED = (
    frozenset(
        (
            STORE_ADD,
            STORE_UPDATE,
            STORE_DELETE,
            HANDLER_ADD,
            HANDLER_UPDATE,
            HANDLER_DELETE,
            FIFO_QUEUE,
            FIFO_COALESCE,
            FIFO_POP,
        )
    )
    | _QUEUE_HOT
)
# Kinds that read or set the cache count: a summary counts the deltas before each first.
_COUNT_READERS = frozenset((INFORMER_SYNCED, RESYNC_TICK))
_SYNC_ADDS = frozenset((FIFO_QUEUE, FIFO_COALESCE))
_COUNTED = frozenset((STORE_ADD, STORE_DELETE))
_NEW_WORK = frozenset(("queued", "dirty_while_processing"))  # adds that put work on the queue
_POP = frozenset((FIFO_POP,))


def summarise(facts, stretch: Stretch) -> None:
    """A stretch the UI could not take in event by event: the deltas,
    handler calls and FIFO adds and pops counted (``TALLIED``), no
    record kept of them; every other event recorded in order."""
    if not stretch.has(_COUNT_READERS):
        _summarise_part(facts, stretch)
        return
    events, start = stretch.events, 0
    for i, ev in enumerate(events):
        if ev[2] in _COUNT_READERS:
            _summarise_part(facts, Stretch(events[start:i]))
            facts.feed_all((ev,))
            start = i + 1
    _summarise_part(facts, Stretch(events[start:]))


def _summarise_part(facts, part: Stretch) -> None:
    if not part.events:
        return
    facts.feed_all(part.only(facts._rest))
    counted = part.counts
    syncs = [ev for ev in part.only(_SYNC_ADDS) if ev[4].get("type") == "Sync"]
    for ev in syncs:  # a resync tick's: recorded (appended counts them)
        facts._fifo_queue(ev)
    walk = [1 if ev[2] == STORE_ADD else -1 for ev in part.only(_COUNTED)]
    facts.cache_count = floored_walk(facts.cache_count, walk)
    facts.pops += counted[FIFO_POP]
    facts.appended += counted[FIFO_COALESCE]
    if counted[FIFO_POP]:
        last = part.only(_POP)[-1]
        facts._pop = (last[3], last[4].get("types"))
    if walk or counted[STORE_UPDATE]:
        facts._last_store = None  # the handlers after the stretch got deltas no record holds
    queue = part.only(_QUEUE_HOT)
    if queue:
        _summarise_queue(facts, queue)
    facts.version += 1


def _summarise_queue(facts, events) -> None:
    """The workqueue's events of a summary: depths, add and get times
    and waits as recorded one by one (the newest a deque holds); each
    key's story (its adds while queued or processed, since when, which
    worker) as facts.py keeps it (``_replay_stories``), without the
    records of the items that took several adds and their causes."""
    kept = facts.queue_depth.maxlen or len(events)
    facts.queue_depth.extend([(ev[1], int(ev[4]["depth"])) for ev in events[-kept:] if "depth" in ev[4]])
    adds = [ev for ev in events if ev[2] == QUEUE_ADD]
    gets = [ev for ev in events if ev[2] == QUEUE_GET]
    facts.queue_adds.extend([ev[1] for ev in adds if ev[4].get("outcome") in _NEW_WORK])
    facts.queue_gets.extend([ev[1] for ev in gets])
    facts.latencies.extend([w for w in (ev[4].get("waited") for ev in gets) if w is not None])
    _replay_stories(facts._queued, facts._processing, events)
    final = next((ev for ev in reversed(events) if ev[2] == QUEUE_GET or ev[2] == QUEUE_DONE), None)
    if final is not None:
        f = final[4]
        facts._queue_last = (final, f.get("waited"), f.get("worker"), f.get("worked"), facts.depth())


def _replay_stories(queued: dict, processing: dict, events) -> None:
    """The workqueue's per-key state after ``events``, as facts.py's
    ``_queue_add``, ``_queue_get``, ``_queue_done`` and the workers' leave it
    (adds counted, first add times, workers, waits; the queue's order), but
    no record made and no cause kept: one pass, a few dict operations an
    event."""
    for ev in events:
        kind, key, f = ev[2], ev[3], ev[4]
        if kind == QUEUE_ADD:
            outcome = f.get("outcome")
            if outcome == "queued":
                queued[key] = [1, ev[1], None]
            elif outcome == "already_dirty" or outcome == "dirty_while_processing":
                held = queued.get(key) if outcome == "already_dirty" else None
                if held is None:
                    held = processing.get(key)
                if held is not None:
                    held[0] += 1
        elif kind == QUEUE_GET:
            got = queued.pop(key, None)
            processing[key] = [0, f.get("worker"), ev[1], ev[1] - (got[1] if got is not None else ev[1]), None]
        elif kind == QUEUE_DONE:
            processing.pop(key, None)
            if f.get("requeued"):
                queued[key] = [1, ev[1], None]
        else:  # a worker starting or done: the worker, if not known yet (done) or anew (start)
            held = processing.get(key)
            if held is not None and (kind == WORKER_START or held[1] is None):
                held[1] = f.get("worker")
