"""The shots docs/ shows. Append a ``Shot`` here, reference
``screenshots/NAME.svg`` from a page, run ``python -m tools.docshots NAME``.

``argv`` is the command as the docs quote it, after ``kubectl informer``
(``--demo SCENARIO`` required: shots come from the simulated cluster).
``until`` is read from the trace; ``keys`` are pressed once it holds (pane
letters, ``enter``, ``?``...; ``{key}`` is pasted into the line the keys
before opened), then the screen is saved.
"""

from __future__ import annotations

from dataclasses import dataclass

from tools.docshots.conditions import Condition, Seen, after, all_of, seen


@dataclass(frozen=True)
class Shot:
    name: str  # docs/screenshots/NAME.svg
    argv: tuple[str, ...]  # e.g. ("watch", "pods", "--demo", "quiet", "--resync", "3s")
    until: Condition  # the trace shows what the shot is about
    size: tuple[int, int] = (80, 24)
    keys: tuple[str, ...] = ()  # pressed once ``until`` holds; "{key}" pastes the followed key
    follow: Seen | None = None  # "{key}" is the key of the last event this matches
    then: Condition | None = None  # after the keys, wait for this too (what the keys caused)
    timeout: float = 40.0  # seconds until ``until`` must hold
    # The scenario's first step is tick from_tick + 1: a scenario whose point
    # comes every N ticks (a restore, a re-initialisation, a stall) reaches it
    # seconds sooner. Leave it a few seconds before the point: the client must
    # be watching and the Server pane's poller have its first window by then.
    from_tick: int = 0
    # A point a run can miss, and then only show much later: once this holds
    # before ``until`` does, the run is given up and a fresh one started, up
    # to ``runs`` runs (each with its own ``timeout``).
    missed: Condition | None = None
    runs: int = 1
    about: str = ""  # one line: what the reader should see

    @property
    def path(self) -> str:
        return f"docs/screenshots/{self.name}.svg"

    @property
    def command(self) -> str:
        return "kubectl informer " + " ".join(self.argv)


def _tombstone(ev) -> bool:
    return bool(ev.fields.get("tombstone"))


def _expired(ev) -> bool:
    return bool(ev.fields.get("expired"))


def _server_error(ev) -> bool:
    return any(code in str(ev.fields.get("error", "")) for code in ("500",))


def _ours_open(ev) -> bool:
    return bool(ev.fields.get("ours_rv"))


def _refused_429(ev) -> bool:
    return "429" in str(ev.fields.get("error", ""))


def _dirty(ev) -> bool:
    return ev.fields.get("outcome") in ("already_dirty", "dirty_while_processing")


def _owned_cause(ev) -> bool:
    """A queue.add an owned object's event caused (a ReplicaSet of the Deployment): its cause
    names another object than the key."""
    cause = ev.fields.get("cause") or ()
    return bool(cause) and str(cause[-1]).split(" ")[1:2] != [ev.key]


