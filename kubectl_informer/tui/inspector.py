"""Drawing the Inspector pane from its state.

What the pane knows, and why: ``panes/inspector.py``.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable

from rich.text import Text
from textual.binding import Binding

from kubectl_informer.core.durations import format_short
from kubectl_informer.core.printable import printable
from kubectl_informer.core.trace import TraceEvent
from kubectl_informer.core.trace_kinds import (
    FIFO_COALESCE,
    FIFO_POP,
    FIFO_QUEUE,
    QUEUE_ADD,
    QUEUE_DONE,
    QUEUE_GET,
    WATCH_EVENT,
)
from kubectl_informer.panes.causes import ARROW
from kubectl_informer.panes.deltas import delta_style
from kubectl_informer.panes.inspector import (
    STAGE_ORDER,
    InspectorState,
    stage_of,
)
from kubectl_informer.panes.objects import DeltaEntry
from kubectl_informer.panes.trail import FROM_SUMMARY
from kubectl_informer.tui.cursor import CURSOR_BINDINGS, KeyCursor
from kubectl_informer.tui.host import informer_host
from kubectl_informer.tui.objects import change_text
from kubectl_informer.tui.predicate_marker import predicate_marker
from kubectl_informer.tui.queue_why import why_lines
from kubectl_informer.tui.textpane import TextPane


def describe(ev: TraceEvent, diff: bool = True) -> Text:
    """The fields of one event that matter for following a key (``diff``:
    an update's changed paths too)."""
    f = ev.raw_fields  # derived fields are asked for one by one (ev.field)
    k = ev.kind
    t = Text(no_wrap=True)
    if f.get(FROM_SUMMARY):
        # A summary keeps an event's kind and RV, not its fields (panes/trail.py).
        if f.get("resource_version") is not None:
            t.append(f"rv={f['resource_version']} ", "dim")
        t.append("(from a summary: no detail)", "dim italic")
    elif k == WATCH_EVENT:
        t.append(f"{f.get('type', '')} ", "bold")
        t.append(f"rv={f.get('resource_version', '')}", "dim")
    elif k in (FIFO_QUEUE, FIFO_COALESCE):
        typ = str(f.get("type", ""))
        t.append(typ, delta_style(typ))
        if f.get("pending") is not None:
            t.append(f" pending {f['pending']}")
    elif k == FIFO_POP:
        _describe_pop(t, f)
    elif k.startswith("store."):
        _describe_store(t, ev, diff)
    elif k.startswith("handler."):
        t.append(str(f.get("listener", "")))
        if f.get("is_sync"):
            t.append(" (resync)", "cyan")
    elif (k in (QUEUE_GET, QUEUE_DONE)) and f.get("worker") is not None:
        _describe_worker(t, k, f)
    elif k == QUEUE_ADD and f.get("cause"):
        t.append(f"{f.get('outcome', '')} ", "magenta")
        t.append(ARROW.lstrip() + ARROW.join(map(str, f["cause"])), "")
        via = f.get("via")
        if isinstance(via, str) and via.isidentifier():  # a handler's name; a recording could hold anything
            t.append(f" by {via}", "dim")
    else:
        t.append(_plain_fields(f))
    return t


def _describe_pop(t: Text, f: dict) -> None:
    t.append("[")
    for i, typ in enumerate(f.get("types") or []):
        if i:
            t.append(" ")
        t.append(str(typ), delta_style(str(typ)))
    t.append("]")
    if f.get("is_in_initial_list"):
        t.append(" initial list", "dim")
    if f.get("waited") is not None:
        t.append(f" waited {_secs(f['waited'])}", "dim")


def _describe_store(t: Text, ev: TraceEvent, diff: bool) -> None:
    f = ev.raw_fields
    d = str(f.get("delta", ""))
    t.append(f"{d} ", delta_style(d))
    t.append(f"rv={f.get('resource_version', '')} ", "dim")
    t.append_text(predicate_marker(ev))  # updates only: G R L A, or resync
    summary = ev.field("summary")
    if summary:
        t.append(f"{summary} ")
    changed = ev.field("diff") if diff else None
    if changed:
        t.append(", ".join(map(str, changed)), "italic")
    if f.get("tombstone"):
        t.append(" tombstone", "red")


def _describe_worker(t: Text, k: str, f: dict) -> None:
    """The sample controller's worker: who took it, how long, how it went."""
    t.append(f"w{f['worker']} ", "bold magenta")
    if k == QUEUE_GET:
        t.append(f"got it after {_secs(f.get('waited'))}" if f.get("waited") is not None else "got it")
        t.append(f" · depth {f.get('depth')}", "dim")
        return
    outcome = str(f.get("outcome") or "")
    t.append(outcome, "red" if outcome == "error" else "green")
    if f.get("worked") is not None:
        t.append(f" · worked {_secs(f['worked'])}")
    if f.get("requeued"):
        t.append(" · queued again (dirty)", "yellow")


def _plain_fields(f: dict) -> str:
    parts = []
    for name, val in f.items():
        if isinstance(val, float):
            val = _secs(val) if name in ("waited", "worked", "duration", "delay") else f"{val:g}"
        elif isinstance(val, (list, dict)):
            continue
        parts.append(f"{name}={val}")
    return " ".join(parts)


def _secs(v) -> str:
    try:
        return format_short(float(v))
    except (TypeError, ValueError):
        return str(v)


# What an expanded delta shows, in order: functions (entry, width) -> lines.
# Others append their own section (e.g. predicates for updates).
DetailSection = Callable[[DeltaEntry, int], list[Text]]


def diff_section(entry: DeltaEntry, width: int) -> list[Text]:
    """The full diff of an update (status, spec, other, metadata, noise), or
    what is known of another delta's object."""
    if not entry.is_update:
        held = "y shows its object as YAML" if entry.obj is not None else "its object is no longer held"
        return [Text(f"{' ' * 10}{entry.event.fields.get('delta', '')}: {held}", "dim")]
    lines = entry.detail_lines()
    if not lines:
        same = entry.event.fields.get("old_resource_version") == entry.event.fields.get("resource_version")
        return [
            Text(
                " " * 10 + ("no change (same resourceVersion: a resync or relist)" if same else "no field changed"),
                "dim",
            )
        ]
    src = "" if entry.obj is not None else ("  (as recorded)" if entry.detail is None else "  (objects released)")
    out = [Text(f"{' ' * 10}full diff: {len(lines)} path{'s' if len(lines) != 1 else ''}{src}", "bold")]
    out += [change_text(rank, text) for rank, text in lines]
    return out


DETAIL_SECTIONS: list[DetailSection] = [diff_section]


class InspectorPane(KeyCursor, TextPane):
    """With no key, the keys active most recently; with one, its timeline
    oldest first, a cursor over its rows (↑ ↓ pgup pgdn home end) and enter
    to expand a delta into its full diff."""

    READS_CLOCK = False  # its rows are its state's and its cursor's (a move redraws)

    TITLE = "Inspector"
    BINDINGS = [
        *CURSOR_BINDINGS,
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("home,g", "cursor_home", "Oldest", show=False),
        Binding("end,G", "follow", "Follow", show=False),
        Binding("enter", "expand", "Expand", show=False),
        Binding("backspace", "back", "Key list", show=False),
    ]

    state: InspectorState

    def __init__(self, state: InspectorState, **kwargs) -> None:
        super().__init__(state, **kwargs)
        self.inspected: str | None = None
        self.cursor = 0
        self.cursor_keys: list[str] = []
        # The seq of the row under the cursor (None: the newest, following),
        # so the cursor stays on its row while rows arrive and old ones go.
        self.cursor_seq: int | None = None
        self.expanded: set[int] = set()  # seqs of the deltas shown with their diff
        self._top = 0
        self._rows: list[tuple[TraceEvent, DeltaEntry | None]] = []

    @property
    def row_cursor(self) -> int | None:
        """The cursor as an index into the key's timeline (None: following)."""
        if self.cursor_seq is None or self.inspected is None:
            return None
        seqs = [ev.seq for ev, _ in self.state.timeline(self.inspected)]
        return min(bisect_left(seqs, self.cursor_seq), max(len(seqs) - 1, 0))

    @row_cursor.setter
    def row_cursor(self, i: int | None) -> None:
        if i is None or self.inspected is None:
            self.cursor_seq = None
            return
        rows = self.state.timeline(self.inspected)
        self.cursor_seq = rows[min(i, len(rows) - 1)][0].seq if rows else None

    def inspect(self, key: str | None) -> None:
        self.inspected = key
        self.row_cursor = None
        self.expanded = set()
        self.border_title = Text(f"Inspector: {printable(key)}") if key else self.TITLE  # a Text: no markup
        self.refresh()

    def action_back(self) -> None:
        self.inspect(None)

    def selected_key(self) -> str | None:
        if self.inspected is not None:
            return self.inspected
        return self.cursor_key()

    # -- the timeline's cursor ------------------------------------------------------------
    def _page(self) -> int:
        return max((self.content_region.height if self.is_mounted else 24) - 4, 1)

    def action_cursor(self, step: int) -> None:
        if self.inspected is None:
            return super().action_cursor(step)
        n = len(self.state.timeline(self.inspected))
        if not n:
            return
        at = n - 1 if self.row_cursor is None else self.row_cursor
        self.row_cursor = max(0, min(at + step, n - 1))
        self.refresh()

    def action_page(self, direction: int) -> None:
        self.action_cursor(direction * self._page())

    def action_cursor_home(self) -> None:
        if self.inspected is None:
            return super().action_cursor_home()
        self.row_cursor = 0
        self.refresh()

    def action_follow(self) -> None:
        self.row_cursor = None
        self.refresh()

    def cursor_entry(self) -> DeltaEntry | None:
        """The delta under the cursor (the newest delta when following)."""
        if self.inspected is None:
            return None
        rows = self.state.timeline(self.inspected)
        if not rows:
            return None
        if self.row_cursor is None:
            return next((e for _, e in reversed(rows) if e is not None), None)
        return rows[min(self.row_cursor, len(rows) - 1)][1]

    def action_expand(self) -> None:
        if self.inspected is None:
            informer_host(self).action_inspect()  # the key list: enter follows the key, as elsewhere
            return
        rows = self.state.timeline(self.inspected)
        if not rows:
            return
        i = len(rows) - 1 if self.row_cursor is None else min(self.row_cursor, len(rows) - 1)
        ev, entry = rows[i]
        if entry is None:
            return
        self.row_cursor = i
        self.expanded ^= {ev.seq}
        self.refresh()

    # -- drawing ----------------------------------------------------------------------------
    def draw_lines(self, width: int, height: int) -> list[Text]:
        if self.inspected is None:
            return self._render_key_list(width, height)
        rows = self.state.timeline(self.inspected)
        head = Text(no_wrap=True)
        head.append(self.inspected, "bold")
        if not rows:
            head.append("  no history (not seen yet, or evicted)", "dim")
            return [head, Text("backspace: back to the key list", "dim")]
        deltas = sum(1 for _, e in rows if e is not None)
        head.append(f"  {len(rows)} events", "")
        head.append(f", {deltas} deltas (enter expands one, y: YAML)", "dim")
        from_summaries = len(self.state.summarised(self.inspected))
        if from_summaries:
            head.append(f" · {from_summaries} from summaries (kind and RV only)", "yellow")
        cut = deltas >= self.state.objects.per_key or len(self.state.life(self.inspected)) >= self.state.history.per_key
        if cut:
            head.append(
                f" · last {self.state.objects.per_key} deltas, {self.state.history.per_key} stage events kept", "dim"
            )
        ribbon = self._ribbon(rows)
        if cut:
            # Each stage's count is of what is still held: the oldest events of a busy key are
            # let go per stage, so the counts differ without an event being lost.
            ribbon = Text.assemble(
                ("held: ", "yellow"),
                ribbon,
                ("  (older events let go, not lost: counts differ by retention)", "yellow"),
            )
        lines = [head, ribbon]
        written = self._written_line()
        if written is not None:
            lines.append(written)
        story = self.state.stories.story(self.inspected)
        if story is not None and story.newest:
            for i, part in enumerate(why_lines(self.inspected, story, width - 5)[:3]):
                why = Text("why: " if i == 0 else "     ", "bold magenta")
                why.append_text(part)
                lines.append(why)
        body, cursor_span = self._body(rows, width)
        room = max(height - len(lines), 1)
        lines += self._window(body, cursor_span, room)
        return lines

    def _written_line(self) -> Text | None:
        """A key the controller wrote for: its newest write's RV beside the
        RV its informer's store has read (kube-controller-manager 1.36's
        ConsistencyStore compares the two before each sync)."""
        loop = getattr(self.app, "feed_loop", None) if self.is_mounted else None
        queue = loop.states.get("queue") if loop is not None else None
        stale = getattr(queue, "stale", None)
        if stale is None:
            return None
        got = stale.written_vs_read(self.inspected)
        if got is None:
            return None
        resource, wrote, read, verdict = got
        line = Text.assemble(
            ("wrote ", "bold"), f"{resource} at RV {wrote} · its store read ", (read or '""', "bold"), " · "
        )
        if verdict == "behind":
            line.append(
                "behind: a sync now is skipped" if stale.consistency else "behind: a sync now reads a stale cache",
                "bold yellow" if stale.consistency else "bold red",
            )
        else:
            line.append(verdict, "green" if verdict == "caught up" else "dim")
        return line

    def _ribbon(self, rows) -> Text:
        """The stages this key went through, in pipeline order."""
        seen: dict[str, tuple[int, str]] = {}
        for ev, _ in rows:
            name, style = stage_of(ev.kind)
            seen[name] = (seen.get(name, (0, style))[0] + 1, style)
        ribbon = Text(no_wrap=True)
        order = [n for n in STAGE_ORDER if n in seen] + [n for n in seen if n not in STAGE_ORDER]
        for i, name in enumerate(order):
            if i:
                ribbon.append(" → ", "dim")
            count, style = seen[name]
            ribbon.append(f"{name} {count}", style)
        return ribbon

    def _body(self, rows, width: int) -> tuple[list[Text], tuple[int, int]]:
        """Every row's line (and an expanded delta's sections), and the
        span of lines the cursor's row takes."""
        t0 = self.state.t0 or 0.0
        at = self.row_cursor
        cur = len(rows) - 1 if at is None else min(at, len(rows) - 1)
        show_cursor = self.has_focus or at is not None
        body: list[Text] = []
        span = (0, 0)
        for i, (ev, entry) in enumerate(rows):
            name, style = stage_of(ev.kind)
            line = Text(no_wrap=True)
            line.append(f"{ev.time - t0:8.3f} ", "dim")
            line.append(f"{name:<7} ", style)
            line.append(f"{ev.kind:<14} ", "")
            line.append_text(describe(ev, diff=entry is None))
            if entry is not None and entry.is_update:
                summary = entry.summary()
                if summary:
                    line.rstrip()
                    line.append(" " + ", ".join(summary), "italic")
            first = len(body)
            if i == cur and show_cursor:
                line.truncate(width, overflow="ellipsis", pad=True)
                line.stylize("reverse")
            body.append(line)
            if entry is not None and ev.seq in self.expanded:
                for section in DETAIL_SECTIONS:
                    body += section(entry, width)
            if i == cur:
                span = (first, len(body))
        return body, span

    def _window(self, body: list[Text], span: tuple[int, int], room: int) -> list[Text]:
        """The lines that fit, keeping the cursor's row (and as much of its
        expansion as fits) in view; "… N earlier/later" where rows are cut."""
        if len(body) <= room:
            self._top = 0
            return body
        first, end = span
        if self.cursor_seq is None:
            top = len(body) - room
        else:
            # The cursor's row stays clear of the "… earlier/later" lines.
            top = self._top
            if end > top + room - 1:
                top = end - room + 1
            if first < top + 1:
                top = first - 1
        top = max(0, min(top, len(body) - room))
        self._top = top
        window = body[top : top + room]
        if top > 0:
            window = [Text(f"… {top + 1} earlier", "dim")] + window[1:]
        if top + room < len(body):
            window = window[:-1] + [Text(f"… {len(body) - (top + room) + 1} later", "dim")]
        return window

    def _render_key_list(self, width: int, height: int) -> list[Text]:
        st = self.state
        f = self.filter_text
        lines = [Text("enter on a key (here, in Deltas or FIFO) to follow it through every stage", "dim")]
        accept = (lambda key: st.matches(self.key_filter, key)) if f else None
        keys: list[str] = []
        for key, kind, summarised in st.recent_keys(max(0, height - 1), accept):
            keys.append(key)
            line = Text(no_wrap=True)
            line.append(f"{key} ", "bold")
            name, style = stage_of(kind)
            if summarised:  # no ring: the UI took its events in as summaries (the trail)
                line.append(f"from summaries, last {kind}", style)
            else:
                line.append(f"{len(st.history.ring(key))} events, last {kind}", style)
            lines.append(line)
        self.cursor_keys = keys
        if not keys:
            lines.append(Text("no keys yet" if not f else f"no key matches /{f}", "dim"))
        elif self.has_focus:
            line = lines[1 + self.clamp_cursor()]
            line.truncate(width, overflow="ellipsis", pad=True)
            line.stylize("reverse")
        return lines
