"""What packaging/kubectl-informer.spec leaves out of the archive stays unused.

The spec excludes kubernetes.client.api: the generated per-group API classes
(CoreV1Api...), which kubernetes.client loads lazily by attribute name, so a
frozen binary would only fail when a path first asks for one. kubectl-informer
sends its requests through ApiClient instead; this fails as soon as a module
of the package names an API class or imports the API package, in code or in
a string (``getattr(client, "CoreV1Api")``).
"""

import ast
from pathlib import Path

import kubernetes.client

import kubectl_informer

PACKAGE = Path(kubectl_informer.__file__).parent
API_PACKAGES = ("kubernetes.client.api", "kubernetes.client.apis")
API_CLASSES = frozenset(name for name in kubernetes.client.__all__ if name.endswith("Api"))


def _is_api_module(name: str | None) -> bool:
    return bool(name) and any(name == p or name.startswith(p + ".") for p in API_PACKAGES)


def api_uses(source: str) -> list[str]:
    """Where ``source`` imports the API package or names an API class."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [a.name for a in node.names if _is_api_module(a.name)]
        elif isinstance(node, ast.ImportFrom):
            if _is_api_module(node.module):
                found.append(node.module)
            found += [a.name for a in node.names if a.name in API_CLASSES]
        elif isinstance(node, ast.Attribute) and node.attr in API_CLASSES:
            found.append(node.attr)
        elif isinstance(node, ast.Name) and node.id in API_CLASSES:
            found.append(node.id)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and \
                (node.value in API_CLASSES or _is_api_module(node.value)):
            found.append(node.value)
    return found


def test_the_api_classes_are_known():
    assert {"CoreV1Api", "AppsV1Api", "CustomObjectsApi"} <= API_CLASSES
    assert "ApiClient" not in API_CLASSES


def test_the_check_finds_every_way_of_asking_for_an_api_class():
    assert api_uses("from kubernetes.client import CoreV1Api") == ["CoreV1Api"]
    assert api_uses("from kubernetes.client.api.core_v1_api import X") == ["kubernetes.client.api.core_v1_api"]
    assert api_uses("import kubernetes.client.apis") == ["kubernetes.client.apis"]
    assert api_uses("k8s_client.AppsV1Api(api)") == ["AppsV1Api"]
    assert api_uses("getattr(k8s_client, 'CustomObjectsApi')") == ["CustomObjectsApi"]
    assert api_uses("from kubernetes import client\nclient.ApiClient(cfg)\nimport kubernetes.client.api_client") == []


def test_no_module_of_the_package_asks_for_an_api_class():
    found = {str(path.relative_to(PACKAGE)): uses for path in sorted(PACKAGE.rglob("*.py"))
             if (uses := api_uses(path.read_text()))}
    assert found == {}, "kubectl-informer uses kubernetes.client.api, which packaging/kubectl-informer.spec " \
                        f"leaves out of the krew archive: {found}"