SHOTS: list[Shot] = [
    Shot(
        "grid-160x45",
        ("queue", "pods", "--demo", "--resync", "3s"),
        until=all_of(
            seen("resync.tick", 2, where=lambda e: bool(e.fields.get("due"))),
            seen("queue.done", 12, where=lambda e: "worker" in e.fields),
        ),
        size=(160, 45),
        about="every pane at once on a large terminal",
    ),
    Shot(
        "resync-sync-deltas",
        ("watch", "pods", "--demo", "quiet", "--resync", "3s"),
        until=all_of(
            seen("informer.synced"),
            seen("resync.tick", 2, where=lambda e: bool(e.fields.get("due"))),
            seen("store.update", 10, delta="Sync"),
        ),
        about="Sync deltas every resync on a cluster where nothing changes",
    ),
    Shot(
        "resync-late-handler",
        ("watch", "pods", "--demo", "quiet", "--resync", "4s", "--late-handler-resync", "3s"),
        until=all_of(seen("handler.register", 2), seen("resync.tick", 3)),
        keys=("n",),
        about="a handler added late asks 3s and gets the 4s check period",
    ),
    Shot(
        "experiment-late-handler",
        ("watch", "pods", "--demo", "quiet", "--resync", "4s"),
        until=all_of(seen("informer.synced"), seen("resync.tick")),
        keys=("x", "h", "enter", "n"),
        then=seen("handler.register", 2),
        about="x h 3s: a handler added now asks 3s and gets the 4s check period",
    ),
    Shot(
        "tombstone-deltas",
        ("watch", "pods", "-A", "--demo", "disconnect"),
        until=seen("store.delete", where=_tombstone),
        about="a Deleted delta with a DeletedFinalStateUnknown tombstone after a relist",
    ),
    Shot(
        "relist-rv",
        ("watch", "pods", "--demo", "relist-storm"),
        until=seen("relist", 2),
        keys=("r",),
        about="the RV pane: 410 Expired, then a relist",
    ),
    Shot(
        "backoff-header",
        ("watch", "pods", "--demo", "flaky"),
        until=seen("reflector.backoff", where=_server_error),
        size=(120, 30),
        keys=("r",),
        about="the header while the Reflector backs off from a failed list",
    ),
    Shot(
        "queue-dedup",
        ("queue", "pods", "-A", "--demo", "burst", "--workers", "1", "--work-time", "500ms"),
        until=after(seen("informer.synced"), seen("queue.add", 10, where=_dirty)),
        size=(100, 30),
        keys=("slash", "{key}", "enter", "i"),
        follow=seen("queue.add", where=_dirty),
        about="the Inspector on the burst key: adds to a dirty key collapse; one worker run",
    ),
    Shot(
        "fifo-accumulate",
        ("watch", "pods", "-A", "--demo", "burst"),
        until=after(seen("informer.synced"), seen("fifo.coalesce", 5)),
        keys=("f",),
        about="DeltaFIFO accumulating one key's deltas in one slot",
    ),
    Shot(
        "inspector-burst",
        ("watch", "pods", "-A", "--demo", "burst"),
        until=after(seen("informer.synced"), seen("fifo.coalesce", 5)),
        size=(100, 30),
        keys=("slash", "{key}", "enter", "i"),
        follow=seen("fifo.coalesce"),
        about="one key's life: several deltas popped together, each handled",
    ),
    Shot(
        "fifo-realfifo",
        ("watch", "pods", "-A", "--demo", "burst", "--client-go", "1.35"),
        until=after(seen("informer.synced"), seen("fifo.queue", 15, type="Updated")),
        size=(100, 30),
        keys=("slash", "{key}", "enter", "i"),
        follow=seen("fifo.queue", type="Updated"),
        about="RealFIFO: every delta its own entry, no slot per key",
    ),
    Shot(
        "sync-vs-replaced",
        ("watch", "pods", "--demo", "relist-storm", "--resync", "2s"),
        until=after(
            seen("relist"), all_of(seen("store.update", 3, delta="Sync"), seen("store.update", 3, delta="Replaced"))
        ),
        about="Replaced deltas after a relist beside the resync's Sync deltas",
    ),
    Shot(
        "handlers-sync",
        ("watch", "pods", "--demo", "relist-storm", "--resync", "2s", "--handlers", "2", "--handler-resync", "2s,0"),
        until=after(seen("relist"), seen("handler.update", 10, is_sync=True)),
        keys=("h",),
        size=(100, 24),
        about="two handlers, one without a resync: only the other gets the Syncs and unchanged Replaceds",
    ),
    Shot(
        "queue-retries",
        ("queue", "pods", "--demo", "--fail-rate", "0.5", "--rate-limiter", "exponential:500ms,60s"),
        until=seen("queue.rate_limited", where=lambda e: e.fields.get("requeues", 0) >= 2),
        about="failed items waiting out a growing rate-limited delay",
    ),
    Shot(
        "queue-backing-up",
        ("queue", "pods", "--demo", "-A", "--resync", "2s", "--workers", "1", "--work-time", "300ms"),
        until=all_of(seen("informer.synced"), seen("resync.tick", 2)),
        about="a queue whose depth grows faster than one worker drains it",
    ),
    Shot(
        "cache-transform",
        ("watch", "pods", "--demo", "-A", "--strip-managed-fields"),
        until=all_of(seen("informer.synced"), seen("transform", 2)),
        keys=("c",),
        about="the Cache pane: bytes held per object and what stripping managedFields saved",
    ),
    Shot(
        "server-small-window",
        ("watch", "pods", "--demo", "small-window"),
        until=after(seen("watch.end", where=_expired), seen("server.window", where=_ours_open)),
        size=(100, 24),
        keys=("s",),
        from_tick=8,  # the streams stall at tick 20 of every 32, the stall ends at 32
        about="the Server pane: an 8-event window, ours back in it after a 410 and a relist",
    ),
    Shot(
        "server-too-large",
        ("watch", "pods", "--demo", "etcd-restore"),
        until=after(seen("server.too_large"), seen("server.window", where=_ours_open)),
        size=(100, 24),
        # every 60 ticks a restore; the second one fails the re-watch: a relist at our RV, 504 after the
        # REST client's ten retries (about 43 s), then a list from ""
        keys=("s",),
        from_tick=92,
        timeout=90.0,
        about='the Server pane after the server\'s RV went back: Too large resource version, relist from ""',
    ),
    Shot(
        "server-cache-reinit",
        ("watch", "pods", "--demo", "cache-reinit"),
        until=after(seen("server.reinit"), all_of(seen("relist"), seen("server.window", where=_ours_open))),
        size=(100, 24),
        keys=("s",),
        from_tick=16,  # the cache down from tick 32 of every 40 to 40
        # The reflector backs off after each of the down cache's 429s and
        # after the 410 (800 ms doubling, 100% jitter, reset only after 2
        # quiet minutes): 5.6-11.2 s from the cache going down to the relist,
        # so one run in five or so relists too close to the next down window
        # (10 s on) for the poller to see the new watch before that window
        # ends it with 429; the back-off then grows towards 30-60 s and the
        # point comes a minute or more later. Such a run is given up at that
        # 429; a fresh run starts with a fresh back-off.
        missed=after(seen("server.reinit"), after(seen("relist"), seen("watch.end", where=_refused_429))),
        runs=5,
        timeout=40.0,
        about="the Server pane after the watch cache re-initialised: every watch ended, 410, relist",
    ),
    Shot(
        "controller-rollout",
        ("queue", "--controller", "deployment", "--demo", "rollout"),
        until=after(seen("informer.synced", 3), seen("queue.add", 20, where=_owned_cause)),
        size=(160, 45),
        keys=("slash", "{key}", "enter", "i", "enter"),
        follow=seen("queue.add", where=_owned_cause),
        about="a Deployment controller's three informers, one workqueue: why default/web was queued",
    ),
    Shot(
        "stale-on",
        ("queue", "replicasets", "--owns", "pods", "--demo", "stale", "--client-go", "1.36"),
        until=after(seen("queue.stale_skip", 3), seen("controller.write", 2, verb="update_status")),
        size=(160, 45),
        about="read-your-own-writes on: stale-sync skips while the pod cache trails, then the catch-up",
    ),
    Shot(
        "stale-off",
        ("queue", "replicasets", "--owns", "pods", "--demo", "stale", "--client-go", "1.36", "--consistency", "off"),
        until=after(seen("controller.write", 3, duplicate=True), seen("controller.write", verb="delete")),
        size=(160, 45),
        about="read-your-own-writes off: the controller creates its pods again from a stale cache",
    ),
    Shot(
        "help",
        ("watch", "pods", "--demo", "quiet"),
        until=seen("informer.synced"),
        keys=("question_mark",),
        about="the keys",
    ),
]


def by_name(name: str) -> Shot:
    for shot in SHOTS:
        if shot.name == name:
            return shot
    raise KeyError(f"no shot {name!r} (shots: {', '.join(s.name for s in SHOTS)})")
