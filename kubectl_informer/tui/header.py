"""Drawing the header pane from its state.

What the pane knows, and why: ``panes/header.py``.
"""

from __future__ import annotations

from collections.abc import Callable

from rich.text import Text

from kubectl_informer.core.durations import format_short
from kubectl_informer.core.profiles import initial_list_label
from kubectl_informer.panes.header import FeedStats, HeaderState
from kubectl_informer.tui.pane import RunInfo
from kubectl_informer.tui.textpane import TextPane


def _age(seconds: float | None) -> str:
    """How long, never negative (an event stamped a little after ``now``)."""
    return format_short(None if seconds is None else max(seconds, 0.0))


def _summarised(s: FeedStats) -> str:
    """What a UI behind summarised: events taken in without rows (the feed
    loop's summaries), rows let go without their diff."""
    words = [f"{s.events_summarised:,} events summarised"] if s.events_summarised else []
    if s.summarised or not words:
        words.append(f"{s.summarised:,} rows summarised")
    return ", ".join(words)


class HeaderPane(TextPane):
    """Two lines: the run (resource, scope, profile) and its health."""

    can_focus = False
    state: HeaderState

    def __init__(self, state: HeaderState, info: RunInfo | None = None, **kwargs) -> None:
        super().__init__(state, **kwargs)
        if info is not None:
            state.info = info
        self.stats = FeedStats()
        # A third line (replay: the playhead), drawn when set.
        self.extra_line: Callable[[], Text] | None = None

    def draw_lines(self, width: int, height: int) -> list[Text]:
        st = self.state
        now = self.now if self.now is not None else st.last_time
        one, two = self._what_runs(), self._how_it_goes(now)
        lines = [one, two]
        if self.extra_line is not None:
            lines.append(self.extra_line())
        return lines[:height]

    def _what_runs(self) -> Text:
        """The first line: the resource, its scope, the context and the profile."""
        st = self.state
        info = st.info
        one = Text(no_wrap=True)
        one.append(" informer ", "bold reverse")
        one.append(f" {info.resource} ", "bold cyan")
        if st.restarts:  # restarted from the UI: near the start, so 80 columns show it
            one.append(f"↻{st.restarts} ", "bold yellow")
        if info.replay:  # the context names the file; this word survives an 80-column crop
            one.append("replay ", "bold magenta")
        ns = "all namespaces" if info.namespace is None else f"ns {info.namespace}"
        one.append(ns, "")
        if info.label_selector:
            one.append(f" -l {info.label_selector}", "dim")
        if info.field_selector:
            one.append(f" --field-selector {info.field_selector}", "dim")
        if (tls := st.tls_note()) is not None:  # near the start: 80 columns show it
            one.append(f"  {tls}", "bold red")
        # What runs before where: an 80-column crop keeps the machinery and the
        # resync period, and cuts the context (a demo's is long) first.
        fifo = st.fifo or info.fifo
        initial = info.initial_list
        if st.watch_list is not None:
            initial = initial_list_label(st.watch_list)
        one.append(f"  client-go {info.profile} ", "bold")
        one.append(f"{fifo} · {initial}", "magenta")
        if info.metadata_only:
            one.append(" · metadata only", "magenta")
        if info.resync_period:
            one.append(f"  resync {_age(info.resync_period)}", "dim")
        ctx = info.context or "-"
        if info.demo_scenario:
            ctx += f" (demo: {info.demo_scenario})"
        one.append(f"  ctx {ctx}", "")
        return one

    def _sync_part(self, two: Text, now: float) -> None:
        """Synced (the informer's, maybe ahead of the panes), the list's
        progress, the failure backed off from, or not synced."""
        st = self.state
        ahead = st.synced_ahead
        if ahead is not None and not st.synced:
            # The informer has synced; the panes are still taking in its list.
            f = ahead.raw_fields
            two.append(f"● synced {f.get('items', '')}", "bold green")
            if f.get("duration") is not None:
                two.append(f" in {_age(f.get('duration'))}", "dim")
            two.append(" (the panes catching up)", "yellow")
        elif st.synced:
            two.append("● synced", "bold green")
            if st.synced_items is not None:
                two.append(f" {st.synced_items}", "green")
            if st.synced_after is not None:
                two.append(f" in {_age(st.synced_after)}", "dim")
        elif (progress := st.progress.line(now)) is not None:
            two.append_text(progress)
        elif st.trouble:
            two.append(f"✕ {st.trouble}", "bold red")
            if st.retry_at is not None and st.retry_at > now:
                two.append(f" · retry in {_age(st.retry_at - now)}", "red")
        else:
            two.append("◌ not synced", "bold yellow")

    def _how_it_goes(self, now: float) -> Text:
        """The second line: synced, the watch, the last event, rv, relists, rate."""
        st = self.state
        two = Text(no_wrap=True)
        s = self.stats
        if s.paused:
            # First on the line: it must survive an 80-column crop.
            two.append(f"❚❚ PAUSED {s.buffered} buffered", "bold reverse yellow")
            two.append(" ")
        self._sync_part(two, now)
        two.append(" │ watch ", "dim")
        if st.watching_since is not None:
            two.append("● ", "bold green")
            two.append(_age(now - st.watching_since), "green")
        elif st.watch_ended:
            two.append(f"✕ {st.watch_ended}", "bold red")
            if st.synced and st.retry_at is not None and st.retry_at > now:
                # Synced or not, the reflector's back-off (0.8s doubling to 30s) is shown while it lasts.
                two.append(f" · retry in {_age(st.retry_at - now)} (back-off {_age(st.backoff)})", "red")
        else:
            two.append("○ not started", "dim")
        age = None if st.last_event is None else now - st.last_event
        style = "dim" if age is None or age < 30 else "yellow"
        two.append(f" last event {_age(age)} ago" if age is not None else " no events", style)
        if st.skipped:
            # Events the reflector could not understand: skipped as client-go does, never silently.
            two.append(f" · {st.skipped} skipped", "bold yellow")
        two.append(" │ rv ", "dim")
        two.append(st.rv or "-", "bold")
        two.append(" │ relists ", "dim")
        two.append(str(st.relists), "bold red" if st.relists else "")
        if st.last_relist:
            two.append(f" ({st.last_relist})", "red")
        if not s.paused:
            rate = f"{s.per_s:,.0f}" if s.per_s >= 10 or s.per_s == 0 else f"{s.per_s:.1f}"
            two.append(f" │ {rate} ev/s", "dim")
        if s.behind:
            # Counts stay exact; what was summarised has no rows (pressure.py).
            two.append(f"  ⚠ behind: {s.buffered:,} waiting · {_summarised(s)}", "bold yellow")
        elif s.summarised or s.events_summarised:
            two.append(f"  {_summarised(s)}", "yellow")
        if s.dropped:
            two.append(f"  dropped {s.dropped}", "bold red")
        return two
