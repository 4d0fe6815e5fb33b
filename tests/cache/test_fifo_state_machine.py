"""Hypothesis state machines: DeltaFIFO and RealFIFO against simple models.

Each machine drives a FIFO with random add/update/delete/replace/resync/pop
and a consumer that applies popped deltas to an Indexer (the FIFO's known
objects, as the informer does), and checks after every step that the FIFO's
queue order, per-key deltas, deduplication and has_synced match a plain
model written from client-go's documented rules.
"""

from __future__ import annotations

from itertools import pairwise

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from kubectl_informer.cache.delta_fifo import (
    ADDED,
    BOOKMARK,
    DELETED,
    REPLACED,
    REPLACED_ALL,
    SYNC,
    SYNC_ALL,
    UPDATED,
    Delta,
    DeltaFIFO,
    ReplacedAllInfo,
    SyncAllInfo,
)
from kubectl_informer.cache.keys import DeletedFinalStateUnknown as DFSU
from kubectl_informer.cache.real_fifo import RealFIFO
from kubectl_informer.cache.store import Indexer

NAMES = st.sampled_from(["a", "b", "c", "d"])
SETTINGS = settings(
    max_examples=100, stateful_step_count=30, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


def mk(name: str, n: int) -> dict:
    return {"metadata": {"name": name}, "n": n}


def unwrap(obj):
    return obj.obj if isinstance(obj, DFSU) else obj


class DeltaFIFOMachine(RuleBasedStateMachine):
    """Model: an ordered dict key -> list of (type, object), plus the known
    store and the initial-population bookkeeping."""

    def __init__(self):
        super().__init__()
        self.n = 0

    @initialize(with_known=st.booleans(), emit_replaced=st.booleans())
    def setup(self, with_known, emit_replaced):
        self.known = Indexer() if with_known else None
        self.fifo = DeltaFIFO(known_objects=self.known, emit_delta_type_replaced=emit_replaced)
        self.replace_type = REPLACED if emit_replaced else SYNC
        self.queue: dict[str, list[Delta]] = {}
        self.known_model: dict[str, dict] = {}
        self.populated = False
        self.initial = 0

    def _obj(self, name):
        self.n += 1
        return mk(name, self.n)

    def _append(self, key, delta):
        deltas = self.queue.setdefault(key, [])
        deltas.append(delta)
        if len(deltas) >= 2 and deltas[-1].type == DELETED and deltas[-2].type == DELETED:
            older, newer = deltas[-2], deltas[-1]
            deltas[-2:] = [newer if isinstance(older.object, DFSU) else older]

    @rule(name=NAMES)
    def add(self, name):
        obj = self._obj(name)
        self.fifo.add(obj)
        self.populated = True
        self._append(name, Delta(ADDED, obj))

    @rule(name=NAMES)
    def update(self, name):
        obj = self._obj(name)
        self.fifo.update(obj)
        self.populated = True
        self._append(name, Delta(UPDATED, obj))

    @rule(name=NAMES)
    def delete(self, name):
        obj = self._obj(name)
        self.fifo.delete(obj)
        self.populated = True
        if name in self.queue or name in self.known_model:
            self._append(name, Delta(DELETED, obj))

    @rule(names=st.lists(NAMES, unique=True, max_size=4))
    def replace(self, names):
        objs = [self._obj(n) for n in names]
        self.fifo.replace(objs, str(self.n))
        for o in objs:
            self._append(o["metadata"]["name"], Delta(self.replace_type, o))
        deletions = 0
        for key in list(self.queue):
            if key not in names:
                deletions += 1
                self._append(key, Delta(DELETED, DFSU(key, unwrap(self.queue[key][-1].object))))
        if self.known is not None:
            for key, obj in list(self.known_model.items()):
                if key not in names and key not in self.queue:
                    deletions += 1
                    self._append(key, Delta(DELETED, DFSU(key, obj)))
        if not self.populated:
            self.populated = True
            self.initial = len(names) + deletions

    @rule()
    def resync(self):
        self.fifo.resync()
        if self.known is None:
            return
        for key, obj in list(self.known_model.items()):
            if key not in self.queue:
                self._append(key, Delta(SYNC, obj))

    @precondition(lambda self: self.queue)
    @rule()
    def pop(self):
        key = next(iter(self.queue))
        expected = self.queue.pop(key)
        expected_initial = not (self.populated and self.initial == 0)
        if self.initial > 0:
            self.initial -= 1
        seen = []

        def process(deltas, is_in_initial_list):
            seen.append(is_in_initial_list)
            for d in deltas:
                if self.known is None:
                    continue
                if d.type == DELETED:
                    self.known.delete(d.object.key if isinstance(d.object, DFSU) else d.object)
                else:
                    self.known.update(d.object)

        got = self.fifo.pop(process, timeout=5)
        assert got == expected
        assert seen == [expected_initial]
        for d in expected if self.known is not None else ():
            if d.type == DELETED:
                self.known_model.pop(key, None)
            else:
                self.known_model[key] = d.object

    @invariant()
    def queue_matches(self):
        if not hasattr(self, "fifo"):
            return
        assert self.fifo.list_keys() == list(self.queue)
        for key, deltas in self.queue.items():
            assert self.fifo.get_by_key(key) == (deltas, True)
            # No key ever holds two deletions in a row.
            assert not any(a.type == b.type == DELETED for a, b in pairwise(deltas))
        assert self.fifo.has_synced() == (self.populated and self.initial == 0)
        if self.known is not None:
            assert {k: self.known.get_by_key(k)[0] for k in self.known.list_keys()} == self.known_model


class RealFIFOMachine(RuleBasedStateMachine):
    """Model: a list of entries in arrival order (no coalescing, no dedup)."""

    def __init__(self):
        super().__init__()
        self.n = 0

    @initialize(atomic=st.booleans(), bookmarks=st.booleans())
    def setup(self, atomic, bookmarks):
        self.atomic = atomic
        self.bookmarks = atomic and bookmarks
        self.known = None if atomic else Indexer()
        self.fifo = RealFIFO(known_objects=self.known, atomic_events=atomic, emit_delta_type_bookmark=self.bookmarks)
        self.entries: list[Delta] = []
        self.known_model: dict[str, dict] = {}
        self.populated = False
        self.initial = 0

    def _obj(self, name):
        self.n += 1
        return mk(name, self.n)

    @staticmethod
    def _key(delta):
        obj = delta.object
        if isinstance(obj, DFSU):
            return obj.key
        if isinstance(obj, dict):
            return obj["metadata"]["name"]
        return None

    @rule(name=NAMES, op=st.sampled_from([ADDED, UPDATED, DELETED]))
    def change(self, name, op):
        obj = self._obj(name)
        {ADDED: self.fifo.add, UPDATED: self.fifo.update, DELETED: self.fifo.delete}[op](obj)
        self.populated = True
        self.entries.append(Delta(op, obj))

    @rule(names=st.lists(NAMES, unique=True, max_size=4))
    def replace(self, names):
        objs = [self._obj(n) for n in names]
        rv = str(self.n)
        self.fifo.replace(objs, rv)
        if self.atomic:
            self.entries.append(Delta(REPLACED_ALL, ReplacedAllInfo(rv, objs)))
        else:
            last: dict[str, Delta] = {}
            for d in self.entries:
                last[self._key(d)] = d
            for key, d in last.items():
                if key not in names and d.type != DELETED:
                    self.entries.append(Delta(DELETED, DFSU(key, d.object)))
            for key, obj in self.known_model.items():
                if key not in names and key not in last:
                    self.entries.append(Delta(DELETED, DFSU(key, obj)))
            self.entries.extend(Delta(REPLACED, o) for o in objs)
        if not self.populated:
            self.populated = True
            self.initial = len(self.entries)

    @rule()
    def resync(self):
        self.fifo.resync()
        if self.atomic:
            self.entries.append(Delta(SYNC_ALL, SyncAllInfo()))
            return
        queued = {self._key(d) for d in self.entries}
        for key, obj in self.known_model.items():
            if key not in queued:
                self.entries.append(Delta(SYNC, obj))

    @rule(rv=st.integers(1, 99))
    def bookmark(self, rv):
        self.fifo.bookmark(str(rv))
        if self.bookmarks:
            self.entries.append(Delta(BOOKMARK, str(rv)))

    @precondition(lambda self: self.entries)
    @rule()
    def pop(self):
        expected = self.entries.pop(0)
        expected_initial = not (self.populated and self.initial == 0)
        seen = []

        def process(deltas, is_in_initial_list):
            seen.append(is_in_initial_list)
            d = deltas[0]
            if self.known is None or self._key(d) is None:
                return
            if d.type == DELETED:
                # A str is an explicit key: how a tombstone's key reaches the store.
                self.known.delete(d.object.key if isinstance(d.object, DFSU) else d.object)
            else:
                self.known.update(d.object)

        got = self.fifo.pop(process, timeout=5)
        if self.initial > 0:
            self.initial -= 1
        assert got == [expected]
        assert seen == [expected_initial]
        key = self._key(expected)
        if not self.atomic and key is not None:
            if expected.type == DELETED:
                self.known_model.pop(key, None)
            else:
                self.known_model[key] = expected.object

    @invariant()
    def entries_match(self):
        if not hasattr(self, "fifo"):
            return
        assert self.fifo.pending() == self.entries
        assert self.fifo.has_synced() == (self.populated and self.initial == 0)


TestDeltaFIFOStateMachine = DeltaFIFOMachine.TestCase
TestDeltaFIFOStateMachine.settings = SETTINGS
TestRealFIFOStateMachine = RealFIFOMachine.TestCase
TestRealFIFOStateMachine.settings = SETTINGS
