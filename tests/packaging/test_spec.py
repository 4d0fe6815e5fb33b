"""What packaging/kubectl-informer.spec leaves out of the archive stays unused.

The spec ships the Textual widgets, Pygments lexers and styles and kubernetes
models that packaging/shipped.py's survey finds the program loads; the tests
at the end fail if a module of the package names a widget or a Syntax lexer
the survey does not ship.

The spec excludes kubernetes.client.api: the generated per-group API classes
(CoreV1Api...), which kubernetes.client loads lazily by attribute name, so a
frozen binary would only fail when a path first asks for one. kubectl-informer
sends its requests through ApiClient instead; this fails as soon as a module
of the package names an API class or imports the API package, in code or in
a string (``getattr(client, "CoreV1Api")``).
"""

import ast
import functools
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import kubectl_informer

PACKAGE = Path(kubectl_informer.__file__).parent
ROOT = Path(__file__).resolve().parents[2]
API_PACKAGES = ("kubernetes.client.api", "kubernetes.client.apis")


@functools.cache
def api_classes() -> frozenset[str]:
    """The client's API class names, imported when first asked rather than in
    every worker's collection (importing kubernetes.client takes a quarter second)."""
    import kubernetes.client

    return frozenset(name for name in kubernetes.client.__all__ if name.endswith("Api"))


def _is_api_module(name: str | None) -> bool:
    return bool(name) and any(name == p or name.startswith(p + ".") for p in API_PACKAGES)


def api_uses(source: str) -> list[str]:
    """Where ``source`` imports the API package or names an API class."""
    found = []
    classes = api_classes()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [a.name for a in node.names if _is_api_module(a.name)]
        elif isinstance(node, ast.ImportFrom):
            if _is_api_module(node.module):
                found.append(node.module)
            found += [a.name for a in node.names if a.name in classes]
        elif isinstance(node, ast.Attribute) and node.attr in classes:
            found.append(node.attr)
        elif isinstance(node, ast.Name) and node.id in classes:
            found.append(node.id)
        elif (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and (node.value in classes or _is_api_module(node.value))
        ):
            found.append(node.value)
    return found


def test_the_api_classes_are_known():
    assert {"CoreV1Api", "AppsV1Api", "CustomObjectsApi"} <= api_classes()
    assert "ApiClient" not in api_classes()


def test_the_check_finds_every_way_of_asking_for_an_api_class():
    assert api_uses("from kubernetes.client import CoreV1Api") == ["CoreV1Api"]
    assert api_uses("from kubernetes.client.api.core_v1_api import X") == ["kubernetes.client.api.core_v1_api"]
    assert api_uses("import kubernetes.client.apis") == ["kubernetes.client.apis"]
    assert api_uses("k8s_client.AppsV1Api(api)") == ["AppsV1Api"]
    assert api_uses("getattr(k8s_client, 'CustomObjectsApi')") == ["CustomObjectsApi"]
    assert api_uses("from kubernetes import client\nclient.ApiClient(cfg)\nimport kubernetes.client.api_client") == []


def test_no_module_of_the_package_asks_for_an_api_class():
    found = {
        str(path.relative_to(PACKAGE)): uses
        for path in sorted(PACKAGE.rglob("*.py"))
        if (uses := api_uses(path.read_text()))
    }
    assert found == {}, (
        "kubectl-informer uses kubernetes.client.api, which packaging/kubectl-informer.spec "
        f"leaves out of the krew archive: {found}"
    )


# --- packaging/shipped.py: the widgets, lexers and styles the archive ships --------------


def shipped_module():
    """packaging/shipped.py as a module (a file, not an installed package)."""
    spec = importlib.util.spec_from_file_location("ki_packaging_shipped", ROOT / "packaging" / "shipped.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def survey() -> dict:
    """What the spec asks: shipped.survey() in a fresh interpreter, as the
    spec's child runs it (a test worker has loaded more than the program)."""
    code = "import json, shipped; print(json.dumps(shipped.survey()))"
    r = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT / "packaging",
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(ROOT / "packaging")},
    )
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def widgets_named(source: str) -> set[str]:
    """The modules of the textual.widgets a source imports, anywhere in it."""
    from textual.case import camel_to_snake

    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module == "textual.widgets":
            found |= {f"textual.widgets._{camel_to_snake(a.name)}" for a in node.names}
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("textual.widgets."):
            found.add(node.module)
    return found


def test_syntax_calls_reads_each_lexer_and_theme():
    calls = shipped_module().syntax_calls
    assert calls('Syntax(text, "yaml", theme="ansi_dark")') == [("yaml", "ansi_dark")]
    assert calls('rich.syntax.Syntax(code=t, lexer="json")\nSyntax(t, "toml", "monokai")') == [
        ("json", None),
        ("toml", "monokai"),
    ]
    assert calls("Syntax(t, lexer_name)", strict=False) == []
    with pytest.raises(ValueError, match="not a literal"):
        calls("Syntax(t, lexer_name)")
    with pytest.raises(ValueError, match="not a literal"):
        calls('Syntax(t, "yaml", theme=THEME)')
    with pytest.raises(ValueError, match="picks a lexer at run time"):
        calls('Syntax.from_path("x.py")')


def test_delayed_widget_imports_are_the_ones_inside_functions():
    source = (
        "from textual.widgets import Static\n"
        "def later():\n    from textual.widgets import HelpPanel, Label\n"
        "class A:\n    async def on(self):\n        from textual.widgets._toast import Toast\n"
    )
    assert shipped_module().delayed_widget_imports(source) == {
        ("textual.widgets", "HelpPanel"),
        ("textual.widgets", "Label"),
        ("textual.widgets._toast", "Toast"),
    }


def test_the_archive_ships_every_widget_the_package_names(survey):
    sources = {str(path.relative_to(PACKAGE)): path.read_text() for path in sorted(PACKAGE.rglob("*.py"))}
    named = {where: widgets_named(text) for where, text in sources.items() if "textual.widgets" in text}
    missing = {where: sorted(w - set(survey["widgets"])) for where, w in named.items() if w - set(survey["widgets"])}
    assert missing == {}, "packaging/kubectl-informer.spec would leave these widgets out of the krew archive"
    assert {"textual.widgets._static", "textual.widgets._input"} <= set(survey["widgets"])
    # The point of the survey: not every widget (TextArea brings tree-sitter).
    assert "textual.widgets._text_area" in survey["every_widget"]
    assert "textual.widgets._text_area" not in survey["widgets"]


def test_the_archive_ships_the_lexer_and_style_of_every_syntax(survey):
    from pygments.lexers import find_lexer_class_by_name

    assert "yaml ansi_dark" in survey["syntaxes"]  # tui/objects.py: the object as YAML
    for syntax in survey["syntaxes"]:
        lexer = find_lexer_class_by_name(syntax.split()[0])
        assert lexer.__module__ in survey["lexers"], syntax
    assert len(survey["lexers"]) < len(survey["every_lexer"]) / 10


def test_the_models_the_simulator_serves_are_shipped(survey):
    assert "kubernetes.client.models.v1_pod" in survey["models"]
    assert len(survey["models"]) < len(survey["every_model"])
