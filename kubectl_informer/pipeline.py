"""Which client-go's machinery to run: the ``--client-go`` profiles.

client-go changed its informers' queue and initial list between releases;
a controller author wants to see the machinery of *their* version:

- 1.32 and older: DeltaFIFO with known objects and Replaced deltas, paged LIST.
- 1.33-1.34 (``InOrderInformers``): RealFIFO with known objects, paged LIST.
- 1.35 (``WatchListClient``): RealFIFO with known objects, WatchList stream.
- 1.36 (``AtomicFIFO``): RealFIFO with atomic ReplacedAll/SyncAll and
  Bookmark deltas, WatchList stream.

``new_informer`` is the one constructor the CLI calls.
"""

from __future__ import annotations

import gc
import os
import re
from dataclasses import dataclass, replace
from typing import Any, Callable

from .cache.shared_informer import SharedIndexInformer
from .clock import Clock
from .trace import Tracer


@dataclass(frozen=True)
class Profile:
    client_go: str
    fifo: str  # "delta" | "real"
    watch_list: bool
    atomic: bool  # RealFIFO atomic events + Bookmark deltas

    @property
    def fifo_label(self) -> str:
        if self.fifo == "delta":
            return "DeltaFIFO"
        return "RealFIFO (atomic)" if self.atomic else "RealFIFO"

    @property
    def initial_list_label(self) -> str:
        return "WatchList stream" if self.watch_list else "paged LIST"

    def describe(self) -> str:
        return f"client-go {self.client_go}: {self.fifo_label}, {self.initial_list_label}"


PROFILES: dict[str, Profile] = {
    "1.32": Profile("1.32", "delta", False, False),
    "1.35": Profile("1.35", "real", True, False),
    "1.36": Profile("1.36", "real", True, True),
}

DEFAULT_CLIENT_GO = "1.32"

_VERSION = re.compile(r"^v?1\.(\d+)(?:\.\d+)?$")


def _profile_for_version(client_go: str) -> Profile:
    text = str(client_go).strip()
    if text in PROFILES:
        return PROFILES[text]
    m = _VERSION.match(text)
    if not m:
        raise ValueError(f'invalid --client-go "{client_go}": expected a version like 1.32, 1.35 or 1.36')
    minor = int(m.group(1))
    name = f"1.{minor}"
    if minor <= 32:
        return replace(PROFILES["1.32"], client_go=name)
    if minor <= 34:
        return Profile(name, "real", False, False)
    if minor == 35:
        return PROFILES["1.35"]
    return replace(PROFILES["1.36"], client_go=name)


def resolve_profile(client_go: str | None = DEFAULT_CLIENT_GO, fifo: str | None = None,
                    watch_list: bool | None = None) -> Profile:
    """The profile for ``client_go`` with ``--fifo`` / ``--watch-list``
    overrides applied. ValueError (one line) on bad input."""
    profile = _profile_for_version(client_go or DEFAULT_CLIENT_GO)
    if fifo is not None:
        f = str(fifo).strip().lower()
        if f not in ("delta", "real"):
            raise ValueError(f'invalid --fifo "{fifo}": expected delta or real')
        # Atomic events exist only in RealFIFO; asking for DeltaFIFO drops them.
        profile = replace(profile, fifo=f, atomic=profile.atomic and f == "real")
    if watch_list is not None:
        profile = replace(profile, watch_list=bool(watch_list))
    return profile


# Young-generation size for the cyclic GC while the engine runs. Every delta
# allocates a few short-lived containers (and ~10 TraceEvents while someone
# watches the trace); with CPython's default of 700 they survive into older
# generations while they wait in a buffer, and full collections over the
# cache then cost more than the pipeline itself. Measured in bench/engine.py.
GC_GEN0_THRESHOLD = 100_000


def tune_gc() -> None:
    """Raise the GC's young-generation threshold for the engine (idempotent;
    never lowers a higher setting). Objects decoded from JSON hold no
    reference cycles, so this only delays collecting cyclic garbage."""
    g0, g1, g2 = gc.get_threshold()
    if g0 and g0 < GC_GEN0_THRESHOLD:
        gc.set_threshold(GC_GEN0_THRESHOLD, max(g1, 20), max(g2, 100))


PIN_ENV = "KUBECTL_INFORMER_NO_PIN"


def pin_to_one_cpu() -> Callable[[], None]:
    """Keep this thread, and the threads it starts from now on, on one CPU;
    returns a function that restores the calling thread's CPU set.

    The GIL runs one thread at a time however many cores there are, and on
    several idle cores every hand-off of the GIL between the reflector, the
    pop loop, the listeners and the workers crosses cores: bench/engine.py
    ran the traced pipeline at 27k deltas/s on two idle cores and 53k pinned
    to one (no subscriber: 74-90k against 177k). The CPU is picked by pid so
    that several runs spread out. Linux only; a no-op elsewhere, on one CPU,
    or with $KUBECTL_INFORMER_NO_PIN set.
    """
    if os.environ.get(PIN_ENV) or not hasattr(os, "sched_setaffinity"):
        return lambda: None
    try:
        cpus = sorted(os.sched_getaffinity(0))
        if len(cpus) <= 1:
            return lambda: None
        os.sched_setaffinity(0, {cpus[os.getpid() % len(cpus)]})
    except OSError:
        return lambda: None

    def restore() -> None:
        try:
            os.sched_setaffinity(0, cpus)
        except OSError:
            pass

    return restore


def new_informer(lw: Any, profile: Profile, resync_period: float = 0.0, indexers: dict | None = None,
                 clock: Clock | None = None, tracer: Tracer | None = None, page_size: int | None = None,
                 transform: Callable[[Any], Any] | None = None, name: str = "informer") -> SharedIndexInformer:
    """A SharedIndexInformer over ``lw`` wired as ``profile`` says. Also
    tunes the process's GC for the engine (see ``tune_gc``)."""
    tune_gc()
    informer = SharedIndexInformer(lw, resync_period, indexers, clock=clock, tracer=tracer, fifo=profile.fifo,
                                   atomic_events=profile.atomic, use_watch_list=profile.watch_list,
                                   page_size=page_size, name=name)
    if transform is not None:
        informer.set_transform(transform)
    return informer
