"""What the Queue pane, the Inspector and Explain know of a controller's
staleness (``--demo stale``): its writes, its stale-sync skips, and the
catch-up that follows them. Fed ``controller.write``, ``queue.stale_skip``,
``controller.consistency`` and the workers' ``queue.done``; no Textual.

kube-controller-manager v1.36 records the RV of each write a controller makes
(``ConsistencyStore.WroteAt``) and skips a sync while an informer store has
read an older RV (``EnsureReady``), counting ``stale_sync_skips_total``. A
*catch-up* here is the first successful sync of a key after its skips: the
cache has read the controller's own writes. Without the check a create made
while the server already had the replicas asked for is a *duplicate*: the
controller acted on a stale cache.
"""

from __future__ import annotations

# Keys whose writes and skips are kept (the Inspector's), newest first out.
MAX_KEYS = 256


class KeyStaleness:
    __slots__ = (
        "written_rv",
        "written_resource",
        "skips",
        "skipping_since",
        "last_expected",
        "last_actual",
        "duplicates",
    )

    def __init__(self) -> None:
        self.written_rv = ""  # the RV of the controller's newest write for the key
        self.written_resource = ""
        self.skips = 0
        self.skipping_since: float | None = None  # first skip of the current run of skips
        self.last_expected = ""
        self.last_actual = ""
        self.duplicates = 0


class StaleSyncs:
    def __init__(self) -> None:
        self.consistency: bool | None = None  # None: no controller that writes in this run
        self.skips = 0
        self.skips_by_resource: dict[str, int] = {}
        self.creates = self.deletes = self.status_writes = self.duplicates = 0
        self.catch_ups = 0
        self.last_catch_up: tuple[str, int, float] | None = None  # key, skips before it, seconds skipping
        self.max_skips_before_catch_up = 0
        self.keys: dict[str, KeyStaleness] = {}
        self.store_rvs: dict[str, str] = {}  # informer -> its store's RV (informer.store_rv)

    def __repr__(self) -> str:
        """By value (tests compare states fed in chunks and one by one)."""
        keys = {
            k: (
                v.written_rv,
                v.written_resource,
                v.skips,
                v.skipping_since,
                v.last_expected,
                v.last_actual,
                v.duplicates,
            )
            for k, v in self.keys.items()
        }
        return repr(
            {
                n: getattr(self, n)
                for n in (
                    "consistency",
                    "skips",
                    "skips_by_resource",
                    "creates",
                    "deletes",
                    "status_writes",
                    "duplicates",
                    "catch_ups",
                    "last_catch_up",
                    "store_rvs",
                )
            }
            | {"keys": keys}
        )

    @property
    def active(self) -> bool:
        return self.consistency is not None

    def _key(self, key: str) -> KeyStaleness:
        ks = self.keys.get(key)
        if ks is None:
            if len(self.keys) >= MAX_KEYS:
                self.keys.pop(next(iter(self.keys)))
            ks = self.keys[key] = KeyStaleness()
        return ks

    def write(self, key: str, t: float, f: dict) -> None:
        verb = f.get("verb")
        if isinstance(f.get("consistency"), bool):
            self.consistency = f["consistency"]  # as the controller had it at this write
        if verb == "create":
            self.creates += 1
        elif verb == "delete":
            self.deletes += 1
        else:
            self.status_writes += 1
        ks = self._key(key)
        ks.written_rv = str(f.get("resource_version") or "")
        ks.written_resource = str(f.get("resource") or "")
        if f.get("duplicate") is True:
            self.duplicates += 1
            ks.duplicates += 1

    def skip(self, key: str, t: float, f: dict) -> None:
        if self.consistency is None:
            self.consistency = True
        self.skips += 1
        resource = str(f.get("resource") or "")
        group = str(f.get("group") or "")
        gr = f"{resource}.{group}" if group else resource
        self.skips_by_resource[gr] = self.skips_by_resource.get(gr, 0) + 1
        ks = self._key(key)
        ks.skips += 1
        if ks.skipping_since is None:
            ks.skipping_since = t
        ks.last_expected, ks.last_actual = str(f.get("expected") or ""), str(f.get("actual") or "")

    def switched(self, t: float, f: dict) -> None:
        self.consistency = bool(f.get("enabled"))

    def done(self, key: str, t: float, f: dict) -> None:
        """A worker's verdict: an ok after skips is the catch-up."""
        ks = self.keys.get(key)
        if ks is None or ks.skipping_since is None or f.get("outcome") != "ok":
            return
        run = ks.skips
        self.catch_ups += 1
        self.last_catch_up = (key, run, t - ks.skipping_since)
        self.max_skips_before_catch_up = max(self.max_skips_before_catch_up, run)
        ks.skipping_since = None
        ks.skips = 0

    def store_rv(self, f: dict) -> None:
        self.store_rvs[str(f.get("informer") or "")] = str(f.get("store_rv") or "")

    def written_vs_read(self, key: str) -> tuple[str, str, str, str] | None:
        """``(resource, written RV, its store's RV, verdict)`` for the key's
        newest write; verdict: behind, caught up, or unknown."""
        ks = self.keys.get(key)
        if ks is None or not ks.written_rv:
            return None
        read = self.store_rvs.get(ks.written_resource, self.store_rvs.get("", ""))
        verdict = "unknown"
        if ks.written_rv.isdigit() and read.isdigit():
            verdict = "behind" if int(read) < int(ks.written_rv) else "caught up"
        return ks.written_resource, ks.written_rv, read, verdict

    def pending_skip(self, key: str) -> KeyStaleness | None:
        ks = self.keys.get(key)
        return ks if ks is not None and ks.skipping_since is not None else None
