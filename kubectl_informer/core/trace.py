"""The observation bus.

Every engine component reports what it does as ``TraceEvent``s through one
``Tracer``; the UI, ``-o json`` and recordings all read that one stream.

Emitting with no subscriber must cost next to nothing, because the engine
emits several events per delta: ``emit`` returns at once, and hot paths can
test ``tracer.enabled`` before building their fields at all. Kinds and
fields are declared in ``trace_kinds``; ``emit`` checks nothing (tests do).
"""

from __future__ import annotations

import itertools
import os
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from itertools import repeat
from operator import call, itemgetter
from typing import TYPE_CHECKING, Any

import orjson

from kubectl_informer.clock import Clock, RealClock
from kubectl_informer.core.trace_kinds import (
    KINDS,
    TRACE_VERSION,
    ContractError,
    checked,
    upgrade_v1,
    with_defaults,
)

_tuple_new = tuple.__new__


class TraceEvent(tuple[Any, ...]):
    """One thing the machinery did; ``fields`` holds JSON values only and
    follows the kind's declaration in ``trace_kinds``.

    A tuple ``(seq, time, kind, key, fields)`` with named read-only
    attributes: ``Tracer.emit`` builds it with one C call (no Python
    ``__init__`` frame), which matters at several events per delta."""

    __slots__ = ()

    def __new__(cls, seq: int, time: float, kind: str, key: str | None, fields: dict[str, Any]) -> TraceEvent:
        return _tuple_new(cls, (seq, time, kind, key, fields))

    if TYPE_CHECKING:  # what the C-level getters below return

        @property
        def seq(self) -> int: ...
        @property
        def time(self) -> float: ...
        @property
        def kind(self) -> str: ...
        @property
        def key(self) -> str | None: ...
        # Any, as a reader sees them: each field is what the kind declares
        # (trace_kinds), held by the contract where events are emitted or read.
        @property
        def fields(self) -> Any: ...
        @property
        def raw_fields(self) -> Any: ...

    else:
        seq = property(itemgetter(0))
        time = property(itemgetter(1))
        kind = property(itemgetter(2))
        key = property(itemgetter(3))
        fields = property(itemgetter(4))
        # The fields as emitted (a ``DerivedTraceEvent``'s derived ones may be missing).
        raw_fields = property(itemgetter(4))

    def field(self, name: str, default: Any = None) -> Any:
        """One field; on a ``DerivedTraceEvent``, a derived one is computed
        (that one only) the first time it is asked for."""
        return self[4].get(name, default)

    def to_dict(self) -> dict[str, Any]:
        # In-process references (objects) stay out of JSON.
        return {
            "seq": self.seq,
            "time": self.time,
            "kind": self.kind,
            "key": self.key,
            "fields": self.fields_without_locals(),
            "v": TRACE_VERSION,
        }

    def fields_without_locals(self, derived: bool = True) -> dict[str, Any]:
        """The fields less the kind's local ones (the objects, ``Kind.local``):
        what JSON carries, and what a record kept for long may hold.
        ``derived``: a ``DerivedTraceEvent``'s derived fields computed first
        (else as emitted). The event's own dict when it holds no local field."""
        local = _local_of(self[2])
        fields: dict[str, Any] = self.fields if derived else self[4]
        for name in local:  # runs for every delta the UI lets go: no generator, a C copy
            if name in fields:
                break
        else:
            return fields
        out = fields.copy()
        for name in local:
            out.pop(name, None)
        return out

    def released(self) -> TraceEvent:
        """This event holding no objects: itself if it holds none, else a
        plain ``TraceEvent`` whose derived fields were computed now, while
        the objects are at hand."""
        local = _local_of(self[2])
        if not any(name in self[4] for name in local):
            return self
        return TraceEvent(self[0], self[1], self[2], self[3], self.fields_without_locals())

    def stripped(self) -> TraceEvent:
        """As ``released`` without deriving: the fields a reader already
        asked for stay, the others are gone with the objects (what the UI
        keeps of a row no one looked at while it fell behind)."""
        f = self.fields_without_locals(derived=False)
        return self if f is self[4] else TraceEvent(self[0], self[1], self[2], self[3], f)

    def to_json(self) -> str:
        return orjson.dumps(self.to_dict(), default=str).decode()

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> TraceEvent:
        kind = str(d["kind"])
        fields = dict(d.get("fields") or {})
        if d.get("v") is None:
            fields = upgrade_v1(kind, fields)
        return cls(int(d["seq"]), float(d["time"]), KINDS.get(kind, kind), d.get("key"), fields)

    @classmethod
    def from_json(cls, line: str | bytes) -> TraceEvent:
        return cls.from_dict(orjson.loads(line))

    @classmethod
    def checked(cls, seq: int, time: float, kind: str, key: str | None = None, **fields: Any) -> TraceEvent:
        """An event built by hand (tests, benches), refused unless the
        contract declares its kind, key and fields."""
        checked(kind, key, fields)
        return cls(seq, time, KINDS[kind], key, fields)

    @classmethod
    def build(cls, seq: int, time: float, kind: str, key: str | None = None, **fields: Any) -> TraceEvent:
        """As ``checked``, with the fields left out set to their zero values
        (``trace_kinds.with_defaults``): for traces written by hand."""
        return cls.checked(seq, time, kind, key, **with_defaults(kind, fields))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TraceEvent) and self.to_dict() == other.to_dict()

    def __ne__(self, other: object) -> bool:
        return not self == other

    __hash__ = None  # type: ignore[assignment]  # fields is a dict

    def __repr__(self) -> str:
        return (
            f"TraceEvent(seq={self.seq}, time={self.time:.3f}, kind={self.kind!r}, key={self.key!r}, "
            f"fields={self.fields!r})"
        )


