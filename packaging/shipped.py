"""Which modules of the libraries that load theirs by name the krew archive ships.

PyInstaller's analysis follows every import statement it reads, including
those that only run under ``if TYPE_CHECKING:`` or ``if __name__ ==
"__main__":``, and sees none of the modules a library loads by name. Left to
it, the spec would ship (and analyse: most of the build's CPU) every
kubernetes model, every Textual widget (Markdown pulls markdown-it, TextArea
tree-sitter) and all of Pygments' 260 lexer modules, or miss the ones loaded by name.
``survey`` asks a Python that imported every kubectl_informer module which of
them the program loads (packaging/kubectl-informer.spec runs it in a child
interpreter; tests/packaging/test_spec.py checks it against the source):

- kubernetes models: those ``sim/openapi.py`` derives the simulator's
  schemas from (``component_schemas()`` loads them by name);
- Textual widgets (``textual.widgets`` loads each by class name): the ones
  loaded once every module is imported, and those any loaded module of
  Textual or kubectl_informer imports inside a function (a path it may take
  later: ``App.get_loading_widget``'s LoadingIndicator), to a fixpoint;
- Pygments lexers and styles (loaded by alias and name): those that the
  ``Syntax(text, "yaml", theme=...)`` of kubectl_informer and of Textual's
  loaded modules (its CSS error report: scss) load when rendered, with the
  modules they import. A traceback rendered by Rich guesses a lexer only from
  source it can read, which a frozen program has none of.

The spec imports this file from a child interpreter (packaging/ on its path).
"""

from __future__ import annotations

import ast
import importlib
import pkgutil
import sys

TOP_LEVELS_SCANNED = ("textual", "kubectl_informer")  # whose functions may load a widget later


def survey() -> dict[str, list[str]]:
    """Every module of each family and the ones the program loads."""
    import kubectl_informer

    ours = sorted(m.name for m in pkgutil.walk_packages(kubectl_informer.__path__, "kubectl_informer."))
    for name in ours:
        if not name.endswith(".__main__"):  # a __main__ runs its command when imported
            importlib.import_module(name)

    import pygments.formatters
    import pygments.lexers
    import pygments.styles
    import rich._unicode_data
    import textual.widgets
    from kubernetes.client import models

    from kubectl_informer.sim import openapi

    openapi.component_schemas()
    load_delayed_widgets()
    syntaxes = highlight_every_syntax(ours)
    families = {
        "models": models,
        "widgets": textual.widgets,
        "lexers": pygments.lexers,
        "styles": pygments.styles,
        "formatters": pygments.formatters,
    }
    found = {
        "ours": ours,
        "syntaxes": syntaxes,
        "loaded": sorted(sys.modules),
        # rich loads the table of the terminal's Unicode version by name: all of them
        "unicode_data": _family(rich._unicode_data),
    }
    for key, package in families.items():
        every = _family(package)
        found[key], found[f"every_{key.rstrip('s')}"] = _loaded(every), every
    return found


def highlight_every_syntax(ours: list[str]) -> list[str]:
    """Render each ``Syntax`` that kubectl_informer (any) or a loaded module of
    Textual (a literal lexer: its CSS error report) builds, as it would be at
    run time, which loads its lexer and style; "LEXER THEME" of each."""
    import io

    from rich.console import Console
    from rich.syntax import Syntax

    seen = []
    for name in sorted(sys.modules):
        if name.split(".")[0] in TOP_LEVELS_SCANNED:
            seen += syntax_calls(_source(name), name, strict=name in ours)
    console = Console(file=io.StringIO(), width=80, force_terminal=True)
    for lexer, theme in sorted(set(seen), key=str):
        console.print(Syntax("a: 1\n", lexer, **({} if theme is None else {"theme": theme})))
    return sorted({f"{lexer} {theme}" for lexer, theme in seen})


def load_delayed_widgets() -> None:
    """Load every widget that a loaded module of Textual or kubectl_informer
    imports inside a function, until no new module was loaded."""
    scanned: set[str] = set()
    while todo := [n for n in sorted(sys.modules) if n not in scanned and n.split(".")[0] in TOP_LEVELS_SCANNED]:
        for name in todo:
            scanned.add(name)
            text = _source(name)
            if "textual.widgets" not in text:
                continue
            for module, attr in delayed_widget_imports(text):
                mod = importlib.import_module(module)
                if module == "textual.widgets":
                    getattr(mod, attr)  # textual.widgets loads the class's module by its name


def delayed_widget_imports(source: str) -> set[tuple[str, str]]:
    """(module, name) of each ``from textual.widgets... import name`` inside a function."""
    found = set()
    for fn in ast.walk(ast.parse(source)):
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for node in ast.walk(fn):
                if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("textual.widgets"):
                    found |= {(node.module, a.name) for a in node.names}
    return found


def _source(name: str) -> str:
    path = getattr(sys.modules[name], "__file__", None) or ""
    if not path.endswith(".py"):
        return ""
    with open(path, encoding="utf-8") as f:
        return f.read()


def _family(package) -> list[str]:
    return sorted(f"{package.__name__}.{m.name}" for m in pkgutil.iter_modules(package.__path__))


def _loaded(names: list[str]) -> list[str]:
    return [n for n in names if n in sys.modules]


def syntax_calls(source: str, where: str = "<source>", strict: bool = True) -> list[tuple[str, str | None]]:
    """(lexer, theme) of every ``Syntax(code, LEXER, theme=THEME)`` in
    ``source`` (theme None: Rich's default). Strict, a lexer or theme that is
    not a literal, or a lexer Rich would guess, is an error: the archive could
    not know it; else such calls are skipped."""
    if "Syntax" not in source:
        return []
    calls = []
    for node in ast.walk(ast.parse(source)):
        if strict and isinstance(node, ast.Attribute) and node.attr in ("from_path", "guess_lexer"):
            raise ValueError(
                f"{where}: Syntax.{node.attr} picks a lexer at run time; "
                "the krew archive ships only the lexers named as literals"
            )
        if not isinstance(node, ast.Call) or _called(node) != "Syntax":
            continue
        keywords = {k.arg: k.value for k in node.keywords}
        lexer = node.args[1] if len(node.args) > 1 else keywords.get("lexer")
        theme = node.args[2] if len(node.args) > 2 else keywords.get("theme", ast.Constant(None))
        if all(
            isinstance(n, ast.Constant) and isinstance(n.value, (str, type(None))) for n in (lexer, theme)
        ) and isinstance(lexer.value, str):
            calls.append((lexer.value, theme.value))
        elif strict:
            raise ValueError(
                f"{where}:{node.lineno}: Syntax's lexer or theme is not a literal; "
                "the krew archive ships only the lexers and styles named as literals"
            )
    return calls


def _called(call: ast.Call) -> str | None:
    return call.func.id if isinstance(call.func, ast.Name) else getattr(call.func, "attr", None)
