"""The attach screen's informers view (``i``), driven in-process at 160x45 with
the two pages recorded from the lab's kube-controller-manager v1.36.2: 55
informer rows, busiest first, a ``▼ N more`` line, the ``/`` filter, and the
one-line note (no empty table) for a process without client-go 1.36's series."""

from __future__ import annotations

import asyncio
import threading

from kubectl_informer.attach.model import AttachModel
from kubectl_informer.attach.page import parse_page
from kubectl_informer.tui.attach import AttachApp

from .pages import KCM_SECONDS_APART, client_go_page, kcm_pages
from .test_informers import _series

SIZE = (160, 45)


def kcm_model() -> AttachModel:
    m = AttachModel()
    for i, text in enumerate(kcm_pages()):
        m.update(parse_page(text, 100.0 + i * KCM_SECONDS_APART))
    return m


def drive(model, check, size=SIZE):
    async def go():
        app = AttachApp(model, threading.Lock(), "https://127.0.0.1:10257/metrics")
        async with app.run_test(size=size) as pilot:
            await pilot.pause()
            return await check(app, pilot)

    return asyncio.run(go())


def expected_order() -> list[str]:
    """The pages' informers, busiest first: most queued, then most pops/s
    (the histogram's count between the pages), then by group and resource."""
    first, second = kcm_pages()
    queued = _series(second, "informer_queued_items")
    c1, c2 = (_series(t, "informer_processing_latency_seconds_count") for t in (first, second))
    order = sorted(queued, key=lambda k: (-queued[k], -(c2[k] - c1[k]), k[0], k[2], k[1]))
    return [f"{g + '/' if g else ''}{v} {r}" for g, v, r in order]


def rows_of(lines: list[str]) -> list[str]:
    """The gvr of each data row (the first two words), hints left out."""
    return [" ".join(ln.split()[:2]) for ln in lines[1:] if not ln.startswith(("▲", "▼"))]


def test_i_shows_55_informers_busiest_first_fitting_160x45_with_a_more_line():
    async def check(app, pilot):
        keys = str(app.query_one("#keys").render())
        await pilot.press("i")
        await pilot.pause()
        table = app.informer_table
        shown = (table.display, app.cards.display, app.table.display, app.detail.display)
        lines = table.render().plain.split("\n")
        region, screen = table.region, app.screen.region
        notes = str(app.informer_notes.render())
        detail = str(app.informer_detail.render())
        hint = str(app.hint.render())
        width = table.content_size.width
        await pilot.press("down")
        second = table.selected
        await pilot.press("i")
        await pilot.pause()
        back = (app.view, app.informer_table.display, app.table.display)
        return keys, shown, lines, region, screen, notes, detail, hint, second, back, width

    keys, shown, lines, region, screen, notes, detail, hint, second, back, width = drive(kcm_model(), check)
    assert " i  Informers/queues" in keys
    assert shown == (True, False, False, False)
    assert lines[0].split()[:5] == ["INFORMER", "(group/version", "resource)", "QUEUED", "EVENTS/S"]
    rows = rows_of(lines)
    order = expected_order()
    assert len(order) == 55
    # As many rows as the table's height holds, the rest counted on the more-line.
    assert rows == order[: len(rows)] and 25 <= len(rows) < 55
    assert lines[-1].startswith(f"▼ {55 - len(rows)} more")
    assert len(lines) == region.height
    # Inside the screen, above the key line; no row is cut at the right edge.
    assert region.bottom <= screen.bottom - 1 and region.right <= screen.right
    assert max(len(ln) for ln in lines[:-1]) <= width
    # Percentiles estimated (≈), RVs absent on this page: '-'.
    assert "≈" in lines[1] and lines[1].split()[-3:] == ["-", "-", "-"]
    assert "no informer_store_resource_version on this page" in notes
    assert "stale-sync skips replicaset_controller: pods" in notes
    assert detail.startswith(f"{order[0]} (kube-controller-manager): ≈ estimated inside histogram buckets")
    assert hint.startswith("55 informers, busiest first")
    assert second.gvr == order[1]
    assert back == ("queues", False, True)


def test_the_filter_narrows_informers_by_group_and_inverts():
    async def check(app, pilot):
        await pilot.press("i", "slash", *"apps/", "enter")
        await pilot.pause()
        narrowed = (rows_of(app.informer_table.render().plain.split("\n")), str(app.status.render()))
        await pilot.press("slash", "home", "exclamation_mark", "enter")
        await pilot.pause()
        inverted = [f.gvr for f in app.shown_informers]
        return narrowed, inverted

    (rows, status), inverted = drive(kcm_model(), check)
    apps = [g for g in expected_order() if g.startswith("apps/")]
    assert rows == apps and len(apps) == 5
    assert "/apps/: 5 of 55 informers" in status
    assert len(inverted) == 50 and not any(g.startswith("apps/") for g in inverted)


def test_an_older_process_gets_the_note_and_no_table():
    lat = [0, 0, 0, 1, 4, 8, 10, 10, 10, 10]
    m = AttachModel()
    m.update(parse_page(client_go_page(depth=1, adds=2, retries=0, latency_cum=lat, work_cum=lat), 1.0))

    async def check(app, pilot):
        before = str(app.others.render())
        await pilot.press("i")
        await pilot.pause()
        return (
            before,
            app.informer_table.display,
            app.informer_notes.display,
            str(app.informer_notes.render()),
            str(app.hint.render()),
        )

    before, table, notes_shown, notes, hint = drive(m, check)
    assert hint == "i queues"
    note = "informers: this page has none of client-go 1.36's informer_* series"
    assert note in before  # said beside the queues too
    assert not table and notes_shown and notes.startswith(note) and len(notes.split("\n")) == 1


def test_a_narrow_table_drops_columns_rather_than_wrap_or_cut_figures():
    async def check(app, pilot):
        await pilot.press("i")
        await pilot.pause()
        return app.informer_table.render().plain.split("\n"), app.informer_table.content_size.width

    for size, dropped in (((120, 45), ["SERVER RV"]), ((100, 45), ["SERVER RV", "PROCESSING p50", "STORE RV"])):
        lines, width = drive(kcm_model(), check, size)
        assert max(len(ln) for ln in lines[:-1]) <= width, size
        assert all(d not in lines[0] for d in dropped) and "LAG (RV)" in lines[0] and "p99" in lines[0]
        assert lines[1].split()[:2] == expected_order()[0].split()