def _local_of(kind: str) -> tuple[str, ...]:
    """The kind's local fields (a kind given as a plain str is looked up)."""
    local = getattr(kind, "local", None)
    if local is None:
        k = KINDS.get(kind)
        local = k.local if k is not None else ()
    return local


def _derive_of(kind: str) -> dict[str, Callable[[dict[str, Any]], Any]]:
    """The kind's derivations (a kind given as a plain str is looked up)."""
    derive = getattr(kind, "derive", None)
    if derive is None:
        k = KINDS.get(kind)
        derive = k.derive if k is not None else {}
    return derive


class DerivedTraceEvent(TraceEvent):
    """An event of a kind with derived fields (``Kind.derive``), emitted by
    ``Tracer.emit_derived`` without them: the engine hands over the objects
    it holds (local fields), and a derived field is computed from the event's
    fields when a reader first asks for it (``field``), or all of them when
    one reads ``fields`` (JSON, generic readers). Most events are counted or
    drained unread, so the engine never pays for them."""

    __slots__ = ()

    @property
    def fields(self) -> dict[str, Any]:
        f: dict[str, Any] = self[4]
        for name, fn in _derive_of(self[2]).items():
            if name not in f:
                f[name] = fn(f)
        return f

    def field(self, name: str, default: Any = None) -> Any:
        f = self[4]
        try:
            return f[name]
        except KeyError:
            fn = _derive_of(self[2]).get(name)
            if fn is None:
                return default
            v = f[name] = fn(f)
            return v


# Set (tests do): every emitted event is checked against trace_kinds, and an
# undeclared kind or field raises where it is emitted.
CHECK_ENV = "KUBECTL_INFORMER_TRACE_CHECK"


def _checking(
    emit: Callable[..., None], emit_derived: Callable[..., None]
) -> tuple[Callable[..., None], Callable[..., None]]:
    """``emit`` and ``emit_derived`` that first check the event against the
    contract (``CHECK_ENV``)."""

    def checked_emit(kind: str, key: str | None = None, /, **fields: Any) -> None:
        checked(kind, key, fields)
        if KINDS[kind].derive:
            raise ContractError(f"{kind}: a kind with derived fields needs emit_derived")
        emit(kind, key, **fields)

    def checked_emit_derived(kind: str, key: str | None = None, /, **fields: Any) -> None:
        checked(kind, key, fields)
        emit_derived(kind, key, **fields)

    return checked_emit, checked_emit_derived


