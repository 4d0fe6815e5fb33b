"""Which texts explain the selected thing, and with which numbers.

``subject_for`` turns a pane's selection into a ``Subject``; ``explain``
returns the ``(text id, numbers)`` that apply, the main one first. Both are
pure: they read ``Facts`` and the subject only, so they are tested by
feeding traces, without a UI.

Why this module is long: it holds one rule per pane and text, the whole
choice of what to say in one place, as texts.toml holds the words.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kubectl_informer.core.durations import format_short
from kubectl_informer.core.profiles import NO_KNOWN_OBJECTS, backoff_delay_with_reset
from kubectl_informer.core.trace_kinds import (
    CONTROLLER_WRITE,
    LIST_DONE,
    QUEUE_ADD,
    QUEUE_DONE,
    QUEUE_FORGET,
    QUEUE_GET,
    QUEUE_RATE_LIMITED,
    QUEUE_STALE_SKIP,
    REFLECTOR_BACKOFF,
    RELIST,
    SERVER_METRICS,
    SERVER_REINIT,
    SERVER_TOO_LARGE,
    SERVER_WINDOW,
    STORE_ADD,
    STORE_DELETE,
    WATCH_BOOKMARK,
    WATCH_END,
)
from kubectl_informer.panes import fifo
from kubectl_informer.panes.causes import chain, is_mapped, link_kind
from kubectl_informer.panes.explain.facts import Facts, Rec
from kubectl_informer.panes.explain.records import Record

MARK_PANES = ("rv", "resync", "queue", "server")  # panes without a cursor: the newest record, or one back from it


@dataclass
class Subject:
    """What is selected: in ``pane``, a trace record (``rec``) or a key
    (``key``, with what the pane shows of it in ``fields``)."""

    pane: str
    rec: Record | None = None
    key: str | None = None
    fields: dict = field(default_factory=dict)


Explanation = tuple[str, dict]


def delta_runs(types) -> str:
    """``Updated ×20`` for twenty Updated in a row, ``Added, Updated ×2``: a
    popped list said in a line however long it is."""
    return ", ".join(t if n == 1 else f"{t} ×{n}" for t, n in fifo.delta_runs(types))


def _secs(v) -> str:
    return format_short(float(v)) if v is not None else "?"


def _names(listeners: list[str]) -> str:
    if not listeners:
        return "none"
    return ", ".join(sorted(set(listeners)))


# -- subjects -----------------------------------------------------------------------------


def marks_for(pane: str, facts: Facts) -> list[Rec]:
    """The records a cursorless pane shows, oldest first."""
    if pane == "rv":
        return list(facts.rv_marks)
    if pane == "resync":
        return list(facts.ticks) or [r for r in facts.registers if _raised(r)]
    if pane == "queue":
        return facts.queue_records()
    if pane == "server":
        return facts.server_records()
    return []


def subject_for(
    pane: str,
    facts: Facts,
    *,
    key: str | None = None,
    seq: int | None = None,
    pending: list[str] | None = None,
    back: int = 0,
) -> Subject:
    """The subject of ``pane``: the delta ``seq`` of ``key`` (Deltas), a key
    (FIFO with its ``pending`` delta types, Inspector, Cache), or for a pane
    without a cursor its newest record, ``back`` records back."""
    if pane == "queue" and key is not None:  # the item under the Queue pane's cursor
        return Subject(pane, facts.queue_rec(key), key)
    if pane in MARK_PANES:
        marks = marks_for(pane, facts)
        if not marks:
            return Subject(pane)
        return Subject(pane, marks[max(len(marks) - 1 - back, 0)])
    if pane in ("deltas", "inspector") and key is not None:
        return Subject(pane, facts.store_rec(key, seq), key)
    return Subject(pane, None, key, {"pending": list(pending or [])})


# -- explanations -------------------------------------------------------------------------


def explain(subject: Subject, facts: Facts) -> list[Explanation]:
    """The texts for ``subject``, the main one first (empty: nothing to say)."""
    pane, rec = subject.pane, subject.rec
    if pane in ("deltas", "inspector"):
        out = _delta(rec, facts) if rec is not None else ([_cache(facts)] if pane == "inspector" else [])
        if subject.key is None:
            return out
        dropped = facts.drops.get(subject.key)
        said = _drop(dropped) if dropped is not None else None
        if said is not None:
            out.append(said)
        queued = _newest_caused(facts, subject.key) if pane == "inspector" else None
        return out + _owner_causes(queued) if queued is not None else out
    if pane == "fifo":
        return _fifo(subject, facts) + _no_known_objects(facts)
    if pane == "rv":
        found = _rv(rec, facts) if rec is not None else None
        if found is not None and found[0] in ("rv.relist_expired", "rv.relist_error"):
            return [found, *_no_known_objects(facts)]
        return [found] if found is not None else []
    if pane == "resync":
        return _resync(rec, facts)
    if pane == "queue":
        return _queue(rec, facts)
    if pane == "cache":
        return [_cache(facts), *_indexes(facts)]
    if pane == "server":
        return _server(rec, facts) if rec is not None else []
    return []


def _no_known_objects(facts: Facts) -> list[Explanation]:
    """--no-fifo-known-objects: what the DeltaFIFO cannot see without the indexer."""
    if facts.fifo != NO_KNOWN_OBJECTS:
        return []
    return [("fifo.no_known_objects", {"relists": len(facts.relists), "dropped": facts.unknown_deletes})]


def _cache(facts: Facts) -> Explanation:
    return "cache.summary", {"count": facts.cache_count, "lists": facts.lists}


def _indexes(facts: Facts) -> list[Explanation]:
    """What the indexes cost: one text for all, with each index's figures."""
    view = facts.indexes
    names = view.names
    if not names:
        return []
    figures = []
    for name in names:
        if name == "namespace" and name not in view.of_key:  # untraced: its value is each key's namespace
            figures.append(
                f"namespace ({view.sources.get(name) or 'MetaNamespaceIndexFunc'}): "
                f"{facts.cache_count} keys, each under its namespace"
            )
            continue
        f = view.figures(name)
        top = f" (most: {f['top_keys']} under {f['top_value']!r})" if f["values"] else ""
        figures.append(
            f"{name} ({f['source'] or 'IndexFunc'}): {f['values']} value{'' if f['values'] == 1 else 's'}, "
            f"{f['keys']} keys, "
            f"{f['per_value']:.1f} keys per value{top}"
        )
    n = len(names)
    return [
        (
            "cache.index",
            {
                "n": n,
                "names": ", ".join(names),
                "figures": "; ".join(figures),
                "per_update": 2 * n,
                "per_add": n,
                "changes": view.changes,
                "count": facts.cache_count,
            },
        )
    ]


