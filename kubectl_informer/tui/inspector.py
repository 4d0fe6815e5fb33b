"""Key inspector: one key's whole life through the machinery, in order.

Every keyed event (watch.event → fifo.queue/coalesce → fifo.pop → store.* →
handler.* → queue.* → worker.*) goes into a ring per key, for the keys seen
most recently (an LRU), so any key still in view can be followed back through
every stage without memory growing with the run.
"""

from __future__ import annotations

from rich.text import Text
from textual.binding import Binding

from ..durations import format_short
from ..filters import KeyFilter, parse_filter
from ..trace import TraceEvent
from ..trace_kinds import FIFO_COALESCE, FIFO_POP, FIFO_QUEUE, WATCH_EVENT
from .cursor import CURSOR_BINDINGS, KeyCursor
from .deltas import delta_style
from .pane import PaneState
from .predicate_marker import predicate_marker
from .ring import KeyedHistory
from .textpane import TextPane

# Stage of a kind prefix, in pipeline order, with its colour.
STAGES = (
    ("watch", "watch", "blue"),
    ("list", "list", "blue"),
    (FIFO_POP, "pop", "bold cyan"),
    ("fifo", "fifo", "cyan"),
    ("store", "store", "green"),
    ("handler", "handler", "yellow"),
    ("queue", "queue", "magenta"),
    ("worker", "worker", "bold magenta"),
)

# Pipeline order for the ribbon (STAGES is in matching order: pop before fifo).
STAGE_ORDER = ("watch", "list", "fifo", "pop", "store", "handler", "queue", "worker")


def stage_of(kind: str) -> tuple[str, str]:
    for prefix, name, style in STAGES:
        if kind == prefix or kind.startswith(prefix + "."):
            return name, style
    return kind.partition(".")[0], "white"


def describe(ev: TraceEvent) -> Text:
    """The fields of one event that matter for following a key."""
    f = ev.fields
    k = ev.kind
    t = Text(no_wrap=True)
    if k == WATCH_EVENT:
        typ = str(f.get("type", ""))
        t.append(f"{typ} ", "bold")
        t.append(f"rv={f.get('resource_version', '')}", "dim")
    elif k in (FIFO_QUEUE, FIFO_COALESCE):
        typ = str(f.get("type", ""))
        t.append(typ, delta_style(typ))
        pend = f.get("pending")
        if pend is not None:
            t.append(f" pending {pend}")
    elif k == FIFO_POP:
        types = f.get("types") or []
        t.append("[")
        for i, typ in enumerate(types):
            if i:
                t.append(" ")
            t.append(str(typ), delta_style(str(typ)))
        t.append("]")
        if f.get("is_in_initial_list"):
            t.append(" initial list", "dim")
        if f.get("waited") is not None:
            t.append(f" waited {_secs(f['waited'])}", "dim")
    elif k.startswith("store."):
        d = str(f.get("delta", ""))
        t.append(f"{d} ", delta_style(d))
        t.append(f"rv={f.get('resource_version', '')} ", "dim")
        t.append_text(predicate_marker(f))  # updates only: G R L A, or resync
        if f.get("summary"):
            t.append(f"{f['summary']} ")
        if f.get("diff"):
            t.append(", ".join(map(str, f["diff"])), "italic")
        if f.get("tombstone"):
            t.append(" tombstone", "red")
    elif k.startswith("handler."):
        t.append(str(f.get("listener", "")))
        if f.get("is_sync"):
            t.append(" (resync)", "cyan")
    else:
        parts = []
        for name, val in f.items():
            if isinstance(val, float):
                val = _secs(val) if name in ("waited", "worked", "duration", "delay") else f"{val:g}"
            elif isinstance(val, (list, dict)):
                continue
            parts.append(f"{name}={val}")
        t.append(" ".join(parts))
    return t


def _secs(v) -> str:
    try:
        return format_short(float(v))
    except (TypeError, ValueError):
        return str(v)


