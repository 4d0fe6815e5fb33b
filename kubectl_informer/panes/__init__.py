"""What each pane knows, fed by the trace: pane states, rings, filters, the
feed loop, Explain's facts and texts. No Textual; imports attach, replay, run,
core and below."""
