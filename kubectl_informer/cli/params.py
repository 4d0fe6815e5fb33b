"""Click parameter types for the CLI's flags, so a bad value is a usage error.

click reports a value its type rejects as ``invalid value for '--flag': ...``
with exit code 2, as kubectl does for bad flags; checking the same values
later, in the run, would make them runtime errors (exit 1). Each type reuses
the parser the run uses, so what the flag accepts and what runs agree.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

import click

from kubectl_informer.core import names

# More worker threads than this only measure the GIL; sample-controller runs 2.
MAX_WORKERS = 256


class Checked(click.ParamType):
    """A string flag checked by the parser the run will use: what that parser
    raises (``errors``) becomes click's usage error, worded by ``message``."""

    def __init__(
        self,
        name: str,
        check: Callable[[str], Any],
        errors: tuple[type[Exception], ...] = (ValueError,),
        message: Callable[[Exception], str] = str,
    ) -> None:
        self.name = name
        self._check = check
        self._errors = errors
        self._message = message

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> str:
        try:
            self._check(str(value))
        except self._errors as e:
            self.fail(self._message(e), param, ctx)
        return str(value)


def _check_client_go(value: str) -> None:
    from kubectl_informer.run.pipeline import resolve_profile

    resolve_profile(value)


def _check_rate_limiter(value: str) -> None:
    from kubectl_informer.workqueue.rate_limiters import parse_rate_limiter

    parse_rate_limiter(value)


def _check_label_selector(value: str) -> None:
    # The simulator parses selectors with kube-apiserver's grammar.
    from kubectl_informer.core.apierrors import ApiError
    from kubectl_informer.core.selectors import parse_label_selector

    try:
        parse_label_selector(value)
    except ApiError as e:
        raise ValueError(e.message) from None


_FIELD_TERM = re.compile(r"^\s*[A-Za-z0-9_.\-/]+\s*(==|!=|=)\s*[^,=!]*\s*$")


class FieldSelector(click.ParamType):
    """A field selector: ``field=value`` terms (``==``, ``!=`` too), comma-joined."""

    name = "SELECTOR"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> str:
        text = str(value)
        for term in text.split(","):
            if not _FIELD_TERM.match(term):
                self.fail(
                    f'"{term.strip()}" is not a field selector term (expected field=value, field==value '
                    f"or field!=value)",
                    param,
                    ctx,
                )
        return text


class DurationList(click.ParamType):
    """Go durations, comma-separated (``3s,5s``); the flag may repeat, and
    ``flatten`` joins the repeats in order."""

    name = "DURATION[,...]"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> list[float]:
        if isinstance(value, list):
            return value
        from kubectl_informer.core.durations import parse_duration

        try:
            return [parse_duration(part.strip()) for part in str(value).split(",")]
        except ValueError as e:
            self.fail(str(e), param, ctx)

    @staticmethod
    def flatten(ctx: click.Context, param: click.Parameter, values: tuple[list[float], ...] | None) -> list[float]:
        return [v for group in values or () for v in group]


def check_handler_flags(handlers: int | None, resyncs: list[float], times: list[float]) -> None:
    """The lanes' lists must fit their count: a usage error (exit 2) if not."""
    from kubectl_informer.run.handler_lanes import plan_handlers

    try:
        plan_handlers(handlers, resyncs, times)
    except ValueError as e:
        raise click.UsageError(str(e)) from None


# A click callback: the value, None when the flag or argument was not given.
UrlCallback = Callable[[click.Context | None, click.Parameter | None, str | None], str | None]


class InvalidValue(click.ClickException):
    """A value refused with kubectl's own words (``invalid namespace "a/b":
    [may not contain '/']``), exit 2 as any usage error, without click's
    "invalid value for" framing."""

    exit_code = 2


def _url_checked(check: Callable[[str], str]) -> UrlCallback:
    """A click callback running one of ``core.names``' checks on a value
    that will be part of a URL; None (not given) passes."""

    def callback(ctx: click.Context | None, param: click.Parameter | None, value: str | None) -> str | None:
        if value is None:
            return None
        try:
            return check(value)
        except names.InvalidName as e:
            raise InvalidValue(str(e)) from None

    return callback


# kubectl reads an empty -n as not given (the context's namespace).
NAMESPACE = _url_checked(lambda value: value and names.check_namespace(value))
OBJECT_NAME = _url_checked(names.check_name)
RESOURCE = _url_checked(names.check_resource)
URL_PATH = _url_checked(names.check_url_path)


def _check_resource_list(value: str) -> str:
    """Several resources as ``kubectl get`` takes them, comma-separated
    (``deploy,rs,pods``), each checked as one RESOURCE. An empty one
    (``pods,``) is left to discovery, which answers as kubectl's does:
    the server doesn't have a resource type "" (exit 1)."""
    for part in value.split(","):
        if part:
            names.check_resource(part)
    return value


# watch's RESOURCE: one, or a comma list of them.
RESOURCE_LIST = _url_checked(_check_resource_list)


def split_resources(value: str) -> tuple[str, ...]:
    return tuple(value.split(","))


def QUEUE_RESOURCE(
    ctx: click.Context, param: click.Parameter, value: str | None
) -> str | None:  # a callback, named as the checks above are
    """queue's RESOURCE: the one whose keys the workqueue holds."""
    if value is not None and "," in value:
        raise click.BadParameter(
            f'"{value}" names several resources: the workqueue holds one resource\'s keys; name the others with --owns',
            ctx,
            param,
        )
    return RESOURCE(ctx, param, value)


def OWNED(
    ctx: click.Context, param: click.Parameter, values: tuple[str, ...] | None
) -> tuple[str, ...]:  # a callback, named as the checks above are
    """queue's --owns, repeatable, each a RESOURCE or a comma list of them."""
    out: list[str] = []
    for value in values or ():
        _url_checked(_check_resource_list)(ctx, param, value)
        out += split_resources(value)
    return tuple(out)


def ATTACH_TARGET(
    ctx: click.Context, param: click.Parameter, value: str
) -> str:  # a callback, named as the checks above are
    """``attach TARGET``: a pod or deployment NAME is a path segment. Other
    malformed TARGETs are worded where the command parses them."""
    from kubectl_informer.attach.target import InvalidTargetName, TargetError, parse_target

    try:
        parse_target(value)
    except InvalidTargetName as e:
        raise InvalidValue(str(e)) from None
    except TargetError:
        pass
    return value


class FiniteRange(click.FloatRange):
    """click's FloatRange, which lets ``nan`` through (every comparison with
    it is false): a number is required."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> float:
        number = super().convert(value, param, ctx)
        if math.isnan(number):
            self.fail(f"{value} is not a number", param, ctx)
        return number


class FileName(click.ParamType):
    """A file to write: an empty name is a usage error, not a file called ''."""

    name = "FILE"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> str:
        if not str(value):
            self.fail("needs a file name", param, ctx)
        return str(value)


CLIENT_GO = Checked("1.32|1.35|1.36", _check_client_go, message=lambda e: str(e).replace('invalid --client-go "', '"'))
RATE_LIMITER = Checked("SPEC", _check_rate_limiter)
LABEL_SELECTOR = Checked("SELECTOR", _check_label_selector)
FIELD_SELECTOR = FieldSelector()
WORKERS = click.IntRange(1, MAX_WORKERS)
MAX_RETRIES = click.IntRange(0)
FAIL_RATE = FiniteRange(0.0, 1.0)
SPEED = FiniteRange(min=0)
FILE_NAME = FileName()
DURATION_LIST = DurationList()
