"""A pane's rows drawn by row_strips.RowPainter are the Strips Textual's own
path (visualize -> Visual.to_strips) makes of them: the same text, the same
rich styles (colours, attributes, the selection offsets in the meta), for
every row of every pane, in both themes' colours, and for generated rows."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from rich.style import Style as RichStyle
from rich.text import Text
from textual.visual import Visual, visualize

from kubectl_informer.tui.row_strips import RowPainter
from kubectl_informer.tui.textpane import TextPane

from .helpers import make_app, run


def textual_strip(pane, text: Text):
    made = Visual.to_strips(pane, visualize(pane, text), pane.content_region.width, 1, pane.visual_style)
    return made[0]


def drawn(strip) -> list[tuple[str, object]]:
    """A strip as (text, rich style) pairs, empty segments left out (they draw nothing)."""
    return [(seg.text, seg.style) for seg in strip if seg.text]


def assert_same(pane, text: Text) -> None:
    ours = RowPainter().strip(pane, text)
    assert ours is not None, f"the fast path declined {text!r}"
    assert drawn(ours) == drawn(textual_strip(pane, text)), text.plain
    assert ours.cell_length == text.cell_len


def test_every_row_of_every_pane_is_the_strip_textual_makes():
    app = make_app()

    async def check(pilot):
        rows = 0
        for pane in app.panes.values():
            if not isinstance(pane, TextPane):
                continue
            size = pane.content_region.size
            for text in pane._screen_rows(size.width, size.height):
                assert_same(pane, text)
                rows += 1
        assert rows > 40  # every pane drew its rows, styled ones among them

    run(check, app, (160, 50))


def test_the_focused_pane_and_a_new_theme_restyle_the_rows():
    app = make_app()

    async def check(pilot):
        pane = app.panes["deltas"]
        size = pane.content_region.size
        painter = RowPainter()
        text = pane._screen_rows(size.width, size.height)[2]
        before = drawn(painter.strip(pane, text))
        app.theme = "textual-light"
        await pilot.pause()
        after = drawn(painter.strip(pane, text))
        assert after == drawn(textual_strip(pane, text))
        assert after != before  # the light theme's background, not a stale one

    run(check, app, (160, 50))


def test_what_the_fast_path_leaves_to_textual():
    app = make_app()

    async def check(pilot):
        pane = app.panes["deltas"]
        painter = RowPainter()
        assert painter.strip(pane, Text("a\tb")) is None  # Textual expands tabs
        assert painter.strip(pane, Text("a\nb")) is None  # a row is one line
        linked = Text("see docs")
        linked.stylize(RichStyle(link="https://example.com"), 4)
        assert painter.strip(pane, linked) is None  # links take the widget's link style
        # And the pane still draws such a row, through Textual.
        assert "see docs" in "".join(s.text for s in pane._row_strip(linked, 40))

    run(check, app, (160, 50))


STYLES = st.sampled_from(
    [
        None,
        "bold",
        "dim",
        "red",
        "bold green",
        "reverse",
        "italic cyan on blue",
        "underline #ff8800",
        "strike",
        RichStyle(color="magenta", bold=False),
    ]
)
PIECES = st.lists(
    st.tuples(st.text(st.characters(codec="utf-8", exclude_categories=("Cc", "Cs")), max_size=8), STYLES), max_size=6
)


def test_generated_rows_are_the_strips_textual_makes():
    app = make_app()

    @settings(max_examples=200, deadline=None)
    @given(
        pieces=PIECES, base=STYLES, over=st.lists(st.tuples(st.integers(0, 30), st.integers(0, 30), STYLES), max_size=3)
    )
    def same(pieces, base, over):
        text = Text(style=base or "")
        for chunk, style in pieces:
            text.append(chunk, style)
        for start, end, style in over:  # styles laid over the pieces: spans that overlap
            if style is not None:
                text.stylize(style, start, end)
        width = app.panes["deltas"].content_region.width
        text.truncate(width, overflow="ellipsis")  # as the panes cut their rows
        assert_same(app.panes["deltas"], text)

    async def check(pilot):
        same()

    run(check, app, (160, 50))


def test_a_list_scrolled_by_one_converts_only_its_new_row():
    from kubectl_informer.tui.textpane import _moved_strips

    old = [Text("a"), Text("b", "bold"), Text("c")]
    strips = [object(), object(), None]  # c not converted yet
    rows = [Text("b", "bold"), Text("c"), Text("d")]
    fresh = _moved_strips(old, strips, rows, [0, 1, 2])
    assert fresh[0] is strips[1]  # b moved up, its strip with it
    assert fresh[1] is None and fresh[2] is None  # c had none; d is new
    # The same words in another style are another row.
    assert _moved_strips(old, strips, [Text("b")], [0]) == [None, strips[1], None]


def test_the_rows_on_screen_after_a_scroll_are_the_ones_drawn_afresh():
    from .helpers import TraceMaker, life_of_pod

    trace = TraceMaker()
    for i in range(30):
        life_of_pod(trace, f"default/web-{i}", 100 + i)
    app = make_app(trace)

    async def check(pilot):
        pane = app.panes["deltas"]
        await pilot.pause()
        for i in range(30, 33):  # more deltas: the list scrolls
            life_of_pod(trace, f"default/web-{i}", 100 + i)
            app.buffer.extend(trace.events[-8:])
            app.pump()
            await pilot.pause()
        size = pane.content_region.size
        fresh = pane._screen_rows(size.width, size.height)
        assert [t.plain for t in pane._row_texts] == [t.plain for t in fresh]
        for y, text in enumerate(fresh):
            assert drawn(pane.render_line(y)) == drawn(textual_strip(pane, text)), text.plain

    run(check, app, (160, 50))


def test_a_row_whose_own_style_alone_changed_is_redrawn():
    app = make_app()

    async def check(pilot):
        pane = app.panes["deltas"]
        rows = [Text("same words", style="dim")]
        pane.draw_lines = lambda w, h: [rows[0].copy()]
        pane.refresh()
        await pilot.pause()
        assert drawn(pane.render_line(0))[0][1].dim
        rows[0] = Text("same words", style="bold")
        pane.render_state(None)
        await pilot.pause()
        style = drawn(pane.render_line(0))[0][1]
        assert style.bold and not style.dim

    run(check, app, (160, 50))
