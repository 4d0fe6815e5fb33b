"""Why a key was queued, and how many adds one reconcile took in.

A controller's workqueue holds keys of one resource (Deployments), but the
adds come from every informer it runs: a ReplicaSet's update enqueues the
Deployment its controller reference names, and ``queue.add`` carries that
event in ``cause`` (one link: the event the run saw, never an object only
looked up on the way; recordings made before 2026-12-05 may hold a chain,
nearest link first) and the handler that enqueued it in ``via``. The queue
keeps a key once while it is dirty, so a storm of events becomes a few
reconciles: the adds from a ``get`` of a key to its next ``get`` all collapse
into that next reconcile.

``CauseStories`` keeps, per key (the most recent ``max_keys``), the adds
since its last get with their causes, and what the last reconcile took in.
The Queue pane and the Inspector read it; both feed it ``queue.add`` and
``queue.get``.
"""

from __future__ import annotations

from collections import OrderedDict

ARROW = " ← "
CAUSES_KEPT = 3  # distinct chains kept per key, the newest


# owner.drop's reasons, as the pane says them.
DROP_WORDS = {
    "no_controller": "orphan (no controller owner)",
    "uid_mismatch": "UID mismatch",
    "owner_not_cached": "owner not cached",
    "not_queue_kind": "owner of another kind",
    "bad_api_version": "apiVersion not parsed",
    "resync": "resync skipped",
    "no_match": "orphan, no selector matches",
    "not_recreate": "pod deleted, not Recreate",
    "pods_remain": "pod deleted, pods remain",
}


def count_drop(drops: dict[str, int], reason) -> None:
    """One ``owner.drop`` counted by reason (an unknown one as "other": a
    recording cannot grow the table)."""
    reason = reason if reason in DROP_WORDS else "other"
    drops[reason] = drops.get(reason, 0) + 1


def drops_text(drops: dict[str, int]) -> str:
    """``orphan (no controller owner) 3 · UID mismatch 1``."""
    return " · ".join(f"{DROP_WORDS.get(r, r)} {n}" for r, n in drops.items())


def chain(key: str, cause) -> str:
    """``default/web ← ReplicaSet default/web-5887 Updated``."""
    return ARROW.join([key, *map(str, cause or ())])


def is_mapped(key: str, cause) -> bool:
    """Whether ``cause`` reached ``key`` through an owner: more than one
    link, or one naming another object (the queue resource's own event
    names the key itself: ``["Deployment default/web Updated"]``)."""
    if not cause:
        return False
    if len(cause) > 1:
        return True
    return str(cause[0]).split(" ")[1:2] != [key]


def link_kind(link: str) -> str:
    """The kind of one link, ``"Pod default/x Deleted"`` -> ``"Pod"``."""
    return link.partition(" ")[0]


class Batch:
    """Adds of one key between two gets: how many, the newest distinct
    chains, and how many came from each kind of object (the chain's far end,
    the event that started it)."""

    __slots__ = ("adds", "causes", "kinds", "mapped", "via")

    def __init__(self) -> None:
        self.adds = 0
        self.causes: list[tuple[str, ...]] = []
        self.kinds: dict[str, int] = {}
        self.mapped: tuple[str, ...] = ()  # the newest chain through an owner (is_mapped)
        self.via: dict[tuple[str, ...], str] = {}  # a kept cause -> the handler that enqueued it

    def add(self, cause, key: str | None = None, via=None) -> None:
        self.adds += 1
        if not cause:
            return
        c = tuple(map(str, cause))
        if key is not None and is_mapped(key, c):
            self.mapped = c
        origin = link_kind(c[-1])
        self.kinds[origin] = self.kinds.get(origin, 0) + 1
        if c in self.causes:
            self.causes.remove(c)
        self.causes.append(c)
        if via:
            self.via[c] = str(via)
        if len(self.causes) > CAUSES_KEPT:
            self.via.pop(self.causes.pop(0), None)

    @property
    def newest(self) -> tuple[str, ...]:
        return self.causes[-1] if self.causes else ()

    def kinds_text(self) -> str:
        """``Pod ×12, ReplicaSet ×3``: where the adds came from."""
        return ", ".join(f"{k} ×{n}" for k, n in sorted(self.kinds.items(), key=lambda kv: -kv[1]))


class Story:
    """One key: the adds waiting for the next get (``pending``), the batch
    the last get took in (``last``), and the gets so far."""

    __slots__ = ("pending", "last", "reconciles")

    def __init__(self) -> None:
        self.pending = Batch()
        self.last: Batch | None = None
        self.reconciles = 0

    @property
    def newest(self) -> tuple[str, ...]:
        """The chain to show: the newest through an owner (what a reader
        asks about: the key's own events are plain), else the newest; of the
        adds pending, else of the last reconcile's."""
        for batch in (self.pending, self.last):
            if batch is not None and batch.causes:
                return batch.mapped or batch.newest
        return ()


class CauseStories:
    """``Story`` per key for the ``max_keys`` keys added most recently."""

    def __init__(self, max_keys: int = 2000) -> None:
        self.max_keys = max_keys
        self.stories: OrderedDict[str, Story] = OrderedDict()
        self.caused = 0  # adds that carried a cause
        self.mapped = 0  # adds whose cause went through an owner (is_mapped)

    def add(self, key: str, cause, via=None) -> None:
        stories = self.stories
        story = stories.get(key)
        if story is None:
            if len(stories) >= self.max_keys:
                stories.popitem(last=False)
            story = stories[key] = Story()
        else:
            stories.move_to_end(key)
        story.pending.add(cause, key, via)
        if cause:
            self.caused += 1
            if is_mapped(key, cause):
                self.mapped += 1

    def get(self, key: str) -> None:
        story = self.stories.get(key)
        if story is None:
            return
        story.reconciles += 1
        story.last, story.pending = story.pending, Batch()

    def __repr__(self) -> str:
        """By value (tests compare states fed in chunks and one by one)."""
        return repr(
            [
                (k, s.reconciles, s.pending.adds, s.pending.causes, s.last and s.last.adds)
                for k, s in self.stories.items()
            ]
        )

    def story(self, key: str) -> Story | None:
        return self.stories.get(key)

    def newest_first(self):
        """(key, story) of the keys added most recently, newest first."""
        return reversed(self.stories.items())
