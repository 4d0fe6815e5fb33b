"""Keys: one table, read by the app's bindings, the footer and the help screen."""

from __future__ import annotations

from textual.binding import Binding

# Pane name -> jump letter (numbers follow the order panes are shown in).
# Letters avoid j/k/g/G (cursor moves), p, q and z.
PANE_LETTERS = {
    "informers": "o",
    "deltas": "d",
    "fifo": "f",
    "rv": "r",
    "resync": "n",
    "server": "s",
    "queue": "w",
    "cache": "c",
    "inspector": "i",
    "handlers": "h",
    "explain": "e",
}

APP_BINDINGS = [
    Binding("question_mark", "help", "Help"),
    Binding("slash", "filter", "Filter"),
    Binding("colon", "command", "Command", show=False),
    Binding("P", "cycle_profile", "Profile", show=False),
    Binding("exclamation_mark", "invert_filter", "Invert filter", show=False),
    Binding("p", "pause", "Pause"),
    Binding("enter", "inspect", "Inspect"),
    Binding("tab", "next_pane", "Next pane", priority=True),
    Binding("shift+tab", "prev_pane", "Prev pane", show=False, priority=True),
    Binding("z", "zoom", "Zoom", show=False),
    Binding("x", "experiments", "Experiments", show=False),
    Binding("y", "yaml", "YAML", show=False),
    Binding("escape", "escape", "Back", show=False),
    Binding("q", "quit", "Quit"),
    # k9s quits on ctrl+c too; Textual's default only tells you to press ctrl+q.
    Binding("ctrl+c", "quit", "Quit", show=False, priority=True),
]

# (keys, what they do) for the help screen.
HELP_KEYS = [
    ("?", "this help (esc closes)"),
    ("q / ctrl+c", "quit"),
    ("/", "filter (Deltas, FIFO, Cache, Inspector): key regex, type:Deleted, label:app=web; enter keeps, esc clears"),
    ("!", "invert the filter (or type it first: /!kube-system)"),
    (":", "command: pods, deploy -n kube-system, cm -A, profile 1.36, fifo real, watchlist off, help, q"),
    ("P", "next client-go profile (1.32 → 1.35 → 1.36): restarts the pipeline on the same traffic"),
    ("p", "pause the view; events keep buffering (bounded); p again catches up"),
    ("tab / shift+tab", "next / previous pane"),
    (
        "tab (Informers pane)",
        "several informers: the next / previous informer (every other pane follows it), "
        f"past the last one the next pane; {PANE_LETTERS['informers']} jumps to the Informers pane",
    ),
    (":NAME", "several informers: show the informer NAME names (:rs, :pods, :replicasets.apps) in every pane"),
    ("1-9 or a letter", "jump to a pane (its keys are listed below)"),
    ("↑ ↓ j k home end", "move the cursor; end follows the stream again"),
    ("enter", "follow the selected (or filtered) key in the Inspector"),
    ("e", "Explain: why client-go did what the selection shows; e again goes back"),
    ("backspace", "Inspector: back to its key list"),
    ("↑ ↓ pgup pgdn home end", "Inspector: move through the key's deltas and events; end follows"),
    ("enter (Inspector)", "expand the delta under the cursor: its full diff, status first"),
    ("y", "the selected key's object as YAML (Inspector: the version under the cursor); Secrets redacted"),
    (
        "v (Cache pane)",
        "objects per namespace, then each index (--index, and the built-in namespace one): "
        "its values and the keys under each (ByIndex), live",
    ),
    ("z", "zoom one pane on a large terminal; z again for the grid"),
    ("esc", "back: close a line, help or a view, clear the filter, leave the Inspector, un-zoom"),
    (
        "x",
        "experiments on this run: close the watch, forget the RV, pause the FIFO or the workers, "
        "fail items, add a handler; on --demo 410 storm, compaction, drop watches, burst",
    ),
    # `kubectl informer replay` only:
    ("space / p", "replay: pause / play"),
    (".", "replay: step one event (pauses)"),
    ("] / [", "replay: seek to the next / previous relist, 410 or tombstone"),
    ("t", "replay: seek to a time: 1m30s from the start, +10s / -5s, or 15:04:30 wall clock"),
    ("> / <", "replay: twice / half as fast"),
]

# Jump keys: a letter per pane, and 1-9 in tab order (resolved by the app).
JUMP_BINDINGS = [Binding(letter, f"jump('{name}')", name, show=False) for name, letter in PANE_LETTERS.items()]
JUMP_BINDINGS += [Binding(str(i), f"jump_index({i})", f"pane {i}", show=False) for i in range(1, 10)]

# The footer, as k9s shows its menu: (key as shown, what, shorter what, rank).
# Short of room, the words shorten first, then the lowest rank goes first;
# ? and q always stay.
FOOTER_HINTS = [
    ("?", "Help", "Help", 10),
    ("/", "Filter", "Filter", 9),  # k9s's first key after ? : kept as long as Explain
    (":", "Command", "Cmd", 8),
    ("e", "Explain", "Explain", 9),
    ("x", "Experiments", "Exper", 8),
    ("z", "Zoom", "Zoom", 7),
    ("y", "YAML", "YAML", 7),
    ("⏎", "Inspect", "Inspect", 5),
    ("p", "Pause", "Pause", 4),
    ("tab", "Next pane", "Pane", 3),
    ("q", "Quit", "Quit", 10),
]

# A run with several informers: o jumps to their pane, tab in it walks them.
FOOTER_HINTS_SEVERAL = [("o", "Informers", "Inf", 6)] + [
    ("tab", "Next pane/informer", "Pane/inf", 3) if h[0] == "tab" else h for h in FOOTER_HINTS
]
