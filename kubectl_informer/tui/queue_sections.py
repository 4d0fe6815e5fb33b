"""The Queue pane's sections laid out (tui/queue.py draws what is in them):
items flowed into aligned columns, a titled section, and the rows shared
between sections."""

from __future__ import annotations

import itertools

from rich.text import Text

LABEL_W = 14  # a section's title column


def columns(widths: list[int], width: int) -> tuple[int, int]:
    """(column width, columns) for items of ``widths`` in ``width`` cells: as
    ``ls`` lays names out, every column as wide as the widest item, so a row
    never holds a second key where the others hold one."""
    colw = max(widths, default=1)
    return colw, max(1, (width + 2) // (colw + 2))


def flow(items, total: int, width: int, max_lines: int) -> list[Text]:
    """Lay ``items`` (Texts) out in aligned columns over at most ``max_lines``
    lines, ending with ``…+N`` when they do not all fit. Only as many items
    as fit are taken, so a queue of 10,000 costs a screenful."""
    taken = list(itertools.islice(items, max(1, max_lines) * (width // 4 + 1)))
    if not taken:
        return [Text()]
    colw, cols = columns([t.cell_len for t in taken], width)
    room = cols * max(1, max_lines)
    shown = taken[:room] if total <= room else taken[: room - 1]
    cells = [t.copy() for t in shown]
    if len(shown) < total:
        cells.append(Text(f"…+{total - len(shown)}", style="dim"))
    lines: list[Text] = []
    for r in range(0, len(cells), cols):
        row = Text()
        for i, cell in enumerate(cells[r : r + cols]):
            if i:
                row.append("  ")
            cell.truncate(colw, overflow="ellipsis")
            row.append_text(cell)
            if i < cols - 1 and r + i + 1 < len(cells):
                row.pad_right(colw - cell.cell_len)
        lines.append(row)
    return lines[: max(1, max_lines)]


def section(title: str, count: int | None, body: list[Text], style: str = "bold") -> list[Text]:
    label = title if count is None else f"{title} {count}"
    out = []
    for i, line in enumerate(body):
        head = Text(f"{label:<{LABEL_W - 1}} " if i == 0 else " " * LABEL_W, style=style if i == 0 else "")
        head.append_text(line)
        out.append(head)
    return out


def allocate(wants: list[int], avail: int) -> list[int]:
    """Share ``avail`` rows between sections: one each first, then the rest
    in turn to those wanting more."""
    got = [0] * len(wants)
    for i, w in enumerate(wants):
        if avail > 0 and w > 0:
            got[i] = 1
            avail -= 1
    while avail > 0:
        progressed = False
        for i, w in enumerate(wants):
            if avail > 0 and got[i] < w:
                got[i] += 1
                avail -= 1
                progressed = True
        if not progressed:
            break
    return got


def flowed(items_fn, total: int, empty: str):
    """A section body laid out with flow, or ``empty`` when there is nothing."""
    return lambda w, rows: flow(items_fn(w, rows), total, w, rows) if total else [Text(empty, style="dim")]


def want_flow(widths, w: int, avail: int) -> int:
    """Rows a flowed section needs for items of ``widths`` (at most ``avail``)."""
    widths = list(widths)
    _, cols = columns(widths, w)
    return max(1, min(avail + 1, -(-len(widths) // cols)))


def build(spec, w: int, rows: int) -> list[Text]:
    title, count, fn = spec
    return section(title, count, fn(w, rows))[:rows]