Subscriber = Callable[[TraceEvent], None]


class Tracer:
    """Fan-out of TraceEvents to subscribers, stamped with ``clock`` time.

    Subscribers run on the emitting thread and must be quick (append to a
    buffer). ``emit`` and ``emit_derived`` are functions rebuilt whenever
    the subscribers change, with what they need bound in: with no
    subscriber they return at once; with a ``TraceBuffer`` as the only one
    they append to its deque (no Python frame per event beyond emit's own),
    else they fan out over all of them. Engine threads call them without a
    lock; a call racing a subscription change reaches the old sink.
    """

    emit: Callable[..., None]
    emit_derived: Callable[..., None]  # emit for a kind with derived fields (``Kind.derive``), left out

    def __init__(self, clock: Clock | None = None) -> None:
        self.clock = clock or RealClock()
        # emit runs several times per delta: skip a Python frame where we can.
        self._now = time.monotonic if type(self.clock) is RealClock else self.clock.now
        self._seq = itertools.count(1)
        self._subscribers: tuple[Subscriber, ...] = ()
        self._sink: Subscriber | None = None
        self._direct: TraceBuffer | None = None  # the buffer whose deque is the sink
        self._lock = threading.Lock()
        self._checking = bool(os.environ.get(CHECK_ENV))
        self.enabled = False
        self._bind_emit()

    def _bind_emit(self) -> None:
        sink, seq, now = self._sink, self._seq, self._now
        if sink is None:

            def emit(kind: str, key: str | None = None, /, **fields: Any) -> None:
                return None

            emit_derived = emit
        else:

            def emit(kind: str, key: str | None = None, /, **fields: Any) -> None:
                sink(_tuple_new(TraceEvent, (next(seq), now(), kind, key, fields)))

            def emit_derived(kind: str, key: str | None = None, /, **fields: Any) -> None:
                sink(_tuple_new(DerivedTraceEvent, (next(seq), now(), kind, key, fields)))

        if self._checking:
            emit, emit_derived = _checking(emit, emit_derived)
        self.emit, self.emit_derived = emit, emit_derived

    def issued(self) -> int:
        """Sequence numbers handed out so far (events emitted to someone)."""
        return int(repr(self._seq)[6:-1]) - 1  # "count(N)": N is the next one

    def _set_subscribers(self, subs: tuple[Subscriber, ...]) -> None:
        self._subscribers = subs
        direct = subs[0] if len(subs) == 1 and isinstance(subs[0], TraceBuffer) else None
        if direct is not self._direct:
            # A buffer fed directly does not count its events: the tracer's
            # sequence numbers do, from when it became (until it stops being) the sink.
            if self._direct is not None:
                self._direct._fed_directly(None)
            if direct is not None:
                direct._fed_directly(self)
            self._direct = direct
        if not subs:
            self._sink = None
        elif direct is not None:
            self._sink = direct.trace_sink
        elif len(subs) == 1:
            self._sink = subs[0]
        else:

            def fan_out(ev: TraceEvent) -> None:
                for s in subs:
                    s(ev)

            self._sink = fan_out
        self._bind_emit()
        self.enabled = bool(subs)

    def subscribe(self, callback: Subscriber) -> Callable[[], None]:
        with self._lock:
            self._set_subscribers(self._subscribers + (callback,))

        def unsubscribe() -> None:
            with self._lock:
                subs = list(self._subscribers)
                if callback in subs:
                    subs.remove(callback)
                self._set_subscribers(tuple(subs))

        return unsubscribe


# Shared by components built without a tracer: never subscribed, so free.
NULL_TRACER = Tracer()