def _delta(rec: Record, facts: Facts) -> list[Explanation]:
    f, x = rec.fields, rec.extra
    v = {
        "key": rec.key,
        "rv": f.get("resource_version", ""),
        "old_rv": f.get("old_resource_version", ""),
        "delta": f.get("delta", ""),
        "listeners": _names(x.get("listeners", [])),
        "count": x.get("count", 0),
    }
    relist = facts.relist_before(rec.seq)
    listed = facts.list_before(rec.seq)
    if listed is None and rec.fields.get("is_in_initial_list"):
        # The reflector says list.done once the FIFO holds the items; the
        # informer may pop the first of them before: that list comes after.
        listed = facts.list_after(rec.seq)
    v["relist_reason"] = _relist_words(relist) if relist else "a relist"
    if listed is not None:
        v.update(list_rv=listed.fields.get("resource_version", ""), list_items=listed.fields.get("items", 0))
    out = [_delta_main(rec, v, facts, listed)]
    types = x.get("popped") or []
    if len(types) > 1:
        out.append(("fifo.popped_together", {"key": rec.key, "n": len(types), "types": delta_runs(types)}))
    elif facts.fifo.startswith("RealFIFO") and types:
        out.append(("fifo.real_entries", {"fifo": facts.fifo, "pops": facts.pops}))
    return out


