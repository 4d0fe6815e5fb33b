"""The initial list's progress, for the header while the informer is not synced.

A 100,000-object list is a few hundred MB and several seconds: pages and
items listed, bytes read and the rate come from ``list.progress`` (chunks of
a page, as they are decoded) and ``list.page``; once the list is done, the
objects applied to the cache (``store.*``) count up to the list's size.
"""

from __future__ import annotations

from rich.text import Text

from kubectl_informer.core.durations import format_short
from kubectl_informer.core.trace import TraceEvent
from kubectl_informer.core.trace_kinds import (
    INFORMER_SYNCED,
    LIST_DONE,
    LIST_PAGE,
    LIST_PROGRESS,
    LIST_START,
    STORE_ADD,
    STORE_DELETE,
    STORE_UPDATE,
    WATCH_EVENT,
)


def fmt_bytes(n: float) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1000 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" or n >= 100 else f"{n:.1f} {unit}"
        n /= 1000
    return f"{n:.1f} GB"


class ListProgress:
    KINDS = frozenset(
        (
            LIST_START,
            LIST_PROGRESS,
            LIST_PAGE,
            LIST_DONE,
            INFORMER_SYNCED,
            STORE_ADD,
            STORE_UPDATE,
            STORE_DELETE,
            WATCH_EVENT,
        )
    )

    def __init__(self) -> None:
        self.reset(None)
        self.synced = False

    def __repr__(self) -> str:  # by value: tests compare pane states
        return f"{type(self).__name__}({vars(self)!r})"

    def reset(self, start: float | None) -> None:
        self.start = start
        self.pages_done = self.items_done = self.bytes_done = 0
        self.in_page = False  # a page is arriving (list.progress seen since the last list.page)
        self.items = 0
        self.bytes = 0
        self.listed: int | None = None  # items of the finished list, while the cache fills
        self.applied = 0
        self.watch_list = False  # a WatchList stream: its items arrive as watch events

    @property
    def streaming(self) -> bool:
        """A WatchList stream's initial events are arriving (its watch
        events are the list's items, not the reflector's RV moving)."""
        return self.watch_list and self.start is not None and self.listed is None and not self.synced

    def feed(self, ev: TraceEvent) -> None:
        kind = ev.kind
        f = ev.raw_fields  # store events are fed too: nothing of theirs is derived here
        if kind == WATCH_EVENT:
            if self.watch_list and self.listed is None:
                self.items += 1
        elif kind == LIST_START:
            self.reset(ev.time)
            self.synced = False
            self.watch_list = bool(f.get("watch_list"))
        elif kind == LIST_PROGRESS:  # cumulative over the list, mid-page
            self.in_page = True
            self.items = int(f.get("items") or 0)
            self.bytes = int(f.get("bytes") or 0)
        elif kind == LIST_PAGE:
            self.in_page = False
            self.pages_done += 1
            self.items_done += int(f.get("items") or 0)
            self.bytes_done += int(f.get("bytes") or 0)
            self.items = max(self.items, self.items_done)
            self.bytes = max(self.bytes, self.bytes_done)
        elif kind == LIST_DONE:
            self.listed = None if f.get("error") else int(f.get("items") or 0)
            if self.listed is None:
                self.start = None
        elif kind == INFORMER_SYNCED:
            self.synced = True
            self.listed = None
        elif self.listed is not None:  # store.*: the listed objects reaching the cache
            self.applied += 1

    def line(self, now: float) -> Text | None:
        """The progress text, or None when there is nothing to show."""
        if self.synced or self.start is None:
            return None
        t = Text(no_wrap=True)
        if self.listed is not None:
            t.append(f"◌ syncing {min(self.applied, self.listed):,}/{self.listed:,} into the cache", "bold yellow")
            return t
        elapsed = max(now - self.start, 1e-6)
        t.append(f"◌ listing {format_short(elapsed)}", "bold yellow")
        if self.watch_list:
            t.append(f" · WatchList stream · {self.items:,} items", "")
            if self.items:
                t.append(f" · {self.items / elapsed:,.0f} items/s", "dim")
            return t
        pages = self.pages_done + (1 if self.in_page else 0)
        if not pages:
            t.append(" · waiting for the first page", "")
            return t
        t.append(f" · page {pages} · {self.items:,} items · {fmt_bytes(self.bytes)}", "")
        if self.items:
            t.append(f" · {self.items / elapsed:,.0f} items/s", "dim")
        return t
