"""Drawing the Server pane from its state.

What the pane knows, and why: ``panes/server.py``.
"""

from __future__ import annotations

import textwrap

from rich.text import Text

from kubectl_informer.panes.server import ServerState, Watcher
from kubectl_informer.tui.chart import any_size, fmt_secs, join_lines
from kubectl_informer.tui.textpane import TextPane, text_lines

METRICS_RULE = 'nonResourceURLs: ["/metrics"], verbs: ["get"]'


class ServerPane(TextPane):
    DEFAULT_CSS = """
    ServerPane { height: 1fr; width: 1fr; padding: 0 1; }
    """

    def draw_lines(self, width: int, height: int) -> list[Text]:
        return text_lines(render_server(self.state, self.now, width, height))


def _rate(v) -> str:
    return "-" if v is None else f"{float(v):.1f}/s"


def _num(v) -> str:
    return "-" if v is None else str(v)


def _window_bar(st: ServerState, w: dict, width: int) -> list[Text]:
    """Two rows: the window ``w`` from its oldest to its newest RV with every
    watcher's position on it (ours ▲, others │; a fallen-out one at the left
    edge as ◀), and the labels under it."""
    lo, hi = str(w.get("oldest_rv", ""))[:24], str(w.get("newest_rv", ""))[:24]  # RVs are short; a bad one is cut
    inner = max(1, width - len(lo) - len(hi) - 4)
    cells: list[tuple[str, str]] = [("─", "cyan")] * inner
    ours_col = None
    ours_fell_out = False
    for wt in st.watchers:
        pos = st.position(wt.rv)
        if pos is None:
            continue
        col = 0 if pos < 0 else min(inner - 1, int(pos * inner))
        if wt.ours:
            ours_col, ours_fell_out = col, pos < 0
            cells[col] = ("◀", "bold red") if pos < 0 else ("▲", "bold yellow")
        elif cells[col][0] == "─":
            cells[col] = ("◀", "red") if pos < 0 else ("│", "magenta")
    row = Text.assemble((lo, "dim"), " ├")
    for ch, style in cells:
        row.append(ch, style)
    row.append("┤ ")
    row.append(hi, "dim")
    under = Text(" " * (len(lo) + 2))
    if ours_col is not None:
        label = "ours fell out" if ours_fell_out else "ours"
        pad = min(ours_col, max(0, inner - len(label)))
        under.append(" " * pad)
        under.append(label, "bold yellow")
    return [row, under]


def _delta(n) -> str:
    return "-" if n is None else f"{int(n):,}"


def _ours_line(st: ServerState, resource: str, width: int, named: bool) -> Text:
    """Where an informer's watcher is in its resource's window, in the words
    that fit ``width``; ``named``: several informers, so the resource is said."""
    ours = st.ours(resource)
    rv = ours.rv if ours is not None else str((st.windows.get(resource) or {}).get("ours_rv", ""))
    who = Text.assemble(("ours  ", "bold"), (f"{resource} " if named else "", "bold yellow"))
    if ours is None and not rv:
        return who + Text("no watch of ours is open now (between a watch and a relist)", "yellow")
    for short in (False, True):
        line = who + _ours_words(st, resource, rv, short)
        if line.cell_len <= width:
            break
    return line


def _ours_words(st: ServerState, resource: str, rv: str, short: bool) -> Text:
    line = Text(f"RV {rv or '-'}")
    behind = st.rv_behind(rv, resource) if rv else None
    if behind is not None:
        line.append(
            f" · RV Δ {_delta(behind)}"
            if short
            else f" · RV Δ {_delta(behind)} to the window's newest (revisions, not events)"
        )
    pos = st.position(rv, resource) if rv else None
    if pos is not None and pos < 0:
        line.append(
            " · fell out: 410 next" if short else " · fallen out of the window: 410 on its next read", "bold red"
        )
    elif pos is not None:
        line.append(" · in the window", "green")
    return line


def _watcher_rows(st: ServerState, budget: int) -> list[Text]:
    if budget <= 0:
        return []
    rows = [Text(f"  {'watcher':<12} {'RV':>10} {'RV Δ':>7} {'sent':>7}", style="bold")]
    ordered = sorted(st.watchers, key=lambda w: (not w.ours, w.id))  # ours first: it is why you look
    for wt in ordered[: budget - 1]:
        rows.append(_watcher_row(st, wt))
    if len(st.watchers) > budget - 1 and budget > 1:
        rows[-1] = Text(f"  … {len(st.watchers) - (budget - 2)} more watchers", style="dim")
    if not st.watchers:
        rows.append(Text("  no watchers open now", style="dim"))
    return rows[:budget]


