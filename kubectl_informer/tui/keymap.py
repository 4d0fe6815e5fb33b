"""Keys: one table, read by the app's bindings, the footer and the help screen."""

from __future__ import annotations

from textual.binding import Binding

# Pane name -> jump letter (numbers follow the order panes are shown in).
# Letters avoid j/k/g/G (cursor moves), p, q and z.
PANE_LETTERS = {
    "deltas": "d",
    "fifo": "f",
    "rv": "r",
    "resync": "s",
    "queue": "w",
    "cache": "c",
    "inspector": "i",
}

APP_BINDINGS = [
    Binding("question_mark", "help", "Help"),
    Binding("slash", "filter", "Filter"),
    Binding("p", "pause", "Pause"),
    Binding("enter", "inspect", "Inspect"),
    Binding("tab", "next_pane", "Next pane", priority=True),
    Binding("shift+tab", "prev_pane", "Prev pane", show=False, priority=True),
    Binding("z", "zoom", "Zoom", show=False),
    Binding("escape", "escape", "Back", show=False),
    Binding("q", "quit", "Quit"),
]

# (keys, what they do) for the help screen.
HELP_KEYS = [
    ("?", "this help (esc closes)"),
    ("q", "quit"),
    ("/", "filter by key: substring, applies to Deltas, FIFO, Cache and Inspector; enter keeps it, esc clears"),
    ("p", "pause: the view freezes, the trace keeps buffering (bounded); p again catches up"),
    ("tab / shift+tab", "next / previous pane"),
    ("1-9, or d f r s w c i", "jump to a pane (the letter is shown in the tab bar)"),
    ("↑ ↓ j k, home end", "move the cursor in Deltas, FIFO and the Inspector key list; end follows the stream"),
    ("enter", "inspect the selected key (or the filtered one) in the Inspector"),
    ("backspace", "Inspector: back to its key list"),
    ("z", "zoom: one pane full screen even on a large terminal (z again: grid)"),
    ("esc", "close the filter or help, clear the filter, leave the Inspector"),
]

# Jump keys: a letter per pane, and 1-9 in tab order (resolved by the app).
JUMP_BINDINGS = [Binding(letter, f"jump('{name}')", name, show=False) for name, letter in PANE_LETTERS.items()]
JUMP_BINDINGS += [Binding(str(i), f"jump_index({i})", f"pane {i}", show=False) for i in range(1, 10)]
