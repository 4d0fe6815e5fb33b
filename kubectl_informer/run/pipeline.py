"""The pipeline the CLI runs: ``new_informer`` wires a SharedIndexInformer as
a ``--client-go`` profile (``profiles.py``) says."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kubectl_informer.cache.shared_informer import SharedIndexInformer
from kubectl_informer.clock import Clock
from kubectl_informer.core.profiles import (  # noqa: F401 - the CLI's names
    DEFAULT_CLIENT_GO,
    PROFILES,
    Profile,
    resolve_profile,
)
from kubectl_informer.core.trace import Tracer


def new_informer(
    lw: Any,
    profile: Profile,
    resync_period: float = 0.0,
    indexers: dict | None = None,
    clock: Clock | None = None,
    tracer: Tracer | None = None,
    page_size: int | None = None,
    transform: Callable[[Any], Any] | None = None,
    name: str = "informer",
) -> SharedIndexInformer:
    """A SharedIndexInformer over ``lw`` wired as ``profile`` says (process
    tuning is the lifecycle's: ``lifecycle.tuned``)."""
    informer = SharedIndexInformer(
        lw, resync_period, indexers, clock=clock, tracer=tracer, profile=profile, page_size=page_size, name=name
    )
    if transform is not None:
        informer.set_transform(transform)
    return informer
