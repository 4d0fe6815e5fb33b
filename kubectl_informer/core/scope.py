"""Where a run looks: one namespace, all of them, or none (a cluster-scoped resource).

One defaulting rule, as kubectl's: ``-A`` watches every namespace; else
``-n NS``; else the kubeconfig context's namespace; else ``default``. A
cluster-scoped resource has no namespace: an ``-n`` the user typed for one
is an error, one carried over from the previous resource (a ``:`` switch in
the UI) is dropped. A ``Scope`` is asked for first and resolved once the
resource's scope is known; resolving derives a new Scope, nothing mutates one.
"""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_NAMESPACE = "default"


class ClusterScopedError(ValueError):
    """``-n`` was asked for a resource that has no namespace."""


@dataclass(frozen=True)
class Scope:
    """Which namespaces a run watches: -n, -A or the context's."""

    namespace: str | None = None  # asked (-n), or after resolve() the one watched
    all_namespaces: bool = False  # -A
    # The namespace came from the previous resource, not from the user: a
    # cluster-scoped resource drops it instead of refusing it.
    inherited: bool = False

    def __post_init__(self) -> None:
        if self.namespace and self.all_namespaces:
            raise ValueError("a namespace and all namespaces cannot be asked together")

    def resolve(self, namespaced: bool, context_namespace: str | None = None) -> Scope:
        """The scope a list and watch run in, for a resource that is (or is not)
        ``namespaced``: its ``namespace`` is the one watched, None for all
        namespaces or a cluster-scoped resource. Resolving a resolved scope
        for the same resource gives it back."""
        if not namespaced:
            if self.namespace and not self.inherited:
                raise ClusterScopedError(self.namespace)
            return Scope(None, self.all_namespaces)
        if self.all_namespaces:
            return Scope(None, True)
        return Scope(self.namespace or context_namespace or DEFAULT_NAMESPACE)

    def carried_over(self) -> Scope:
        """This scope for the next resource of a ``:`` switch that names none."""
        return Scope(self.namespace, self.all_namespaces, inherited=True)
