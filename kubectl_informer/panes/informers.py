"""The Informers pane: one row per informer of a run with several.

A controller such as the Deployment controller starts informers on
Deployments, ReplicaSets and Pods from one ``SharedInformerFactory`` and
waits for all of them (``cache.WaitForCacheSync``) before its workers start.
Each informer is its own pipeline, so each row says where its pipeline is:
synced or not, the resourceVersion it has reached, how often it relisted,
what waits in its FIFO, how many objects its indexer holds, the
notifications its handlers still have to take, and the owned objects whose
events mapped to no key of the queue's resource (``owner.drop``).

client-go 1.36: each row also has the store's own resource version
(``Store.LastStoreSyncResourceVersion``, from ``informer.store_rv``) and how
far it trails the server's newest RV, in RV units: exact on the simulator;
on a real cluster measured against the newest RV our reflectors hold (the
backlog in our FIFO and handlers, not how late the watch is).

Fed every event (it is shared by the panes that follow one informer, see
``FeedLoop``); an event names its informer in its ``informer`` field
(``trace.informer_of``); one without it belongs to the run's first
informer, so a one-informer run has one row.
"""

from __future__ import annotations

from kubectl_informer.core.trace_kinds import (
    FIFO_COALESCE,
    FIFO_DEDUP,
    FIFO_POP,
    FIFO_QUEUE,
    HANDLER_LANE,
    INFORMER_STORE_RV,
    INFORMER_SYNCED,
    LIST_DONE,
    OWNER_DROP,
    RELIST,
    RV_ADVANCE,
    STORE_ADD,
    STORE_DELETE,
    WATCH_EVENT,
)
from kubectl_informer.panes.causes import count_drop
from kubectl_informer.panes.state import PaneState, RunInfo, floored_walk, thinned

# Informers named by a trace beyond the run's own (a recording outside the
# contract): rows kept at most, so a hostile trace cannot grow the pane.
MAX_ROWS = 32


class InformerRow:
    """What one informer's pipeline has done so far."""

    __slots__ = (
        "name",
        "synced",
        "synced_items",
        "rv",
        "relists",
        "fifo_depth",
        "cached",
        "lanes",
        "drops",
        "store_rv",
        "server_rv",
        "lag",
        "lag_source",
        "max_lag",
    )

    def __init__(self, name: str) -> None:
        self.name = name
        self.synced = False
        self.synced_items = 0
        self.rv = ""
        self.relists = 0
        self.fifo_depth = 0
        self.cached = 0
        self.lanes: dict[str, int] = {}  # listener -> notifications pending in its buffer
        self.drops: dict[str, int] = {}  # owner.drop reason -> events dropped
        self.store_rv: str | None = None  # None: never sampled; "": client-go < 1.36 or nothing read yet
        self.server_rv = ""
        self.lag: int | None = None  # RV units behind server_rv
        self.lag_source = ""  # sim (exact) or reflector (a real cluster)
        self.max_lag = 0

    def __repr__(self) -> str:
        return repr({name: getattr(self, name) for name in self.__slots__})

    @property
    def pending(self) -> int:
        """Notifications every handler of this informer still has to take."""
        return sum(self.lanes.values())

    @property
    def dropped(self) -> int:
        return sum(self.drops.values())


# kubectl's short names and singulars of the built-in resources a controller
# most often owns (a CRD is found by its plural or singular).
SPELLINGS = {
    "po": "pods",
    "pod": "pods",
    "rs": "replicasets",
    "replicaset": "replicasets",
    "deploy": "deployments",
    "deployment": "deployments",
    "sts": "statefulsets",
    "statefulset": "statefulsets",
    "ds": "daemonsets",
    "daemonset": "daemonsets",
    "job": "jobs",
    "cj": "cronjobs",
    "cronjob": "cronjobs",
    "svc": "services",
    "service": "services",
    "ep": "endpoints",
    "cm": "configmaps",
    "configmap": "configmaps",
    "secret": "secrets",
    "pvc": "persistentvolumeclaims",
    "sa": "serviceaccounts",
    "ing": "ingresses",
    "ns": "namespaces",
    "no": "nodes",
    "node": "nodes",
    "ev": "events",
}


def short_name(resource: str) -> str:
    """``replicasets.apps`` -> ``replicasets``: the plural without its group."""
    return resource.partition(".")[0]


# What a summary keeps the last of (an RV, a FIFO depth), and counts.
_LATEST = frozenset((WATCH_EVENT, FIFO_QUEUE, FIFO_COALESCE, FIFO_DEDUP, FIFO_POP))
_COUNTED = frozenset((STORE_ADD, STORE_DELETE))


