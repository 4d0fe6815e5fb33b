"""A big initial list in the UI: the header's progress line, and the Cache
pane's bytes per object and transform saving."""

import pytest

from kubectl_informer.panes.cache import CacheState
from kubectl_informer.panes.header import HeaderState

from .helpers import TraceMaker, info, make_app, pane_text, run, screen_text


def listing_trace() -> TraceMaker:
    e = TraceMaker(step=0.5)
    e("informer.start", fifo="DeltaFIFO", watch_list=False, resync_check_period=0.0)
    e("list.start", resource_version="0", watch_list=False)
    e(
        "list.page",
        resource_version="10",
        items=500,
        duration=0.4,
        watch_list=False,
        bytes=1_000_000,
        **{"continue": "c1"},
    )
    e("list.progress", pages=1, items=20_500, bytes=41_000_000, elapsed=0.9)
    return e


def test_progress_while_listing_then_while_the_cache_fills():
    e = listing_trace()
    st = HeaderState()
    st.feed_all(e.events)
    text = st.progress.line(e.t).plain
    assert text.startswith("◌ listing 1s") and "page 2" in text
    assert "20,500 items" in text and "41.0 MB" in text and "20,500 items/s" in text
    e(
        "list.page",
        resource_version="10",
        items=79_500,
        duration=3.0,
        watch_list=False,
        bytes=159_000_000,
        **{"continue": ""},
    )
    e("list.done", resource_version="10", items=80_000, duration=3.4, watch_list=False)
    for i in range(3):
        e("store.add", f"default/p{i}", resource_version="1", delta="Replaced")
    st.feed_all(e.events[-5:])
    assert st.progress.line(e.t).plain == "◌ syncing 3/80,000 into the cache"
    e("informer.synced", items=80_000, duration=5.0)
    st.feed_all(e.events[-1:])
    assert st.progress.line(e.t) is None


def test_watch_list_progress_counts_the_streamed_events():
    e = TraceMaker(step=0.5)
    e("list.start", resource_version="", watch_list=True)
    for i in range(4):
        e("watch.event", f"default/p{i}", type="ADDED", resource_version=str(i))
    st = HeaderState()
    st.feed_all(e.events)
    assert st.progress.line(e.t).plain == "◌ listing 2s · WatchList stream · 4 items · 2 items/s"


def test_failed_list_shows_no_progress():
    e = listing_trace()
    e("list.done", resource_version="", items=0, duration=1.0, watch_list=False, error="boom")
    st = HeaderState()
    st.feed_all(e.events)
    assert st.progress.line(e.t) is None


@pytest.mark.parametrize("size", [(80, 24), (160, 50)])
def test_header_draws_the_progress_line(size):
    app = make_app(listing_trace(), start_pane="cache")

    async def check(pilot):
        head = screen_text(app).splitlines()[1]
        assert head.strip().startswith("◌ listing") and "page 2 · 20,500 items" in head

    run(check, app, size)


def sized(e: TraceMaker, n: int, before: int, after: int, transforms=("strip-managed-fields",)):
    for i in range(n):
        e("store.add", f"default/p{i}", resource_version="1", delta="Added")
        if i % 4 == 0:
            e(
                "transform",
                f"default/p{i}",
                bytes=after,
                bytes_before=before,
                objects=i + 1,
                every=4,
                transforms=list(transforms),
                applied=list(transforms),
            )


def test_cache_state_estimates_bytes_held_and_saved():
    e = TraceMaker()
    sized(e, 8, before=8000, after=2000)
    st = CacheState()
    st.feed_all(e.events)
    assert st.sizes.per_object() == (2000, 8000)
    lines = [t.plain for t in st.sizes.lines(st.count)]
    assert lines[0] == "≈ 16.0 KB held, 2.0 KB/object  (1 in 4 sampled)"
    assert lines[1] == "transform strip-managed-fields: 8.0 KB → 2.0 KB/object, saved ≈ 48.0 KB (-75%)"


def test_cache_pane_shows_sizes_without_transforms():
    e = TraceMaker()
    for i in range(3):
        e("store.add", f"default/p{i}", resource_version="1", delta="Added")
    e("object.size", "default/p0", bytes=1500, objects=1, every=32)
    app = make_app(e, start_pane="cache")

    async def check(pilot):
        lines = pane_text(app.panes["cache"]).splitlines()
        assert lines[2].startswith("≈ 4.5 KB held, 1.5 KB/object")
        assert not any(ln.startswith("transform") for ln in lines)

    run(check, app)


def test_header_says_metadata_only():
    app = make_app(info=info(metadata_only=True))

    async def check(pilot):
        assert "paged LIST · metadata only" in screen_text(app).splitlines()[0]

    run(check, app, (160, 50))
