"""Small drawing helpers shared by the RV, Resync and Queue panes.

Pure functions over plain values (no widgets), so the panes' renders stay
short and the helpers can be tested without a terminal.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence

from rich.text import Text

from kubectl_informer.core.durations import format_short as fmt_secs  # noqa: F401 - the panes' name for it


def column_of(t: float, t0: float, t1: float, width: int) -> int:
    """The column (0..width-1) a time falls in on an axis from t0 to t1."""
    if t1 <= t0 or width <= 1:
        return width - 1 if width else 0
    c = int((t - t0) / (t1 - t0) * width)
    return min(max(c, 0), width - 1)


def step_values(points: Sequence[tuple[float, float]], t0: float, t1: float, width: int) -> list[float | None]:
    """Sample a step function given as time-ordered ``(t, value)`` points at
    the end of each of ``width`` columns from t0 to t1: each column holds the
    last value at or before its end (None before the first point)."""
    out: list[float | None] = [None] * width
    if width <= 0:
        return out
    span = (t1 - t0) or 1.0
    i = 0
    n = len(points)
    cur: float | None = None
    for c in range(width):
        end = t0 + span * (c + 1) / width
        while i < n and points[i][0] <= end:
            cur = points[i][1]
            i += 1
        out[c] = cur
    return out


def step_chart(values: Sequence[float | None], lo: float, hi: float, height: int) -> list[str]:
    """Draw sampled step values as a line in a ``height``-row grid.

    Returns rows top first. Rising steps draw ``╯│╭`` so a jump in
    ResourceVersion reads as a jump, flat stretches draw ``─``.
    """
    width = len(values)
    grid = [[" "] * width for _ in range(height)]
    if height <= 0:
        return []
    rng = hi - lo

    def row_of(v: float) -> int:  # 0 = bottom
        if rng <= 0:
            return height // 2
        return min(height - 1, max(0, round((v - lo) / rng * (height - 1))))

    prev: int | None = None
    for c, v in enumerate(values):
        if v is None:
            prev = None
            continue
        r = row_of(v)
        if prev is None or prev == r:
            grid[height - 1 - r][c] = "─"
        elif r > prev:
            grid[height - 1 - prev][c] = "╯"
            for k in range(prev + 1, r):
                grid[height - 1 - k][c] = "│"
            grid[height - 1 - r][c] = "╭"
        else:
            grid[height - 1 - prev][c] = "╮"
            for k in range(r + 1, prev):
                grid[height - 1 - k][c] = "│"
            grid[height - 1 - r][c] = "╰"
        prev = r
    return ["".join(row) for row in grid]


def fit(line: Text | str, width: int) -> Text:
    """One display line, cropped (with an ellipsis) to ``width`` cells. A
    line break inside (a field of a hand-made recording) is shown as a space:
    it would push the pane's next lines down, past its height."""
    t = Text(line) if isinstance(line, str) else line.copy()
    t.no_wrap = True
    if "\n" in t.plain:
        t.plain = t.plain.replace("\n", " ")  # same length: the styles stay where they were
    if t.cell_len > width:
        t.truncate(max(0, width - 1), overflow="crop")
        t.append("…", style="dim")
    return t


def side_by_side(left: list[Text], right: list[Text], left_width: int, gap: int = 2) -> list[Text]:
    """Two columns of lines joined row by row; the left padded to ``left_width``."""
    out: list[Text] = []
    for i in range(max(len(left), len(right))):
        row = fit(left[i], left_width) if i < len(left) else Text()
        row.pad_right(left_width - row.cell_len + gap)
        if i < len(right):
            row.append_text(right[i])
        out.append(row)
    return out


def join_lines(lines: list[Text], width: int) -> Text:
    """The pane's whole render: lines cropped to ``width`` and joined."""
    out = Text(no_wrap=True, overflow="crop")
    for i, line in enumerate(lines):
        if i:
            out.append("\n")
        out.append_text(fit(line, width))
    return out


def bar(fraction: float, width: int) -> str:
    """A left-aligned bar of eighth-blocks for 0..1 of ``width`` cells."""
    fraction = min(max(fraction, 0.0), 1.0)
    eighths = int(round(fraction * width * 8))
    full, part = divmod(eighths, 8)
    s = "█" * full + (" ▏▎▍▌▋▊▉"[part] if part else "")
    return s.ljust(width)


def any_size(min_width: int, min_height: int):
    """For a ``render(state, now, width, height) -> Text``: lay out in at
    least ``min_width`` x ``min_height`` (below that a layout has no room to
    be a layout), then crop to the size asked, so a pane a resize leaves 1
    row or 1 column big still draws, its first lines, cut."""

    def wrap(render: Callable[..., Text]) -> Callable[..., Text]:
        @functools.wraps(render)
        def sized(state, now, width: int, height: int) -> Text:
            width, height = max(width, 1), max(height, 1)
            text = render(state, now, max(width, min_width), max(height, min_height))
            if width >= min_width and height >= min_height:
                return text
            return join_lines(text.split("\n")[:height], width)

        return sized

    return wrap
