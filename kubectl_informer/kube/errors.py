"""Errors from talking to a cluster, each a single line a user can act on.

``str(err)`` is the whole message without kubectl's ``error: `` prefix,
which the CLI adds when it prints the line (``error: context "foo" does not
exist``). HTTP failures are
``apierrors.ApiError`` (re-exported here) so the Reflector can read the
API's Status from them.
"""

from __future__ import annotations

from kubectl_informer.core.apierrors import ApiError

__all__ = [
    "KubeError",
    "KubeConfigError",
    "UnknownResourceError",
    "DiscoveryError",
    "ApiError",
    "RedirectError",
    "one_line",
]


def one_line(text: object, limit: int = 300) -> str:
    """Collapse whitespace (tracebacks, YAML errors) into one bounded line."""
    s = " ".join(str(text).split())
    return s if len(s) <= limit else s[: limit - 1] + "…"


class KubeError(Exception):
    def __init__(self, message: str):
        self.message = one_line(message)
        super().__init__(self.message)


class KubeConfigError(KubeError):
    """A kubeconfig that is missing, unreadable, invalid, or lacks the context."""


class UnknownResourceError(KubeError):
    """A resource name discovery does not know; ``suggestions`` holds the closest names."""

    def __init__(self, name: str, suggestions: list[str] | None = None):
        self.name = name
        self.suggestions = list(suggestions or [])
        msg = f'the server doesn\'t have a resource type "{name}"'
        if self.suggestions:
            msg += f" (did you mean {', '.join(self.suggestions)}?)"
        super().__init__(msg)


class DiscoveryError(KubeError):
    """Discovery itself failed (forbidden, unreachable, not an API server)."""

    status: int | None = None  # the API server's answer, when it gave one: a 5xx/429 is retried (kube.retry)


class RedirectError(ConnectionError):
    """The API server answered with a redirect. Never followed: the bearer
    token or client certificate must not reach whatever host it names (an
    API server does not redirect its clients; a proxy or a wrong URL does)."""

    def __init__(self, origin: str, status: int, location: str):
        self.origin = origin
        self.status = status
        self.location = location
        super().__init__(
            one_line(
                f"the API server at {origin} answered {status} with a redirect to {location or '(no Location)'}; "
                f"not followed, so that credentials never go to another host: put the right server address in "
                f"the kubeconfig"
            )
        )