def informer_of(event: TraceEvent) -> str | None:
    """The resource of the informer whose pipeline emitted ``event``
    ("deployments.apps", "pods"), or None in a one-informer run (and for
    events no informer emits): the ``informer`` field ``InformerTracer`` adds."""
    value = event[4].get("informer")
    return value if isinstance(value, str) else None


class InformerTracer:
    """One informer's view of the run's tracer, in a run with several: every
    event it emits carries ``informer=RESOURCE``, so readers can tell the
    pipelines apart (``informer_of``). Emits through ``parent``'s current
    ``emit`` (rebound when subscribers change), so a subscription made after
    the informer was built still sees its events."""

    def __init__(self, parent: Tracer, informer: str) -> None:
        self.parent = parent
        self.informer = informer
        self.clock = parent.clock

    @property
    def enabled(self) -> bool:
        return self.parent.enabled

    def emit(self, kind: str, key: str | None = None, /, **fields: Any) -> None:
        if self.parent.enabled:
            fields["informer"] = self.informer
            self.parent.emit(kind, key, **fields)

    def emit_derived(self, kind: str, key: str | None = None, /, **fields: Any) -> None:
        if self.parent.enabled:
            fields["informer"] = self.informer
            self.parent.emit_derived(kind, key, **fields)

    def subscribe(self, callback: Subscriber) -> Callable[[], None]:
        return self.parent.subscribe(callback)

    def issued(self) -> int:
        return self.parent.issued()


class TraceBuffer:
    """A subscriber that keeps events until a reader drains them.

    Bounded: if nobody drains, the oldest events are dropped (and counted) so
    memory stays bounded however long the engine runs. Subscribed alone to a
    tracer, events go straight into its deque (``trace_sink``); what it
    received is then the tracer's count of events since it subscribed.
    """

    def __init__(self, maxlen: int = 500_000) -> None:
        self._events: deque[TraceEvent] = deque(maxlen=maxlen)
        self._append = self.trace_sink = self._events.append
        self._lock = threading.Lock()
        self._drained = 0
        self._counted = 0  # events received by __call__ and extend
        self._tracer: Tracer | None = None  # set while a tracer appends to the deque directly
        self._from = 0

    def _fed_directly(self, tracer: Tracer | None) -> None:
        if self._tracer is not None:
            self._counted += self._tracer.issued() - self._from
        self._tracer = tracer
        if tracer is not None:
            self._from = tracer.issued()

    def __call__(self, ev: TraceEvent) -> None:
        # deque.append is atomic under the GIL and drops the oldest when full.
        self._append(ev)
        self._counted += 1

    @property
    def received(self) -> int:
        t = self._tracer
        return self._counted if t is None else self._counted + t.issued() - self._from

    @property
    def dropped(self) -> int:
        """Events pushed out unread because nobody drained in time."""
        return max(0, self.received - self._drained - len(self._events))

    def extend(self, events: Iterable[TraceEvent]) -> None:
        events = list(events)
        self._events.extend(events)
        self._counted += len(events)

    def drain(self, max_events: int | None = None) -> list[TraceEvent]:
        pop = self._events.popleft
        with self._lock:
            n = len(self._events) if max_events is None else min(max_events, len(self._events))
            # popleft n times in C (the engine appends meanwhile; n are
            # there). Not iter(pop, sentinel): that compares every event.
            out = list(map(call, repeat(pop, n)))
            self._drained += n
        return out

    def newest(self, n: int) -> list[TraceEvent]:
        """Up to ``n`` of the events waiting, newest first, left in place
        (what a reader behind can already know about). One C call over the
        deque's end: no engine thread appends while it runs (the GIL)."""
        return list(itertools.islice(reversed(self._events), n))

    def __len__(self) -> int:
        return len(self._events)


def read_trace(lines: Iterable[str | bytes]) -> list[TraceEvent]:
    """Parse NDJSON trace lines (``-o json`` output, recordings)."""
    return [TraceEvent.from_json(line) for line in lines if line.strip()]
