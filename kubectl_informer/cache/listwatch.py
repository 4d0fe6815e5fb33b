"""What a Reflector lists and watches through.

A ``ListerWatcher`` returns List objects as dicts (``items``,
``metadata.resourceVersion``, ``metadata.continue``) and watches as iterables
of ``WatchEvent``. ``kube/`` implements it over HTTP; tests and benchmarks
use in-memory ones. Event types are plain strings, as on the wire. The API's
errors are in ``kubectl_informer.core.apierrors``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

ADDED = "ADDED"
MODIFIED = "MODIFIED"
DELETED = "DELETED"
BOOKMARK = "BOOKMARK"
ERROR = "ERROR"

INITIAL_EVENTS_END_ANNOTATION = "k8s.io/initial-events-end"


@dataclass(frozen=True)
class WatchEvent:
    type: str
    object: Any


@dataclass
class ListOptions:
    resource_version: str | None = None
    resource_version_match: str | None = None  # "Exact" | "NotOlderThan"
    limit: int | None = None
    continue_: str | None = None
    label_selector: str | None = None
    field_selector: str | None = None
    timeout_seconds: int | None = None
    allow_watch_bookmarks: bool = False
    send_initial_events: bool | None = None


@runtime_checkable
class Watch(Protocol):
    def __iter__(self) -> Iterator[WatchEvent]: ...
    def stop(self) -> None: ...


@runtime_checkable
class ListerWatcher(Protocol):
    def list(self, options: ListOptions) -> dict[str, Any]: ...
    def watch(self, options: ListOptions) -> Watch: ...


class ListWatch:
    """A ListerWatcher from two functions (client-go's ``cache.ListWatch``)."""

    def __init__(self, list_func: Callable[[ListOptions], dict[str, Any]], watch_func: Callable[[ListOptions], Watch]):
        self.list_func = list_func
        self.watch_func = watch_func

    def list(self, options: ListOptions) -> dict[str, Any]:
        return self.list_func(options)

    def watch(self, options: ListOptions) -> Watch:
        return self.watch_func(options)
