"""How far each informer's store trails the server, sampled for the panes.

client-go 1.36's store knows the last resource version it has read
(``last_store_sync_resource_version``). Twice a second (when either changed) this emits, for each
informer of the run, that RV beside the newest RV known of the server
(``informer.store_rv``), and the difference in RV units when both are numbers:

- on the simulator (``--demo``) the server's RV is its store's current one:
  exact, the number of writes (of any resource) the cache has not read yet;
- on a real cluster nothing cheap tells the server's RV, so the newest RV our
  reflectors hold stands in: the lag is then what sits in our FIFO and
  handlers, not how late the watch is. RVs are etcd revisions shared by every
  resource, so a difference counts writes to the whole cluster, and the API
  reference calls them opaque: a trend to read, not a count to trust.

Before client-go 1.36 (no AtomicFIFO) the store reads ``""``: no lag is shown.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from kubectl_informer.core.resourceversion import is_well_formed
from kubectl_informer.core.trace_kinds import INFORMER_STORE_RV

INTERVAL = 0.5


def rv_lag(server_rv: str, store_rv: str) -> int | None:
    if is_well_formed(server_rv) and is_well_formed(store_rv):
        return int(server_rv) - int(store_rv)
    return None


class StoreRVSampler:
    """``informers``: resource id -> SharedIndexInformer; ``server_rv``: the
    simulator's current RV, or None on a real cluster."""

    def __init__(
        self, informers: dict[str, Any], server_rv: Callable[[], Any] | None = None, interval: float = INTERVAL
    ) -> None:
        self.informers = informers
        self.server_rv = server_rv
        self.interval = interval
        self._last: dict[str, tuple[str, str]] = {}  # emitted only when it changes

    def _server(self) -> tuple[str, str]:
        if self.server_rv is not None:
            return str(self.server_rv()), "sim"
        newest = [rv for inf in self.informers.values() if is_well_formed(rv := inf.last_sync_resource_version())]
        return (max(newest, key=lambda rv: (len(rv), rv)) if newest else ""), "reflector"

    def sample(self) -> None:
        server, source = self._server()
        for name, inf in self.informers.items():
            tracer = inf.tracer
            store_rv = inf.get_store().last_store_sync_resource_version()
            if not tracer.enabled or self._last.get(name) == (store_rv, server):
                continue
            self._last[name] = (store_rv, server)
            tracer.emit(
                INFORMER_STORE_RV,
                None,
                store_rv=store_rv,
                server_rv=server,
                lag=rv_lag(server, store_rv),
                source=source,
            )

    def run(self, stop_event: threading.Event) -> None:
        while not stop_event.wait(self.interval):
            self.sample()
