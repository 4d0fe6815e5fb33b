"""What every pane is made of: a state fed by TraceEvents, and a widget.

A pane never calls the engine. The app drains the tracer at a bounded frame
rate, ``feed``s each event to every pane state (cheap: counters, ring
buffers), then asks the panes whose state changed to ``refresh_view``.
A pane module holds one ``PaneState`` subclass and one ``Pane`` subclass, so
a pane can be tested alone by feeding its state a recorded trace.
"""

from __future__ import annotations

from textual.geometry import Region
from textual.strip import Strip
from textual.widget import Widget

from kubectl_informer.core.run_info import RunInfo  # noqa: F401 - panes and tests name it from here
from kubectl_informer.panes.state import PaneState
from kubectl_informer.tui.strips import RenderedLines


class Pane(Widget):
    """Base for pane widgets: renders its ``state`` when asked."""

    can_focus = True
    # Whether what it draws reads more than its state: the clock (ages,
    # countdowns) or another pane (Explain follows the active pane's
    # cursor). Such a pane redraws on the app's clock refresh even when its
    # state has not changed; the others only when it has.
    READS_CLOCK = True

    def __init__(self, state: PaneState, **kwargs) -> None:
        super().__init__(**kwargs)
        self.state = state
        self._rendered_version = -1
        # The trace clock's latest time, as last passed to ``refresh_view``.
        self.now: float | None = None
        self._rendered_lines = RenderedLines()

    def render_lines(self, crop: Region) -> list[Strip]:
        # A line redrawn lets the old one's caches go (strips.py: else each
        # is cyclic garbage for the next full collection).
        strips = super().render_lines(crop)
        self._rendered_lines.swap(crop, strips)
        return strips

    def refresh_view(self, now: float | None = None) -> None:
        """Redraw from ``self.state``; ``now`` is the trace clock's latest time
        (for ages and countdowns). Override ``render_state``."""
        if self.state.version == self._rendered_version and now is None:
            return
        self._rendered_version = self.state.version
        self.render_state(now)

    def render_state(self, now: float | None) -> None:
        """Default: remember ``now`` (a None keeps the last time known) and
        let Textual call ``render`` for the next frame."""
        if now is not None:
            self.now = now
        self.refresh()
