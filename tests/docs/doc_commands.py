"""The commands docs/ quotes, as a test runs them.

A command is a line of a fenced ``sh``/``bash``/``shell`` block (a trailing
``\\`` joins lines), or an inline code span starting ``kubectl informer`` or
``kubectl-informer`` (optionally after ``VAR=value`` words). Not run:

- a block or paragraph after ``<!-- no-run: REASON -->`` (a real cluster, the
  network, minutes of benchmark): skipped with REASON;
- blocks after ``<!-- walkthrough -->``: tests/attach/test_docs_walkthrough.py
  runs them together;
- inline synopses with placeholders (``attach TARGET``, ``127.0.0.1:PORT``,
  ``[options]``, ``...``).

``python -m tests.docs.doc_commands`` prints what would run and what is skipped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"

SHELL_LANGS = {"sh", "bash", "shell"}
FENCE = re.compile(r"^```([\w-]*)[^\n]*\n(.*?)^```[ \t]*$", re.S | re.M)
NO_RUN = re.compile(r"<!--\s*no-run:\s*(.*?)\s*-->", re.S)
WALKTHROUGH = "<!-- walkthrough -->"
INLINE = re.compile(r"`((?:[A-Z_][A-Z0-9_]*=\S+ )*kubectl[ -]informer(?: [^`\n]*)?)`")
PLACEHOLDER = re.compile(r"\b[A-Z][A-Z_]{2,}\b(?!=)|\.\.\.|…|\[|<[a-z-]+>")
# `kubectl informer watch` in prose names the command; it needs arguments to run.
COMMAND_NAME = re.compile(r"kubectl[ -]informer (?:watch|attach|replay)")
LOOKS_LIKE_A_COMMAND = re.compile(r"^\s*(?:\$ )?(?:[A-Z_]+=\S+ )*(?:kubectl|kubectl-informer|python3?|pipx?|curl)\b")


@dataclass(frozen=True)
class Command:
    page: str  # docs/NAME.md
    line: int  # 1-based line of the command
    text: str  # as written
    unit: str  # commands of one unit run in order, in one directory
    skip: str = ""  # why it is not run ("" : it runs)
    block: str = ""  # the block it is in (a unit holds a block and the blocks reading its files)

    @property
    def where(self) -> str:
        return f"{self.page}:{self.line}"


def _line_of(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def _marker_before(text: str, start: int) -> str | None:
    """The marker on the last non-blank line before ``start``, if any."""
    before = text[:start].rstrip()
    last = before[before.rfind("\n") + 1 :]
    if last.strip() == WALKTHROUGH:
        return "run by tests/attach/test_docs_walkthrough.py"
    m = NO_RUN.fullmatch(last.strip())
    return m.group(1) if m else None


def _logical_lines(body: str, first_line: int):
    pending, start = "", first_line
    for i, raw in enumerate(body.splitlines()):
        if not pending:
            start = first_line + i
        if raw.rstrip().endswith("\\"):
            pending += raw.strip()[:-1].strip() + " "
            continue
        line = (pending + raw.strip()).strip()
        pending = ""
        if line and not line.startswith("#"):
            yield start, line


def _paragraph_marker(text: str, pos: int) -> str | None:
    """A no-run marker earlier in the paragraph holding ``pos``."""
    start = text.rfind("\n\n", 0, pos)
    markers = list(NO_RUN.finditer(text, start + 1 if start >= 0 else 0, pos))
    return markers[-1].group(1) if markers else None


def page_commands(path: Path) -> list[Command]:
    text = path.read_text()
    page = f"docs/{path.name}"
    out: list[Command] = []
    fenced: list[tuple[int, int]] = []
    for n, m in enumerate(FENCE.finditer(text)):
        fenced.append(m.span())
        if m.group(1) not in SHELL_LANGS:
            continue
        skip = _marker_before(text, m.start()) or ""
        first = _line_of(text, m.start(2))
        block = f"{page}#block{n}"
        for line, cmd in _logical_lines(m.group(2), first):
            out.append(Command(page, line, cmd, block, skip, block))
    out = _join_readers(out)
    for m in INLINE.finditer(text):
        if any(a <= m.start() < b for a, b in fenced):
            continue
        cmd = m.group(1).strip()
        skip = (
            _paragraph_marker(text, m.start())
            or ("a synopsis with placeholders" if PLACEHOLDER.search(cmd) else "")
            or ("names a command (it needs arguments)" if COMMAND_NAME.fullmatch(cmd) else "")
        )
        out.append(Command(page, _line_of(text, m.start()), cmd, f"{page}#inline{m.start()}", skip))
    return out


WRITES = re.compile(r"(?:>|--record[ =])\s*([\w.-]+\.[\w]+)")


def _join_readers(cmds: list[Command]) -> list[Command]:
    """A block that reads a file an earlier block writes (``> trace.ndjson``,
    ``--record t.ndjson``) joins that block's unit: same directory, after it."""
    writer: dict[str, str] = {}
    unit_of: dict[str, str] = {}
    out = []
    for c in cmds:
        if c.block not in unit_of:
            reads = [
                f
                for f, u in writer.items()
                if any(re.search(rf"(?<![\w.-]){re.escape(f)}(?![\w.-])", d.text) for d in cmds if d.block == c.block)
            ]
            unit_of[c.block] = writer[reads[0]] if reads else c.block
        unit = unit_of[c.block]
        for f in WRITES.findall(c.text):
            writer.setdefault(f, unit)
        out.append(Command(c.page, c.line, c.text, unit, c.skip, c.block))
    return out


def unmarked_command_blocks(path: Path) -> list[str]:
    """Fenced blocks without a shell language whose first line looks like a
    command: they must be ``sh`` (with a no-run marker if they cannot run)."""
    text = path.read_text()
    bad = []
    for m in FENCE.finditer(text):
        if m.group(1) in SHELL_LANGS or m.group(1) in ("python", "yaml", "json", "go"):
            continue
        first = next((ln for ln in m.group(2).splitlines() if ln.strip()), "")
        if LOOKS_LIKE_A_COMMAND.match(first):
            bad.append(f"docs/{path.name}:{_line_of(text, m.start())}: {first.strip()}")
    return bad


def all_commands(docs: Path = DOCS) -> list[Command]:
    """Every command of every page; an inline command quoted again (same
    text) runs once, where it first appears."""
    seen: set[str] = set()
    out = []
    for path in sorted(docs.glob("*.md")):
        for c in page_commands(path):
            if c.unit.split("#")[1].startswith("inline"):
                if c.text in seen:
                    continue
                seen.add(c.text)
            out.append(c)
    return out


if __name__ == "__main__":
    cmds = all_commands()
    for c in cmds:
        print(f"{'SKIP ' + c.skip if c.skip else 'RUN'}\t{c.where}\t{c.text}")
    print(f"{sum(not c.skip for c in cmds)} to run, {sum(bool(c.skip) for c in cmds)} skipped")
