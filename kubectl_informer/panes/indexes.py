"""The informer's indexes as the trace tells them: ByIndex without the engine.

``index.update`` says a key's values on one index whenever they change
(client-go's ``updateSingleIndex``); ``informer.start`` names each index and
what its IndexFunc reads; ``store.delete`` drops a key from every index (an
atomic ReplacedAll rebuilds the indices without saying which keys left).
From these, ``IndexView`` holds, per index, each value and the keys under it:
what ``Indexer.ByIndex(name, value)`` would answer, and its cost figures for
Explain. Bounded by what the cluster holds, as the indexer itself is.

The built-in namespace index is not traced (its value is the key's
namespace, which every store event says): given the live keys
(``live_keys``), the view derives it from them when asked, as
``MetaNamespaceIndexFunc`` would (``""`` for a cluster-scoped key).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from kubectl_informer.core.trace_kinds import INDEX_UPDATE, INFORMER_START, STORE_DELETE

KINDS = frozenset((INDEX_UPDATE, INFORMER_START, STORE_DELETE))


NAMESPACE = "namespace"  # cache.NamespaceIndex


class IndexView:
    def __init__(
        self, live_keys: Callable[[], Iterable[str]] | None = None, version: Callable[[], int] | None = None
    ) -> None:
        self.sources: dict[str, str] = {}  # index name -> what its IndexFunc reads
        self.values: dict[str, dict[str, dict[str, None]]] = {}  # index -> value -> keys (ordered set)
        self.of_key: dict[str, dict[str, tuple[str, ...]]] = {}  # index -> key -> its values
        self.changes = 0  # index.update events taken in
        self._live_keys = live_keys
        self._version = version or (lambda: -1)
        self._derived: tuple[int, dict] | None = None  # (version, the namespace index derived then)

    def __repr__(self) -> str:  # by value: tests compare pane states
        return f"{type(self).__name__}({self.sources!r}, {self.values!r}, {self.changes})"

    def _index(self, name: str) -> dict[str, dict[str, None]]:
        index = self.values.get(name)
        if index or name != NAMESPACE or self._live_keys is None:
            return index or {}
        version = self._version()
        if self._derived is not None and self._derived[0] == version >= 0:
            return self._derived[1]  # once per change of the keys, not once per frame
        derived: dict[str, dict[str, None]] = {}
        for key in self._live_keys():
            ns, sep, _ = key.partition("/")
            derived.setdefault(ns if sep else "", {})[key] = None
        self._derived = (version, derived)
        return derived

    def feed(self, kind: str, key: str | None, fields: dict) -> None:
        if kind == INDEX_UPDATE:
            self.changes += 1
            self.set(fields["index"], key, fields.get("values") or ())
        elif kind == STORE_DELETE:
            for name, held in list(self.of_key.items()):
                if key in held:
                    self.set(name, key, ())
        elif kind == INFORMER_START:
            for name, source in (fields.get("indexers") or {}).items():
                self.sources[name] = source

    def set(self, name: str, key: str | None, values) -> None:
        if key is None:
            return
        index = self.values.setdefault(name, {})
        held = self.of_key.setdefault(name, {})
        new = tuple(values)
        for v in held.pop(key, ()):
            keys = index.get(v)
            if keys is not None:
                keys.pop(key, None)
                if not keys:
                    del index[v]  # as client-go drops an emptied set
        if new:
            held[key] = new
            for v in new:
                index.setdefault(v, {})[key] = None

    @property
    def names(self) -> list[str]:
        """The indexes, the built-in namespace one first, then as declared."""
        names = list(self.sources) + [n for n in self.values if n not in self.sources]
        return sorted(names, key=lambda n: n != "namespace")

    def by_index(self, name: str, value: str) -> list[str]:
        """The keys under ``value``, sorted (client-go's IndexKeys)."""
        return sorted(self._index(name).get(value, ()))

    def rows(self, name: str, limit: int | None = None) -> list[tuple[str, list[str]]]:
        """(value, its keys sorted) for the ``limit`` values with most keys
        (all: None), most first; only those rows' keys are sorted, so a
        frame of a big index costs what it shows."""
        index = self._index(name)
        order = sorted(index, key=lambda v: (-len(index[v]), v))
        return [(v, sorted(index[v])) for v in (order if limit is None else order[:limit])]

    def value_count(self, name: str) -> int:
        return len(self._index(name))

    def figures(self, name: str) -> dict:
        """What the index holds: values, keys indexed, entries (a key under
        several values counts once per value), keys per value."""
        index = self._index(name)
        entries = sum(len(k) for k in index.values())
        keys = len(self.of_key[name]) if name in self.of_key else entries  # derived: one value per key
        top = max(index.items(), key=lambda kv: len(kv[1]), default=("", {}))
        return {
            "index": name,
            "source": self.sources.get(name, ""),
            "values": len(index),
            "keys": keys,
            "entries": entries,
            "per_value": entries / len(index) if index else 0.0,
            "top_value": top[0],
            "top_keys": len(top[1]),
        }