def _delta_main(rec: Record, v: dict, facts: Facts, listed: Rec | None) -> Explanation:
    f = rec.fields
    delta = v["delta"]
    if rec.kind == STORE_DELETE:
        return ("delta.tombstone" if f.get("tombstone") else "delta.watch_delete"), v
    if rec.kind == STORE_ADD:
        if f.get("is_in_initial_list"):
            if listed is not None:
                v.update(
                    items=listed.fields.get("items", 0),
                    took=_secs(listed.fields.get("duration")),
                    source="WatchList stream" if listed.fields.get("watch_list") else "paged LIST",
                )
            return "delta.initial_list", v
        return ("delta.relist_add" if delta in ("Replaced", "ReplacedAll") else "delta.watch_add"), v
    if delta == "Sync":
        tick = facts.tick_before(rec.seq)
        if tick is not None:
            v.update(check=_secs(tick.fields.get("check_period")), due=_names(tick.fields.get("due") or []))
        return "delta.sync", v
    if delta in ("Replaced", "ReplacedAll"):
        return ("delta.replaced_unchanged" if v["rv"] == v["old_rv"] else "delta.replaced_changed"), v
    return "delta.update", v


def _relist_words(rec: Rec) -> str:
    reason = rec.fields.get("reason", "")
    return {
        "expired": "410 Expired",
        "too_large": "RV too large",
        "watch_closed": "a very short watch",
        "error": "after an error",
    }.get(reason, reason)


def _fifo(subject: Subject, facts: Facts) -> list[Explanation]:
    pending = subject.fields.get("pending") or []
    if subject.key is not None and len(pending) > 1 and not facts.fifo.startswith("RealFIFO"):
        return [("fifo.popped_together", {"key": subject.key, "n": len(pending), "types": delta_runs(pending)})]
    if facts.fifo.startswith("RealFIFO"):
        return [("fifo.real_entries", {"fifo": facts.fifo, "pops": facts.pops})]
    return [("fifo.summary", {"fifo": facts.fifo or "FIFO", "pops": facts.pops, "appended": facts.appended})]


def _rv(rec: Record, facts: Facts) -> Explanation | None:
    f, kind = rec.fields, rec.kind
    if kind == LIST_DONE:
        relist = facts.relist_before(rec.seq)
        if not rec.extra.get("first") and relist is not None:
            return _rv(relist, facts)  # a relist's list: why it relisted is the story
        v = {
            "items": f.get("items", 0),
            "rv": f.get("resource_version", ""),
            "took": _secs(f.get("duration")),
            "asked": rec.extra.get("asked", ""),
        }
        return ("rv.watch_list" if f.get("watch_list") else "rv.initial_list"), v
    if kind == RELIST:
        end = rec.extra.get("last_end")
        v = {
            "relists": sum(1 for r in facts.relists if r.seq <= rec.seq),
            "rv": (end.fields.get("resource_version", "") if end is not None else "") or "?",
            "error": _ended(end),
        }
        reason = f.get("reason")
        if reason in ("expired", "too_large"):
            return "rv.relist_expired", v
        # Another cause (an experiment's forgotten RV) is the experiment's to explain.
        return ("rv.relist_error", v) if reason in ("error", "watch_closed") else None
    if kind == REFLECTOR_BACKOFF:
        after = facts.next_watch_after(rec.seq)
        outcome = (
            f"It recovered: a watch opened {_secs(after.time - rec.time)} later."
            if after is not None
            else "No watch has opened since: still retrying."
        )
        error = f.get("error") or _ended(rec.extra.get("last_end"))
        return "rv.backoff", {
            "delay": _secs(f.get("delay")),
            "error": error,
            "outcome": outcome,
            "reset": _backoff_reset(facts.profile),
        }
    if kind == WATCH_BOOKMARK:
        return "rv.bookmark", {"rv": f.get("resource_version", "")}
    if kind == WATCH_END and f.get("expired"):
        return "rv.relist_expired", {"rv": f.get("resource_version", ""), "relists": len(facts.relists)}
    if kind == WATCH_END and f.get("error"):
        return "rv.relist_error", {"error": f.get("error"), "relists": len(facts.relists)}
    return "rv.watch_closed", {"rv": f.get("resource_version", ""), "watches": facts.watches}


def _backoff_reset(client_go: str) -> str:
    """When the run's reflector back-off starts over (cache/reflector.py)."""
    if backoff_delay_with_reset(client_go):
        return "2 minutes after it last started over, failures or not (client-go 1.36's Backoff.DelayWithReset)"
    return "after 2 minutes without one (wait.NewExponentialBackoffManager)"