def _watcher_row(st: ServerState, wt: Watcher) -> Text:
    behind = st.rv_behind(wt.rv)
    pos = st.position(wt.rv)
    name = wt.id if len(wt.id) <= 12 else wt.id[:11] + "…"
    row = Text.assemble(
        "  ", (f"{name:<12}", "bold yellow" if wt.ours else ""), f" {wt.rv or '-':>10} {_delta(behind):>7} {wt.sent:>7}"
    )
    if pos is not None and pos < 0:
        row.append("  fell out (410)", "bold red")
    if wt.ours:
        row.append("  ◀ ours", "bold yellow")
    return row


def _happenings(st: ServerState, now: float | None, budget: int) -> list[Text]:
    """What the server did to our watch, newest first, under a head line."""
    if budget < 2 or not st.happenings:
        return []
    rows = [Text("  recent", style="bold")]
    for t, words, bad in reversed(st.happenings):
        if len(rows) >= budget:
            break
        age = f"{fmt_secs(max(0.0, now - t))} ago" if now is not None else ""
        rows.append(Text.assemble(f"  {age:>9}  ", (words, "red" if bad else "")))
    return rows


def _outcomes(st: ServerState) -> Text:
    """What the server did to our watch, counted."""
    t = Text.assemble(
        ("server did  ", "bold"),
        ("410 ×", ""),
        (str(st.gone), "bold red" if st.gone else "dim"),
        " · too large ×",
        (str(st.too_large), "bold red" if st.too_large else "dim"),
        " · re-inits ×",
        (str(st.reinits), "bold red" if st.reinits else "dim"),
        f" · our relists {st.relists}",
    )
    if st.too_large_last is not None:
        req, cur = st.too_large_last
        t.append(f" · last too large: asked {req}, server at {cur}", "dim")
    return t


def _sim_lines(st: ServerState, w: dict, now: float | None, width: int, height: int) -> list[Text]:
    """The simulator's window ``w``, exact."""
    head = Text.assemble(
        ("Server", "bold"),
        "  window ",
        (f"{w['events']}/{w['capacity']}", "bold cyan"),
        " events · turnover ",
        (f"{w['turnover']:.1f}/s", "bold"),
        f" · {st.resource or '?'} · simulator, exact",
    )
    cache = Text.assemble(
        ("cache  ", "bold"),
        f"RV {w.get('oldest_rv', '')}-{w.get('newest_rv', '')} · "
        f"bookmarks sent {w['bookmarks_sent']} · initialisations {w['initialisations']}",
    )
    named = len(st.order) > 1
    ours = [_ours_line(st, r, width, named) for r in st.order if r in st.windows]
    lines = [head, *_window_bar(st, w, width), *ours, cache, _outcomes(st)]
    if height < 8 + len(ours) - 1:  # the bar's label row goes first, then the counters
        lines = [head, lines[1], *ours, cache, _outcomes(st)]
    rest = height - len(lines)
    # The watchers first; up to 7 rows kept for what the server did, if it did anything.
    recent = min(7, len(st.happenings) + 1) if st.happenings else 0
    lines.extend(_watcher_rows(st, min(max(2, len(st.watchers) + 1), max(2, rest - recent))))
    lines.extend(_happenings(st, now, height - len(lines)))
    return lines


SERIES = {
    "group": "series {group, resource}: kube-apiserver 1.34+",
    "qualified": "series {resource=NAME.GROUP}: kube-apiserver 1.30-1.33",
    "": "no watch-cache series for it on this page",
}


def _rv_line(m: dict) -> Text:
    cache_rv = m.get("cache_rv") or ""
    if not cache_rv:
        why = "not on the page (exported from 1.31)" if m.get("series") == "qualified" else "not on the page"
        return Text.assemble(("RV     ", "bold"), f"watch cache RV {why} · ours {m.get('ours_rv') or '-'}")
    behind = m.get("rv_behind")
    return Text.assemble(
        ("RV     ", "bold"),
        f"watch cache RV {cache_rv} · ours {m.get('ours_rv') or '-'} · ",
        (f"RV Δ {_delta(behind)}", "bold yellow" if behind else "bold green"),
        (" revisions (etcd's, every resource's; progress notifications move the cache's too)", "dim"),
    )


def _other_resource(resource: str, m: dict) -> Text:
    """One line for another informer's resource (several informers)."""
    cache_rv = m.get("cache_rv") or "-"
    return Text.assemble(
        ("  " + resource, "bold yellow"),
        f"  cache RV {cache_rv} · ours {m.get('ours_rv') or '-'} · RV Δ {_delta(m.get('rv_behind'))}"
        f" · received {_rate(m.get('events_received_per_s'))} · capacity {_num(m.get('capacity'))}"
        f" · terminated {_num(m.get('terminated_watchers'))}",
    )


