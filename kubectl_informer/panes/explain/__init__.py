"""The Explain panel's knowledge: what client-go did and why, for the
selected delta, FIFO entry, RV mark, resync tick or queue item.

- ``texts.toml``: every text (id, title, template with named numbers, a docs/ link)
- ``texts``: loads and renders them
- ``facts``: what a run's trace has shown so far (bounded)
- ``match``: which texts apply to a selection, with which numbers
"""

from kubectl_informer.panes.explain.facts import Facts
from kubectl_informer.panes.explain.match import Subject, explain, subject_for
from kubectl_informer.panes.explain.texts import TextDef, load_texts, render

__all__ = ["Facts", "Subject", "TextDef", "explain", "load_texts", "render", "subject_for"]