class InformersState(PaneState):
    """Rows in the run's order (``run_info``), then any other informer a
    trace names (at most ``MAX_ROWS``)."""

    # Fed every informer's events, not only the selected one's (FeedLoop).
    FOLLOWS_INFORMER = False

    def __init__(self) -> None:
        super().__init__()
        self.rows: dict[str, InformerRow] = {}
        self.home = ""
        self._handlers = {
            INFORMER_SYNCED: self._synced,
            LIST_DONE: self._list_done,
            RELIST: self._relist,
            RV_ADVANCE: self._rv_advance,
            WATCH_EVENT: self._watch_event,
            FIFO_QUEUE: self._fifo,
            FIFO_COALESCE: self._fifo,
            FIFO_DEDUP: self._fifo,
            FIFO_POP: self._fifo,
            STORE_ADD: self._store_add,
            STORE_DELETE: self._store_delete,
            HANDLER_LANE: self._lane,
            OWNER_DROP: self._drop,
            INFORMER_STORE_RV: self._store_rv,
        }
        self._kinds = frozenset(self._handlers)
        self._summarised_kinds = self._kinds - _COUNTED

    def run_info(self, info: RunInfo) -> None:
        """The run's informers, in its order (the queue's resource first)."""
        names = tuple(info.informers) or (info.resource,)
        self.home = names[0]
        for name in names:
            self._row(name)

    def _row(self, name: str | None) -> InformerRow | None:
        name = name or self.home
        row = self.rows.get(name)
        if row is None and len(self.rows) < MAX_ROWS:
            row = self.rows[name] = InformerRow(name)
        return row

    def names(self) -> list[str]:
        return list(self.rows)

    def feed(self, ev) -> None:
        self.feed_all((ev,))

    def feed_all(self, events) -> None:
        get = self._handlers.get
        changed = 0
        for ev in events:
            h = get(ev.kind)
            if h is None:
                continue
            row = self._row(ev[4].get("informer"))
            if row is None:
                continue
            try:
                h(row, ev[4])
            except (TypeError, ValueError):
                continue  # a recording outside the contract: nothing to show
            changed += 1
        if changed:
            self.version += 1

    def summarise(self, stretch) -> None:
        """A stretch the UI could not take in event by event (feed.py): the
        objects added and deleted counted per informer; of the watch events
        and FIFO events (an RV, a depth) the last of each run."""
        self.feed_all(thinned(stretch.only(self._kinds), self._summarised_kinds, _LATEST))
        steps: dict[str | None, list[int]] = {}
        for ev in stretch.only(_COUNTED):
            steps.setdefault(ev[4].get("informer"), []).append(1 if ev[2] == STORE_ADD else -1)
        for name, walk in steps.items():
            row = self._row(name)
            if row is not None:
                row.cached = floored_walk(row.cached, walk)
        if steps:
            self.version += 1

    # -- per kind ---------------------------------------------------------------------
    def _synced(self, row: InformerRow, f: dict) -> None:
        row.synced = True
        row.synced_items = int(f.get("items") or 0)
        if f.get("resource_version"):
            row.rv = str(f["resource_version"])

    def _list_done(self, row: InformerRow, f: dict) -> None:
        if f.get("resource_version"):
            row.rv = str(f["resource_version"])

    def _relist(self, row: InformerRow, f: dict) -> None:
        row.relists += 1

    def _rv_advance(self, row: InformerRow, f: dict) -> None:
        row.rv = str(f.get("new") or row.rv)

    def _watch_event(self, row: InformerRow, f: dict) -> None:
        row.rv = str(f.get("resource_version") or row.rv)

    def _fifo(self, row: InformerRow, f: dict) -> None:
        row.fifo_depth = int(f.get("depth") or 0)

    def _store_add(self, row: InformerRow, f: dict) -> None:
        row.cached += 1

    def _store_delete(self, row: InformerRow, f: dict) -> None:
        row.cached = max(0, row.cached - 1)

    def _lane(self, row: InformerRow, f: dict) -> None:
        row.lanes[str(f.get("listener", ""))] = int(f.get("pending") or 0)

    def _drop(self, row: InformerRow, f: dict) -> None:
        count_drop(row.drops, f.get("reason"))

    def _store_rv(self, row: InformerRow, f: dict) -> None:
        row.store_rv = str(f.get("store_rv") or "")
        row.server_rv = str(f.get("server_rv") or "")
        lag = f.get("lag")
        row.lag = lag if isinstance(lag, int) and not isinstance(lag, bool) else None
        row.lag_source = str(f.get("source") or "")
        if row.lag is not None:
            row.max_lag = max(row.max_lag, row.lag)

    # -- readers -----------------------------------------------------------------------
    def all_synced(self) -> bool:
        return bool(self.rows) and all(r.synced for r in self.rows.values())

    def find(self, word: str) -> str | None:
        """The informer ``word`` names: its resource id (``replicasets.apps``),
        its plural (``replicasets``), its singular, or a kubectl short name
        (``rs``, ``SPELLINGS``); None if no row is it."""
        word = word.lower()
        plural = SPELLINGS.get(word, word)
        for name in self.rows:
            short = short_name(name)
            if word == name or plural == short or (short.endswith("s") and word == short[:-1]):
                return name
        return None
