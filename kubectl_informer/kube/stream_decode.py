"""Decode a List's JSON while its bytes arrive, item by item.

A 100,000-pod LIST is about 300 MB of JSON. Reading it whole before decoding
holds the body and the objects at once, and leaves the CPU idle while the
bytes arrive. ``ListStream`` is fed the body chunk by chunk: each item is
decoded (orjson) as soon as the separator after it has arrived, and the bytes
before it are dropped, so the peak is the objects plus one chunk, and
decoding overlaps the transfer.

Items are found as in ``decode.py``: by the bytes ``},{"<first key>":``
between them; a piece cut at the same bytes inside an item is never valid
JSON and is extended to the next separator. The result always equals
``orjson.loads(body)`` (tested with hypothesis).

What repeats from one listed object to the next is shared as each is decoded
(``StringInterner``): the small maps of a pod's metadata and template
(labels, owner reference, tolerations, resources...) and its short strings
("Running", "IfNotPresent", a node's name, an image), visited where they sit
rather than by walking every value.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from typing import Any

import orjson

from kubectl_informer.kube.decode import gc_pause
from kubectl_informer.kube.limits import MAX_FRAME, TooLargeError

_dumps = orjson.dumps

# The first item's first key; the head before it is kept for the envelope.
_ITEMS_START = re.compile(rb'"items"\s*:\s*\[\s*\{\s*"((?:[^"\\]|\\.){1,64})"\s*:')
_EMPTY_ITEMS = re.compile(rb'"items"\s*:\s*\[\s*\]')
# Give up looking for the items in a head longer than this: decode the body whole.
HEAD_MAX = 1 << 20
# Drop consumed bytes once this many have piled up before the read position.
COMPACT_AT = 1 << 20
MAX_EXTENSIONS = 64
FREEZE_MIN_ITEMS = 1000
# A decoded dict of more keys than this is rebuilt smaller (StringInterner.intern).
COMPACT_KEYS = 8


class StringInterner:
    """Share the parts of listed objects that repeat from one object to the
    next, where they repeat, without walking every value.

    Walking each decoded object to intern every short string saved about a
    third of a pod's memory but doubled the decoding time (a Python loop over
    every value of every object). What repeats sits in known places, so only
    those are visited:

    - the object's ``kind`` and ``apiVersion`` are interned;
    - its ``metadata`` map is rebuilt key by key: orjson allocates a map of
      more than 8 keys larger than inserting them does;
    - ``metadata``: the small ``labels``, ``annotations`` and
      ``ownerReferences`` maps (the same for every pod of one ReplicaSet,
      Job, DaemonSet...) are kept once, found by their orjson bytes; so are
      ``managedFields``' ``fieldsV1`` trees (the same for every object one
      manager wrote the same way); ``namespace``, ``generateName`` and each
      ``managedFields`` entry's manager, operation, apiVersion, fieldsType
      and subresource are interned.
    - ``spec`` and each of its ``containers``/``initContainers``: the small
      maps and lists directly under them (tolerations, securityContext,
      affinity, resources, ports, env, probes...: the pod template's, the
      same for every replica) are kept once; their short strings (images,
      policies, a node's name) are interned.
    - ``status``: its short top-level strings (phase, qosClass, hostIP).

    Values under keys that are unique per object (names, uids, resource
    versions, timestamps, IPs) are never kept. Tables are bounded
    (``max_entries`` strings, ``max_trees`` maps), so memory stays bounded
    however long the run. Nothing mutates the shared maps; as in client-go,
    objects from the cache are read-only.
    """

    SKIP_KEYS = frozenset(
        (
            "name",
            "uid",
            "resourceVersion",
            "creationTimestamp",
            "podIP",
            "ip",
            "startTime",
            "containerID",
            "lastTransitionTime",
            "startedAt",
            "finishedAt",
            "time",
        )
    )
    SHARED_SMALL = ("labels", "annotations", "ownerReferences")
    # A managedFields entry's strings but its time: five entries an object
    # are 1.2 KB of copies of a few names (``kube-controller-manager``...).
    MANAGED_STRINGS = ("manager", "operation", "apiVersion", "fieldsType", "subresource")
    # A map is shared only if its JSON is at most this long: a big unique
    # annotation (last-applied-configuration) would cost its encoding as a
    # table key for nothing.
    SMALL_TREE_BYTES = 512
    MAX_LEN = 64

    def __init__(self, max_entries: int = 100_000, max_trees: int = 10_000):
        self.table: dict[str, str] = {}
        self.max_entries = max_entries
        self.trees: dict[bytes, Any] = {}
        self.max_trees = max_trees

    def intern(self, obj: Any) -> Any:
        """Share ``obj``'s repeating parts in place; returns ``obj``."""
        if type(obj) is not dict:
            if type(obj) is list:
                for item in obj:
                    self.intern(item)
            return obj
        self._strings(obj, ("kind", "apiVersion"))  # sent with every PartialObjectMetadata
        meta = obj.get("metadata")
        if type(meta) is dict:
            self._metadata(meta)
            if len(meta) > COMPACT_KEYS:
                # orjson's dict of 9-10 keys takes 352 bytes, 272 built key by
                # key (11-20 keys: 632, 464): 8 MiB at 100k objects.
                obj["metadata"] = dict(meta.items())
        spec = obj.get("spec")
        if type(spec) is dict:
            listed = (("containers", spec.get("containers")), ("initContainers", spec.get("initContainers")))
            self._children(spec)
            for k, containers in listed:
                # A list the line above swapped for an equal one already kept
                # had its containers' values shared when that one was kept.
                if spec.get(k) is containers and type(containers) is list:
                    for c in containers:
                        if type(c) is dict:
                            self._children(c)
        status = obj.get("status")
        if type(status) is dict:
            self._children(status, maps=False)
        return obj

    def _metadata(self, meta: dict) -> None:
        self._small_trees(meta, self.SHARED_SMALL)
        self._strings(meta, ("namespace", "generateName"))
        managed = meta.get("managedFields")
        if type(managed) is list:
            for entry in managed:
                if type(entry) is dict:
                    self._strings(entry, self.MANAGED_STRINGS)
                    tree = entry.get("fieldsV1")
                    if type(tree) is dict:
                        entry["fieldsV1"] = self._tree(tree)

    def _strings(self, node: dict, keys: tuple[str, ...]) -> None:
        table = self.table
        for k in keys:
            v = node.get(k)
            if type(v) is str:
                got = table.get(v)
                if got is None:
                    self._string(v)
                elif got is not v:
                    node[k] = got

    def _children(self, node: dict, maps: bool = True) -> None:
        """Intern the short strings directly in ``node`` and, with ``maps``,
        share its small maps and lists. Runs for several maps of every
        listed object, so the string lookups are written out here rather
        than calling ``_string`` for each."""
        skip = self.SKIP_KEYS
        table, max_len = self.table, self.MAX_LEN
        for k, v in node.items():
            t = type(v)
            if t is str:
                got = table.get(v)
                if got is None:
                    if len(v) <= max_len and k not in skip and len(table) < self.max_entries:
                        table[v] = v
                elif got is not v:
                    node[k] = got
            elif maps and (t is dict or t is list) and v and len(v) <= 16:
                got = self._small_tree(v)
                if got is not v:
                    node[k] = got

    def _string(self, s: str) -> str:
        got = self.table.get(s)
        if got is not None:
            return got
        if len(s) <= self.MAX_LEN and len(self.table) < self.max_entries:
            self.table[s] = s
        return s

    def _small_trees(self, node: dict, keys: tuple[str, ...]) -> None:
        for k in keys:
            v = node.get(k)
            if v and (type(v) is dict or type(v) is list) and len(v) <= 16:
                got = self._small_tree(v)
                if got is not v:
                    node[k] = got

    def _small_tree(self, v: Any) -> Any:
        """The kept copy of a map or list of at most ``SMALL_TREE_BYTES`` of
        JSON equal to ``v`` (``v`` itself the first time), found by its bytes."""
        blob = _dumps(v)
        if len(blob) > self.SMALL_TREE_BYTES:
            return v
        trees = self.trees
        got = trees.get(blob)
        if got is None:
            if len(trees) < self.max_trees:
                trees[blob] = v
            return v
        return got

    def _tree(self, tree: Any) -> Any:
        trees = self.trees
        blob = _dumps(tree)
        got = trees.get(blob)
        if got is not None:
            return got
        if len(trees) < self.max_trees:
            trees[blob] = tree
        return tree


class ListStream:
    """Feed a List body with ``feed(chunk)``; ``finish()`` returns the List
    as ``orjson.loads`` of the whole body would. ``items`` and
    ``bytes_seen`` report progress between chunks."""

    def __init__(self, interner: StringInterner | None = None):
        self.interner = interner
        self.items: list[Any] = []
        self.bytes_seen = 0
        self._buf = bytearray()
        self._head: bytes | None = None  # the envelope up to the first item
        self._whole = False  # no items found where expected: decode the body at the end
        self._sep = b""
        self._pos = 0  # start of the next item in _buf
        self._scan = 0  # where to look for the next separator
        self._tries = 0
        self._stuck = False  # a piece that never decoded: leave the rest to finish()

    def feed(self, chunk: bytes) -> None:
        self.bytes_seen += len(chunk)
        self._buf += chunk
        if self._whole:
            # Held whole to the end (no items where a List has them): one document.
            if len(self._buf) > MAX_FRAME:
                raise TooLargeError("a List whose items could not be found as they came", MAX_FRAME)
            return
        if self._head is None and not self._find_head():
            return
        if not self._stuck:
            self._decode_ready()
        if len(self._buf) - self._pos > MAX_FRAME:
            # Bytes since the last object decoded: one object that never ends.
            raise TooLargeError("one object of the list", MAX_FRAME)

    def _find_head(self) -> bool:
        buf = self._buf
        m = _ITEMS_START.search(buf)
        if m is None:
            if len(buf) > HEAD_MAX or _EMPTY_ITEMS.search(buf):
                self._whole = True
            return False
        first = buf.index(b"{", m.start())
        self._head = bytes(buf[:first])
        self._sep = b'},{"' + m.group(1) + b'":'
        self._pos = self._scan = first
        return True

    def _decode_ready(self) -> None:
        buf, sep, items = self._buf, self._sep, self.items
        interner = self.interner
        with memoryview(buf) as view:
            while True:
                cut = buf.find(sep, self._scan)
                if cut < 0:
                    # None up to here: the next feed looks only at what is new
                    # (a big object would be scanned again with every chunk).
                    self._scan = max(self._scan, len(buf) - len(sep) + 1)
                    break
                try:
                    with view[self._pos : cut + 1] as piece:
                        item = orjson.loads(piece)
                except orjson.JSONDecodeError:
                    self._tries += 1
                    self._scan = cut + 1  # a separator inside the item: extend
                    if self._tries > MAX_EXTENSIONS:
                        self._stuck = True
                        break
                    continue
                if interner is not None:
                    interner.intern(item)
                items.append(item)
                self._pos = self._scan = cut + 2
                self._tries = 0
        if self._pos >= COMPACT_AT:
            del buf[: self._pos]
            self._scan -= self._pos
            self._pos = 0

    def finish(self) -> dict:
        """The decoded List; ``ValueError`` when the body is not one."""
        if self._head is None:
            result = orjson.loads(bytes(self._buf))
            if self.interner is not None and isinstance(result, dict):
                self.interner.intern(result.get("items"))
            return result
        rest = bytes(self._buf[self._pos :]).decode("utf-8")
        self._buf = bytearray()
        dec = json.JSONDecoder()
        i = 0
        while True:  # the last item(s), then the end of the items array
            item, i = dec.raw_decode(rest, _skip_ws(rest, i))
            if self.interner is not None:
                self.interner.intern(item)
            self.items.append(item)
            i = _skip_ws(rest, i)
            if rest[i : i + 1] == ",":
                i += 1
                continue
            if rest[i : i + 1] != "]":
                raise ValueError("the List's items array is not closed")
            break
        envelope = orjson.loads(self._head + b"]" + rest[i + 1 :].encode())
        if not isinstance(envelope, dict) or envelope.get("items") != []:
            raise ValueError("not a List object")
        envelope["items"] = self.items
        return envelope


def _skip_ws(s: str, i: int) -> int:
    n = len(s)
    while i < n and s[i] in " \t\r\n":
        i += 1
    return i


def decode_list_chunks(
    chunks: Iterable[bytes], interner: StringInterner | None = None, progress: Callable[[int, int], None] | None = None
) -> dict:
    """Decode a List from an iterable of byte chunks, the GC paused (see
    decode.py) and the result frozen when it is big; ``progress(bytes,
    items)`` is called after each chunk."""
    stream = ListStream(interner)
    gc_pause.acquire()
    result = None
    try:
        for chunk in chunks:
            stream.feed(chunk)
            if progress is not None:
                progress(stream.bytes_seen, len(stream.items))
        result = stream.finish()
    finally:
        gc_pause.release(freeze=result is not None and len(stream.items) >= FREEZE_MIN_ITEMS)
    return result
