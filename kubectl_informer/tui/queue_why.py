"""The Queue pane's "why" lines: the event that queued each of the newest
keys (the one event the run saw, and the handler that did), the adds its
last reconcile took in, and the owned objects' events that queued nothing.
The Inspector shows the same line for its key."""

from __future__ import annotations

from rich.text import Text

from kubectl_informer.panes.causes import ARROW, Story, drops_text
from kubectl_informer.panes.queue import QueueState


def story_words(story: Story) -> str:
    """``5 adds → 1 reconcile (Pod ×5)``: what the key's last get took in,
    or the adds still waiting for the next."""
    if story.pending.adds:
        batch, words = story.pending, "waiting"
    elif story.last is not None:
        batch, words = story.last, "→ 1 reconcile"
    else:
        return ""
    kinds = batch.kinds_text()
    return f"{batch.adds} add{'s' if batch.adds != 1 else ''} {words}" + (f" ({kinds})" if kinds else "")


def why_line(key: str, story: Story) -> Text:
    """``default/web ← ReplicaSet … Updated · 5 adds → 1 reconcile``."""
    return why_lines(key, story, 10_000)[0]


def why_lines(key: str, story: Story, width: int) -> list[Text]:
    """``why_line`` in lines of ``width``: whole if it fits, else the key
    and its adds first, then the chain broken before an arrow."""
    words = Text(f" · {story_words(story)}", "yellow") if story_words(story) else Text()
    one = Text(key, "bold")
    for link in story.newest:
        one.append(ARROW, "dim")
        one.append(link)
    one.append_text(words)
    if one.cell_len <= width or not story.newest:
        return [one]
    out = [Text.assemble((key, "bold"), words)]
    cur = Text("  ")
    for link in story.newest:
        piece = Text.assemble((ARROW.lstrip(), "dim"), link)
        if cur.cell_len > 2 and cur.cell_len + 1 + piece.cell_len > width:
            out.append(cur)
            cur = Text("  ")
        if cur.cell_len > 2:
            cur.append(" ")
        cur.append_text(piece)
    out.append(cur)
    return out


def _why_lines(st: QueueState, width: int, rows: int) -> list[Text]:
    """Why the newest keys were queued (the newest whole first), then the
    owned objects' events dropped, if there is room."""
    body: list[Text] = []
    for key, story in st.stories.newest_first():
        if len(body) >= rows:
            break
        body.extend(why_lines(key, story, width - 4)[: rows - len(body)])
    if not body:
        body.append(Text("no add yet", style="dim"))
    if st.drops and len(body) < rows:
        body.append(Text(f"dropped: {drops_text(st.drops)}", style="magenta"))
    out = []
    for i, line in enumerate(body):
        head = Text("why " if i == 0 else "    ", "bold magenta")
        head.append_text(line)
        out.append(head)
    return out[:rows]
