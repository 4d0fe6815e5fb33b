"""The API server's errors, as ``k8s.io/apimachinery/pkg/api/errors``.

Neutral ground: the client side (``kube/``, the Reflector) reads them and the
simulated API server (``sim/``) raises them, so neither imports the other.
"""

from __future__ import annotations

from typing import Any


class ApiError(Exception):
    """A Status from the API server (HTTP error or watch ERROR event)."""

    def __init__(self, status: int, reason: str = "", message: str = "", details: list[dict] | None = None,
                 retry_after: float | None = None):
        super().__init__(message or reason or f"HTTP {status}")
        self.status = int(status)
        self.reason = reason
        self.message = message
        # The Status's details.causes, e.g. [{"reason": "ResourceVersionTooLarge", ...}]
        self.details = list(details or [])
        self.retry_after = retry_after

    @classmethod
    def from_status(cls, status: dict, retry_after: float | None = None) -> "ApiError":
        details = (status.get("details") or {}).get("causes") or []
        if retry_after is None:
            ra = (status.get("details") or {}).get("retryAfterSeconds")
            retry_after = float(ra) if ra else None
        return cls(int(status.get("code") or 500), status.get("reason") or "", status.get("message") or "",
                   details, retry_after)

    def to_status(self) -> dict:
        st: dict[str, Any] = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                              "message": self.message, "reason": self.reason, "code": self.status}
        details: dict[str, Any] = {}
        if self.details:
            details["causes"] = self.details
        if self.retry_after:
            details["retryAfterSeconds"] = int(self.retry_after)
        if details:
            st["details"] = details
        return st

    def __repr__(self) -> str:
        return f"ApiError({self.status}, {self.reason!r}, {self.message!r})"


def is_expired(err: BaseException) -> bool:
    return isinstance(err, ApiError) and (err.status == 410 or err.reason in ("Expired", "Gone"))


def is_too_large_resource_version(err: BaseException) -> bool:
    """client-go's reflector ``isTooLargeResourceVersionError``: any Status
    with a ResourceVersionTooLarge cause; otherwise (API servers before
    1.18.6 set no cause) a timeout (504, or reason Timeout) whose cause or
    message says "Too large resource version". A 500 saying so is not one."""
    if not isinstance(err, ApiError):
        return False
    if any(c.get("reason") == "ResourceVersionTooLarge" for c in err.details):
        return True
    if not (err.status == 504 or err.reason == "Timeout"):
        return False
    if any(c.get("message") == "Too large resource version" for c in err.details):
        return True
    return "Too large resource version" in (err.message or "")


def is_too_many_requests(err: BaseException) -> bool:
    return isinstance(err, ApiError) and (err.status == 429 or err.reason == "TooManyRequests")


def is_forbidden(err: BaseException) -> bool:
    return isinstance(err, ApiError) and err.status == 403


def is_not_found(err: BaseException) -> bool:
    return isinstance(err, ApiError) and err.status == 404
