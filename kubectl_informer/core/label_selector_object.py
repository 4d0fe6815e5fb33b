"""An object's ``metav1.LabelSelector`` (``matchLabels`` and
``matchExpressions``, as a ReplicaSet's or Deployment's ``spec.selector``
holds it) turned into a ``labels.Selector`` as apimachinery does.

``as_selector`` is ``metav1.LabelSelectorAsSelector``
(k8s.io/apimachinery/pkg/apis/meta/v1/helpers.go): a missing selector is
``labels.Nothing()`` (matches no object), one with neither labels nor
expressions ``labels.Everything()``; otherwise each pair of ``matchLabels``
is an ``=`` requirement and each expression its operator's requirement, built
by ``labels.NewRequirement`` (``label_selector.new_requirement``) with no
text parsed in between, so ``In`` with no value is an error, not a match of
the empty value. ``format_selector`` is ``metav1.FormatLabelSelector``, the
text kube-apiserver's tables print.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kubectl_informer.core.label_selector import (
    DOES_NOT_EXIST,
    EQUALS,
    EXISTS,
    IN,
    NOT_IN,
    Requirement,
    SelectorError,
    new_requirement,
    render,
)
from kubectl_informer.core.names import go_quote

# metav1.LabelSelectorOperator → selection.Operator
OPERATORS = {"In": IN, "NotIn": NOT_IN, "Exists": EXISTS, "DoesNotExist": DOES_NOT_EXIST}


class Selector:
    """``labels.Selector``: requirements all of which must match, sorted by
    key as ``internalSelector.Add`` sorts them; ``NOTHING`` matches no labels."""

    def __init__(self, requirements: tuple[Requirement, ...] = (), nothing: bool = False) -> None:
        self.requirements = requirements
        self.nothing = nothing
        matchers = [r.matcher() for r in requirements]
        self._match: Callable[[dict[str, Any]], bool] = (
            (lambda labels: False) if nothing else (lambda labels: all(m(labels) for m in matchers))
        )

    def matches(self, labels: dict[str, Any] | None) -> bool:
        return self._match(labels or {})

    def empty(self) -> bool:
        """``Selector.Empty``: true for Everything, false for Nothing."""
        return not self.nothing and not self.requirements

    def __str__(self) -> str:
        """``Selector.String`` (Nothing's is "")."""
        return "" if self.nothing else render(list(self.requirements))

    def __repr__(self) -> str:
        return "Selector(nothing)" if self.nothing else f"Selector({str(self)!r})"


NOTHING = Selector(nothing=True)
EVERYTHING = Selector()


def as_selector(ps: Any) -> Selector:
    """``LabelSelectorAsSelector`` of a decoded ``LabelSelector`` (a dict, or
    None for a nil pointer). Raises SelectorError with apimachinery's text."""
    if ps is None:
        return NOTHING
    labels = ps.get("matchLabels") or {}
    expressions = ps.get("matchExpressions") or []
    if not labels and not expressions:
        return EVERYTHING
    reqs = [new_requirement(k, EQUALS, [v]) for k, v in sorted(labels.items())]
    for expr in expressions:
        op = OPERATORS.get(expr.get("operator"))
        if op is None:
            raise SelectorError(f"{go_quote(str(expr.get('operator') or ''))} is not a valid label selector operator")
        values = expr.get("values")
        reqs.append(new_requirement(expr.get("key") or "", op, list(values) if values else None))
    return Selector(tuple(sorted(reqs, key=lambda r: r.key)))


def selects(ps: Any, labels: dict[str, Any] | None, convert: Callable[[Any], Selector] = as_selector) -> bool:
    """The listers' test (``GetPodReplicaSets``, ``GetDeploymentsForReplicaSet``,
    ``GetPodControllers``...): ``LabelSelectorAsSelector(ps)`` matches
    ``labels``, where a selector it refuses, a nil one (Nothing) and an empty
    one (Everything, which the listers skip) match nothing. ``convert``: the
    conversion to use (a caller may remember its answers)."""
    try:
        selector = convert(ps if isinstance(ps, dict) else None)
    except SelectorError:
        return False
    return not selector.empty() and selector.matches(labels)


def format_selector(ps: Any) -> str:
    """``FormatLabelSelector``: the selector's text, ``<error>`` for one
    ``as_selector`` refuses, ``<none>`` when the text is empty."""
    try:
        text = str(as_selector(ps))
    except SelectorError:
        return "<error>"
    return text or "<none>"
