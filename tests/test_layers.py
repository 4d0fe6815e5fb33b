"""The layers hold: every import of ours points down, no module imports in a
circle, and Textual stays inside ``tui/``.

Every module is parsed, imports inside functions included (they are real
dependencies too). The order is the one docs/design-notes.md draws:

    cli → tui → panes → (attach, replay) → run → (kube, sim) → (cache, workqueue) → core → clock

A package may import itself and any package of a lower rank; packages that
share a rank are peers and import neither each other.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1] / "kubectl_informer"
PKG = "kubectl_informer"

# Every test here reads the one parse of the package (parsed()): on one xdist
# worker it is made once; spread over six it was made on each (0.6 CPU-s a
# worker, 4 CPU-s a run for 27 tests).
pytestmark = pytest.mark.xdist_group("layers")

RANK = {
    "clock": 0,
    "core": 1,
    "cache": 2,
    "workqueue": 2,
    "kube": 3,
    "sim": 3,
    "run": 4,
    "attach": 5,
    "replay": 5,
    "panes": 6,
    "tui": 7,
    "cli": 8,
}
# Imports of other projects a layer may not make.
FORBIDDEN = {
    "clock": ("click", "textual", "rich", "kubernetes"),
    "core": ("click", "textual", "kubernetes"),
    "cache": ("click", "textual", "rich", "kubernetes"),
    "workqueue": ("click", "textual", "rich", "kubernetes"),
}


def modules() -> dict[str, Path]:
    out = {}
    for path in ROOT.rglob("*.py"):
        rel = path.relative_to(ROOT.parent).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


MODULES = modules()


def resolve(mod: str, path: Path, node: ast.ImportFrom) -> list[str]:
    if node.level:
        pkg = mod.split(".") if path.name == "__init__.py" else mod.split(".")[:-1]
        base = pkg[: len(pkg) - (node.level - 1)]
        target = ".".join(base + ([node.module] if node.module else []))
    else:
        target = node.module or ""
    out = [target]
    for alias in node.names:  # "from pkg import module" names a module
        if f"{target}.{alias.name}" in MODULES:
            out.append(f"{target}.{alias.name}")
    return out


def imports_of(mod: str, path: Path) -> list[tuple[str, int, bool]]:
    """The module's imports as ``(target, line, runs)``: ``runs`` is False for
    one under an ``if TYPE_CHECKING:`` (never executed: what a type names)."""
    tree = ast.parse(path.read_text(), str(path))
    type_only = {id(n) for block in _type_checking_blocks(tree) for n in ast.walk(block)}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(a.name, node.lineno, id(node) not in type_only) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            found += [(t, node.lineno, id(node) not in type_only) for t in resolve(mod, path, node)]
    return found


def _type_checking_blocks(tree: ast.AST) -> list[ast.If]:
    return [
        n
        for n in ast.walk(tree)
        if isinstance(n, ast.If)
        and (
            (isinstance(n.test, ast.Name) and n.test.id == "TYPE_CHECKING")
            or (isinstance(n.test, ast.Attribute) and n.test.attr == "TYPE_CHECKING")
        )
    ]


def layer(mod: str) -> str | None:
    parts = mod.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in RANK else None


@functools.cache
def parsed() -> dict[str, list[tuple[str, int, bool]]]:
    """Every module's imports, parsed once on first use: parsed at import time
    it cost each xdist worker a second of CPU while collecting, though only the
    one that runs these tests needs it."""
    return {mod: imports_of(mod, path) for mod, path in MODULES.items()}


@functools.cache
def graph() -> dict[str, list[tuple[str, int]]]:
    """Every import, type-only ones too: what the direction of imports reads."""
    return {mod: [(t, line) for t, line, _ in imps] for mod, imps in parsed().items()}


@functools.cache
def runtime_graph() -> dict[str, list[tuple[str, int]]]:
    """The imports that run: a type-only import (``if TYPE_CHECKING:``) lets a
    module name a type of a module that imports it, which is no cycle at run
    time; it still points down (graph(), test_imports_point_down)."""
    return {mod: [(t, line) for t, line, runs in imps if runs] for mod, imps in parsed().items()}


def test_every_package_is_a_layer():
    top = {p.name for p in ROOT.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert top == set(RANK), "a new top-level package needs a rank here and in docs/design-notes.md"
    loose = {p.name for p in ROOT.glob("*.py")} - {"__init__.py", "__main__.py"}
    assert not loose, f"top-level modules outside any layer: {sorted(loose)}"


def test_each_layer_says_what_it_holds_and_may_import():
    for name in RANK:
        doc = ast.get_docstring(ast.parse((ROOT / name / "__init__.py").read_text()))
        assert doc, f"{name}/__init__.py has no docstring"


def test_imports_point_down():
    bad = []
    for mod, imps in graph().items():
        src = layer(mod)
        if src is None:
            continue
        for target, line in imps:
            if not target.startswith(PKG + "."):
                continue
            dst = layer(target)
            if dst is None or dst == src:
                continue
            if RANK[dst] >= RANK[src]:
                bad.append(f"{MODULES[mod].relative_to(ROOT.parent)}:{line} {src} imports {target} ({dst})")
    assert not bad, "imports against the layers:\n" + "\n".join(sorted(bad))


def test_forbidden_libraries():
    bad = []
    for mod, imps in graph().items():
        src = layer(mod)
        for target, line in imps:
            root = target.split(".")[0]
            if root == "textual" and src != "tui":
                bad.append(f"{mod}:{line} imports textual outside tui/")
            if root in FORBIDDEN.get(src or "", ()):
                bad.append(f"{mod}:{line} ({src}) imports {root}")
    assert not bad, "\n".join(bad)


def test_no_import_cycles():
    edges = {m: {t for t, _ in imps if t in MODULES and t != m} for m, imps in runtime_graph().items()}
    # a package's __init__ importing its own modules is not a cycle of design
    index, low, stack, on, cycles = {}, {}, [], set(), []
    counter = [0]

    def strong(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges[v]:
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                cycles.append(sorted(comp))

    for v in edges:
        if v not in index:
            strong(v)
    assert not cycles, "import cycles:\n" + "\n".join(" ↔ ".join(c) for c in cycles)


@pytest.mark.parametrize("mod", sorted(m for m in MODULES if layer(m) in ("cache", "workqueue", "clock")))
def test_engine_imports_nothing_above_core(mod):
    for target, line in graph()[mod]:
        if target.startswith(PKG + "."):
            assert layer(target) in ("cache", "workqueue", "clock", "core"), f"{mod}:{line} imports {target}"


def test_a_type_only_import_points_down_but_makes_no_cycle(tmp_path):
    """What the two graphs read of one module: its type-only import counts for
    the direction of imports, not for a cycle (it never runs)."""
    module = tmp_path / "m.py"
    module.write_text(
        "from typing import TYPE_CHECKING\n"
        "import kubectl_informer.core.trace\n"
        "if TYPE_CHECKING:\n"
        "    from kubectl_informer.run.runner import Run\n"
    )
    found = imports_of("kubectl_informer.run.m", module)
    every = {target for target, _, _ in found}
    running = {target for target, _, runs in found if runs}
    assert "kubectl_informer.run.runner" in every and "kubectl_informer.run.runner" not in running
    assert "kubectl_informer.core.trace" in every and "kubectl_informer.core.trace" in running