def _ended(end: Rec | None) -> str:
    """How the last watch or list ended, in a few words."""
    if end is None:
        return "ListAndWatch returned"
    f = end.fields
    if end.kind == LIST_DONE:
        return f"the list failed: {f.get('error') or '?'}"
    if f.get("error"):
        return f"the watch ended with {f['error']}"
    return f"the watch closed at RV {f.get('resource_version', '?')}"


def _raised(reg: Rec) -> bool:
    f = reg.fields
    req, eff, check = f.get("requested", 0), f.get("effective", 0), f.get("check_period", 0)
    return bool(reg.extra.get("after_start")) and 0 < req < eff and eff == check


def _resync(rec: Record | None, facts: Facts) -> list[Explanation]:
    out: list[Explanation] = []
    if rec is not None and rec.kind == "resync.tick":
        f, x = rec.fields, rec.extra
        out.append(
            (
                "resync.tick",
                {
                    "check": _secs(f.get("check_period")),
                    "due": _names(f.get("due") or []),
                    "syncs": x.get("syncs", 0),
                    "skipped": x.get("skipped", 0),
                    "items": x.get("items", 0),
                    "lists": x.get("lists", 0),
                },
            )
        )
    for reg in facts.registers:
        if _raised(reg):
            f = reg.fields
            out.append(
                (
                    "resync.raised",
                    {
                        "requested": _secs(f["requested"]),
                        "check": _secs(f["check_period"]),
                        "effective": _secs(f["effective"]),
                        "listener": f.get("listener", "?"),
                    },
                )
            )
    if not out and facts.check_period == 0:
        out.append(("resync.off", {}))
    return out


def _queue(rec: Record | None, facts: Facts) -> list[Explanation]:
    if rec is None:
        return [("queue.watch_mode", {})] if facts.mode != "queue" else []
    out = [_queue_main(rec, facts)] + _owner_causes(rec)
    backing = backing_up(facts, rec.time)
    if backing is not None:
        out.append(("queue.backing_up", {"sentence": backing}))
    return out


def _staleness(rec: Record, facts: Facts) -> Explanation | None:
    """kube-controller-manager 1.36's read-your-own-writes, as this run did it."""
    f, x = rec.fields, rec.extra
    if rec.kind == QUEUE_STALE_SKIP:
        return "queue.stale_skip", {
            "key": rec.key,
            "resource": _gr(f),
            "expected": f.get("expected", "?"),
            "actual": f.get("actual", "?"),
            "in_a_row": x.get("in_a_row", 1),
            "skips": f.get("skips", facts.stale_skips),
        }
    if rec.kind == CONTROLLER_WRITE:
        return "queue.stale_duplicate", {
            "key": rec.key,
            "name": f.get("name", "?"),
            "rv": f.get("resource_version"),
            "duplicates": x.get("duplicates", 1),
            "creates": x.get("creates", 1),
        }
    if "caught_up" in x:
        skip = x.get("skip") or {}
        return "queue.caught_up", {
            "key": rec.key,
            "skips": x["caught_up"],
            "took": _secs(x.get("took")),
            "resource": _gr(skip),
            "expected": skip.get("expected", "?"),
        }
    return None


def _gr(f: dict) -> str:
    resource, group = f.get("resource", "?"), f.get("group", "")
    return f"{resource}.{group}" if group else resource


def _queue_main(rec: Record, facts: Facts) -> Explanation:
    stale = _staleness(rec, facts)
    if stale is not None:
        return stale
    f, x = rec.fields, rec.extra
    v = {"key": rec.key, "depth": x.get("depth", facts.depth())}
    if rec.kind == QUEUE_RATE_LIMITED:
        return "queue.rate_limited", {**v, "delay": _secs(f.get("delay")), "requeues": f.get("requeues", 0)}
    if rec.kind == QUEUE_FORGET:
        return "queue.forget", {**v, "requeues": f.get("requeues", 0)}
    if rec.kind == QUEUE_GET and x.get("adds", 1) > 1:
        return "queue.dedup", {**v, "adds": x["adds"], "waited": _secs(x.get("waited"))}
    if rec.kind == QUEUE_ADD:
        return "queue.queued", {
            **v,
            "adds": x.get("adds", 1),
            "waited": _secs(x.get("waited")),
            "ahead": x.get("ahead", 0),
        }
    if rec.kind == QUEUE_DONE and x.get("adds", 0) > 0:
        return "queue.dirty_while_processing", {**v, "adds": x["adds"], "worker": _worker(x)}
    if rec.kind == QUEUE_DONE:
        return "queue.processed", {
            **v,
            "worker": _worker(x),
            "worked": _secs(x.get("worked")),
            "waited": _secs(x.get("waited")),
        }
    return "queue.processing", {**v, "worker": _worker(x), "waited": _secs(x.get("waited"))}


