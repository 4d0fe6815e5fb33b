"""The Explain texts, loaded once from ``texts.toml`` (package data).

A text's template names the numbers it needs (``{key}``, ``{rv}``...); the
matcher supplies them from the trace. ``render`` fills them in; a missing
number shows as ``?`` rather than failing in front of the user.
"""

from __future__ import annotations

import string
import tomllib
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources


@dataclass(frozen=True)
class TextDef:
    id: str
    title: str
    template: str
    doc: str  # a docs/ page and anchor: "explain.md#..."
    more: str = ""  # what the docs page adds: where in client-go, and a command that shows it

    @property
    def names(self) -> tuple[str, ...]:
        """The numbers the template asks for, in order."""
        return tuple(n for _, n, _, _ in string.Formatter().parse(self.template) if n)


class _Missing(dict):
    def __missing__(self, name: str) -> str:
        return "?"


@lru_cache(maxsize=1)
def load_texts() -> dict[str, TextDef]:
    """Every text by id, in file order. ValueError names a bad entry."""
    raw = tomllib.loads(resources.files(__package__).joinpath("texts.toml").read_text(encoding="utf-8"))
    out: dict[str, TextDef] = {}
    for entry in raw.get("text", []):
        missing = {"id", "title", "template", "doc"} - set(entry)
        if missing:
            raise ValueError(f"explain text {entry.get('id', '?')!r} lacks {', '.join(sorted(missing))}")
        if entry["id"] in out:
            raise ValueError(f"explain text {entry['id']!r} is declared twice")
        out[entry["id"]] = TextDef(entry["id"], entry["title"], entry["template"], entry["doc"], entry.get("more", ""))
    return out


def markdown() -> str:
    """docs/explain.md's list of every text, generated from the data file."""
    out = []
    for t in load_texts().values():
        shown = t.template
        for name in t.names:
            shown = shown.replace("{" + name + "}", f"*{name}*")
        out += [f"### {t.title}", "", f"`{t.id}`: {shown}", "", t.more, ""]
    return "\n".join(out).rstrip() + "\n"


def render(text_id: str, values: dict, strict: bool = False) -> str:
    """The text ``text_id`` with this run's numbers filled in (``strict``:
    a number missing raises KeyError, as the tests want)."""
    return load_texts()[text_id].template.format_map(values if strict else _Missing(values))
