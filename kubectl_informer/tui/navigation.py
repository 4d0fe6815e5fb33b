"""esc as k9s has it: back one step, wherever you are."""

from __future__ import annotations

from typing import Any

from kubectl_informer.tui.inspector import InspectorPane

# Panes that are opened from another and go back to it.
OPENED_FROM = ("inspector", "explain")


def go_back(app: Any) -> None:
    """A line or the filter first, then the zoom, then out of the Inspector's
    key (to its list), or out of the Inspector and Explain to the pane they
    were opened from (else the first stream pane)."""
    focus = app.panes[app.active]
    if app.command_line.close(focus) or app.filter_line.escape(focus):
        return
    if app.zoomed:
        app.action_zoom()
        return
    if app.active not in OPENED_FROM:
        return
    back = app._previous if app._previous not in (app.active, *OPENED_FROM) else None
    inspector = app.panes.get("inspector")
    if app.active == "inspector" and back is None and isinstance(inspector, InspectorPane) and inspector.inspected:
        inspector.inspect(None)
        return
    app.activate(back or next(n for n in app.panes if n not in OPENED_FROM))
