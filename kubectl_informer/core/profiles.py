"""Which client-go's machinery to run: the ``--client-go`` profiles.

client-go changed its informers' queue and initial list between releases;
a controller author wants to see the machinery of *their* version:

- 1.32 and older: DeltaFIFO with known objects and Replaced deltas, paged LIST.
- 1.33-1.34 (``InOrderInformers``): RealFIFO with known objects, paged LIST.
- 1.35 (``WatchListClient``): RealFIFO with known objects, WatchList stream.
- 1.36 (``AtomicFIFO``): RealFIFO with atomic ReplacedAll/SyncAll and
  Bookmark deltas, WatchList stream.

A profile owns its labels (what the header, ``informer.start`` and
``replay`` call its FIFO and initial list) and the default version. Plain
data, imported by the engine, the CLI and the UI alike.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

NO_KNOWN_OBJECTS = "DeltaFIFO (no known objects)"


def fifo_label(fifo: str, atomic: bool, known_objects: bool = True) -> str:
    if fifo == "delta":
        return "DeltaFIFO" if known_objects else NO_KNOWN_OBJECTS
    return "RealFIFO (atomic)" if atomic else "RealFIFO"


def initial_list_label(watch_list: bool) -> str:
    return "WatchList stream" if watch_list else "paged LIST"


@dataclass(frozen=True)
class Profile:
    """One client-go's machinery, resolved once from ``--client-go``,
    ``--fifo`` and ``--watch-list``; the informer is built from it as is."""

    client_go: str
    fifo: str  # "delta" | "real"
    watch_list: bool
    atomic: bool  # RealFIFO atomic events + Bookmark deltas
    # DeltaFIFO given the indexer as its known objects (always, in a shared
    # informer); False (--no-fifo-known-objects) shows why it is given them.
    known_objects: bool = True

    def __post_init__(self) -> None:
        if self.fifo not in ("delta", "real"):
            raise ValueError(f'fifo must be "delta" or "real", not {self.fifo!r}')
        if self.atomic and self.fifo != "real":
            raise ValueError("atomic events need the RealFIFO")
        if not self.known_objects and self.fifo != "delta":
            raise ValueError(
                "--no-fifo-known-objects runs the DeltaFIFO without known objects: not with the "
                "RealFIFO (whose known objects its profile fixes); add --fifo delta"
            )

    def with_fifo(self, fifo: str) -> Profile:
        """``--fifo`` / ``:fifo``: atomic events exist only in RealFIFO, so
        asking for DeltaFIFO drops them, and the RealFIFO is the version's
        (atomic from 1.36 on) whatever FIFO ran before."""
        f = str(fifo).strip().lower()
        if f not in ("delta", "real"):
            raise ValueError(f'invalid --fifo "{fifo}": expected delta or real')
        return replace(
            self,
            fifo=f,
            atomic=f == "real" and (self.atomic or _atomic_in(self.client_go)),
            known_objects=self.known_objects or f != "delta",
        )

    def with_watch_list(self, watch_list: bool) -> Profile:
        """``--watch-list`` / ``:watchlist``."""
        return replace(self, watch_list=bool(watch_list))

    def with_known_objects(self, known_objects: bool) -> Profile:
        """``--fifo-known-objects`` / ``--no-fifo-known-objects``."""
        return replace(self, known_objects=bool(known_objects))

    @property
    def fifo_label(self) -> str:
        return fifo_label(self.fifo, self.atomic, self.known_objects)

    @property
    def initial_list_label(self) -> str:
        return initial_list_label(self.watch_list)

    @property
    def delay_with_reset(self) -> bool:
        """The reflector's back-off is ``wait.Backoff.DelayWithReset`` (1.36
        on: it starts over 2 minutes after it last did), not the deprecated
        ``NewExponentialBackoffManager`` (2 minutes after the last back-off)."""
        return backoff_delay_with_reset(self.client_go)

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


def backoff_delay_with_reset(client_go: str) -> bool:
    """Whether ``client_go`` (a version; "" for none) paces its reflector
    with ``Backoff.DelayWithReset`` (1.36 on)."""
    m = _VERSION.match(str(client_go or "").strip())
    return m is not None and int(m.group(1)) >= 36


def _atomic_in(client_go: str) -> bool:
    """Whether ``client_go``'s RealFIFO sends atomic events (False for a
    profile made by hand, with no version)."""
    try:
        return _profile_for_version(client_go).atomic
    except ValueError:
        return False


def resolve_profile(
    client_go: str | None = DEFAULT_CLIENT_GO,
    fifo: str | None = None,
    watch_list: bool | None = None,
    known_objects: bool | None = None,
) -> Profile:
    """The profile for ``client_go`` with ``--fifo`` / ``--watch-list``
    overrides applied. ValueError (one line) on bad input."""
    profile = _profile_for_version(client_go or DEFAULT_CLIENT_GO)
    if fifo is not None:
        profile = profile.with_fifo(fifo)
    if watch_list is not None:
        profile = profile.with_watch_list(watch_list)
    if known_objects is not None:
        profile = profile.with_known_objects(known_objects)
    return profile


DEFAULT_PROFILE = PROFILES[DEFAULT_CLIENT_GO]
