"""How much of a server's answer is read before it is refused.

A server (or whatever sits between it and us) that never ends a line, a
body or an error page would otherwise grow our memory until the machine
runs out. Each read path has a cap, and going past it is a ``TooLargeError``
naming the cap: the Reflector treats it as any other failed list or watch
(traced, backed off, tried again); before the informer starts it is the
run's one-line error.

- ``MAX_FRAME``, 16 MiB: one watch event (one line of the stream), one
  object of a list, one document read whole (discovery). client-go's
  streaming decoder refuses a watch frame beyond 16 MiB ("object to decode
  was longer than maximum allowed size"); an object above it could not be
  watched, so it could not be kept in sync either. etcd refuses objects
  above 1.5 MiB unless told otherwise.
- ``MAX_LIST_BODY``, 1 GiB: one page of a LIST. client-go reads a list
  whole with no cap; we stop at 1 GiB, which holds 100,000 pods listed
  unpaged with their managedFields (840 MB of JSON, measured in
  docs/clusters.md) and a little more: the watch cache serves a list at
  resourceVersion "0" as one page, whatever ``limit`` says.
- ``MAX_METRICS_BODY``, 256 MiB: an API server's ``/metrics`` page, read as
  it arrives and kept only in the few lines the Server pane reads; a big
  cluster's page is tens of megabytes of histograms.
- ``MAX_ERROR_BODY``, 1 MiB: the body of a non-2xx answer (a Status is
  under 1 KB, a proxy's HTML page a few KB); what comes after is not read.
"""

from __future__ import annotations

MiB = 1 << 20
MAX_FRAME = 16 * MiB
MAX_LIST_BODY = 1024 * MiB
MAX_ERROR_BODY = 1 * MiB
MAX_METRICS_BODY = 256 * MiB


def size_text(n: int) -> str:
    """1 GiB, 16 MiB, 512 KiB, 300 bytes: a limit as people say it."""
    for unit, size in (("GiB", 1 << 30), ("MiB", MiB), ("KiB", 1 << 10)):
        if n >= size and n % size == 0:
            return f"{n // size} {unit}"
    return f"{n} bytes"


class TooLargeError(Exception):
    """An answer (or one part of it) went past its cap; ``str()`` is one
    line naming what, where and the cap."""

    def __init__(self, what: str, limit: int, where: str = "") -> None:
        self.what, self.limit, self.where = what, limit, where
        prefix = f"{where}: " if where else ""
        super().__init__(f"{prefix}{what} is larger than {size_text(limit)}, the limit; not read further")
