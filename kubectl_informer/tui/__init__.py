"""The terminal UI: one module per pane, fed only by the trace bus.

Textual lives here and nowhere else. May import ``panes`` and every layer below.
"""
