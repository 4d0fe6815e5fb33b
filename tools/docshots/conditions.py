"""What a shot waits for, read from the run's trace: a ``Condition`` is a
callable over the events seen so far (in order) that says when the screen
shows what the shot is about. Waiting on the trace, not a sleep, keeps shots
the same on a loaded machine."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from kubectl_informer.core.trace import TraceEvent

Condition = Callable[[Sequence[TraceEvent]], bool]


@dataclass(frozen=True)
class Seen:
    """At least ``count`` events of ``kind`` whose fields include ``fields``
    (and, if given, for which ``where(event)`` holds)."""

    kind: str
    count: int = 1
    fields: tuple[tuple[str, Any], ...] = ()
    where: Callable[[TraceEvent], bool] | None = None

    def matches(self, ev: TraceEvent) -> bool:
        if ev.kind != self.kind:
            return False
        f = ev.fields
        if any(f.get(k) != v for k, v in self.fields):
            return False
        return self.where is None or self.where(ev)

    def __call__(self, events: Sequence[TraceEvent]) -> bool:
        n = 0
        for ev in events:
            if self.matches(ev):
                n += 1
                if n >= self.count:
                    return True
        return False

    def __str__(self) -> str:
        fields = "".join(f" {k}={v!r}" for k, v in self.fields)
        return f"{self.count}× {self.kind}{fields}"


def seen(kind: str, count: int = 1, where: Callable[[TraceEvent], bool] | None = None, **fields: Any) -> Seen:
    return Seen(kind, count, tuple(sorted(fields.items())), where)


@dataclass(frozen=True)
class AllOf:
    parts: tuple[Condition, ...]

    def __call__(self, events: Sequence[TraceEvent]) -> bool:
        return all(p(events) for p in self.parts)

    def __str__(self) -> str:
        return " and ".join(map(str, self.parts))


def all_of(*parts: Condition) -> AllOf:
    return AllOf(parts)


@dataclass(frozen=True)
class After:
    """``then`` holds counting only the events after ``first`` first held."""

    first: Seen
    then: Condition

    def __call__(self, events: Sequence[TraceEvent]) -> bool:
        n = 0
        for i, ev in enumerate(events):
            if self.first.matches(ev):
                n += 1
                if n >= self.first.count:
                    return self.then(events[i + 1 :])
        return False

    def __str__(self) -> str:
        return f"{self.then} after {self.first}"


def after(first: Seen, then: Condition) -> After:
    return After(first, then)
