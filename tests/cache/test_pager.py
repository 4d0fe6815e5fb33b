"""ListPager: the cases of client-go's tools/pager/pager_test.go
(TestListPager_List, TestListPager_EachListItem)."""

from __future__ import annotations

import threading

import pytest

from kubectl_informer.cache.listwatch import ListOptions
from kubectl_informer.cache.pager import ListPager
from kubectl_informer.cache.testing.fake_controller_source import expired_error
from kubectl_informer.clock.testing import wait_for
from kubectl_informer.core.apierrors import ApiError, is_expired


def names(n: int) -> list[dict]:
    return [{"metadata": {"name": str(i)}} for i in range(n)]


class PagedServer:
    """client-go's testPager: serves ``remaining`` items in pages of exactly
    ``expect_page``, checking each request's limit and continue token."""

    def __init__(self, remaining: int, expect_page: int = 10, rv: str = "rv:20"):
        self.rv = rv
        self.index = 0
        self.remaining = remaining
        self.last = 0
        self.continuing = False
        self.done = False
        self.expect_page = expect_page
        self.calls = 0

    def reset(self) -> None:
        self.continuing = False
        self.remaining += self.index
        self.index = 0
        self.last = 0
        self.done = False

    def paged_list(self, options: ListOptions) -> dict:
        self.calls += 1
        assert not self.done, "did not expect an additional call to the paged list"
        expected_continue = f"{self.rv}:{self.last}"
        assert (options.limit or 0) == self.expect_page
        if self.continuing:
            assert options.continue_ == expected_continue
        total = options.limit or self.remaining
        items = []
        for _ in range(total):
            if self.remaining <= 0:
                break
            items.append({"metadata": {"name": str(self.index)}})
            self.remaining -= 1
            self.index += 1
        self.last = self.index
        meta = {"resourceVersion": self.rv}
        if self.remaining > 0:
            meta["continue"] = f"{self.rv}:{self.last}"
            self.continuing = True
        else:
            self.done = True
        return {"metadata": meta, "items": items}

    def expires_on_second_page(self, options: ListOptions) -> dict:
        if self.continuing:
            self.done = True
            raise expired_error("this list has expired")
        return self.paged_list(options)

    def expires_on_second_page_then_full_list(self, options: ListOptions) -> dict:
        if self.continuing:
            self.reset()
            self.expect_page = 0
            raise expired_error("this list has expired")
        return self.paged_list(options)