# owner.drop's reason -> its text.
DROP_TEXTS = {
    "no_controller": "owner.orphan",
    "uid_mismatch": "owner.uid_mismatch",
    "owner_not_cached": "owner.not_cached",
    "not_queue_kind": "owner.other_kind",
    "not_recreate": "owner.pod_delete",
    "pods_remain": "owner.pod_delete",
    "resync": "owner.resync",
}
POD_DELETE_WHY = {"not_recreate": "its strategy is not Recreate", "pods_remain": "some of its pods remain"}


def _drop(rec: Rec) -> Explanation | None:
    """Why an owned object's event queued nothing (``owner.drop``)."""
    f = rec.fields
    reason = f.get("reason", "")
    text = DROP_TEXTS.get(reason)
    if text is None:
        return None
    owner = str(f.get("owner") or "")
    return text, {
        "key": rec.key,
        "event": f.get("event", ""),
        "informer": f.get("informer", ""),
        "owner": owner or "no owner",
        "owner_kind": link_kind(owner) if owner else "owner",
        "why": POD_DELETE_WHY.get(reason, ""),
    }


def _newest_caused(facts: Facts, key: str) -> Rec | None:
    """The key's newest queue record whose adds carried causes (the
    Inspector on a queue key says why it was queued)."""
    return next((r for r in reversed(facts.queue_marks) if r.key == key and r.extra.get("causes") is not None), None)


# The handler an add names (queue.add's via) -> the text that says its rules.
VIA_TEXTS = {
    "EnqueueRequestForOwner": "owner.for_owner",
    **{
        via: "owner.deployment_controller"
        for via in (
            "addDeployment",
            "updateDeployment",
            "deleteDeployment",
            "addReplicaSet",
            "updateReplicaSet",
            "deleteReplicaSet",
            "deletePod",
        )
    },
}


def _owner_causes(rec: Record) -> list[Explanation]:
    """For a queue item that owned objects' events queued: the handler rule
    that enqueued its key, and the adds that collapsed into its one reconcile."""
    batch = rec.extra.get("causes")
    key = rec.key  # a queue item's: never None
    if batch is None or not batch.causes or key is None:
        return []
    mapped = [c for c in batch.causes if is_mapped(key, c)]
    if not mapped:
        return []
    newest = mapped[-1]
    via = batch.via.get(newest)
    out: list[Explanation] = []
    if via in VIA_TEXTS:  # a recording made before the handlers said which they are has none
        out.append(
            (
                VIA_TEXTS[via],
                {
                    "key": rec.key,
                    "chain": chain(key, newest),
                    "link": newest[-1],
                    "origin": link_kind(newest[-1]),
                    "via": via,
                },
            )
        )
    adds = rec.extra.get("adds", 1)
    if adds > 1:
        out.append(("owner.collapsed", {"key": rec.key, "adds": adds, "kinds": batch.kinds_text()}))
    return out


def _worker(extra: dict) -> object:
    """The worker's number, or ? for a queue whose events name none."""
    w = extra.get("worker")
    return "?" if w is None else w


def backing_up(facts: Facts, now: float, window: float = 5.0) -> str | None:
    """The attach view's "backing up" sentence, when the depth rose over the
    last ``window`` seconds because adds outpace what workers take."""
    from kubectl_informer.attach.model import QueueFigures, backing_up_sentence

    depth, then = facts.depth_at(now), facts.depth_at(now - window)
    adds, drain = facts.rate(facts.queue_adds, now, window), facts.rate(facts.queue_gets, now, window)
    if depth < 3 or depth <= then or adds <= drain:
        return None
    lat = sorted(facts.latencies)
    p99 = lat[min(int(len(lat) * 0.99), len(lat) - 1)] if lat else None
    q = QueueFigures("the workqueue", depth=depth, adds_per_s=adds, drain_per_s=drain, latency_p99=p99)
    return backing_up_sentence(q, then, window)


