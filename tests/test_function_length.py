"""Size rules for kubectl_informer/: no function over 60 lines (decorators and
docstring included), long ones split into named steps; no module over 500
lines unless its docstring says why ("Why this module is long: ...")."""

import ast
import pathlib

LIMIT = 60
MODULE_LIMIT = 500
WHY = "Why this module is long:"
PACKAGE = pathlib.Path(__file__).resolve().parent.parent / "kubectl_informer"


def test_no_function_in_the_package_is_over_60_lines():
    long = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                first = min([node.lineno] + [d.lineno for d in node.decorator_list])
                n = node.end_lineno - first + 1
                if n > LIMIT:
                    long.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno} {node.name} ({n} lines)")
    assert long == []


def test_a_module_over_500_lines_says_why():
    unexplained = []
    for path in sorted(PACKAGE.rglob("*.py")):
        text = path.read_text()
        n = len(text.splitlines())
        if n > MODULE_LIMIT and WHY not in (ast.get_docstring(ast.parse(text)) or ""):
            unexplained.append(f"{path.relative_to(PACKAGE.parent)} ({n} lines)")
    assert unexplained == []
