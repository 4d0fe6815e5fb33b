"""Whether the UI keeps pace with the engine, shared by the feed loop and
the pane states it feeds.

Counts are always exact; what a state may cut when the UI falls behind is
the work behind rows no one has looked at. A delta's row holds its event's
objects while it is among the newest few; letting them go normally derives
first what the row shows (summary, diff, predicates: about 40 µs an update),
so a row scrolled back to reads the same. When the feed loop ends a frame's
time budget with a backlog still waiting, the UI is *behind*: rows let their
objects go keeping only what was already derived (a row drawn while it held
them keeps all of it), and the header says how many were summarised so.

Behind with more waiting than a frame takes in event by event, the feed
loop takes all but the newest events as one *summary* (feed.py): each state
updates its figures (counts, depth, RV, relists, cached objects) from the
stretch at C speed where it can, and keeps no row for it; the header says
how many events were summarised so (``events_summarised``).
"""

from __future__ import annotations


class Pressure:
    """``behind``: set by the feed loop (the last drain ran out of time with
    a backlog); ``summarised``: rows that let their objects go underived;
    ``events_summarised``: events taken in as summaries (no rows)."""

    __slots__ = ("behind", "summarised", "events_summarised")

    def __init__(self) -> None:
        self.behind = False
        self.summarised = 0
        self.events_summarised = 0

    def __repr__(self) -> str:
        return (
            f"Pressure(behind={self.behind}, summarised={self.summarised}, events_summarised={self.events_summarised})"
        )


# What a state uses until a feed loop hands it the loop's own: never behind
# (a test or a headless reader feeding a state directly derives everything).
KEEPING_UP = Pressure()