# -- the API server's side (Server pane) ---------------------------------------------------


def _server(rec: Record, facts: Facts) -> list[Explanation]:
    f, kind = rec.fields, rec.kind
    if kind == SERVER_WINDOW:
        return [("server.window", _window_values(f)), *_sim_rv_behind(f), *_consistent(facts, None)]
    if kind == SERVER_METRICS:
        out = _consistent(facts, f)
        behind = f.get("rv_behind", f.get("lag"))
        if behind is not None:
            rates = (
                f"Events reach the cache at {_per_s(f.get('events_received_per_s'))} and are dispatched to "
                f"watchers at {_per_s(f.get('events_dispatched_per_s'))}. "
            )
            out.insert(
                0,
                (
                    "server.rv_behind",
                    {
                        "resource": f.get("resource", ""),
                        "cache_rv": f.get("cache_rv", ""),
                        "behind": f"{int(behind):,}",
                        "rates": rates,
                    },
                ),
            )
        return out
    if kind == SERVER_TOO_LARGE:
        return [
            ("server.too_large", {"requested": f.get("requested_rv") or "?", "current": f.get("current_rv") or "?"})
        ]
    if kind == SERVER_REINIT:
        return [("server.reinit", {"resource": f.get("resource", ""), "initialisations": f.get("initialisations", 0)})]
    if kind == WATCH_END:
        w = rec.extra.get("window")
        wf = w.fields if w is not None and w.kind == SERVER_WINDOW else None
        window = (
            "the API server's watch cache no longer held them"
            if wf is None
            else f"the API server's window for {wf.get('resource', '')} then held RV {wf.get('oldest_rv', '')} "
            f"to {wf.get('newest_rv', '')} ({wf.get('capacity', '')} events at most)"
        )
        return [("server.gone", {"rv": f.get("resource_version") or "?", "window": window})]
    return []


def _sim_rv_behind(f: dict) -> list[Explanation]:
    """The simulator's RV difference, exact: our position behind the window's newest RV."""
    try:
        behind = int(f.get("newest_rv") or "") - int(f.get("ours_rv") or "")
    except ValueError:
        return []
    if behind <= 0:
        return []
    rates = f"Events enter the window at {float(f.get('turnover') or 0.0):.1f}/s. "
    return [
        (
            "server.rv_behind",
            {
                "resource": f.get("resource", ""),
                "cache_rv": f.get("newest_rv", ""),
                "behind": f"{behind:,}",
                "rates": rates,
            },
        )
    ]


def _per_s(v) -> str:
    return "?/s" if v is None else f"{float(v):.1f}/s"


def _window_values(f: dict) -> dict:
    ours = f.get("ours_rv")
    if not ours:
        where = "no watch of ours is open now"
    else:
        try:
            fell_out = int(ours) < int(f.get("oldest_rv") or "")
        except ValueError:
            fell_out = False
        where = "it has fallen out: its next watch gets 410" if fell_out else "it is in the window"
    return {
        "capacity": f.get("capacity", 0),
        "resource": f.get("resource", ""),
        "oldest": f.get("oldest_rv", ""),
        "newest": f.get("newest_rv", ""),
        "events": f.get("events", 0),
        "turnover": f"{float(f.get('turnover') or 0.0):.1f}",
        "ours": f.get("ours_rv") or "-",
        "left": where,
    }


def _consistent(facts: Facts, metrics: dict | None) -> list[Explanation]:
    """The consistent-reads text, when this run made one or the server counts them."""
    if metrics is not None and metrics.get("consistent_reads_cache") is not None:
        seen = (
            f"This API server has served {metrics['consistent_reads_cache']} from its cache; etcd answered "
            f"{metrics.get('consistent_reads_fallback') or 0} after the cache did not catch up, and "
            f"{metrics.get('consistent_reads_failed') or 0} failed."
        )
    elif facts.consistent_lists:
        seen = (
            f'This run listed with RV "" {facts.consistent_lists} time(s); the simulator answers from its '
            "store at its newest RV, as a cache that has caught up does."
        )
    else:
        return []
    return [("server.consistent_reads", {"seen": seen})]