def _metrics_lines(st: ServerState, m: dict, now: float | None, height: int) -> list[Text]:
    """A real API server's watch cache, from the metrics ``m`` scraped."""
    ago = f"scraped {fmt_secs(now - st.metrics_at)} ago" if now is not None and st.metrics_at is not None else ""
    head = Text.assemble(
        ("Server", "bold"),
        f"  {st.resource or '?'} · from /metrics · {ago} ({st.scrapes} scrape{'' if st.scrapes == 1 else 's'}) · ",
        (SERIES.get(str(m.get("series") or ""), ""), "dim") if "series" in m else "",
    )
    p99 = m.get("read_wait_p99")
    wait = "-" if p99 is None else f"≈ {fmt_secs(p99)} (estimated, bucket {m.get('read_wait_bucket') or '?'} s)"
    others = [_other_resource(r, st.metrics_of[r]) for r in st.order[1:] if r in st.metrics_of]
    lines = [
        head,
        _rv_line(m),
        Text.assemble(
            ("events ", "bold"),
            f"received {_rate(m.get('events_received_per_s'))} · "
            f"dispatched {_rate(m.get('events_dispatched_per_s'))} · "
            f"slow watchers terminated {_num(m.get('terminated_watchers'))}",
        ),
        Text.assemble(
            ("cache  ", "bold"),
            f"capacity {_num(m.get('capacity'))} events · "
            f"initialisations {_num(m.get('initialisations'))} · "
            f"open watches {_num(m.get('open_watches'))} · objects {_num(m.get('objects'))}",
        ),
        Text.assemble(
            ("reads  ", "bold"),
            f"consistent: from cache {_num(m.get('consistent_reads_cache'))} · "
            f"answered by etcd {_num(m.get('consistent_reads_fallback'))} · "
            f"failed {_num(m.get('consistent_reads_failed'))}",
        ),
        Text.assemble(("wait   ", "bold"), f"read-wait p99 {wait}"),
        *others,
        _outcomes(st),
    ]
    return [*lines, *_happenings(st, now, height - len(lines))]


def _forbidden_lines(st: ServerState, f: dict) -> list[Text]:
    """The scrape refused (``f``: the last server.forbidden's fields), and the rule that allows it."""
    rule = str(f.get("rule") or METRICS_RULE)
    return [
        Text.assemble(
            ("Server", "bold"),
            "  ",
            (f"/metrics refused ({f.get('status', '?')})", "bold red"),
            ": the API server's watch cache cannot be shown",
        ),
        Text(f"  {f.get('message') or ''}", style="dim"),
        Text("Your user may not read the API server's /metrics. A ClusterRole with this rule allows it:"),
        Text(f"  rules: - {rule}", style="bold"),
        Text("  kubectl create clusterrole metrics-reader --verb=get --non-resource-url=/metrics", style="cyan"),
        Text(
            "  kubectl create clusterrolebinding metrics-reader --clusterrole=metrics-reader --user=YOU", style="cyan"
        ),
        _outcomes(st),
    ]


def _empty_lines(st: ServerState) -> list[Text]:
    return [
        Text.assemble(("Server", "bold"), "  the API server's watch cache: no figures yet"),
        Text(
            "On the simulator (--demo), the watch cache's window and every watcher's position in it (ours "
            "marked, one per informer) appear once the first watch is open."
        ),
        Text(
            "On a real cluster, the API server's /metrics is read every --server-scrape seconds (10 by default): "
            "the cache's RV against ours (a difference of etcd revisions), events/s, capacity, terminated "
            "watchers, initialisations, consistent reads, open watches."
        ),
        Text("A recording made without them shows only what the server did: 410s, too large, re-inits.", style="dim"),
        *([_outcomes(st)] if st.gone or st.too_large or st.reinits or st.relists else []),
    ]


def _wrapped(lines: list[Text], width: int) -> list[Text]:
    """The prose lines of the empty and forbidden views, wrapped to the
    width (a line of one style; a mixed line is cropped by join_lines)."""
    out: list[Text] = []
    for line in lines:
        if line.cell_len <= width or line.spans:
            out.append(line)
            continue
        indent = " " * (len(line.plain) - len(line.plain.lstrip(" ")))
        parts = textwrap.wrap(line.plain, width, subsequent_indent=indent + "  ") or [""]
        out.extend(Text(part, style=line.style) for part in parts)
    return out


@any_size(20, 3)
def render_server(st: ServerState, now: float | None, width: int, height: int) -> Text:
    if now is None:
        now = st.last_time
    if st.forbidden is not None:
        lines = _wrapped(_forbidden_lines(st, st.forbidden), width)
    elif st.source == "sim" and (window := st.window) is not None:
        lines = _sim_lines(st, window, now, width, height)
    elif st.source == "metrics" and (metrics := st.metrics) is not None:
        lines = _metrics_lines(st, metrics, now, height)
    else:
        lines = _wrapped(_empty_lines(st), width)
    return join_lines(lines[:height], width)