class InspectorState(PaneState):
    """Per-key rings of keyed events, for the most recently active keys."""

    def __init__(self, max_keys: int = 2000, per_key: int = 40) -> None:
        super().__init__()
        self.history: KeyedHistory[str, TraceEvent] = KeyedHistory(max_keys, per_key)
        self.t0: float | None = None

    def feed(self, ev: TraceEvent) -> None:
        if self.t0 is None:
            self.t0 = ev.time
        if ev.key:
            self.history.add(ev.key, ev)
            self.version += 1

    def feed_all(self, events) -> None:
        if self.t0 is None and events:
            self.t0 = events[0].time
        add = self.history.add
        n = 0
        for ev in events:
            key = ev.key
            if key:
                add(key, ev)
                n += 1
        if n:
            self.version += 1

    def life(self, key: str) -> list[TraceEvent]:
        return self.history.get(key)

    def find(self, text: str) -> str | None:
        """The key to inspect for a filter: exact, else the newest it matches."""
        if text in self.history:
            return text
        f = parse_filter(text)
        for key in self.history.keys_newest_first():
            if self.matches(f, key):
                return key
        return None

    def matches(self, f: KeyFilter, key: str) -> bool:
        """Whether ``f`` passes ``key``: its deltas are every delta type in its
        history, its labels the newest an event carried."""
        if not f:
            return True
        types: set[str] = set()
        labels = None
        if f.uses_types or f.uses_labels:
            for ev in self.history.ring(key):
                fields = ev.raw_fields
                typ = fields.get("delta") or fields.get("type")
                if typ:
                    types.add(str(typ))
                if "labels" in fields:
                    labels = fields["labels"]
        return f.matches(key, types, labels)


class InspectorPane(KeyCursor, TextPane):
    """A key's events oldest first; with no key, the keys active most recently."""

    TITLE = "Inspector"
    BINDINGS = [*CURSOR_BINDINGS, Binding("backspace", "back", "Key list", show=False)]

    state: InspectorState

    def __init__(self, state: InspectorState, **kwargs) -> None:
        super().__init__(state, **kwargs)
        self.inspected: str | None = None
        self.cursor = 0
        self.cursor_keys: list[str] = []

    def inspect(self, key: str | None) -> None:
        self.inspected = key
        self.border_title = f"Inspector: {key}" if key else self.TITLE
        self.refresh()

    def action_back(self) -> None:
        self.inspect(None)

    def selected_key(self) -> str | None:
        if self.inspected is not None:
            return self.inspected
        return self.cursor_key()

    def draw_lines(self, width: int, height: int) -> list[Text]:
        if self.inspected is None:
            return self._render_key_list(width, height)
        st = self.state
        life = st.life(self.inspected)
        head = Text(no_wrap=True)
        head.append(self.inspected, "bold")
        if not life:
            head.append("  no history (not seen yet, or evicted)", "dim")
            return [head, Text("backspace: back to the key list", "dim")]
        head.append(f"  {len(life)} events", "")
        if len(life) >= st.history.per_key:
            head.append(f" (last {st.history.per_key} kept)", "dim")
        # The stages this key went through, in pipeline order.
        seen = {}
        for ev in life:
            name, style = stage_of(ev.kind)
            seen[name] = (seen.get(name, (0, style))[0] + 1, style)
        ribbon = Text(no_wrap=True)
        order = [n for n in STAGE_ORDER if n in seen] + [n for n in seen if n not in STAGE_ORDER]
        for i, name in enumerate(order):
            if i:
                ribbon.append(" → ", "dim")
            count, style = seen[name]
            ribbon.append(f"{name} {count}", style)
        lines = [head, ribbon]
        room = height - len(lines)
        shown = life[-room:] if room > 0 else []
        if len(life) > len(shown) and shown:
            shown = shown[1:]
            lines.append(Text(f"… {len(life) - len(shown)} earlier", "dim"))
        t0 = st.t0 or 0.0
        for ev in shown:
            name, style = stage_of(ev.kind)
            line = Text(no_wrap=True)
            line.append(f"{ev.time - t0:8.3f} ", "dim")
            line.append(f"{name:<7} ", style)
            line.append(f"{ev.kind:<14} ", "")
            line.append_text(describe(ev))
            lines.append(line)
        return lines

    def _render_key_list(self, width: int, height: int) -> list[Text]:
        st = self.state
        f = self.filter_text
        lines = [Text("enter on a key (here, in Deltas or FIFO) to follow it through every stage", "dim")]
        keys: list[str] = []
        for key in st.history.keys_newest_first():
            if len(lines) >= height:
                break
            if f and not st.matches(self.key_filter, key):
                continue
            keys.append(key)
            life = st.history.ring(key)
            last = life[-1]
            line = Text(no_wrap=True)
            line.append(f"{key} ", "bold")
            name, style = stage_of(last.kind)
            line.append(f"{len(life)} events, last {last.kind}", style)
            lines.append(line)
        self.cursor_keys = keys
        if not keys:
            lines.append(Text("no keys yet" if not f else f"no key matches /{f}", "dim"))
        elif self.has_focus:
            line = lines[1 + self.clamp_cursor()]
            line.truncate(width, overflow="ellipsis", pad=True)
            line.stylize("reverse")
        return lines
