"""client-go's ``tools/pager``: one List assembled from ``limit``/``continue`` pages.

``ListPager.list`` asks for pages of ``page_size`` items and follows the
server's ``continue`` token until a page comes back without one. When a
continue token expires between pages (410 on a ``continue`` request: the
resource version the first page fixed was compacted away) and
``full_list_if_expired`` is on (the default, as ``pager.New``), it falls
back to one unpaged list at the resource version the caller *asked* for, so
the caller still gets a list no older than it wanted. Only after that fails
does the Reflector's own rule (relist at ``""``) apply.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Callable, Iterator

from ..apierrors import is_expired
from .listwatch import ListOptions

DEFAULT_PAGE_SIZE = 500


class ListPager:
    """``page_fn(options) -> dict`` lists one page (a List object as a dict).

    ``on_page(page, options, fallback)`` is called after each page arrives,
    for tracing: ``fallback`` is true for the full list made after an
    expired continue token.
    """

    def __init__(self, page_fn: Callable[[ListOptions], dict], page_size: int = DEFAULT_PAGE_SIZE,
                 full_list_if_expired: bool = True,
                 on_page: Callable[[dict, ListOptions, bool], None] | None = None):
        self.page_fn = page_fn
        self.page_size = page_size
        self.full_list_if_expired = full_list_if_expired
        self.on_page = on_page

    def _fetch(self, options: ListOptions, fallback: bool = False) -> dict:
        page = self.page_fn(options)
        if self.on_page is not None:
            self.on_page(page, options, fallback)
        return page

    def list(self, options: ListOptions) -> tuple[dict, bool]:
        """``(list, paginated)``: the whole List (``items`` and
        ``metadata.resourceVersion`` of the first page) and whether the
        server split it into pages."""
        if not options.limit:
            options = replace(options, limit=self.page_size or None)
        requested_rv = options.resource_version
        items: list[Any] | None = None
        first_meta: dict = {}
        paginated = False
        while True:
            try:
                page = self._fetch(options)
            except Exception as err:
                # Only an expired *continuation* gets the full-list fallback: an
                # expired first page means the requested RV itself is gone.
                if not (is_expired(err) and self.full_list_if_expired and options.continue_):
                    raise
                full = replace(options, limit=None, continue_=None, resource_version=requested_rv)
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
            # A continue request must not carry a resource version (the token has it).
            options = replace(options, continue_=cont, resource_version="")
            paginated = True

    def each_list_item(self, options: ListOptions, fn: Callable[[Any], None]) -> None:
        """Call ``fn`` on every item, page by page, without assembling the
        list. An expired continue token is raised (no fallback), as client-go."""
        for page in self.pages(options):
            for item in page.get("items") or ():
                fn(item)

    def pages(self, options: ListOptions) -> Iterator[dict]:
        if not options.limit:
            options = replace(options, limit=self.page_size or None)
        while True:
            page = self._fetch(options)
            yield page
            cont = (page.get("metadata") or {}).get("continue") or ""
            if not cont:
                return
            options = replace(options, continue_=cont, resource_version="")
