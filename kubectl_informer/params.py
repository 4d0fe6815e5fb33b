"""Click parameter types for the CLI's flags, so a bad value is a usage error.

click reports a value its type rejects as ``invalid value for '--flag': ...``
with exit code 2, as kubectl does for bad flags; checking the same values
later, in the run, would make them runtime errors (exit 1). Each type reuses
the parser the run uses, so what the flag accepts and what runs agree.
"""

from __future__ import annotations

import re
from typing import Any

import click

# More worker threads than this only measure the GIL; sample-controller runs 2.
MAX_WORKERS = 256


class ClientGo(click.ParamType):
    """A client-go release, ``1.32`` or ``v1.35.2`` (mapped to its profile)."""

    name = "1.32|1.35|1.36"

    def convert(self, value: Any, param, ctx) -> str:
        from .pipeline import resolve_profile
        try:
            resolve_profile(str(value))
        except ValueError as e:
            self.fail(str(e).replace('invalid --client-go "', '"'), param, ctx)
        return str(value)


class RateLimiterSpec(click.ParamType):
    """A ``--rate-limiter`` spec, parsed as the run will parse it."""

    name = "SPEC"

    def convert(self, value: Any, param, ctx) -> str:
        from .workqueue.rate_limiters import parse_rate_limiter
        try:
            parse_rate_limiter(str(value))
        except ValueError as e:
            self.fail(str(e), param, ctx)
        return str(value)


class LabelSelector(click.ParamType):
    """A label selector in the API server's grammar (``app=web,tier!=db``)."""

    name = "SELECTOR"

    def convert(self, value: Any, param, ctx) -> str:
        from .cache.listwatch import ApiError
        from .sim.selectors import parse_label_selector
        try:
            parse_label_selector(str(value))
        except ApiError as e:
            self.fail(e.message, param, ctx)
        return str(value)


_FIELD_TERM = re.compile(r"^\s*[A-Za-z0-9_.\-/]+\s*(==|!=|=)\s*[^,=!]*\s*$")


class FieldSelector(click.ParamType):
    """A field selector: ``field=value`` terms (``==``, ``!=`` too), comma-joined."""

    name = "SELECTOR"

    def convert(self, value: Any, param, ctx) -> str:
        text = str(value)
        for term in text.split(","):
            if not _FIELD_TERM.match(term):
                self.fail(f'"{term.strip()}" is not a field selector term (expected field=value, field==value '
                          f'or field!=value)', param, ctx)
        return text


CLIENT_GO = ClientGo()
RATE_LIMITER = RateLimiterSpec()
LABEL_SELECTOR = LabelSelector()
FIELD_SELECTOR = FieldSelector()
WORKERS = click.IntRange(1, MAX_WORKERS)
FAIL_RATE = click.FloatRange(0.0, 1.0)


class UsageRunError(click.UsageError):
    """A flag that only the cluster's answer shows to be wrong (``-n`` with a
    cluster-scoped resource): still a usage error, exit 2."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
