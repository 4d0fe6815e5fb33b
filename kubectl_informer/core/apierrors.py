"""The API server's errors, as ``k8s.io/apimachinery/pkg/api/errors``.

Neutral ground: the client side (``kube/``, the Reflector) reads them and the
simulated API server (``sim/``) raises them, so neither imports the other.
"""

from __future__ import annotations

from typing import Any

from kubectl_informer.core.label_validation import aggregate
from kubectl_informer.core.names import go_quote


class ApiError(Exception):
    """A Status from the API server (HTTP error or watch ERROR event)."""

    def __init__(
        self,
        status: int,
        reason: str = "",
        message: str = "",
        details: list[dict[str, Any]] | None = None,
        retry_after: float | None = None,
        subject: dict[str, str] | None = None,
    ):
        super().__init__(message or reason or f"HTTP {status}")
        self.status = int(status)
        self.reason = reason
        self.message = message
        # The Status's details.causes, e.g. [{"reason": "ResourceVersionTooLarge", ...}]
        self.details = list(details or [])
        self.retry_after = retry_after
        # The Status's details.name/group/kind: the object the error is about (NewInvalid's).
        self.subject = dict(subject or {})

    @classmethod
    def from_status(
        cls, status: Any, retry_after: float | None = None, code: int = 500, what: str = "the error"
    ) -> ApiError:
        """The error a Status says (apimachinery's ``FromObject``); ``code``
        when it names none. A Status whose fields have the wrong types (a
        code that is no number, details that are no object, not an object at
        all: client-go fails to decode it) is an error in words, with
        ``code``: "``what`` is not a valid Status: ..."."""
        problem = status_problem(status)
        if problem:
            return cls(code, "", f"{what} is not a valid Status: {problem}", retry_after=retry_after)
        details = status.get("details") or {}
        if retry_after is None:
            ra = details.get("retryAfterSeconds")
            retry_after = float(ra) if ra else None
        return cls(
            status.get("code") or code,
            status.get("reason") or "",
            status.get("message") or "",
            details.get("causes") or [],
            retry_after,
        )

    def to_status(self) -> dict[str, Any]:
        st: dict[str, Any] = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure"}
        # message and reason are omitempty in metav1.Status: an empty one is left out
        if self.message:
            st["message"] = self.message
        if self.reason:
            st["reason"] = self.reason
        details: dict[str, Any] = {k: v for k, v in self.subject.items() if v}  # omitempty, in StatusDetails order
        if self.details:
            details["causes"] = self.details
        if self.retry_after:
            details["retryAfterSeconds"] = int(self.retry_after)
        if details:
            st["details"] = details
        st["code"] = self.status
        return st

    def __repr__(self) -> str:
        return f"ApiError({self.status}, {self.reason!r}, {self.message!r})"


def _shown(value: Any) -> str:
    text = repr(value)  # quotes and escapes control characters
    return text if len(text) <= 40 else text[:37] + "..."


def _is_int32(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and -(1 << 31) <= v < (1 << 31)


def _is_str(v: Any) -> bool:
    return isinstance(v, str)


def _is_causes(v: Any) -> bool:
    return isinstance(v, list) and all(
        isinstance(c, dict) and all(isinstance(c.get(k, ""), str) for k in ("reason", "message", "field")) for c in v
    )


# The fields of metav1.Status (and its StatusDetails) read here, with their Go
# types in words: a value of another type fails client-go's decoding.
_STATUS_FIELDS = (
    ("code", _is_int32, "a number (int32)"),
    ("reason", _is_str, "a string"),
    ("message", _is_str, "a string"),
    ("status", _is_str, "a string"),
)
_DETAILS_FIELDS = (
    ("causes", _is_causes, "a list of causes (reason, message, field)"),
    ("retryAfterSeconds", _is_int32, "a number (int32)"),
    ("name", _is_str, "a string"),
    ("kind", _is_str, "a string"),
)


def status_problem(status: Any) -> str | None:
    """What makes ``status`` no Status (None: it is one), in words."""
    if not isinstance(status, dict):
        return f"it is {type(status).__name__ if status is not None else 'null'}, not an object"
    details = status.get("details")
    if details is not None and not isinstance(details, dict):
        return f"details {_shown(details)} is not an object"
    for where, fields in ((status, _STATUS_FIELDS), (details or {}, _DETAILS_FIELDS)):
        for name, ok, expected in fields:
            value = where.get(name)
            if value is not None and not ok(value):
                return f"{name} {_shown(value)} is not {expected}"
    return None


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


# One field.Error as a Status cause carries it: (reason, field path, ErrorBody).
FieldError = tuple[str, str, str]


def new_invalid(group: str, kind: str, name: str, errs: list[FieldError]) -> ApiError:
    """``errors.NewInvalid``: the 422 naming the object (``Kind.group "name" is
    invalid: ...``, the errors aggregated), a cause per error, and the
    object's name, group and kind in its details."""
    qualified = f"{kind}.{group}" if group else kind
    message = f"{qualified} {go_quote(name)} is invalid: " + aggregate([f"{f}: {body}" for _, f, body in errs])
    causes = [{"reason": reason, "message": body, "field": f} for reason, f, body in errs]
    return ApiError(422, "Invalid", message, causes, subject={"name": name, "group": group, "kind": kind})
