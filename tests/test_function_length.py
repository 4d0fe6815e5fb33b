"""No function in kubectl_informer/ is longer than 80 lines (decorators and
docstring included): long ones are split into named steps."""

import ast
import pathlib

LIMIT = 80
PACKAGE = pathlib.Path(__file__).resolve().parent.parent / "kubectl_informer"


def test_no_function_in_the_package_is_over_80_lines():
    long = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                first = min([node.lineno] + [d.lineno for d in node.decorator_list])
                n = node.end_lineno - first + 1
                if n > LIMIT:
                    long.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno} {node.name} ({n} lines)")
    assert long == []