@pytest.mark.parametrize(
    "remaining", [0, 9, 10, 11, 21], ids=["empty", "one page", "one full page", "two pages", "three pages"]
)
def test_list_assembles_pages(remaining):
    srv = PagedServer(remaining)
    got, paginated = ListPager(srv.paged_list, page_size=10, full_list_if_expired=False).list(ListOptions())
    assert got["items"] == names(remaining)
    assert got["metadata"]["resourceVersion"] == "rv:20"
    assert paginated is (remaining > 10)
    assert srv.calls == max(1, -(-remaining // 10))


def test_list_expired_on_second_page_without_fallback_raises():
    srv = PagedServer(21)
    with pytest.raises(ApiError) as e:
        ListPager(srv.expires_on_second_page, page_size=10, full_list_if_expired=False).list(ListOptions())
    assert is_expired(e.value)


def test_list_expired_on_second_page_then_full_list():
    srv = PagedServer(21)
    pages = []
    pager = ListPager(
        srv.expires_on_second_page_then_full_list,
        page_size=10,
        on_page=lambda page, opts, fallback: pages.append((opts.limit, fallback)),
    )
    got, paginated = pager.list(ListOptions(resource_version="7"))
    assert got["items"] == names(21)
    assert paginated is True
    # The fallback is unpaged and asks for the RV the caller asked for.
    assert pages == [(10, False), (None, True)]


def test_list_fallback_keeps_the_requested_rv_and_clears_continue():
    asked = []

    def page_fn(opts):
        asked.append((opts.resource_version, opts.limit, opts.continue_))
        if opts.continue_:
            raise expired_error()
        if opts.limit:
            return {"metadata": {"resourceVersion": "11", "continue": "C1"}, "items": names(2)}
        return {"metadata": {"resourceVersion": "12"}, "items": names(3)}

    got, paginated = ListPager(page_fn, page_size=2).list(ListOptions(resource_version="10"))
    assert asked == [("10", 2, None), ("", 2, "C1"), ("10", None, None)]
    assert got["metadata"]["resourceVersion"] == "12" and len(got["items"]) == 3 and paginated


def test_first_page_expired_is_not_a_fallback_case():
    calls = []

    def page_fn(opts):
        calls.append(opts)
        raise expired_error()

    with pytest.raises(ApiError):
        ListPager(page_fn, page_size=10).list(ListOptions(resource_version="10"))
    assert len(calls) == 1


@pytest.mark.parametrize("remaining", [0, 9, 10, 11, 21])
def test_each_list_item_visits_every_item_in_order(remaining):
    srv = PagedServer(remaining)
    seen = []
    ListPager(srv.paged_list, page_size=10).each_list_item(ListOptions(), seen.append)
    assert seen == names(remaining)


def test_each_list_item_expired_on_second_page_raises_after_first_page():
    srv = PagedServer(21)
    seen = []
    with pytest.raises(ApiError) as e:
        ListPager(srv.expires_on_second_page, page_size=10).each_list_item(ListOptions(), seen.append)
    assert is_expired(e.value)
    assert seen == names(10)  # every item of the first page was visited


def test_each_list_item_stops_at_the_processor_error():
    srv = PagedServer(51)
    seen = []

    def fn(item):
        seen.append(item)
        if len(seen) == 3:
            raise RuntimeError("processor error")

    with pytest.raises(RuntimeError, match="processor error"):
        ListPager(srv.paged_list, page_size=10, page_buffer_size=0).each_list_item(ListOptions(), fn)
    assert seen == names(3)
    assert wait_for(lambda: not any(t.name == "list-pager" for t in threading.enumerate()))
    # No page listed beyond the one being processed and the one handed over.
    assert srv.calls <= 2


@pytest.mark.parametrize(
    "total, processed, want_lists, buffer",
    [
        (1, 1, 1, 0),
        (5, 1, 2, 0),
        (5, 2, 3, 0),
        (5, 5, 5, 0),  # 0: one page listed while one is processed
        (5, 1, 3, 1),
        (5, 5, 5, 1),
        (5, 1, 5, 10),  # a buffer bigger than the list holds all of it
    ],
)
def test_each_list_item_lists_up_to_page_buffer_size_pages_ahead(total, processed, want_lists, buffer):
    # client-go's TestListPager_eachListPageBuffered.
    srv = PagedServer(total * 10)
    lists = []
    enough = threading.Event()

    def page_fn(options):
        lists.append(options)
        if len(lists) == want_lists:
            enough.set()
        return srv.paged_list(options)

    pages = []

    def fn(item):
        if item["metadata"]["name"].endswith("0"):  # the first item of a page
            pages.append(item)
            if len(pages) == processed:
                assert enough.wait(5), f"timed out waiting for {want_lists} page lists"
                raise RuntimeError("processor error")

    with pytest.raises(RuntimeError, match="processor error"):
        ListPager(page_fn, page_size=10, page_buffer_size=buffer).each_list_item(ListOptions(), fn)
    assert wait_for(lambda: not any(t.name == "list-pager" for t in threading.enumerate()))
    assert len(lists) == want_lists and len(pages) == processed


def test_a_negative_page_buffer_size_is_refused():
    with pytest.raises(ValueError, match="page_buffer_size must be >= 0, got -1"):
        ListPager(PagedServer(5).paged_list, page_buffer_size=-1).each_list_item(ListOptions(), print)
