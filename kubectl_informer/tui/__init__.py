"""The terminal UI: one module per pane, fed only by the trace bus."""
