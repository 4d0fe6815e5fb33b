"""The predicates marker on an update (Deltas rows, Inspector lines).

Four cells, one per controller-runtime predicate in ``predicates.PREDICATES``
order: its letter (G, R, L, A) when it would pass the update, ``·`` when it
would drop it. An update whose resourceVersion did not change is marked
``resync`` instead: no predicate but a hand-written one lets it through.
"""

from __future__ import annotations

from rich.text import Text

from kubectl_informer.core.predicates import PREDICATES
from kubectl_informer.core.trace import TraceEvent

LETTERS = tuple(name[0] for name in PREDICATES)  # G R L A


def predicate_cells(passing) -> str:
    """``G·L·`` for GenerationChanged and LabelChanged passing."""
    passed = set(passing)
    return "".join(letter if name in passed else "·" for letter, name in zip(LETTERS, PREDICATES, strict=True))


def predicate_marker(ev: TraceEvent) -> Text:
    """The marker for a ``store.update`` (predicates derived now if not yet),
    empty for other events and for one recorded before predicates existed."""
    passing = ev.field("predicates")
    if not isinstance(passing, (list, tuple)):
        return Text()
    if ev.field("old_resource_version") == ev.field("resource_version"):
        return Text("resync ", "cyan")
    return Text(predicate_cells(passing) + " ", "bold green" if passing else "dim")


LEGEND_MIN_HEIGHT = 6  # a shorter pane keeps its rows for deltas


def predicate_legend() -> Text:
    """The column's key, one line: what each letter and word means."""
    t = Text(no_wrap=True, overflow="ellipsis")
    t.append("GRLA", "bold green")
    t.append(" predicates an update passes: ", "dim")
    for letter, word in zip(LETTERS, ("Generation", "ResourceVersion", "Label", "Annotation"), strict=True):
        t.append(letter, "bold green")
        t.append(f" {word}Changed  ", "dim")
    t.append("·", "bold")
    t.append(" drops it  ", "dim")
    t.append("resync", "cyan")
    t.append(" same RV  ", "dim")
    t.append("init", "dim italic")
    t.append(" from the initial list  ", "dim")
    t.append("tombstone", "red")
    t.append(" deleted, final state unknown", "dim")
    return t
