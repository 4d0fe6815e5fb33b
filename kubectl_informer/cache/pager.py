"""client-go's ``tools/pager``: one List assembled from ``limit``/``continue`` pages.

``ListPager.list`` asks for pages of ``page_size`` items and follows the
server's ``continue`` token until a page comes back without one. When a
continue token expires between pages (410 on a ``continue`` request: the
resource version the first page fixed was compacted away) and
``full_list_if_expired`` is on (the default, as ``pager.New``), it falls
back to one unpaged list at the resource version (and resourceVersionMatch)
the caller *asked* for, so
the caller still gets a list no older than it wanted. Only after that fails
does the Reflector's own rule (relist at ``""``) apply.

``each_list_item`` lists the pages on a thread of its own while the caller's
function runs on the items, up to ``page_buffer_size`` pages ahead (client-go's
``PageBufferSize``, 10 by default; 0 hands each page over as it is taken).
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Any

from kubectl_informer.cache.listwatch import ListOptions
from kubectl_informer.core.apierrors import is_expired

DEFAULT_PAGE_SIZE = 500
DEFAULT_PAGE_BUFFER_SIZE = 10


class ListPager:
    """``page_fn(options) -> dict`` lists one page (a List object as a dict).

    ``on_page(page, options, fallback)`` is called after each page arrives,
    for tracing: ``fallback`` is true for the full list made after an
    expired continue token.
    """

    def __init__(
        self,
        page_fn: Callable[[ListOptions], dict[str, Any]],
        page_size: int = DEFAULT_PAGE_SIZE,
        full_list_if_expired: bool = True,
        on_page: Callable[[dict[str, Any], ListOptions, bool], None] | None = None,
        page_buffer_size: int = DEFAULT_PAGE_BUFFER_SIZE,
    ):
        self.page_fn = page_fn
        self.page_size = page_size
        self.page_buffer_size = page_buffer_size
        self.full_list_if_expired = full_list_if_expired
        self.on_page = on_page

    def _fetch(self, options: ListOptions, fallback: bool = False) -> dict[str, Any]:
        page = self.page_fn(options)
        if self.on_page is not None:
            self.on_page(page, options, fallback)
        return page

    def list(self, options: ListOptions) -> tuple[dict[str, Any], bool]:
        """``(list, paginated)``: the whole List (``items`` and
        ``metadata.resourceVersion`` of the first page) and whether the
        server split it into pages."""
        if not options.limit:
            options = replace(options, limit=self.page_size or None)
        requested_rv, requested_match = options.resource_version, options.resource_version_match
        items: list[Any] | None = None
        first_meta: dict[str, Any] = {}
        paginated = False
        while True:
            try:
                page = self._fetch(options)
            except Exception as err:
                # Only an expired *continuation* gets the full-list fallback: an
                # expired first page means the requested RV itself is gone.
                if not (is_expired(err) and self.full_list_if_expired and options.continue_):
                    raise
                full = replace(
                    options,
                    limit=None,
                    continue_=None,
                    resource_version=requested_rv,
                    resource_version_match=requested_match,
                )
                return self._fetch(full, fallback=True), paginated
            meta = page.get("metadata") or {}
            cont = meta.get("continue") or ""
            if not cont and items is None:
                return page, paginated  # one page: returned as the server sent it
            if items is None:
                items = []
                first_meta = {"resourceVersion": meta.get("resourceVersion") or ""}
            items.extend(page.get("items") or ())
            if not cont:
                return {"metadata": first_meta, "items": items}, paginated
            options = _continued(options, cont)
            paginated = True

    def each_list_item(self, options: ListOptions, fn: Callable[[Any], None]) -> None:
        """Call ``fn`` on every item, page by page, without assembling the
        list, the next pages listed meanwhile (``page_buffer_size`` ahead).
        An exception from ``fn`` is raised at once and no further page is
        listed; one from listing (an expired continue token: no fallback, as
        client-go) after the items of the pages listed before it."""
        if self.page_buffer_size < 0:
            raise ValueError(f"ListPager.page_buffer_size must be >= 0, got {self.page_buffer_size}")
        channel = _PageChannel(self.page_buffer_size)
        failed: list[BaseException] = []

        def produce() -> None:
            try:
                for page in self.pages(options):
                    if not channel.send(page):
                        return  # the caller stopped: list nothing more
            except BaseException as e:  # noqa: BLE001  any failure, handed to the caller's thread
                failed.append(e)
            finally:
                channel.close()

        threading.Thread(target=produce, name="list-pager", daemon=True).start()
        try:
            while (page := channel.receive()) is not None:
                for item in page.get("items") or ():
                    fn(item)
        finally:
            channel.cancel()
        if failed:
            raise failed[0]

    def pages(self, options: ListOptions) -> Iterator[dict[str, Any]]:
        if not options.limit:
            options = replace(options, limit=self.page_size or None)
        while True:
            page = self._fetch(options)
            yield page
            cont = (page.get("metadata") or {}).get("continue") or ""
            if not cont:
                return
            options = _continued(options, cont)


def _continued(options: ListOptions, token: str) -> ListOptions:
    """The next page's request: a continue request carries neither a
    resource version nor a match (the token holds the version; the API
    server refuses either with it), as client-go's pager clears both."""
    return replace(options, continue_=token, resource_version="", resource_version_match=None)


class _PageChannel:
    """Go's buffered channel of pages, with ``size`` 0 a hand-over: ``send``
    returns once at most ``size`` pages wait (for 0, once this one was taken),
    ``False`` if the receiver cancelled."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._pages: deque[dict[str, Any]] = deque()
        self._cond = threading.Condition()
        self._closed = False
        self._cancelled = False

    def send(self, page: dict[str, Any]) -> bool:
        with self._cond:
            if self._cancelled:
                return False
            self._pages.append(page)
            self._cond.notify_all()
            self._cond.wait_for(lambda: self._cancelled or len(self._pages) <= self._size)
            return not self._cancelled

    def receive(self) -> dict[str, Any] | None:
        """The next page; ``None`` once closed and drained."""
        with self._cond:
            self._cond.wait_for(lambda: self._pages or self._closed)
            if not self._pages:
                return None
            page = self._pages.popleft()
            self._cond.notify_all()
            return page

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._cond.notify_all()

    def cancel(self) -> None:
        with self._cond:
            self._cancelled = True
            self._pages.clear()
            self._cond.notify_all()
