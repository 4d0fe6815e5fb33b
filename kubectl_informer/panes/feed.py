"""The feed loop's parts: how each pane state is handed a batch of events."""

from __future__ import annotations

from kubectl_informer.panes.state import PaneState


def feeder(state: PaneState):
    """How to feed ``state`` a batch of events, cheaply.

    A state that overrides ``feed_all`` filters its own kinds in one loop.
    One that keeps PaneState's per-event ``feed_all`` gets only the kinds it
    handles (``KINDS``, or the keys of its ``_handlers`` dispatch table), so
    the app does not call it for the many events it would ignore; the events
    it gets, and their order, are the same.
    """
    if type(state).feed_all is not PaneState.feed_all:
        return state.feed_all
    kinds = getattr(state, "KINDS", None)
    if kinds is None and isinstance(getattr(state, "_handlers", None), dict):
        kinds = frozenset(state._handlers)
    if not kinds:
        return state.feed_all
    kinds = frozenset(kinds)
    feed = state.feed

    def feed_kinds(batch) -> None:
        for ev in batch:
            if ev.kind in kinds:
                feed(ev)

    return feed_kinds
